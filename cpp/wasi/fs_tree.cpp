// The in-memory file system tree, the workspace limits (protocol §7.11) and the host-side Workspace API.
#include <algorithm>

#include "internal.h"

namespace sw::wasi {
namespace detail {

FileType Node::fileType() const {
  switch (kind) {
    case NodeKind::File: return FileType::RegularFile;
    case NodeKind::Directory: return FileType::Directory;
    case NodeKind::NullDevice: return FileType::CharacterDevice;
    case NodeKind::Symlink: return FileType::SymbolicLink;
  }
  return FileType::Unknown;
}

std::shared_ptr<Node> makeNode(NodeKind kind, Mount* mount, uint64_t timeNs) {
  auto node = std::make_shared<Node>();
  node->kind = kind;
  node->mount = mount;
  node->ino = mount ? mount->nextIno++ : 0;
  node->atim = node->mtim = node->ctim = timeNs;
  return node;
}

Node::~Node() {
  if (detached && mount) mount->detachedBytes -= std::min<uint64_t>(mount->detachedBytes, data.size());
  if (children.empty()) return;
  // Released breadth-first, each node emptied before it goes, so no destructor recurses (a tree is as deep as its
  // longest path).
  std::vector<std::shared_ptr<Node>> pending;
  for (auto& [name, child] : children) pending.push_back(std::move(child));
  children.clear();
  while (!pending.empty()) {
    std::shared_ptr<Node> node = std::move(pending.back());
    pending.pop_back();
    if (node.use_count() == 1) {
      for (auto& [name, child] : node->children) pending.push_back(std::move(child));
      node->children.clear();
    } else {
      node->parent = nullptr;  // still held (a descriptor): it outlives this directory
    }
  }
}

namespace {

// Visits every node of the subtree under `top` (top included), iteratively: visit(node, relBytes, level), where
// relBytes is the length of the node's path relative to top's parent (top's own name being `topNameBytes` long) and
// level is 1 for top.
template <typename Node_, typename Visit>
void walkSubtree(Node_& top, uint64_t topNameBytes, Visit visit) {
  struct Item {
    Node_* node;
    uint64_t rel;
    uint32_t level;
  };
  std::vector<Item> stack{{&top, topNameBytes, 1}};
  while (!stack.empty()) {
    Item item = stack.back();
    stack.pop_back();
    visit(*item.node, item.rel, item.level);
    for (auto& [name, child] : item.node->children) {
      stack.push_back({child.get(), item.rel + 1 + name.size(), item.level + 1});
    }
  }
}

struct PathStats {
  uint32_t entries = 0;
  uint64_t relSum = 0;      // paths relative to the new parent
  uint64_t maxRel = 0;
  uint32_t height = 0;
  uint64_t currentSum = 0;  // the stored (current) paths
};

PathStats pathStats(const Node& top, std::size_t nameBytes) {
  PathStats st;
  walkSubtree(top, nameBytes, [&](const Node& n, uint64_t rel, uint32_t level) {
    st.entries++;
    st.relSum += rel;
    st.maxRel = std::max(st.maxRel, rel);
    st.height = std::max(st.height, level);
    st.currentSum += n.pathBytes;
  });
  return st;
}

// `st` placed under `dir`, `released` path bytes leaving the tree at the same time.
Errno checkPlacement(const Mount& m, const Node& dir, const PathStats& st, uint64_t released) {
  const uint64_t prefix = dir.depth == 0 ? 0 : uint64_t(dir.pathBytes) + 1;
  if (prefix + st.maxRel > m.limits.maxPathBytes) return Errno::NameTooLong;
  if (uint64_t(dir.depth) + st.height > m.limits.maxDepth) return Errno::NameTooLong;
  const uint64_t base = m.pathBytes - std::min(m.pathBytes, released);
  if (base + uint64_t(st.entries) * prefix + st.relSum > m.limits.maxPathTotalBytes) return Errno::NoSpc;
  return Errno::Success;
}

}  // namespace

Errno reserveEntry(const Node& dir, std::string_view name) {
  const Mount* m = dir.mount;
  if (!m || !m->isWorkspace()) return Errno::Success;
  if (m->entries >= m->limits.maxEntries) return Errno::NoSpc;
  PathStats one{1, name.size(), name.size(), 1, 0};
  return checkPlacement(*m, dir, one, 0);
}

Errno checkMove(const Node& node, const Node& dir, std::string_view name, const Node* replaced) {
  const Mount* m = dir.mount;
  if (!m || !m->isWorkspace()) return Errno::Success;
  PathStats st = pathStats(node, name.size());
  return checkPlacement(*m, dir, st, st.currentSum + (replaced ? replaced->pathBytes : 0));
}

void linkChild(Node& dir, std::string name, std::shared_ptr<Node> child) {
  child->parent = &dir;
  Mount* m = dir.mount;
  if (m && m->isWorkspace()) {
    const uint64_t prefix = dir.depth == 0 ? 0 : uint64_t(dir.pathBytes) + 1;
    walkSubtree(*child, name.size(), [&](Node& n, uint64_t rel, uint32_t level) {
      n.depth = dir.depth + level;
      n.pathBytes = uint32_t(std::min<uint64_t>(prefix + rel, UINT32_MAX));
      m->entries += 1;
      m->pathBytes += n.pathBytes;
      if (n.kind == NodeKind::File) {
        m->totalBytes += n.size();
        if (n.detached) {
          m->detachedBytes -= std::min<uint64_t>(m->detachedBytes, n.size());
          n.detached = false;
        }
      }
    });
  }
  dir.children[std::move(name)] = std::move(child);
  dir.generation++;
}

std::shared_ptr<Node> unlinkChild(Node& dir, std::string_view name) {
  auto it = dir.children.find(name);
  if (it == dir.children.end()) return nullptr;
  std::shared_ptr<Node> child = std::move(it->second);
  dir.children.erase(it);
  dir.generation++;
  child->parent = nullptr;
  Mount* m = dir.mount;
  if (m && m->isWorkspace()) {
    // A removed file still counts toward the total while anything (a guest descriptor) keeps it alive.
    walkSubtree(*child, 0, [&](Node& n, uint64_t, uint32_t) {
      m->entries -= std::min<uint32_t>(m->entries, 1);
      m->pathBytes -= std::min<uint64_t>(m->pathBytes, n.pathBytes);
      if (n.kind == NodeKind::File) {
        m->totalBytes -= std::min<uint64_t>(m->totalBytes, n.size());
        if (!n.detached) {
          n.detached = true;
          m->detachedBytes += n.size();
        }
      }
    });
  }
  return child;
}

Errno resizeFile(Node& file, uint64_t newSize) {
  if (file.view) return Errno::Rofs;
  uint64_t oldSize = file.data.size();
  Mount* m = file.mount;
  const bool counted = m && m->isWorkspace() && (file.linked() || file.detached);
  if (m && m->isWorkspace()) {
    if (newSize > m->limits.maxFileBytes) return Errno::Fbig;
    // Unlinked-but-open files count too: otherwise every descriptor could hold another maxFileBytes.
    if (counted && newSize > oldSize &&
        m->totalBytes + m->detachedBytes + (newSize - oldSize) > m->limits.maxTotalBytes) {
      return Errno::NoSpc;
    }
  }
  if (newSize > (uint64_t(1) << 31)) return Errno::Fbig;  // a bound for mounts without limits
  file.data.resize(std::size_t(newSize));
  if (counted) {
    uint64_t& total = file.linked() ? m->totalBytes : m->detachedBytes;
    total = total - std::min(total, oldSize) + newSize;
  }
  return Errno::Success;
}

bool isAncestor(const Node* ancestor, const Node* node) {
  for (const Node* n = node; n; n = n->parent) {
    if (n == ancestor) return true;
  }
  return false;
}

}  // namespace detail

using detail::Node;
using detail::NodeKind;

namespace {

// Splits a host-side relative path; Inval for absolute paths, `.`/`..` components or NUL bytes.
Errno splitRelative(std::string_view path, std::vector<std::string_view>& parts) {
  if (path.empty() || path.front() == '/' || path.find('\0') != std::string_view::npos) return Errno::Inval;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part == "." || part == "..") return Errno::Inval;
    if (part.size() > detail::kMaxNameBytes) return Errno::NameTooLong;
    if (!part.empty()) parts.push_back(part);
    start = end + 1;
  }
  return parts.empty() ? Errno::Inval : Errno::Success;
}

// Unlinks every node below `node` (which is already out of the tree and out of the accounting): a descriptor a guest
// still holds on one of them then sees a removed entry (linked() false), never a tree that still counts. Iterative.
void detachSubtree(Node& node) {
  std::vector<std::shared_ptr<Node>> keep;  // every node stays alive until all are emptied: no recursive release
  std::vector<Node*> stack{&node};
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (auto& [name, child] : n->children) {
      child->parent = nullptr;
      keep.push_back(std::move(child));
      stack.push_back(keep.back().get());
    }
    n->children.clear();
    n->generation++;
  }
}

Errno walkDirs(Node* dir, const std::vector<std::string_view>& parts, std::size_t count, bool create, Node*& out) {
  for (std::size_t i = 0; i < count; ++i) {
    auto it = dir->children.find(parts[i]);
    if (it == dir->children.end()) {
      if (!create) return Errno::NoEnt;
      if (Errno e = detail::reserveEntry(*dir, parts[i]); e != Errno::Success) return e;
      auto child = detail::makeNode(NodeKind::Directory, dir->mount, dir->mtim);
      Node* raw = child.get();
      detail::linkChild(*dir, std::string(parts[i]), std::move(child));
      dir = raw;
      continue;
    }
    if (!it->second->isDir()) return Errno::NotDir;
    dir = it->second.get();
  }
  out = dir;
  return Errno::Success;
}

// The existing directory that holds `relPath`'s last component, parts.back().
Errno findParent(Node* root, std::string_view relPath, std::vector<std::string_view>& parts, Node*& dir) {
  if (Errno e = splitRelative(relPath, parts); e != Errno::Success) return e;
  return walkDirs(root, parts, parts.size() - 1, false, dir);
}

}  // namespace

Workspace::Workspace(WorkspaceLimits limits) : mount_(std::make_unique<detail::Mount>()) {
  mount_->kind = detail::MountKind::Workspace;
  mount_->device = 3;
  mount_->limits = limits;
  root_ = detail::makeNode(NodeKind::Directory, mount_.get(), 0);
}

Workspace::~Workspace() = default;

bool Workspace::disabled() const { return mount_->disabled; }
void Workspace::setDisabled(bool disabled) { mount_->disabled = disabled; }
const WorkspaceLimits& Workspace::limits() const { return mount_->limits; }
uint64_t Workspace::totalBytes() const { return mount_->totalBytes; }
uint32_t Workspace::entryCount() const { return mount_->entries; }
uint64_t Workspace::pathBytes() const { return mount_->pathBytes; }
uint64_t Workspace::detachedBytes() const { return mount_->detachedBytes; }

Errno Workspace::writeFile(std::string_view relPath, std::string_view data, uint64_t mtimeNs) {
  std::vector<std::string_view> parts;
  if (Errno e = splitRelative(relPath, parts); e != Errno::Success) return e;
  if (data.size() > mount_->limits.maxFileBytes) return Errno::Fbig;
  Node* dir = nullptr;
  if (Errno e = walkDirs(root_.get(), parts, parts.size() - 1, true, dir); e != Errno::Success) return e;
  std::shared_ptr<Node> file;
  auto it = dir->children.find(parts.back());
  if (it != dir->children.end()) {
    if (it->second->isDir()) return Errno::IsDir;
    file = it->second;
  } else {
    if (Errno e = detail::reserveEntry(*dir, parts.back()); e != Errno::Success) return e;
    // Checked before linking, so a new file that does not fit is not left behind empty.
    if (mount_->totalBytes + data.size() > mount_->limits.maxTotalBytes) return Errno::NoSpc;
    file = detail::makeNode(NodeKind::File, mount_.get(), mtimeNs);
    detail::linkChild(*dir, std::string(parts.back()), file);
  }
  if (Errno e = detail::resizeFile(*file, data.size()); e != Errno::Success) return e;
  std::copy(data.begin(), data.end(), file->data.begin());
  file->mtim = file->ctim = mtimeNs;
  return Errno::Success;
}

Errno Workspace::makeDirectories(std::string_view relPath) {
  std::vector<std::string_view> parts;
  if (Errno e = splitRelative(relPath, parts); e != Errno::Success) return e;
  Node* dir = nullptr;
  return walkDirs(root_.get(), parts, parts.size(), true, dir);
}

Errno Workspace::makeSymlink(std::string_view relPath, std::string_view target) {
  if (target.empty() || target.size() > detail::kMaxPathBytes || target.find('\0') != std::string_view::npos) {
    return Errno::Inval;
  }
  if (target.front() == '/') return Errno::NotCapable;
  std::vector<std::string_view> parts;
  Node* dir = nullptr;
  if (Errno e = findParent(root_.get(), relPath, parts, dir); e != Errno::Success) return e;
  if (dir->children.count(parts.back())) return Errno::Exist;
  if (Errno e = detail::reserveEntry(*dir, parts.back()); e != Errno::Success) return e;
  auto link = detail::makeNode(NodeKind::Symlink, mount_.get(), dir->mtim);
  link->data.assign(target.begin(), target.end());
  detail::linkChild(*dir, std::string(parts.back()), std::move(link));
  return Errno::Success;
}

Errno Workspace::readFile(std::string_view relPath, std::string& out) const {
  std::vector<std::string_view> parts;
  Node* dir = nullptr;
  if (Errno e = findParent(root_.get(), relPath, parts, dir); e != Errno::Success) return e;
  auto it = dir->children.find(parts.back());
  if (it == dir->children.end()) return Errno::NoEnt;
  if (it->second->isDir()) return Errno::IsDir;
  out.assign(reinterpret_cast<const char*>(it->second->bytes()), std::size_t(it->second->size()));
  return Errno::Success;
}

Errno Workspace::stat(std::string_view relPath, Entry& out) const {
  std::vector<std::string_view> parts;
  Node* dir = nullptr;
  if (Errno e = findParent(root_.get(), relPath, parts, dir); e != Errno::Success) return e;
  auto it = dir->children.find(parts.back());
  if (it == dir->children.end()) return Errno::NoEnt;
  const Node& node = *it->second;
  out.path.assign(relPath);
  out.directory = node.isDir();
  out.data = node.isDir() ? std::string_view()
                          : std::string_view(reinterpret_cast<const char*>(node.bytes()), std::size_t(node.size()));
  out.mtimeNs = node.mtim;
  out.symlink = node.isSymlink();
  return Errno::Success;
}

Errno Workspace::remove(std::string_view relPath) {
  std::vector<std::string_view> parts;
  Node* dir = nullptr;
  if (Errno e = findParent(root_.get(), relPath, parts, dir); e != Errno::Success) return e;
  std::shared_ptr<Node> removed = detail::unlinkChild(*dir, parts.back());
  if (!removed) return Errno::NoEnt;
  detachSubtree(*removed);
  return Errno::Success;
}

void Workspace::clear() {
  while (!root_->children.empty()) {
    std::string name = root_->children.begin()->first;
    detachSubtree(*detail::unlinkChild(*root_, name));
  }
  mount_->totalBytes = 0;
  mount_->entries = 0;
  mount_->pathBytes = 0;
}

Errno Workspace::forceDirectories(std::string_view relPath) {
  std::vector<std::string_view> parts;
  if (Errno e = splitRelative(relPath, parts); e != Errno::Success) return e;
  // No entry cap (above), but the path limits: nothing deeper or longer than the guest could create.
  uint64_t pathBytes = parts.size() - 1;
  for (std::string_view part : parts) pathBytes += part.size();
  if (pathBytes > mount_->limits.maxPathBytes || parts.size() > mount_->limits.maxDepth) return Errno::NameTooLong;
  Node* dir = root_.get();
  for (std::string_view part : parts) {
    auto it = dir->children.find(part);
    if (it != dir->children.end() && it->second->isDir()) {
      dir = it->second.get();
      continue;
    }
    if (it != dir->children.end()) detachSubtree(*detail::unlinkChild(*dir, part));
    auto child = detail::makeNode(NodeKind::Directory, mount_.get(), dir->mtim);
    Node* raw = child.get();
    detail::linkChild(*dir, std::string(part), std::move(child));
    dir = raw;
  }
  return Errno::Success;
}

Errno Workspace::restoreFile(std::string_view relPath, std::string_view data, uint64_t mtimeNs) {
  std::vector<std::string_view> parts;
  Node* dir = nullptr;
  if (Errno e = findParent(root_.get(), relPath, parts, dir); e != Errno::Success) return e;
  Node* file = nullptr;
  auto it = dir->children.find(parts.back());
  if (it != dir->children.end()) {
    if (it->second->isDir()) return Errno::IsDir;
    file = it->second.get();
  } else {
    auto created = detail::makeNode(NodeKind::File, mount_.get(), mtimeNs);
    file = created.get();
    detail::linkChild(*dir, std::string(parts.back()), std::move(created));
  }
  uint64_t oldSize = file->data.size();
  file->data.assign(data.begin(), data.end());
  mount_->totalBytes = mount_->totalBytes - oldSize + data.size();
  file->mtim = file->ctim = mtimeNs;
  return Errno::Success;
}

Errno Workspace::rename(std::string_view from, std::string_view to) {
  std::vector<std::string_view> a, b;
  Node* fromDir = nullptr;
  Node* toDir = nullptr;
  if (Errno e = findParent(root_.get(), from, a, fromDir); e != Errno::Success) return e;
  auto it = fromDir->children.find(a.back());
  if (it == fromDir->children.end()) return Errno::NoEnt;
  Node* source = it->second.get();
  if (Errno e = findParent(root_.get(), to, b, toDir); e != Errno::Success) return e;
  auto jt = toDir->children.find(b.back());
  Node* target = jt == toDir->children.end() ? nullptr : jt->second.get();
  if (target == source) return Errno::Success;
  if (source->isDir()) {
    if (target && !target->isDir()) return Errno::NotDir;
    if (target && !target->children.empty()) return Errno::NotEmpty;
    if (detail::isAncestor(source, toDir)) return Errno::Inval;
  } else if (target && target->isDir()) {
    return Errno::IsDir;
  }
  // Every path of the moved subtree changes: the path limits apply to each of them, checked before anything moves.
  if (Errno e = detail::checkMove(*source, *toDir, b.back(), target); e != Errno::Success) return e;
  if (target) detachSubtree(*detail::unlinkChild(*toDir, b.back()));
  std::shared_ptr<Node> moving = detail::unlinkChild(*fromDir, a.back());
  detail::linkChild(*toDir, std::string(b.back()), std::move(moving));
  return Errno::Success;
}

namespace {

// Iterative pre-order below `top` (whose path is `path`, empty for the root): one frame per directory on the current
// path, never a recursive call.
void walkBelow(const Node& top, std::string path, const std::function<void(const Workspace::Entry&)>& visit) {
  struct Frame {
    const Node* dir;
    decltype(Node::children)::const_iterator next;
    std::size_t prefixLen;  // bytes of `path` naming `dir` (0 for the root)
  };
  std::vector<Frame> stack{{&top, top.children.begin(), path.size()}};
  while (!stack.empty()) {
    Frame& frame = stack.back();
    if (frame.next == frame.dir->children.end()) {
      stack.pop_back();
      continue;
    }
    const auto& [name, child] = *frame.next++;
    path.resize(frame.prefixLen);
    if (!path.empty()) path.push_back('/');
    path.append(name);
    Workspace::Entry entry{path, child->isDir(), {}, child->mtim, child->isSymlink()};
    if (!child->isDir()) {
      entry.data = std::string_view(reinterpret_cast<const char*>(child->bytes()), std::size_t(child->size()));
    }
    visit(entry);
    if (child->isDir()) stack.push_back({child.get(), child->children.begin(), path.size()});
  }
}

}  // namespace

void Workspace::forEach(const std::function<void(const Entry&)>& visit) const { walkBelow(*root_, {}, visit); }

Errno Workspace::forEachUnder(std::string_view relPath, const std::function<void(const Entry&)>& visit) const {
  if (relPath.empty()) {
    forEach(visit);
    return Errno::Success;
  }
  std::vector<std::string_view> parts;
  Node* dir = nullptr;
  if (Errno e = findParent(root_.get(), relPath, parts, dir); e != Errno::Success) return e;
  auto it = dir->children.find(parts.back());
  if (it == dir->children.end()) return Errno::NoEnt;
  const Node& node = *it->second;
  // The entry's path as the tree spells it (relPath may carry empty segments).
  std::string path;
  for (std::string_view part : parts) {
    if (!path.empty()) path.push_back('/');
    path.append(part);
  }
  Entry entry{path, node.isDir(), {}, node.mtim, node.isSymlink()};
  if (!node.isDir()) {
    entry.data = std::string_view(reinterpret_cast<const char*>(node.bytes()), std::size_t(node.size()));
  }
  visit(entry);
  if (node.isDir()) walkBelow(node, std::move(path), visit);
  return Errno::Success;
}

}  // namespace sw::wasi
