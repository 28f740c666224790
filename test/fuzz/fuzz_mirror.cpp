// libFuzzer target: the Interpreter's workspace mirror (cpp/workspace/mirror.cpp) against a hostile executeInContext
// workspace (dirs + manifest), a hostile getFiles answer, and a guest that writes, removes and makes directories
// between checkpoint() and diff()/rollback(). Small limits, so EFBIG / ENOSPC / ENAMETOOLONG are reached.
//
// Input: lines ('\n'); the first byte of a line is the op, the rest its argument (text, so the seeds are text):
//   d<path>            a directory of the next round's workspace.dirs
//   m<path> <hash>     a manifest entry; <hash> "=" is the hashBytes of the round's pulled file of that path (or of
//                      ""), "+" the sha256 form of it, anything else is taken as given
//   f<path> <data>     an entry of the round's getFiles answer (updatedAt = the data's length)
//   r                  the round: reconcile pass 1, pass 2 with the answer if anything is missing, checkpoint
//   w<path> <data> / x<path> / k<path> / n<from> <to>   the guest: write, remove, make directories, rename
//   e / g              the round ends: rollback (the guest failed) / diff (the guest succeeded)
// Invariants (a violation traps):
//   * a failed reconcile leaves the tree, its counters and every file's bytes and mtime exactly as they were;
//   * rollback restores exactly the checkpoint (files, bytes, mtimes, dirs, totalBytes, entryCount);
//   * the diff applied to a copy of the checkpoint's files gives exactly the files now in the tree;
//   * after either, a reconcile with the tree's own dirs and a manifest of its files' hashes (in both forms) finds
//     nothing missing and changes nothing (the hash cache describes the bytes in the tree).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "workspace/workspace.h"

using namespace sw;
using namespace sw::workspace;

namespace {

#define EXPECT(cond)               \
  do {                             \
    if (!(cond)) __builtin_trap(); \
  } while (0)

struct State {
  std::map<std::string, std::pair<std::string, uint64_t>> files;  // root-relative -> bytes, mtime
  std::vector<std::string> dirs;
  uint64_t totalBytes = 0;
  uint32_t entries = 0;
  bool operator==(const State&) const = default;
};

State stateOf(const Mirror& mirror) {
  State s;
  mirror.workspace()->forEach([&](const wasi::Workspace::Entry& e) {
    if (e.directory) {
      s.dirs.push_back(e.path);
    } else {
      s.files[e.path] = {std::string(e.data), e.mtimeNs};
    }
  });
  std::sort(s.dirs.begin(), s.dirs.end());
  s.totalBytes = mirror.workspace()->totalBytes();
  s.entries = mirror.workspace()->entryCount();
  return s;
}

std::pair<std::string, std::string> splitArg(std::string_view arg) {
  std::size_t space = arg.find(' ');
  if (space == std::string_view::npos) return {std::string(arg), ""};
  return {std::string(arg.substr(0, space)), std::string(arg.substr(space + 1))};
}

// The mirror's own state, offered back as the next request: nothing may be missing and nothing may change.
void checkSelfReconcile(Mirror& mirror, bool sha) {
  const State before = stateOf(mirror);
  std::vector<std::pair<std::string, std::string>> manifest;
  for (const auto& [path, file] : before.files) {
    manifest.emplace_back(absoluteOf(path), sha ? "sha256:" + sha256Hex(file.first) : hashBytes(file.first));
  }
  std::vector<std::string> missing;
  Error err;
  EXPECT(mirror.reconcile(mirror.dirs(), manifest, {}, missing, err));
  EXPECT(missing.empty());
  EXPECT(stateOf(mirror) == before);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 8192) return -1;
  wasi::WorkspaceLimits limits;
  limits.maxFileBytes = 64;
  limits.maxTotalBytes = 256;
  limits.maxEntries = 24;
  limits.maxPathBytes = 48;
  limits.maxDepth = 6;
  limits.maxPathTotalBytes = 400;
  Mirror mirror(limits);

  std::vector<std::string> dirs;
  std::vector<std::pair<std::string, std::string>> manifest;  // hash "=" / "+" resolved at the round
  std::vector<File> answer;
  bool inRound = false;
  Mirror::Checkpoint cp;
  State atCheckpoint;

  std::string_view input(reinterpret_cast<const char*>(data), size);
  while (!input.empty()) {
    std::size_t nl = input.find('\n');
    std::string_view line = input.substr(0, nl);
    input = nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);
    if (line.empty()) continue;
    const char op = line[0];
    const std::string_view arg = line.substr(1);
    auto [a, b] = splitArg(arg);
    wasi::Workspace& ws = *mirror.workspace();
    switch (op) {
      case 'd': dirs.emplace_back(arg); break;
      case 'm': manifest.emplace_back(a, b); break;
      case 'f': answer.push_back(File{a, b, double(b.size())}); break;
      case 'r': {
        if (inRound) break;
        std::vector<std::pair<std::string, std::string>> resolved;
        for (const auto& [path, hash] : manifest) {
          std::string bytes;
          for (const File& f : answer) {
            if (f.path == path) bytes = f.data;
          }
          resolved.emplace_back(path, hash == "=" ? hashBytes(bytes) : hash == "+" ? "sha256:" + sha256Hex(bytes) : hash);
        }
        std::vector<std::string> missing;
        Error err;
        State before = stateOf(mirror);
        bool ok = mirror.reconcile(dirs, resolved, {}, missing, err);
        if (ok && !missing.empty()) {
          for (const std::string& m : missing) EXPECT(m.substr(0, 10) == "/workspace");
          before = stateOf(mirror);
          ok = mirror.reconcile(dirs, resolved, answer, missing, err);
        }
        dirs.clear();
        manifest.clear();
        answer.clear();
        if (!ok) {
          EXPECT(!err.errnoName.empty() && !err.message.empty());
          EXPECT(stateOf(mirror) == before);
          break;
        }
        cp = mirror.checkpoint();
        atCheckpoint = stateOf(mirror);
        inRound = true;
        break;
      }
      // The guest only writes between checkpoint() and diff()/rollback() (the cache protocol of workspace.h).
      case 'w': if (inRound) ws.writeFile(a, b, 1000000ull * (b.size() + 7)); break;
      case 'x': if (inRound) ws.remove(std::string(arg)); break;
      case 'k': if (inRound) ws.makeDirectories(std::string(arg)); break;
      case 'n': if (inRound) ws.rename(a, b); break;
      case 'e':
        if (!inRound) break;
        mirror.rollback(cp);
        EXPECT(stateOf(mirror) == atCheckpoint);
        checkSelfReconcile(mirror, false);
        inRound = false;
        break;
      case 'g': {
        if (!inRound) break;
        // The caller applies the diff to its copy of the old tree (its files only: dirs travel as the full list).
        std::map<std::string, std::string> applied;
        for (const auto& f : cp.files) applied[absoluteOf(f.path)] = f.data;
        Mirror::Diff d = mirror.diff(cp);
        for (const std::string& p : d.deleted) EXPECT(applied.erase(p) == 1);
        for (const File& f : d.files) applied[f.path] = f.data;
        std::map<std::string, std::string> now;
        for (const auto& [path, file] : stateOf(mirror).files) now[absoluteOf(path)] = file.first;
        EXPECT(applied == now);
        checkSelfReconcile(mirror, true);
        inRound = false;
        break;
      }
      default: break;
    }
  }
  return 0;
}
