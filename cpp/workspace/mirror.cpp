// The Interpreter's workspace mirror: reconciliation (protocol §2.8), checkpoint, rollback and diff (protocol §2.9).
#include <algorithm>
#include <optional>

#include "workspace/workspace.h"

namespace sw::workspace {
namespace {

using wasi::Errno;

bool isShaForm(std::string_view like) { return like.substr(0, 7) == "sha256:"; }

template <typename T>
bool sortedContains(const std::vector<T>& sorted, std::string_view key) {
  return std::binary_search(sorted.begin(), sorted.end(), key, std::less<>());
}

}  // namespace

Mirror::Mirror(wasi::WorkspaceLimits limits) : workspace_(std::make_shared<wasi::Workspace>(limits)) {}

const std::string& Mirror::hashOf(const std::string& path, std::string_view data, std::string_view like) {
  auto it = hashes_.find(path);
  if (it == hashes_.end()) {
    it = hashes_.emplace(path, KnownHash{data.size(), {}, {}}).first;
  } else if (it->second.size != data.size()) {
    it->second = KnownHash{data.size(), {}, {}};
  }
  std::string& slot = isShaForm(like) ? it->second.sha256Hash : it->second.bytesHash;
  if (slot.empty()) {
    slot = hashLike(like, data);
    hashedBytes_ += data.size();
  }
  return slot;
}

void Mirror::forget(std::string_view path) {
  if (auto it = hashes_.find(path); it != hashes_.end()) hashes_.erase(it);
}

void Mirror::forgetUnder(std::string_view dir) {
  forget(dir);
  std::string prefix = std::string(dir) + "/";
  auto it = hashes_.lower_bound(prefix);
  while (it != hashes_.end() && it->first.compare(0, prefix.size(), prefix) == 0) it = hashes_.erase(it);
}

bool Mirror::reconcile(const std::vector<std::string>& dirs,
                       const std::vector<std::pair<std::string, std::string>>& manifest, std::vector<File> files,
                       std::vector<std::string>& missing, Error& err) {
  missing.clear();
  wasi::Workspace& ws = *workspace_;

  // Every path is checked before anything changes: an escaping path leaves the mirror as it was.
  std::string normalized, relative;
  std::vector<std::string> wantedDirs;
  wantedDirs.reserve(dirs.size());
  for (const std::string& dir : dirs) {
    if (!resolvePath(dir, false, normalized, relative, err)) return false;
    if (!relative.empty()) wantedDirs.push_back(relative);
  }
  std::sort(wantedDirs.begin(), wantedDirs.end());
  wantedDirs.erase(std::unique(wantedDirs.begin(), wantedDirs.end()), wantedDirs.end());
  struct Wanted {
    std::string path;
    std::string_view hash;
    bool operator<(const Wanted& o) const { return path < o.path; }
  };
  std::vector<Wanted> wanted;  // sorted by path; of two keys naming one path the later wins
  wanted.reserve(manifest.size());
  for (const auto& [path, hash] : manifest) {
    if (!resolvePath(path, true, normalized, relative, err)) return false;
    wanted.push_back({relative, hash});
  }
  std::stable_sort(wanted.begin(), wanted.end());
  {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < wanted.size(); ++i) {
      if (kept && wanted[kept - 1].path == wanted[i].path) {
        wanted[kept - 1].hash = wanted[i].hash;
      } else {
        if (kept != i) wanted[kept] = std::move(wanted[i]);
        ++kept;
      }
    }
    wanted.resize(kept);
  }
  auto findWanted = [&](std::string_view path) -> const Wanted* {
    auto it = std::lower_bound(wanted.begin(), wanted.end(), path,
                               [](const Wanted& w, std::string_view p) { return w.path < p; });
    return it != wanted.end() && it->path == path ? &*it : nullptr;
  };
  for (File& file : files) {
    if (!resolvePath(file.path, true, normalized, relative, err)) return false;
    file.path = relative;
  }

  // Steps 1 and 2 can fail part-way (a limit, a name too long): a failed reconcile must leave the mirror as it was,
  // so when either would change the tree, a checkpoint is taken first and restored on failure. The common call (every
  // directory already there, no pulled files) changes nothing before step 3 and copies nothing.
  std::optional<Checkpoint> undo;
  {
    wasi::Workspace::Entry entry;
    bool changes = !files.empty();
    for (std::size_t i = 0; !changes && i < wantedDirs.size(); ++i) {
      changes = ws.stat(wantedDirs[i], entry) != Errno::Success || !entry.directory;
    }
    if (changes) undo = checkpoint();
  }
  auto fail = [&](Error e) {
    if (undo) rollback(*undo);
    err = std::move(e);
    return false;
  };

  // 1. Directories, intermediates included; a file in the way becomes a directory (and loses its cached hash).
  for (const std::string& dir : wantedDirs) {
    if (!hashes_.empty()) {
      for (std::size_t slash = dir.find('/'); slash != std::string::npos; slash = dir.find('/', slash + 1)) {
        forget(std::string_view(dir).substr(0, slash));
      }
      forget(dir);
    }
    if (Errno e = ws.forceDirectories(dir); e != Errno::Success) return fail(pathError(e, absoluteOf(dir)));
  }

  // 2. Supplied files. Files that do not grow go first, so replacing contents near the 16 MiB cap does not trip it
  // on the way.
  if (!files.empty()) {
    const wasi::WorkspaceLimits& limits = ws.limits();
    std::vector<std::pair<int64_t, File*>> order;
    order.reserve(files.size());
    wasi::Workspace::Entry entry;
    for (File& file : files) {
      int64_t before = ws.stat(file.path, entry) == Errno::Success && !entry.directory ? int64_t(entry.data.size()) : 0;
      order.emplace_back(int64_t(file.data.size()) - before, &file);
    }
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& ordered : order) {
      File* file = ordered.second;
      forget(file->path);
      if (file->data.size() > limits.maxFileBytes) return fail(fileTooLargeError(limits, absoluteOf(file->path)));
      uint64_t before = ws.stat(file->path, entry) == Errno::Success && !entry.directory ? entry.data.size() : 0;
      bool overTotal = ws.totalBytes() - before + file->data.size() > limits.maxTotalBytes;
      Errno e = ws.writeFile(file->path, file->data, mtimeFromUpdatedAt(file->updatedAt));
      if (e == Errno::NoSpc) return fail(overTotal ? totalBytesError(limits) : entriesError(limits));
      if (e == Errno::Fbig) return fail(fileTooLargeError(limits, absoluteOf(file->path)));
      if (e != Errno::Success) return fail(pathError(e, absoluteOf(file->path)));
      // Pulled bytes are hashed here anyway, in the form the manifest uses for them.
      if (const Wanted* w = findWanted(file->path)) hashOf(file->path, file->data, w->hash);
      std::string().swap(file->data);  // the tree holds its own copy now
    }
  }

  // 3 and 4 from one walk: files not in the manifest, then directories not in `dirs`, deepest first.
  std::vector<std::string> extraFiles, extraDirs;
  ws.forEach([&](const wasi::Workspace::Entry& e) {
    if (e.directory) {
      if (!sortedContains(wantedDirs, e.path)) extraDirs.push_back(e.path);
    } else if (!findWanted(e.path)) {
      extraFiles.push_back(e.path);
    }
  });
  for (const std::string& path : extraFiles) {
    ws.remove(path);
    forget(path);
  }
  auto depth = [](const std::string& p) { return std::count(p.begin(), p.end(), '/'); };
  std::stable_sort(extraDirs.begin(), extraDirs.end(),
                   [&](const std::string& a, const std::string& b) { return depth(a) > depth(b); });
  for (const std::string& path : extraDirs) {
    if (ws.remove(path) == Errno::Success) forgetUnder(path);
  }

  // 5. What the manifest names that the mirror does not hold with the same hash.
  wasi::Workspace::Entry entry;
  for (const Wanted& w : wanted) {
    if (ws.stat(w.path, entry) != Errno::Success || entry.directory || hashOf(w.path, entry.data, w.hash) != w.hash) {
      missing.push_back(absoluteOf(w.path));
    }
  }
  return true;
}

Mirror::Checkpoint Mirror::checkpoint() const {
  Checkpoint cp;
  const wasi::Workspace& ws = *workspace_;
  if (ws.entryCount() == 0) return cp;
  cp.files.reserve(ws.entryCount());
  ws.forEach([&](const wasi::Workspace::Entry& e) {
    if (e.directory) {
      cp.dirs.push_back(e.path);
      return;
    }
    Checkpoint::FileCopy copy{e.path, std::string(e.data), e.mtimeNs, {}};
    if (auto it = hashes_.find(e.path); it != hashes_.end() && it->second.size == e.data.size()) {
      copy.hash = it->second;
    }
    cp.files.push_back(std::move(copy));
  });
  std::sort(cp.files.begin(), cp.files.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  std::sort(cp.dirs.begin(), cp.dirs.end());
  return cp;
}

void Mirror::rollback(const Checkpoint& cp) {
  wasi::Workspace& ws = *workspace_;
  hashes_.clear();
  for (const auto& file : cp.files) {
    if (!file.hash.bytesHash.empty() || !file.hash.sha256Hash.empty()) hashes_.emplace_hint(hashes_.end(), file.path, file.hash);
  }
  if (cp.files.empty() && cp.dirs.empty()) {
    ws.clear();
    return;
  }
  auto findFile = [&](std::string_view path) -> std::ptrdiff_t {
    auto it = std::lower_bound(cp.files.begin(), cp.files.end(), path,
                               [](const Checkpoint::FileCopy& f, std::string_view p) { return f.path < p; });
    return it != cp.files.end() && it->path == path ? it - cp.files.begin() : -1;
  };

  // Remove what the checkpoint does not hold (or holds as the other kind); note which of its entries survived
  // unchanged. Pre-order: a removed directory's subtree follows it and is skipped.
  std::vector<bool> fileIntact(cp.files.size(), false), dirPresent(cp.dirs.size(), false);
  std::vector<std::string> doomed;
  std::string removedDir;
  ws.forEach([&](const wasi::Workspace::Entry& e) {
    if (!removedDir.empty() && e.path.size() > removedDir.size() && e.path[removedDir.size()] == '/' &&
        e.path.compare(0, removedDir.size(), removedDir) == 0) {
      return;
    }
    if (e.directory) {
      auto it = std::lower_bound(cp.dirs.begin(), cp.dirs.end(), e.path);
      if (it != cp.dirs.end() && *it == e.path) {
        dirPresent[std::size_t(it - cp.dirs.begin())] = true;
      } else {
        doomed.push_back(e.path);
        removedDir = e.path;
      }
      return;
    }
    std::ptrdiff_t i = findFile(e.path);
    if (i < 0) {
      doomed.push_back(e.path);
      return;
    }
    const auto& old = cp.files[std::size_t(i)];
    fileIntact[std::size_t(i)] = e.data == old.data && e.mtimeNs == old.mtimeNs;
  });
  for (const std::string& path : doomed) ws.remove(path);
  // Parents sort before their children, so each directory's parent exists when it is made.
  for (std::size_t i = 0; i < cp.dirs.size(); ++i) {
    if (!dirPresent[i]) ws.forceDirectories(cp.dirs[i]);
  }
  for (std::size_t i = 0; i < cp.files.size(); ++i) {
    if (!fileIntact[i]) ws.restoreFile(cp.files[i].path, cp.files[i].data, cp.files[i].mtimeNs);
  }
}

Mirror::Diff Mirror::diff(const Checkpoint& cp) {
  Diff out;
  const wasi::Workspace& ws = *workspace_;
  if (cp.files.empty() && ws.entryCount() == 0) return out;
  struct Current {
    std::string path;
    std::string_view data;
    uint64_t mtimeNs;
  };
  std::vector<Current> now;
  now.reserve(ws.entryCount());
  ws.forEach([&](const wasi::Workspace::Entry& e) {
    if (!e.directory) now.push_back({e.path, e.data, e.mtimeNs});
  });
  std::sort(now.begin(), now.end(), [](const Current& a, const Current& b) { return a.path < b.path; });
  auto changed = [&](const Current& c) {
    out.files.push_back({absoluteOf(c.path), std::string(c.data), updatedAtFromMtime(c.mtimeNs)});
    forget(c.path);
  };
  std::size_t i = 0, j = 0;
  while (i < now.size() || j < cp.files.size()) {
    if (j == cp.files.size() || (i < now.size() && now[i].path < cp.files[j].path)) {
      changed(now[i++]);
    } else if (i == now.size() || cp.files[j].path < now[i].path) {
      out.deleted.push_back(absoluteOf(cp.files[j].path));
      forget(cp.files[j++].path);
    } else {
      if (now[i].data != cp.files[j].data) changed(now[i]);
      ++i;
      ++j;
    }
  }
  return out;
}

std::vector<std::string> Mirror::dirs() const {
  std::vector<std::string> out;
  workspace_->forEach([&](const wasi::Workspace::Entry& e) {
    if (e.directory) out.push_back(absoluteOf(e.path));
  });
  std::sort(out.begin(), out.end());
  return out;
}

void Mirror::clear() {
  workspace_->clear();
  workspace_->setDisabled(false);
  hashes_.clear();
}

}  // namespace sw::workspace
