// libFuzzer target: random sequences of path syscalls (symlinks and following them included) against a host with a
// small workspace, with and without the reference policy.
// Invariants checked after every call: no descriptor's node lies outside its preopen, every parent pointer matches
// the tree, the workspace counters equal a recount of the tree, and the read-only trees never change.
#include <cstdlib>
#include <cstring>

#include "wasi/internal.h"

using namespace sw::wasi;
using namespace sw::wasi::detail;

namespace {

void require(bool ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "invariant violated: %s\n", what);
    abort();
  }
}

void checkTree(const Node& dir, uint32_t& entries, uint64_t& bytes) {
  for (const auto& [name, child] : dir.children) {
    require(child->parent == &dir, "parent pointer");
    require(!name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos, "entry name");
    require(child->mount == dir.mount, "mount tag");
    entries += 1;
    if (child->kind == NodeKind::File) bytes += child->size();
    checkTree(*child, entries, bytes);
  }
}

struct Input {
  const uint8_t* p;
  size_t n;
  uint8_t byte() {
    if (!n) return 0;
    --n;
    return *p++;
  }
  std::string text(size_t max) {
    size_t len = std::min<size_t>(byte() % (max + 1), n);
    std::string s(reinterpret_cast<const char*>(p), len);
    p += len;
    n -= len;
    return s;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  HostOptions o;
  o.workspace = std::make_shared<Workspace>(WorkspaceLimits{64, 256, 16});
  o.referencePolicy = (size & 1) == 0;
  Host host(std::move(o));
  VectorMemory mem(1 << 16);
  host.setMemory(&mem);
  Workspace& ws = *host.workspace();
  Input in{data, size};
  constexpr uint32_t kPath = 1024, kOut = 8192, kIov = 8200, kData = 9000;
  for (int step = 0; step < 64 && in.n; ++step) {
    uint8_t op = in.byte() % 11;
    uint32_t fd = in.byte() % 10;
    std::string path = in.text(40);
    std::memcpy(mem.bytes().data() + kPath, path.data(), path.size());
    uint32_t len = uint32_t(path.size());
    switch (op) {
      case 0: path_open(host, fd, 0, kPath, len, in.byte() & 0xf, right::All, right::All, in.byte() & 1, kOut); break;
      case 1: path_create_directory(host, fd, kPath, len); break;
      case 2: path_remove_directory(host, fd, kPath, len); break;
      case 3: path_unlink_file(host, fd, kPath, len); break;
      case 4: {
        std::string to = in.text(20);
        std::memcpy(mem.bytes().data() + kPath + 512, to.data(), to.size());
        path_rename(host, fd, kPath, len, in.byte() % 10, kPath + 512, uint32_t(to.size()));
        break;
      }
      case 5: {
        detail::put32(mem.bytes().data() + kIov, kData);
        detail::put32(mem.bytes().data() + kIov + 4, in.byte());
        fd_write(host, fd, kIov, 1, kOut);
        break;
      }
      case 6: fd_readdir(host, fd, kData, in.byte(), in.byte() % 8, kOut); break;
      case 7: fd_close(host, fd); break;
      case 8: ws.setDisabled(!ws.disabled()); break;
      case 9: {  // a symbolic link (only with the reference policy off); its target from the input
        std::string target = in.text(20);
        std::memcpy(mem.bytes().data() + kPath + 512, target.data(), target.size());
        path_symlink(host, kPath + 512, uint32_t(target.size()), fd, kPath, len);
        break;
      }
      case 10: path_open(host, fd, 1, kPath, len, in.byte() & 0xf, right::All, right::All, 0, kOut); break;
    }
    uint32_t entries = 0;
    uint64_t bytes = 0;
    checkTree(*ws.root(), entries, bytes);
    require(entries == ws.entryCount(), "entry count");
    require(bytes == ws.totalBytes(), "byte count");
    require(entries <= 16 && bytes <= 256, "limits");
    for (uint32_t i = 0; i < 10; ++i) {
      const FdEntry* e = host.state().fds.get(i);
      if (!e || !e->root) continue;
      require(e->node->mount == e->root->mount, "descriptor left its mount");
      if (e->node->linked() || e->node == e->root) require(isAncestor(e->root.get(), e->node.get()), "escape");
    }
  }
  return 0;
}
