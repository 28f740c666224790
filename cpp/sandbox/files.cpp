// The caller Sandbox's /workspace: the files API, the manifest and getFiles answer, a result's diff, the rows
// (protocol §7.5 step 8, §7.7, §7.10, §7.11). Design notes: docs/sandbox-files.md.
#include "sandbox/files.h"

#include <algorithm>
#include <set>

#include "json/json.h"

namespace sw::sandbox {
namespace {

using wasi::Errno;
using Entry = wasi::Workspace::Entry;
using workspace::absoluteOf;

FileError fromError(workspace::Error e) { return FileError{std::move(e.errnoName), std::move(e.message)}; }
FileError pathFailure(Errno e, std::string_view absolute) { return fromError(workspace::pathError(e, absolute)); }

FileError tooLarge(const wasi::WorkspaceLimits& limits, std::string_view absolute, uint64_t size) {
  FileError err = fromError(workspace::fileTooLargeError(limits, absolute));
  err.maxSize = limits.maxFileBytes;
  err.actualSize = size;
  return err;
}

// normalizePath against /workspace; `relative` is the root-relative form ("" for the root itself).
bool resolve(std::string_view path, std::string& normalized, std::string& relative, FileError& err) {
  workspace::Error e;
  if (workspace::resolvePath(path, false, normalized, relative, e)) return true;
  normalized.clear();
  err = fromError(std::move(e));
  return false;
}

// What Row/ListEntry report for a node's mtime; a write stores `now` the same way, so both agree.
double updatedAtOf(uint64_t mtimeNs) { return workspace::updatedAtFromMtime(mtimeNs); }

std::string_view parentOf(std::string_view relative) {
  std::size_t slash = relative.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : relative.substr(0, slash);
}

// Whether a new entry at `relative` (normalized, so no empty segments) can never satisfy the path limits; checked
// before any walk so a hostile path costs one pass.
bool overPathLimits(const wasi::WorkspaceLimits& limits, std::string_view relative) {
  return relative.size() > limits.maxPathBytes ||
         uint64_t(std::count(relative.begin(), relative.end(), '/')) + 1 > limits.maxDepth;
}

Row rowOf(const Entry& e) {
  if (e.directory) return Row{absoluteOf(e.path), true, {}, 0};
  return Row{absoluteOf(e.path), false, std::string(e.data), updatedAtOf(e.mtimeNs)};
}

bool hiddenSegment(std::string_view relative) {
  for (std::size_t start = 0; start < relative.size();) {
    if (relative[start] == '.') return true;
    std::size_t slash = relative.find('/', start);
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return false;
}

// The undo log of one apply(): every change to the tree in order, replayed newest first when a later step fails, so
// a failed apply leaves the tree exactly as it was. Removals save what they remove (bytes included).
class Journal {
 public:
  explicit Journal(wasi::Workspace& tree) : tree_(tree) {}

  // Removes the entry at `relative` with its subtree.
  void remove(const std::string& relative) {
    Step step{Step::Removed, relative, {}, false, {}, 0};
    tree_.forEachUnder(relative, [&](const Entry& e) {
      step.saved.push_back(Saved{e.path, e.directory, std::string(e.data), e.mtimeNs});
      touched_.insert(e.path);
    });
    tree_.remove(relative);
    steps_.push_back(std::move(step));
  }

  // Creates the directory `relative`, whose parent exists.
  Errno makeDirectory(const std::string& relative) {
    Errno e = tree_.forceDirectories(relative);
    if (e != Errno::Success) return e;
    steps_.push_back(Step{Step::Created, relative, {}, false, {}, 0});
    touched_.insert(relative);
    return Errno::Success;
  }

  // Writes a file, keeping what it held before.
  Errno writeFile(const std::string& relative, std::string_view data, uint64_t mtimeNs) {
    Step step{Step::Rewrote, relative, {}, false, {}, 0};
    Entry old;
    if (tree_.stat(relative, old) == Errno::Success && !old.directory) {
      step.existed = true;
      step.data.assign(old.data);
      step.mtimeNs = old.mtimeNs;
    }
    Errno e = tree_.writeFile(relative, data, mtimeNs);
    if (e != Errno::Success) return e;  // writeFile changes nothing when it fails
    steps_.push_back(std::move(step));
    touched_.insert(relative);
    return Errno::Success;
  }

  void undo() {
    for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) {
      switch (it->kind) {
        case Step::Created: tree_.remove(it->path); break;
        case Step::Rewrote:
          if (it->existed) {
            tree_.restoreFile(it->path, it->data, it->mtimeNs);
          } else {
            tree_.remove(it->path);
          }
          break;
        case Step::Removed:
          // Pre-order: every directory is back before its children are.
          for (const Saved& s : it->saved) {
            if (s.directory) {
              tree_.forceDirectories(s.path);
            } else {
              tree_.restoreFile(s.path, s.data, s.mtimeNs);
            }
          }
          break;
      }
    }
    steps_.clear();
  }

  // Root-relative paths this apply created, rewrote or removed (sorted: parents before children).
  const std::set<std::string>& touched() const { return touched_; }

 private:
  struct Saved {
    std::string path;
    bool directory;
    std::string data;
    uint64_t mtimeNs;
  };
  struct Step {
    enum Kind { Created, Removed, Rewrote } kind;
    std::string path;
    std::vector<Saved> saved;  // Removed
    bool existed;              // Rewrote: the file was there before (data, mtimeNs)
    std::string data;
    uint64_t mtimeNs;
  };
  wasi::Workspace& tree_;
  std::vector<Step> steps_;
  std::set<std::string> touched_;
};

}  // namespace

Files::Files(wasi::WorkspaceLimits limits) : tree_(std::make_shared<wasi::Workspace>(limits)) {}

void Files::forget(std::string_view absolute) const {
  if (auto it = hashes_.find(absolute); it != hashes_.end()) hashes_.erase(it);
}

void Files::forgetUnder(std::string_view absolute) const {
  forget(absolute);
  std::string prefix = std::string(absolute) + "/";
  auto it = hashes_.lower_bound(prefix);
  while (it != hashes_.end() && it->first.compare(0, prefix.size(), prefix) == 0) it = hashes_.erase(it);
}

// --- files API ----------------------------------------------------------------------------------------------------

bool Files::read(std::string_view path, std::string& normalized, std::string& bytes, FileError& err) const {
  std::string relative;
  if (!resolve(path, normalized, relative, err)) return false;
  if (relative.empty()) {
    err = pathFailure(Errno::IsDir, normalized);
    return false;
  }
  Entry e;
  if (Errno x = tree_->stat(relative, e); x != Errno::Success) {
    err = pathFailure(x, normalized);
    return false;
  }
  if (e.directory) {
    err = pathFailure(Errno::IsDir, normalized);
    return false;
  }
  bytes.assign(e.data);
  return true;
}

bool Files::write(std::string_view path, std::string_view bytes, double now, std::string& normalized,
                  Changes& changes, FileError& err) {
  changes = {};
  std::string relative;
  if (!resolve(path, normalized, relative, err)) return false;
  if (relative.empty()) {
    err = FileError{"EISDIR", "Cannot write to the /workspace root"};
    return false;
  }
  const wasi::WorkspaceLimits& limits = tree_->limits();
  if (bytes.size() > limits.maxFileBytes) {
    err = tooLarge(limits, normalized, bytes.size());
    return false;
  }
  // The parent must already be a directory: a write never creates parents (protocol §7.11).
  Entry e;
  if (std::string_view parent = parentOf(relative); !parent.empty()) {
    Errno x = tree_->stat(parent, e);
    if (x == Errno::Success && !e.directory) x = Errno::NotDir;
    if (x != Errno::Success) {
      err = pathFailure(x, normalized);
      return false;
    }
  }
  uint64_t oldSize = 0;
  bool exists = false;
  if (Errno x = tree_->stat(relative, e); x == Errno::Success) {
    if (e.directory) {
      err = pathFailure(Errno::IsDir, normalized);
      return false;
    }
    exists = true;
    oldSize = e.data.size();
  } else if (x != Errno::NoEnt) {
    err = pathFailure(x, normalized);
    return false;
  }
  if (tree_->totalBytes() - oldSize + bytes.size() > limits.maxTotalBytes) {
    err = fromError(workspace::totalBytesError(limits));
    return false;
  }
  if (!exists && tree_->entryCount() >= limits.maxEntries) {
    err = fromError(workspace::entriesError(limits));
    return false;
  }
  const uint64_t mtimeNs = workspace::mtimeFromUpdatedAt(now);
  // Only the path limits are left to refuse it (the others were checked above); writeFile changes nothing then.
  if (Errno x = tree_->writeFile(relative, bytes, mtimeNs); x != Errno::Success) {
    err = x == Errno::NoSpc ? fromError(workspace::pathBytesError(limits)) : pathFailure(x, normalized);
    return false;
  }
  forget(normalized);
  changes.upserts.push_back(Row{normalized, false, std::string(bytes), updatedAtOf(mtimeNs)});
  return true;
}

bool Files::mkdir(std::string_view path, bool recursive, std::string& normalized, Changes& changes, FileError& err) {
  changes = {};
  std::string relative;
  if (!resolve(path, normalized, relative, err)) return false;
  if (relative.empty()) return true;  // the root always exists: a no-op, recursive or not
  const wasi::WorkspaceLimits& limits = tree_->limits();
  // No entry in the tree breaks the path limits, so such a path neither exists nor can be made; refused before any
  // walk, so a hostile path costs one pass.
  if (overPathLimits(limits, relative)) {
    err = pathFailure(Errno::NameTooLong, normalized);
    return false;
  }
  // The first component that does not exist yet; every one before it must be a directory.
  std::vector<std::size_t> ends;  // end offset of each component in `relative`
  for (std::size_t slash = relative.find('/'); slash != std::string::npos; slash = relative.find('/', slash + 1)) {
    ends.push_back(slash);
  }
  ends.push_back(relative.size());
  std::size_t first = 0;
  for (; first < ends.size(); ++first) {
    Entry e;
    Errno x = tree_->stat(std::string_view(relative).substr(0, ends[first]), e);
    if (x == Errno::NoEnt) break;
    if (x != Errno::Success) {
      err = pathFailure(x, normalized);
      return false;
    }
    if (!e.directory) {
      // Non-recursive: the target itself being a file is EEXIST; a file on the way is ENOTDIR (recursive: always).
      err = pathFailure(!recursive && first + 1 == ends.size() ? Errno::Exist : Errno::NotDir, normalized);
      return false;
    }
  }
  if (first == ends.size()) {
    if (recursive) return true;
    err = pathFailure(Errno::Exist, normalized);
    return false;
  }
  if (!recursive && first + 1 < ends.size()) {
    err = pathFailure(Errno::NoEnt, normalized);
    return false;
  }
  if (uint64_t(tree_->entryCount()) + (ends.size() - first) > limits.maxEntries) {
    err = fromError(workspace::entriesError(limits));
    return false;
  }
  if (Errno x = tree_->makeDirectories(relative); x != Errno::Success) {
    // Undo whatever part of the chain was made before the path limits refused the rest.
    tree_->remove(std::string_view(relative).substr(0, ends[first]));
    err = x == Errno::NoSpc ? fromError(workspace::pathBytesError(limits)) : pathFailure(x, normalized);
    return false;
  }
  for (std::size_t i = first; i < ends.size(); ++i) {
    changes.upserts.push_back(Row{absoluteOf(std::string_view(relative).substr(0, ends[i])), true, {}, 0});
  }
  return true;
}

bool Files::remove(std::string_view path, bool recursive, bool force, std::string& normalized, Changes& changes,
                   FileError& err) {
  changes = {};
  std::string relative;
  if (!resolve(path, normalized, relative, err)) return false;
  if (relative.empty()) {
    err = FileError{"EACCES", "Cannot delete the /workspace root"};
    return false;
  }
  Entry e;
  if (Errno x = tree_->stat(relative, e); x != Errno::Success) {
    // Nothing is there (missing, or under a file): `force` asks for exactly that. An invalid or over-long path is
    // still the caller's error.
    if (force && (x == Errno::NoEnt || x == Errno::NotDir)) return true;
    err = pathFailure(x, normalized);
    return false;
  }
  if (e.directory && !recursive) {
    err = pathFailure(Errno::IsDir, normalized);
    return false;
  }
  tree_->forEachUnder(relative, [&](const Entry& sub) { changes.deletes.push_back(absoluteOf(sub.path)); });
  tree_->remove(relative);
  forgetUnder(normalized);
  return true;
}

bool Files::rename(std::string_view path, std::string_view newPath, std::string& normalized,
                   std::string& newNormalized, Changes& changes, FileError& err) {
  changes = {};
  newNormalized.clear();
  std::string from, to;
  if (!resolve(path, normalized, from, err)) return false;
  if (!resolve(newPath, newNormalized, to, err)) return false;
  if (from.empty() || to.empty()) {
    err = FileError{"EACCES", "Cannot rename the /workspace root"};
    return false;
  }
  Entry e;
  if (Errno x = tree_->stat(from, e); x != Errno::Success) {
    err = pathFailure(x, normalized);
    return false;
  }
  if (std::string_view parent = parentOf(to); !parent.empty()) {
    Errno x = tree_->stat(parent, e);
    if (x == Errno::Success && !e.directory) x = Errno::NotDir;
    if (x != Errno::Success) {
      err = pathFailure(x, newNormalized);
      return false;
    }
  }
  if (from == to) return true;
  std::vector<std::string> moved;
  tree_->forEachUnder(from, [&](const Entry& sub) { moved.push_back(absoluteOf(sub.path)); });
  // Workspace::rename checks everything (kinds, emptiness, own subtree, path limits) before it moves anything.
  if (Errno x = tree_->rename(from, to); x != Errno::Success) {
    if (x == Errno::Inval) {
      err = FileError{"EINVAL", "Cannot move a directory into itself: " + newNormalized};
    } else if (x == Errno::NoSpc) {
      err = fromError(workspace::pathBytesError(tree_->limits()));
    } else {
      err = pathFailure(x, newNormalized);
    }
    return false;
  }
  forgetUnder(normalized);
  forgetUnder(newNormalized);
  // Disjoint from the deletes: the destination is never inside the source, nor (being empty or a file) above it.
  tree_->forEachUnder(to, [&](const Entry& sub) { changes.upserts.push_back(rowOf(sub)); });
  changes.deletes = std::move(moved);
  return true;
}

bool Files::list(std::string_view path, bool recursive, bool includeHidden, std::string& normalized,
                 std::vector<ListEntry>& out, FileError& err) const {
  out.clear();
  std::string relative;
  if (!resolve(path, normalized, relative, err)) return false;
  if (!relative.empty()) {
    Entry e;
    Errno x = tree_->stat(relative, e);
    if (x == Errno::Success && !e.directory) x = Errno::NotDir;
    if (x != Errno::Success) {
      err = pathFailure(x, normalized);
      return false;
    }
  }
  const std::size_t base = relative.empty() ? 0 : relative.size() + 1;
  tree_->forEachUnder(relative, [&](const Entry& e) {
    if (e.path.size() < base) return;  // the listed directory itself
    std::string_view below = std::string_view(e.path).substr(base);
    if (!recursive && below.find('/') != std::string_view::npos) return;
    if (!includeHidden && hiddenSegment(below)) return;
    ListEntry item;
    std::size_t slash = e.path.rfind('/');
    item.name = slash == std::string::npos ? e.path : e.path.substr(slash + 1);
    item.absolutePath = absoluteOf(e.path);
    item.relativePath.assign(below);
    item.directory = e.directory;
    if (!e.directory) {
      item.size = e.data.size();
      item.updatedAt = updatedAtOf(e.mtimeNs);
    }
    out.push_back(std::move(item));
  });
  return true;
}

bool Files::exists(std::string_view path) const {
  std::string normalized, relative;
  FileError err;
  if (!resolve(path, normalized, relative, err)) return false;
  if (relative.empty()) return true;
  Entry e;
  return tree_->stat(relative, e) == Errno::Success;
}

// --- what a context execute sends and answers -----------------------------------------------------------------------

std::vector<std::string> Files::dirs() const {
  std::vector<std::string> out;
  tree_->forEach([&](const Entry& e) {
    if (e.directory) out.push_back(absoluteOf(e.path));
  });
  std::sort(out.begin(), out.end());  // pre-order is not byte order ("a/b" walks before "a-b")
  return out;
}

std::vector<std::pair<std::string, std::string>> Files::manifest() const {
  std::vector<std::pair<std::string, std::string>> out;
  tree_->forEach([&](const Entry& e) {
    if (e.directory) return;
    std::string path = absoluteOf(e.path);
    auto it = hashes_.find(path);
    if (it == hashes_.end() || it->second.first != e.data.size()) {
      std::string hash = "sha256:" + workspace::sha256Hex(e.data);
      hashedBytes_ += e.data.size();
      it = hashes_.insert_or_assign(path, std::make_pair(uint64_t(e.data.size()), std::move(hash))).first;
    }
    out.emplace_back(std::move(path), it->second.second);
  });
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<workspace::File> Files::filesFor(const std::vector<std::string>& paths) const {
  std::vector<workspace::File> out;
  std::string normalized, relative;
  for (const std::string& path : paths) {
    FileError err;
    if (!resolve(path, normalized, relative, err) || relative.empty()) continue;
    Entry e;
    if (tree_->stat(relative, e) != Errno::Success || e.directory) continue;
    // The path exactly as asked: the interpreter matches answers against its request.
    out.push_back(workspace::File{path, std::string(e.data), updatedAtOf(e.mtimeNs)});
  }
  return out;
}

bool Files::apply(const std::vector<std::string>& dirs, const std::vector<workspace::File>& files,
                  const std::vector<std::string>& deleted, Changes& changes, FileError& err) {
  changes = {};
  const wasi::WorkspaceLimits& limits = tree_->limits();
  std::string normalized, relative;

  // Every path is validated before anything changes. The directories to keep are `dirs` and their parents (step 1
  // creates those parents; removing them again in step 4 would take the listed directories along).
  std::set<std::string, std::less<>> keep;
  for (const std::string& dir : dirs) {
    if (!resolve(dir, normalized, relative, err)) return false;
    if (relative.empty()) continue;
    if (overPathLimits(limits, relative)) {
      err = pathFailure(Errno::NameTooLong, normalized);
      return false;
    }
    for (std::string_view d = relative; !d.empty() && keep.insert(std::string(d)).second; d = parentOf(d)) {
      if (keep.size() > limits.maxEntries) {
        err = fromError(workspace::entriesError(limits));
        return false;
      }
    }
  }
  std::set<std::string, std::less<>> gone;
  for (const std::string& path : deleted) {
    if (!resolve(path, normalized, relative, err)) return false;
    if (relative.empty()) {
      err = FileError{"EACCES", "Cannot delete the /workspace root"};
      return false;
    }
    gone.insert(relative);
  }
  struct Write {
    std::string relative;
    const workspace::File* file;
    int64_t growth;
  };
  std::vector<Write> writes;
  {
    std::map<std::string, const workspace::File*, std::less<>> latest;  // of two entries naming one path the later wins
    for (const workspace::File& file : files) {
      if (!resolve(file.path, normalized, relative, err)) return false;
      if (relative.empty()) {
        err = FileError{"EISDIR", "Cannot write to the /workspace root"};
        return false;
      }
      if (file.data.size() > limits.maxFileBytes) {
        err = tooLarge(limits, normalized, file.data.size());
        return false;
      }
      latest[relative] = &file;
    }
    for (auto& [path, file] : latest) {
      // Written then deleted (step 3), or under a directory step 4 removes: not there in the end, so not written.
      std::string_view parent = parentOf(path);
      if (gone.count(path) || (!parent.empty() && !keep.count(parent))) continue;
      writes.push_back(Write{path, file, 0});
    }
  }

  // Removals first, then directories, then files: the same end state as protocol §7.5 step 8's order, but the tree
  // never holds the old and the new bytes at once, so a result that fits the limits always applies.
  Journal journal(*tree_);
  auto failWith = [&](FileError e) {
    journal.undo();
    for (const std::string& path : journal.touched()) forget(absoluteOf(path));
    err = std::move(e);
    return false;
  };
  Entry e;
  for (const std::string& path : gone) {
    if (tree_->stat(path, e) == Errno::Success && !e.directory) journal.remove(path);
  }
  {
    std::vector<std::string> extra;  // the topmost directories not kept; their subtrees go with them
    std::string removedDir;
    tree_->forEach([&](const Entry& entry) {
      if (!removedDir.empty() && entry.path.size() > removedDir.size() && entry.path[removedDir.size()] == '/' &&
          entry.path.compare(0, removedDir.size(), removedDir) == 0) {
        return;
      }
      if (entry.directory && !keep.count(entry.path)) {
        extra.push_back(entry.path);
        removedDir = entry.path;
      }
    });
    for (const std::string& path : extra) journal.remove(path);
  }
  // Sorted, so each directory's parent is already there; a file in the way is replaced (the interpreter's tree has
  // a directory there).
  for (const std::string& dir : keep) {
    Errno x = tree_->stat(dir, e);
    if (x == Errno::Success && e.directory) continue;
    if (x == Errno::Success) journal.remove(dir);
    if (Errno y = journal.makeDirectory(dir); y != Errno::Success) return failWith(pathFailure(y, absoluteOf(dir)));
  }
  if (tree_->entryCount() > limits.maxEntries) return failWith(fromError(workspace::entriesError(limits)));
  if (tree_->pathBytes() > limits.maxPathTotalBytes) return failWith(fromError(workspace::pathBytesError(limits)));
  // Files that do not grow go first, so swapping contents near the total cap does not trip it midway.
  for (Write& w : writes) {
    int64_t before = tree_->stat(w.relative, e) == Errno::Success && !e.directory ? int64_t(e.data.size()) : 0;
    w.growth = int64_t(w.file->data.size()) - before;
  }
  std::stable_sort(writes.begin(), writes.end(), [](const Write& a, const Write& b) { return a.growth < b.growth; });
  for (const Write& w : writes) {
    const std::string absolute = absoluteOf(w.relative);
    uint64_t before = 0;
    bool exists = false;
    if (tree_->stat(w.relative, e) == Errno::Success) {
      if (e.directory) return failWith(pathFailure(Errno::IsDir, absolute));
      exists = true;
      before = e.data.size();
    }
    if (tree_->totalBytes() - before + w.file->data.size() > limits.maxTotalBytes) {
      return failWith(fromError(workspace::totalBytesError(limits)));
    }
    if (!exists && tree_->entryCount() >= limits.maxEntries) {
      return failWith(fromError(workspace::entriesError(limits)));
    }
    Errno x = journal.writeFile(w.relative, w.file->data, workspace::mtimeFromUpdatedAt(w.file->updatedAt));
    if (x == Errno::NoSpc) return failWith(fromError(workspace::pathBytesError(limits)));
    if (x != Errno::Success) return failWith(pathFailure(x, absolute));
  }

  // Every touched path, as it ended: present -> its row, gone -> a delete.
  for (const std::string& path : journal.touched()) {
    std::string absolute = absoluteOf(path);
    forget(absolute);
    if (tree_->stat(path, e) == Errno::Success) {
      changes.upserts.push_back(rowOf(e));
    } else {
      changes.deletes.push_back(std::move(absolute));
    }
  }
  return true;
}

// --- persistence and info -------------------------------------------------------------------------------------------

std::vector<Row> Files::rows() const {
  std::vector<Row> out;
  out.reserve(tree_->entryCount());
  tree_->forEach([&](const Entry& e) { out.push_back(rowOf(e)); });
  return out;
}

bool Files::load(const std::vector<Row>& rows, FileError& err) {
  clear();
  const wasi::WorkspaceLimits& limits = tree_->limits();
  auto fail = [&](FileError e) {
    clear();
    err = std::move(e);
    return false;
  };
  struct Item {
    std::string relative;
    const Row* row;
  };
  std::vector<Item> items;
  items.reserve(rows.size());
  std::string normalized, relative;
  for (const Row& row : rows) {
    if (!resolve(row.path, normalized, relative, err)) return fail(std::move(err));
    if (relative.empty()) {
      if (row.directory) continue;  // the root is always there
      return fail(FileError{"EISDIR", "Cannot write to the /workspace root"});
    }
    items.push_back(Item{relative, &row});
  }
  // Parents sort before their children.
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.relative < b.relative; });
  for (const Item& item : items) {
    const std::string absolute = absoluteOf(item.relative);
    if (overPathLimits(limits, item.relative)) return fail(pathFailure(Errno::NameTooLong, absolute));
    Errno x;
    if (item.row->directory) {
      x = tree_->makeDirectories(item.relative);
    } else {
      if (item.row->data.size() > limits.maxFileBytes) return fail(tooLarge(limits, absolute, item.row->data.size()));
      Entry e;
      uint64_t before = tree_->stat(item.relative, e) == Errno::Success && !e.directory ? e.data.size() : 0;
      if (tree_->totalBytes() - before + item.row->data.size() > limits.maxTotalBytes) {
        return fail(fromError(workspace::totalBytesError(limits)));
      }
      x = tree_->writeFile(item.relative, item.row->data, workspace::mtimeFromUpdatedAt(item.row->updatedAt));
    }
    if (x == Errno::NoSpc) {
      return fail(fromError(tree_->entryCount() >= limits.maxEntries ? workspace::entriesError(limits)
                                                                     : workspace::pathBytesError(limits)));
    }
    if (x != Errno::Success) return fail(pathFailure(x, absolute));
  }
  return true;
}

void Files::clear() {
  tree_->clear();
  hashes_.clear();
}

uint32_t Files::entryCount() const { return tree_->entryCount(); }
uint64_t Files::totalBytes() const { return tree_->totalBytes(); }

// --- read helpers ---------------------------------------------------------------------------------------------------

std::string_view mimeTypeOf(std::string_view path, bool binary) {
  static constexpr std::pair<std::string_view, std::string_view> kTypes[] = {
      {"json", "application/json"}, {"js", "text/javascript"},  {"mjs", "text/javascript"},
      {"py", "text/x-python"},      {"pl", "text/x-perl"},      {"rb", "text/x-ruby"},
      {"txt", "text/plain"},        {"md", "text/markdown"},    {"html", "text/html"},
      {"css", "text/css"},          {"csv", "text/csv"},        {"png", "image/png"},
      {"jpg", "image/jpeg"},        {"jpeg", "image/jpeg"},     {"gif", "image/gif"},
      {"svg", "image/svg+xml"},     {"pdf", "application/pdf"}, {"wasm", "application/wasm"},
      {"zip", "application/zip"},   {"gz", "application/gzip"},
  };
  std::string_view name = path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
  std::size_t dot = name.rfind('.');
  // As path.extname: a name's leading dot (".profile") starts no extension.
  if (dot != std::string_view::npos && dot != 0) {
    std::string ext(name.substr(dot + 1));
    for (char& c : ext) c = (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
    for (const auto& [known, type] : kTypes) {
      if (ext == known) return type;
    }
  }
  return binary ? "application/octet-stream" : "text/plain";
}

bool isBinary(std::string_view bytes) {
  return bytes.find('\0') != std::string_view::npos || !json::isValidUtf8(bytes);
}

}  // namespace sw::sandbox
