// cpp/sandbox/files.h: the caller Sandbox's /workspace (protocol §7.7, §7.10, §7.11): one sw::wasi::Workspace (the same
// tree type, limits and errno model as the Interpreter's mirror in cpp/workspace) plus the files-API operations, the
// manifest the Sandbox sends with every context execute, the getFiles answer, the application of an execution's
// workspace diff, and the rows of the `files` table.
//
// Every mutating operation reports what it changed as a Changes value so the Durable Object can persist exactly
// those rows in the same call (protocol §7.7 "persisted immediately", §7.5 step 8 "in one transaction"). A failed
// operation changes nothing: it is checked in full before the tree is touched (or undone), so nothing half-written
// survives.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wasi/wasi.h"
#include "workspace/workspace.h"

namespace sw::sandbox {

// A files-API failure (protocol §3.7 maps errnoName to the ErrorResponse code; §7.7 puts these into `context`).
struct FileError {
  std::string errnoName;  // "ENOENT", "EACCES", "EFBIG", "ENOSPC", "EISDIR", "ENOTDIR", "EEXIST", "ENOTEMPTY", "EINVAL"
  std::string message;    // "Path escapes /workspace: /etc/passwd", "Workspace exceeds 16 MiB total", ...
  // EFBIG only: protocol §10.7 item 160 (context.maxSize / context.actualSize).
  uint64_t maxSize = 0;
  uint64_t actualSize = 0;
};

// One row of the `files` table (protocol §7.10): a directory has directory = true, no data and updatedAt 0.
struct Row {
  std::string path;  // absolute, normalized ("/workspace/a/b.txt")
  bool directory = false;
  std::string data;
  double updatedAt = 0;  // epoch ms
};

// What one operation changed, to persist: rows to insert or replace, then absolute paths to delete (a removed
// directory lists itself and every path below it).
struct Changes {
  std::vector<Row> upserts;
  std::vector<std::string> deletes;
  bool empty() const { return upserts.empty() && deletes.empty(); }
};

// One entry of `list` (protocol §7.7 FileInfo; the Durable Object adds mode, permissions and modifiedAt of directories).
struct ListEntry {
  std::string name;
  std::string absolutePath;
  std::string relativePath;  // relative to the listed directory
  bool directory = false;
  uint64_t size = 0;
  double updatedAt = 0;  // files only
};

class Files {
 public:
  explicit Files(wasi::WorkspaceLimits limits = {});
  Files(const Files&) = delete;
  Files& operator=(const Files&) = delete;

  // --- files API (protocol §7.7, §7.11). `path` as sent by the caller; a relative path resolves under /workspace.
  // `normalized` receives the normalized absolute path whenever normalization succeeded (even if the op failed).
  bool read(std::string_view path, std::string& normalized, std::string& bytes, FileError& err) const;
  bool write(std::string_view path, std::string_view bytes, double now, std::string& normalized, Changes& changes,
             FileError& err);
  bool mkdir(std::string_view path, bool recursive, std::string& normalized, Changes& changes, FileError& err);
  bool remove(std::string_view path, bool recursive, bool force, std::string& normalized, Changes& changes,
              FileError& err);
  // rename and move are the same operation (protocol §11 item 14).
  bool rename(std::string_view path, std::string_view newPath, std::string& normalized, std::string& newNormalized,
              Changes& changes, FileError& err);
  // Parent before children; `includeHidden` false drops entries with any relativePath segment starting with '.'.
  bool list(std::string_view path, bool recursive, bool includeHidden, std::string& normalized,
            std::vector<ListEntry>& out, FileError& err) const;
  // Never fails: false for invalid or escaping paths; the root exists.
  bool exists(std::string_view path) const;

  // --- what a context execute sends and answers (protocol §2.7, §2.8, §7.5)
  // Every directory, absolute, sorted, root excluded.
  std::vector<std::string> dirs() const;
  // Absolute path -> "sha256:<64 hex>" of every file, sorted by path. Hashes are cached per file and recomputed only
  // for bytes that changed since they were computed.
  std::vector<std::pair<std::string, std::string>> manifest() const;
  // The getFiles answer: the requested paths that are files here, with bytes and updatedAt; others are skipped. Each
  // answer carries its path exactly as requested (the interpreter matches answers against its request).
  std::vector<workspace::File> filesFor(const std::vector<std::string>& paths) const;
  // protocol §7.5 step 8: create `dirs`, write `files` (updatedAt kept), remove `deleted`, then remove directories not in
  // `dirs` deepest first with their subtrees. The interpreter already enforced the limits on its mirror; a diff that
  // breaks them here anyway (or names an escaping path) fails with nothing changed. The end state is that order's, but
  // removals run first, so a result that fits the limits never trips them midway (docs/sandbox-files.md).
  // The parents of listed directories are kept.
  bool apply(const std::vector<std::string>& dirs, const std::vector<workspace::File>& files,
             const std::vector<std::string>& deleted, Changes& changes, FileError& err);

  // --- persistence (protocol §7.10) and info (§7.8)
  std::vector<Row> rows() const;
  // Replaces the whole tree with `rows` (any order; parents are created as needed). False if the rows are invalid
  // (escaping path, over a limit); the tree is then empty.
  bool load(const std::vector<Row>& rows, FileError& err);
  void clear();
  uint32_t entryCount() const;  // files and directories
  uint64_t totalBytes() const;  // file bytes
  // Diagnostics: file bytes manifest() has hashed so far (the cache keeps this flat while nothing changes).
  uint64_t hashedBytes() const { return hashedBytes_; }

 private:
  // Every operation that changes a file's bytes or removes it forgets its cached hash (and a directory's whole
  // subtree), so an entry exists only while its file holds the bytes it was computed from; its size is a second check.
  void forget(std::string_view absolute) const;
  void forgetUnder(std::string_view absolute) const;

  std::shared_ptr<wasi::Workspace> tree_;
  // Absolute path -> {size, "sha256:<hex>"} of that file's current bytes (the manifest's cache).
  mutable std::map<std::string, std::pair<uint64_t, std::string>, std::less<>> hashes_;
  mutable uint64_t hashedBytes_ = 0;
};

// protocol §7.7 mimeType by lower-cased extension, `binary` deciding the fallback.
std::string_view mimeTypeOf(std::string_view path, bool binary);
// protocol §7.7 isBinary: not valid UTF-8, or contains a NUL byte.
bool isBinary(std::string_view bytes);

}  // namespace sw::sandbox
