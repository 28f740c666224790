// Path resolution: every guest path is resolved inside the preopen of the descriptor it is relative to.
//
// There are no symbolic links in the tree (path_symlink is refused), so `..` is a step to the parent node and the
// only way out of a preopen would be `..` at its root or an absolute path; both answer NotCapable.
#include "internal.h"

namespace sw::wasi::detail {

Errno readPath(Host& host, uint32_t ptr, uint32_t len, std::string& out) {
  if (len > kMaxPathBytes) return Errno::NameTooLong;
  GuestMemory* mem = host.state().memory;
  if (!mem) return Errno::Fault;
  out.resize(len);
  if (len && !mem->read(ptr, out.data(), len)) return Errno::Fault;
  if (out.find('\0') != std::string::npos) return Errno::Inval;
  return Errno::Success;
}

Errno resolvePath(const FdEntry& dir, std::string_view path, Resolved& out) {
  out = Resolved{};
  if (dir.kind != FdKind::Directory || !dir.node) return Errno::NotDir;
  if (path.empty()) return Errno::NoEnt;
  if (path.size() > kMaxPathBytes) return Errno::NameTooLong;
  if (path.find('\0') != std::string_view::npos) return Errno::Inval;
  if (path.front() == '/') return Errno::NotCapable;

  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (start < path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part.size() > kMaxNameBytes) return Errno::NameTooLong;
    if (!part.empty() && part != ".") parts.push_back(part);
    start = end + 1;
  }
  out.trailingSlash = path.back() == '/' || path == "." || path.ends_with("/.");

  // The directory descriptor's node may have been unlinked (rmdir of an open directory): nothing resolves in it.
  std::shared_ptr<Node> cur = dir.node;
  if (cur != dir.root && !cur->linked()) return Errno::NoEnt;

  for (std::size_t i = 0; i < parts.size(); ++i) {
    std::string_view part = parts[i];
    bool last = i + 1 == parts.size();
    if (!cur->isDir()) return Errno::NotDir;
    if (part == "..") {
      if (cur == dir.root) return Errno::NotCapable;
      Node* parent = cur->parent;
      if (!parent) return Errno::NoEnt;
      cur = parent->shared_from_this();
      if (last) {
        out.node = cur;
        return Errno::Success;
      }
      continue;
    }
    auto it = cur->children.find(part);
    if (last) {
      out.parent = cur;
      out.name = std::string(part);
      if (it != cur->children.end()) out.node = it->second;
      if (out.trailingSlash && out.node && !out.node->isDir()) return Errno::NotDir;
      return Errno::Success;
    }
    if (it == cur->children.end()) return Errno::NoEnt;
    cur = it->second;
  }
  // "." or a path of only "." components: the directory itself.
  out.node = cur;
  return Errno::Success;
}

}  // namespace sw::wasi::detail
