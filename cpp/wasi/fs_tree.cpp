// The in-memory file system tree, the workspace limits (SPEC §7.11) and the host-side Workspace API.
#include <algorithm>

#include "internal.h"

namespace sw::wasi {
namespace detail {

FileType Node::fileType() const {
  switch (kind) {
    case NodeKind::File: return FileType::RegularFile;
    case NodeKind::Directory: return FileType::Directory;
    case NodeKind::NullDevice: return FileType::CharacterDevice;
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

Errno reserveEntry(const Node& dir) {
  const Mount* m = dir.mount;
  if (m && m->isWorkspace() && m->entries >= m->limits.maxEntries) return Errno::NoSpc;
  return Errno::Success;
}

void subtreeUsage(const Node& node, uint32_t& entries, uint64_t& bytes) {
  entries += 1;
  if (node.kind == NodeKind::File) bytes += node.size();
  for (const auto& [name, child] : node.children) subtreeUsage(*child, entries, bytes);
}

void linkChild(Node& dir, std::string name, std::shared_ptr<Node> child) {
  child->parent = &dir;
  if (dir.mount && dir.mount->isWorkspace()) {
    uint32_t entries = 0;
    uint64_t bytes = 0;
    subtreeUsage(*child, entries, bytes);
    dir.mount->entries += entries;
    dir.mount->totalBytes += bytes;
  }
  dir.children[std::move(name)] = std::move(child);
}

std::shared_ptr<Node> unlinkChild(Node& dir, std::string_view name) {
  auto it = dir.children.find(name);
  if (it == dir.children.end()) return nullptr;
  std::shared_ptr<Node> child = std::move(it->second);
  dir.children.erase(it);
  child->parent = nullptr;
  if (dir.mount && dir.mount->isWorkspace()) {
    uint32_t entries = 0;
    uint64_t bytes = 0;
    subtreeUsage(*child, entries, bytes);
    dir.mount->entries -= std::min(dir.mount->entries, entries);
    dir.mount->totalBytes -= std::min(dir.mount->totalBytes, bytes);
  }
  return child;
}

Errno resizeFile(Node& file, uint64_t newSize) {
  if (file.view) return Errno::Rofs;
  uint64_t oldSize = file.data.size();
  Mount* m = file.mount;
  if (m && m->isWorkspace()) {
    if (newSize > m->limits.maxFileBytes) return Errno::Fbig;
    if (file.linked() && newSize > oldSize && m->totalBytes + (newSize - oldSize) > m->limits.maxTotalBytes) {
      return Errno::NoSpc;
    }
  }
  if (newSize > (uint64_t(1) << 31)) return Errno::Fbig;  // a bound for mounts without limits
  file.data.resize(std::size_t(newSize));
  if (m && m->isWorkspace() && file.linked()) m->totalBytes = m->totalBytes + newSize - oldSize;
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
// still holds on one of them then sees a removed entry (linked() false), never a tree that still counts.
void detachSubtree(Node& node) {
  for (auto& [name, child] : node.children) {
    child->parent = nullptr;
    detachSubtree(*child);
  }
  node.children.clear();
}

Errno walkDirs(Node* dir, const std::vector<std::string_view>& parts, std::size_t count, bool create, Node*& out) {
  for (std::size_t i = 0; i < count; ++i) {
    auto it = dir->children.find(parts[i]);
    if (it == dir->children.end()) {
      if (!create) return Errno::NoEnt;
      if (Errno e = detail::reserveEntry(*dir); e != Errno::Success) return e;
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
    if (Errno e = detail::reserveEntry(*dir); e != Errno::Success) return e;
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
  detachSubtree(*root_);
  mount_->totalBytes = 0;
  mount_->entries = 0;
}

Errno Workspace::forceDirectories(std::string_view relPath) {
  std::vector<std::string_view> parts;
  if (Errno e = splitRelative(relPath, parts); e != Errno::Success) return e;
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

void Workspace::forEach(const std::function<void(const Entry&)>& visit) const {
  std::function<void(const Node&, const std::string&)> walk = [&](const Node& dir, const std::string& prefix) {
    for (const auto& [name, child] : dir.children) {
      std::string path = prefix.empty() ? name : prefix + "/" + name;
      Entry entry{path, child->isDir(), {}, child->mtim};
      if (!child->isDir()) {
        entry.data = std::string_view(reinterpret_cast<const char*>(child->bytes()), std::size_t(child->size()));
      }
      visit(entry);
      if (child->isDir()) walk(*child, path);
    }
  };
  walk(*root_, "");
}

}  // namespace sw::wasi
