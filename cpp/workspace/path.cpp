// protocol §7.11 path normalization, and updatedAt (epoch ms) <-> mtime (ns).
#include <algorithm>
#include <cmath>
#include <vector>

#include "workspace/workspace.h"

#include "wasi/internal.h"

namespace sw::workspace {

bool normalizePath(std::string_view cwd, std::string_view path, std::string& out, Error& err) {
  if (path.empty()) {
    err = {"ENOENT", "Path is required"};
    return false;
  }
  std::vector<std::string_view> segments;
  auto push = [&](std::string_view text) {
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t end = text.find('/', start);
      if (end == std::string_view::npos) end = text.size();
      std::string_view part = text.substr(start, end - start);
      start = end + 1;
      if (part.empty() || part == ".") continue;
      if (part == "..") {
        if (segments.empty()) return false;
        segments.pop_back();
        continue;
      }
      segments.push_back(part);
    }
    return true;
  };
  bool inside = (path.front() == '/' || push(cwd)) && push(path);
  if (!inside || segments.empty() || segments.front() != "workspace") {
    err = {"EACCES", "Path escapes /workspace: " + std::string(path)};
    return false;
  }
  out.clear();
  for (std::string_view s : segments) {
    out.push_back('/');
    out.append(s);
  }
  return true;
}

std::optional<std::string> contextCwd(std::string_view reported, const wasi::WorkspaceLimits& limits) {
  if (reported.empty() || reported.front() != '/' || reported.find('\0') != std::string_view::npos) return std::nullopt;
  std::string out;
  Error err;
  if (!normalizePath(kRoot, reported, out, err)) return std::nullopt;
  std::string_view relative = relativeOf(out);
  if (relative.size() > limits.maxPathBytes) return std::nullopt;
  if (!relative.empty() && std::size_t(std::count(relative.begin(), relative.end(), '/')) + 1 > limits.maxDepth)
    return std::nullopt;
  return out;
}

namespace {

// A path as a message shows it: at most 200 bytes (whole UTF-8 sequences).
std::string shown(std::string_view path) {
  if (path.size() <= 200) return std::string(path);
  std::size_t n = 200;
  while (n > 0 && (static_cast<unsigned char>(path[n]) & 0xC0) == 0x80) --n;
  return std::string(path.substr(0, n)) + "...";
}

std::string sizeText(uint64_t bytes) {
  return bytes % 1048576 == 0 ? std::to_string(bytes / 1048576) + " MiB" : std::to_string(bytes) + " bytes";
}

// The per-path limits of one dirs entry or manifest key ("workspace.dirs entry" / "workspace.manifest path"), on its
// normalized root-relative form. nullopt when within them.
std::optional<std::string> pathLimits(const char* what, std::string_view given, std::string_view relative,
                                      const wasi::WorkspaceLimits& limits) {
  if (relative.size() > limits.maxPathBytes)
    return std::string(what) + " exceeds the path limit of " + std::to_string(limits.maxPathBytes) +
           " bytes: " + shown(given);
  std::size_t depth = 0;
  for (std::size_t at = 0; at <= relative.size() && !relative.empty();) {
    std::size_t end = relative.find('/', at);
    if (end == std::string_view::npos) end = relative.size();
    if (end - at > wasi::detail::kMaxNameBytes)
      return std::string(what) + " has a name over the limit of " + std::to_string(wasi::detail::kMaxNameBytes) +
             " bytes: " + shown(given);
    ++depth;
    at = end + 1;
  }
  if (depth > limits.maxDepth)
    return std::string(what) + " exceeds the depth limit of " + std::to_string(limits.maxDepth) +
           " levels: " + shown(given);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> checkManifest(const std::vector<std::string>& dirs,
                                         const std::vector<std::pair<std::string, std::string>>& manifest,
                                         const wasi::WorkspaceLimits& limits) {
  std::string normalized;
  Error ignored;
  std::vector<std::string> wantedDirs;
  wantedDirs.reserve(dirs.size());
  for (const std::string& dir : dirs) {
    if (dir.find('\0') != std::string::npos) return "workspace.dirs entry contains a NUL character: " + shown(dir);
    if (!normalizePath(kRoot, dir, normalized, ignored)) continue;  // escapes: reconcile's 403
    std::string relative(relativeOf(normalized));
    if (auto over = pathLimits("workspace.dirs entry", dir, relative, limits)) return over;
    if (!relative.empty()) wantedDirs.push_back(std::move(relative));
  }
  std::sort(wantedDirs.begin(), wantedDirs.end());
  if (auto d = std::adjacent_find(wantedDirs.begin(), wantedDirs.end()); d != wantedDirs.end())
    return "workspace.dirs lists a directory twice: " + shown(absoluteOf(*d));

  if (manifest.size() > limits.maxEntries)
    return "workspace.manifest exceeds the limit of " + std::to_string(limits.maxEntries) + " entries";
  std::vector<std::string> files;
  files.reserve(manifest.size());
  uint64_t pathBytes = 0;
  for (const auto& [path, hash] : manifest) {
    if (path.find('\0') != std::string::npos) return "workspace.manifest path contains a NUL character: " + shown(path);
    if (!normalizePath(kRoot, path, normalized, ignored)) continue;  // escapes: reconcile's 403
    std::string relative(relativeOf(normalized));
    if (relative.empty()) return "workspace.manifest path is the /workspace root, a directory: " + shown(path);
    if (auto over = pathLimits("workspace.manifest path", path, relative, limits)) return over;
    pathBytes += relative.size();
    files.push_back(std::move(relative));
  }
  if (pathBytes > limits.maxPathTotalBytes)
    return "workspace.manifest paths exceed the limit of " + sizeText(limits.maxPathTotalBytes) + " total";
  std::sort(files.begin(), files.end());
  if (auto d = std::adjacent_find(files.begin(), files.end()); d != files.end())
    return "workspace.manifest names one path twice: " + shown(absoluteOf(*d));

  // A file that is also a directory: a dirs entry, or the parent of another file or directory. Everything under
  // "p/" sorts together, from lower_bound("p/") on.
  auto under = [](const std::vector<std::string>& sorted, const std::string& p) {
    const std::string prefix = p + "/";
    auto it = std::lower_bound(sorted.begin(), sorted.end(), prefix);
    return it != sorted.end() && it->compare(0, prefix.size(), prefix) == 0;
  };
  for (const std::string& f : files) {
    if (std::binary_search(wantedDirs.begin(), wantedDirs.end(), f) || under(wantedDirs, f) || under(files, f))
      return "workspace.manifest path is also a directory: " + shown(absoluteOf(f));
  }
  return std::nullopt;
}

std::string absoluteOf(std::string_view relative) {
  std::string out;
  out.reserve(kRoot.size() + 1 + relative.size());
  out.append(kRoot);
  if (!relative.empty()) out.append("/").append(relative);
  return out;
}

std::string_view relativeOf(std::string_view normalized) {
  return normalized.size() > kRoot.size() ? normalized.substr(kRoot.size() + 1) : std::string_view();
}

bool resolvePath(std::string_view path, bool isFile, std::string& normalized, std::string& relative, Error& err) {
  if (!normalizePath(kRoot, path, normalized, err)) return false;
  if (isFile && normalized.size() == kRoot.size()) {
    err = {"EISDIR", "Cannot write to the /workspace root"};
    return false;
  }
  relative.assign(relativeOf(normalized));
  return true;
}


Error fileTooLargeError(const wasi::WorkspaceLimits& limits, std::string_view absolute) {
  return {"EFBIG", "File exceeds " + sizeText(limits.maxFileBytes) + ": " + std::string(absolute)};
}

Error totalBytesError(const wasi::WorkspaceLimits& limits) {
  return {"ENOSPC", "Workspace exceeds " + sizeText(limits.maxTotalBytes) + " total"};
}

Error entriesError(const wasi::WorkspaceLimits& limits) {
  return {"ENOSPC", "Workspace exceeds " + std::to_string(limits.maxEntries) + " entries"};
}

Error pathBytesError(const wasi::WorkspaceLimits& limits) {
  return {"ENOSPC", "Workspace paths exceed " + sizeText(limits.maxPathTotalBytes) + " total"};
}

Error pathError(wasi::Errno e, std::string_view absolute) {
  const std::string path(absolute);
  switch (e) {
    case wasi::Errno::IsDir: return {"EISDIR", "Is a directory: " + path};
    case wasi::Errno::NotDir: return {"ENOTDIR", "Not a directory: " + path};
    case wasi::Errno::NameTooLong: return {"ENAMETOOLONG", "Name too long: " + path};
    case wasi::Errno::NoEnt: return {"ENOENT", "No such file or directory: " + path};
    case wasi::Errno::Exist: return {"EEXIST", "File exists: " + path};
    case wasi::Errno::NotEmpty: return {"ENOTEMPTY", "Directory not empty: " + path};
    case wasi::Errno::Inval: return {"EINVAL", "Invalid path: " + path};
    default: return {wasi::errnoName(e), "Cannot write " + path};
  }
}

uint64_t mtimeFromUpdatedAt(double updatedAt) {
  if (!(updatedAt > 0)) return 0;                      // NaN, negative, zero
  if (updatedAt >= 18446744073709.0) return UINT64_MAX;  // past 2^64 ns
  double whole = std::floor(updatedAt);
  uint64_t ns = uint64_t(whole) * 1000000u + uint64_t(std::llround((updatedAt - whole) * 1e6));
  return ns;
}

double updatedAtFromMtime(uint64_t mtimeNs) { return double(mtimeNs / 1000000u); }

}  // namespace sw::workspace
