// SPEC §7.11 path normalization, and updatedAt (epoch ms) <-> mtime (ns).
#include <cmath>
#include <vector>

#include "workspace/workspace.h"

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

namespace {

std::string sizeText(uint64_t bytes) {
  return bytes % 1048576 == 0 ? std::to_string(bytes / 1048576) + " MiB" : std::to_string(bytes) + " bytes";
}

}  // namespace

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
