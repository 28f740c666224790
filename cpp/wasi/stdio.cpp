// stdout/stderr capture with the output limits of protocol §3.3.
#include "internal.h"

namespace sw::wasi {

bool StdioCapture::capture(uint32_t fd, std::string_view bytes) {
  totalBytes_ += bytes.size();
  if (bytes.empty()) return true;
  if (totalBytes_ > limits_.maxBytes || chunks_.size() >= limits_.maxChunks) return false;
  chunks_.emplace_back(fd, std::string(bytes));
  return true;
}

std::string StdioCapture::text(uint32_t fd) const {
  std::string out;
  for (const auto& [f, chunk] : chunks_) {
    if (f == fd) out += chunk;
  }
  return out;
}

std::vector<std::string> StdioCapture::lines(uint32_t fd) const {
  std::string all = text(fd);
  std::vector<std::string> out;
  if (all.empty()) return out;
  std::size_t start = 0;
  while (true) {
    std::size_t nl = all.find('\n', start);
    if (nl == std::string::npos) {
      out.push_back(all.substr(start));
      break;
    }
    out.push_back(all.substr(start, nl - start));
    start = nl + 1;
  }
  if (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

void StdioCapture::reset() {
  chunks_.clear();
  totalBytes_ = 0;
}

}  // namespace sw::wasi
