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

uint64_t mtimeFromUpdatedAt(double updatedAt) {
  if (!(updatedAt > 0)) return 0;                      // NaN, negative, zero
  if (updatedAt >= 18446744073709.0) return UINT64_MAX;  // past 2^64 ns
  double whole = std::floor(updatedAt);
  uint64_t ns = uint64_t(whole) * 1000000u + uint64_t(std::llround((updatedAt - whole) * 1e6));
  return ns;
}

double updatedAtFromMtime(uint64_t mtimeNs) { return double(mtimeNs / 1000000u); }

}  // namespace sw::workspace
