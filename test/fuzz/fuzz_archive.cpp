// libFuzzer target: the /stdlib archive parser (cpp/wasi/archive.cpp: a stored zip or a ustar/pax tar) on the raw
// input, then every entry it reports is listed and read in full. Anything must be rejected with an error or accepted
// without a crash, leak, sanitizer report or out-of-bounds access; every accepted file's bytes must lie inside the
// archive buffer, and the tree must be well formed. A violated invariant traps.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "wasi/internal.h"

using namespace sw::wasi;
using namespace sw::wasi::detail;

namespace {

#define EXPECT(cond)               \
  do {                             \
    if (!(cond)) __builtin_trap(); \
  } while (0)

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 20)) return -1;
  std::string error;
  auto archive = Archive::parse(std::vector<uint8_t>(data, data + size), error);
  if (!archive) {
    EXPECT(!error.empty());
    return 0;
  }
  EXPECT(archive->root() && archive->root()->isDir());
  // Walk the tree and every mount's (`.mounts`) iteratively (a tree is as deep as its longest path), reading every
  // file's bytes. A mount is a plain absolute path, its root a directory taken out of the tree.
  uint32_t files = 0;
  volatile uint8_t sink = 0;
  std::vector<const Node*> stack{archive->root().get()};
  EXPECT(archive->root()->children.count(Archive::kMountsFile) == 0);
  for (const auto& m : archive->mounts()) {
    EXPECT(m.guestPath.size() > 1 && m.guestPath.front() == '/' && m.guestPath.find("//") == std::string::npos);
    EXPECT(m.root && m.root->isDir() && m.root->parent == nullptr);
    stack.push_back(m.root.get());
  }
  while (!stack.empty()) {
    const Node* dir = stack.back();
    stack.pop_back();
    for (const auto& [name, child] : dir->children) {
      EXPECT(!name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos);
      EXPECT(name.find('\0') == std::string::npos);
      EXPECT(child->parent == dir);
      if (child->isDir()) {
        stack.push_back(child.get());
        continue;
      }
      EXPECT(child->kind == NodeKind::File);
      files++;
      const uint8_t* bytes = child->bytes();
      const uint64_t n = child->size();
      EXPECT(n <= size);
      uint8_t x = 0;
      for (uint64_t i = 0; i < n; i++) x ^= bytes[i];  // ASan: every byte must be readable
      sink = sink ^ x;
    }
  }
  EXPECT(files == archive->fileCount());
  return 0;
}
