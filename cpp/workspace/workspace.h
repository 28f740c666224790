// cpp/workspace: the Interpreter's in-memory mirror of the caller's /workspace (protocol §2.8, §2.9, §7.11).
//
// The mirror wraps ONE sw::wasi::Workspace for its whole life: a live engine instance's /workspace mount points at
// that object's root node, so nothing here ever replaces the Workspace or its root. Each execution is
//
//     reconcile(dirs, manifest, {}, missing)        // pass 1; if `missing` is not empty, pull those paths and
//     reconcile(dirs, manifest, pulled, missing)    // pass 2; anything still missing is the caller's 500
//     Checkpoint cp = checkpoint();                 // baseline + `before` of protocol §2.9
//     ... the guest runs against workspace() ...
//     error ? rollback(cp) : diff(cp)               // exactly one of the two, before the next reconcile
//
// Paths on this API are absolute ("/workspace/a/b.txt"); the wasi::Workspace underneath speaks root-relative
// paths ("a/b.txt"). Design notes: docs/workspace-mirror.md.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wasi/wasi.h"

namespace sw::workspace {

// protocol §7.11 hashBytes, bit-exact: 16 lower-case hex digits (two 32-bit lanes).
std::string hashBytes(std::string_view data);
// SHA-256 (FIPS 180-4), 64 lower-case hex digits.
std::string sha256Hex(std::string_view data);
// The manifest hash of `data` in the form `like` uses: "sha256:<64 hex>" when `like` starts with "sha256:", else
// hashBytes. Each manifest entry may use either form; comparison is exact (lower-case hex).
std::string hashLike(std::string_view like, std::string_view data);

// A workspace failure as the protocol reports it (protocol §3.7 maps errnoName to the ErrorResponse code).
struct Error {
  std::string errnoName;  // "EACCES", "ENOSPC", ...
  std::string message;    // "Path escapes /workspace: /etc"
};

// protocol §7.11 normalization: empty -> ENOENT "Path is required"; a relative path is joined to `cwd` (absolute);
// "." and empty segments are dropped; ".." pops (above "/" -> EACCES); the first segment must be "workspace", else
// EACCES "Path escapes /workspace: <path as given>". `out` is "/workspace" or "/workspace/<segments>".
bool normalizePath(std::string_view cwd, std::string_view path, std::string& out, Error& err);

// A context's cwd as an engine (or a runtime Worker) reported it, as it may be stored: absolute, normalized under
// /workspace, its root-relative path within `limits` (bytes, depth), no NUL. nullopt for anything else: a forged cwd
// ("/etc/../..") is never stored, whatever reported it.
std::optional<std::string> contextCwd(std::string_view reported, const wasi::WorkspaceLimits& limits = {});

// executeInContext's `workspace` manifest checked once, at the boundary, against `limits` (docs/limits.md): nullopt,
// or the message of the 400 VALIDATION_FAILED, naming the limit. A `dirs` entry or manifest path over the path,
// depth or name limit, a NUL in a path, more manifest files than entries allowed, manifest paths over the total path
// bytes, two manifest keys for one path, a repeated `dirs` entry, a manifest path that is also a directory (the
// root, a `dirs` entry, or the parent of another entry). Paths that escape /workspace are left to reconcile (403
// EACCES, as before); `dirs` has no count limit (protocol §2.8).
std::optional<std::string> checkManifest(const std::vector<std::string>& dirs,
                                         const std::vector<std::pair<std::string, std::string>>& manifest,
                                         const wasi::WorkspaceLimits& limits);

// --- shared by the mirror and the caller's Sandbox (cpp/sandbox), so both speak of paths and limits alike
constexpr std::string_view kRoot = "/workspace";
// "a/b" -> "/workspace/a/b"; "" -> "/workspace".
std::string absoluteOf(std::string_view relative);
// The root-relative form of a normalized absolute path: "/workspace/a/b" -> "a/b", "/workspace" -> "".
std::string_view relativeOf(std::string_view normalized);
// normalizePath against /workspace, then the root-relative form in `relative`. `isFile`: the root cannot be a file
// (EISDIR "Cannot write to the /workspace root").
bool resolvePath(std::string_view path, bool isFile, std::string& normalized, std::string& relative, Error& err);
// The limit failures' wording: EFBIG "File exceeds 1 MiB: <path>", ENOSPC "Workspace exceeds 16 MiB total",
// "Workspace exceeds 4096 entries", "Workspace paths exceed 1 MiB total".
Error fileTooLargeError(const wasi::WorkspaceLimits& limits, std::string_view absolute);
Error totalBytesError(const wasi::WorkspaceLimits& limits);
Error entriesError(const wasi::WorkspaceLimits& limits);
Error pathBytesError(const wasi::WorkspaceLimits& limits);
// Any other errno about `absolute`: EISDIR "Is a directory: <path>", ENOTDIR "Not a directory: <path>", ENAMETOOLONG
// "Name too long: <path>", ENOENT "No such file or directory: <path>", EEXIST "File exists: <path>", ENOTEMPTY
// "Directory not empty: <path>", EINVAL "Invalid path: <path>"; else "Cannot write <path>".
Error pathError(wasi::Errno e, std::string_view absolute);

// A file crossing the protocol: absolute path, raw bytes, epoch milliseconds (protocol §2.7 WorkspaceFileEntry).
struct File {
  std::string path;
  std::string data;
  double updatedAt = 0;
};

// Epoch milliseconds <-> node mtime in nanoseconds. NaN and negative -> 0; whole milliseconds convert exactly;
// mtime -> updatedAt rounds down to whole milliseconds (what Date.now() gives every other updatedAt).
uint64_t mtimeFromUpdatedAt(double updatedAt);
double updatedAtFromMtime(uint64_t mtimeNs);

class Mirror {
 public:
  // A known manifest hash of one file's bytes, per hash form (empty = not known). `size` guards the entry: it is
  // only believed while the file still has that many bytes.
  struct KnownHash {
    uint64_t size = 0;
    std::string bytesHash;   // hashBytes form
    std::string sha256Hash;  // "sha256:<hex>" form
  };

  // The state right after reconciliation: protocol §2.9's baseline and `before` in one. Root-relative paths, sorted.
  struct Checkpoint {
    struct FileCopy {
      std::string path;
      std::string data;  // a copy: rollback needs the old bytes back
      uint64_t mtimeNs = 0;
      KnownHash hash;    // the hash cache's entry for these bytes, if any (restored by rollback)
    };
    std::vector<FileCopy> files;
    std::vector<std::string> dirs;
  };

  // Created + updated files since the checkpoint (current bytes, updatedAt from the mtime) and deleted file paths;
  // absolute paths, sorted. Directories are never diffed (protocol §2.9: they travel as the full dirs() list).
  struct Diff {
    std::vector<File> files;
    std::vector<std::string> deleted;
  };

  explicit Mirror(wasi::WorkspaceLimits limits = {});
  // Not copyable: two mirrors over one tree would keep two hash caches, and only one would hear of changes.
  Mirror(const Mirror&) = delete;
  Mirror& operator=(const Mirror&) = delete;
  Mirror(Mirror&&) = default;
  Mirror& operator=(Mirror&&) = default;
  // The tree the guest's host mounts at /workspace: the same object (and root node) for the mirror's whole life.
  const std::shared_ptr<wasi::Workspace>& workspace() const { return workspace_; }
  bool disabled() const { return workspace_->disabled(); }
  void setDisabled(bool disabled) { workspace_->setDisabled(disabled); }

  // protocol §2.8 steps 1-5 in order: create `dirs` (intermediates too, a non-directory in the way replaced, no entry
  // limit), write `files` (updatedAt kept, parents created, the limits apply), delete files not in `manifest`,
  // delete directories not in `dirs` (deepest first, with their subtrees), then `missing` = every manifest path that
  // is absent or whose hash (in the manifest entry's form) differs, normalized and sorted. Every path is normalized
  // against /workspace first (escaping -> EACCES, nothing changed); the root as a file path -> EISDIR. On a failure
  // (EFBIG / ENOSPC from a write, ...) returns false with `err` and the mirror is exactly as before the call (tree,
  // counters, hash cache): a checkpoint taken when steps 1-2 would change anything is rolled back.
  bool reconcile(const std::vector<std::string>& dirs, const std::vector<std::pair<std::string, std::string>>& manifest,
                 std::vector<File> files, std::vector<std::string>& missing, Error& err);

  Checkpoint checkpoint() const;
  // Restores the tree to `cp` in place: the root and every surviving node stay the same objects, totalBytes and
  // entryCount end exactly as at the checkpoint, the disabled flag is untouched; the hash cache becomes cp's.
  void rollback(const Checkpoint& cp);
  // Compares bytes exactly (not hashes) and forgets the cached hash of every path it reports.
  Diff diff(const Checkpoint& cp);
  // Every directory, absolute, sorted, root excluded.
  std::vector<std::string> dirs() const;
  // Empty tree (root kept), disabled = false, hash cache dropped.
  void clear();

  // Diagnostics: bytes hashed by reconcile so far (the cache's job is to keep this flat), and cached paths.
  uint64_t hashedBytes() const { return hashedBytes_; }
  std::size_t cachedHashes() const { return hashes_.size(); }

 private:
  // THE CACHE INVARIANT: an entry hashes_[p] exists only while the file at root-relative path p holds exactly the
  // bytes the entry's hashes were computed from. The mirror keeps it by
  //   * reconcile: a written file's entry is replaced by the hash of the bytes written; every path it deletes or
  //     replaces with a directory is erased; a miss is filled from the bytes in the tree;
  //   * diff: every path it reports (created, updated, deleted) is erased -- the guest is the only other writer,
  //     and the exact byte comparison finds everything it changed since the checkpoint;
  //   * rollback: the cache becomes the checkpoint's copy, which described exactly the bytes restored;
  //   * clear: everything is erased.
  // So between checkpoint() and the next reconcile the caller MUST call diff() or rollback() (the flow above);
  // any other host-side write through workspace() must be followed by clear(). As a cheap second line, an entry is
  // only believed while its file's size still matches.

  // The hash of `data` (the bytes now at `path`) in the form of `like`, from the cache or computed and cached.
  const std::string& hashOf(const std::string& path, std::string_view data, std::string_view like);
  void forget(std::string_view path);
  void forgetUnder(std::string_view dir);  // the directory and its whole subtree

  std::shared_ptr<wasi::Workspace> workspace_;
  std::map<std::string, KnownHash, std::less<>> hashes_;  // root-relative path -> hashes of its current bytes
  uint64_t hashedBytes_ = 0;
};

}  // namespace sw::workspace
