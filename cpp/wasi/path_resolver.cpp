// Path resolution: every guest path is resolved inside the preopen of the descriptor it is relative to.
//
// `..` is a step to the parent node, so the only ways out of a preopen would be `..` at its root, an absolute path or
// an absolute symbolic link (links exist only with the reference policy off); all three answer NotCapable. A
// relative link is expanded in place and walked from the directory holding it, under the same rules.
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

namespace {

// Pushes the components of `path` onto `stack` so that the first component is on top; "" and "." are dropped.
Errno pushComponents(std::string_view path, std::vector<std::string_view>& stack) {
  const std::size_t base = stack.size();
  std::size_t end = path.size();
  while (true) {
    std::size_t slash = end == 0 ? std::string_view::npos : path.rfind('/', end - 1);
    std::size_t start = slash == std::string_view::npos ? 0 : slash + 1;
    std::string_view part = path.substr(start, end - start);
    if (part.size() > kMaxNameBytes) {
      stack.resize(base);
      return Errno::NameTooLong;
    }
    if (!part.empty() && part != ".") stack.push_back(part);
    if (slash == std::string_view::npos) break;
    end = slash;
  }
  return Errno::Success;
}

}  // namespace

Errno resolvePath(const FdEntry& dir, std::string_view path, Resolved& out, bool followLast) {
  out = Resolved{};
  if (dir.kind != FdKind::Directory || !dir.node) return Errno::NotDir;
  if (path.empty()) return Errno::NoEnt;
  if (path.size() > kMaxPathBytes) return Errno::NameTooLong;
  if (path.find('\0') != std::string_view::npos) return Errno::Inval;
  if (path.front() == '/') return Errno::NotCapable;

  // Components still to walk, the next one on top. A symlink's target is pushed in its place; the views into link
  // targets stay valid because `links` holds those nodes.
  std::vector<std::string_view> stack;
  if (Errno e = pushComponents(path, stack); e != Errno::Success) return e;
  std::vector<std::shared_ptr<Node>> links;
  out.trailingSlash = path.back() == '/' || path == "." || path.ends_with("/.");

  // The directory descriptor's node may have been unlinked (rmdir of an open directory): nothing resolves in it.
  std::shared_ptr<Node> cur = dir.node;
  if (cur != dir.root && !cur->linked()) return Errno::NoEnt;

  while (!stack.empty()) {
    std::string_view part = stack.back();
    stack.pop_back();
    const bool last = stack.empty();
    if (!cur->isDir()) return Errno::NotDir;
    if (part == "..") {
      if (cur == dir.root || cur == dir.limit) return Errno::NotCapable;
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
    std::shared_ptr<Node> child = it == cur->children.end() ? nullptr : it->second;
    if (child && child->isSymlink() && (!last || followLast || out.trailingSlash)) {
      if (links.size() >= kMaxSymlinkHops) return Errno::Loop;
      std::string_view target(reinterpret_cast<const char*>(child->data.data()), child->data.size());
      if (target.empty()) return Errno::NoEnt;
      // An absolute target would name the host's root, or another preopen: never followed.
      if (target.front() == '/') return Errno::NotCapable;
      links.push_back(child);
      const std::size_t before = stack.size();
      if (Errno e = pushComponents(target, stack); e != Errno::Success) return e;
      if (stack.size() == before && last) break;  // a link to "." (or "./"): the directory it is in
      continue;
    }
    if (last) {
      out.parent = cur;
      out.name = std::string(part);
      out.node = std::move(child);
      if (out.trailingSlash && out.node && !out.node->isDir()) return Errno::NotDir;
      return Errno::Success;
    }
    if (!child) return Errno::NoEnt;
    cur = std::move(child);
  }
  // "." or a path of only "." components: the directory itself.
  out.node = cur;
  return Errno::Success;
}

}  // namespace sw::wasi::detail
