// path_* syscalls, with the sandbox policy of protocol §5.4: a mutation outside /workspace is EPERM, any access to a
// disabled workspace is EACCES, links and symlinks are EPERM, and no path leaves its preopen (path_resolver.cpp).
// With the policy off (the runner's --full-wasi) symbolic links are real nodes; hard links stay EPERM (below).
// Every call checks its descriptor first: a bad fd is EBADF before any other answer.
#include <algorithm>

#include "internal.h"

namespace sw::wasi {

using detail::FdEntry;
using detail::FdKind;
using detail::HostState;
using detail::Node;
using detail::NodeKind;
using detail::Resolved;
namespace right = detail::right;

namespace {

constexpr uint32_t kOflagCreat = 1, kOflagDirectory = 2, kOflagExcl = 4, kOflagTrunc = 8;

Errno lookupDir(HostState& s, uint32_t fd, uint64_t needed, FdEntry*& e) {
  e = s.fds.get(fd);
  if (!e) return Errno::Badf;
  if (e->kind != FdKind::Directory) return Errno::NotDir;
  if ((e->rightsBase & needed) != needed) return Errno::NotCapable;
  return Errno::Success;
}

bool disabledWorkspace(const FdEntry& dir) { return dir.inWorkspace() && dir.node->mount->disabled; }

// Creating, removing or renaming: only inside an enabled workspace.
Errno mutationPolicy(HostState& s, const FdEntry& dir) {
  if (!dir.inWorkspace()) return s.options.referencePolicy ? Errno::Perm : Errno::Rofs;
  return dir.node->mount->disabled ? Errno::Acces : Errno::Success;
}

// A directory that was itself removed accepts no new entries.
bool canHoldNewEntries(const FdEntry& dir, const Node& parent) {
  return &parent == dir.root.get() || parent.linked();
}

Errno resolveArg(Host& host, const FdEntry& dir, uint32_t path, uint32_t pathLen, Resolved& r,
                 bool followLast = false) {
  std::string p;
  if (Errno e = detail::readPath(host, path, pathLen, p); e != Errno::Success) return e;
  return detail::resolvePath(dir, p, r, followLast);
}

bool follows(uint32_t lookupFlags) { return (lookupFlags & detail::kLookupSymlinkFollow) != 0; }

// A call that adds or removes an entry under directory `fd`: the descriptor, the mutation policy, the right, then the
// path, in that order for every such call.
Errno resolveForMutation(Host& host, uint32_t fd, uint64_t needed, uint32_t path, uint32_t pathLen, FdEntry*& dir,
                         Resolved& r) {
  HostState& s = host.state();
  if (Errno e = lookupDir(s, fd, 0, dir); e != Errno::Success) return e;
  if (Errno e = mutationPolicy(s, *dir); e != Errno::Success) return e;
  if (!(dir->rightsBase & needed)) return Errno::NotCapable;
  return resolveArg(host, *dir, path, pathLen, r);
}

}  // namespace

Errno path_open(Host& host, uint32_t dirFd, uint32_t dirFlags, uint32_t path, uint32_t pathLen, uint32_t oflags,
                uint64_t rightsBase, uint64_t rightsInheriting, uint32_t fdFlags, uint32_t fdPtr) {
  HostState& s = host.state();
  FdEntry* dir = nullptr;
  if (Errno e = lookupDir(s, dirFd, right::PathOpen, dir); e != Errno::Success) return e;
  if (disabledWorkspace(*dir)) return Errno::Acces;
  if (!dir->inWorkspace() && (oflags & (kOflagCreat | kOflagTrunc)) && s.options.referencePolicy) return Errno::Perm;
  if ((oflags & ~uint32_t(0xf)) || (fdFlags & ~uint32_t(0x1f))) return Errno::Inval;
  if ((oflags & kOflagCreat) && !(dir->rightsBase & right::PathCreateFile)) return Errno::NotCapable;
  // O_TRUNC through a path is a size change: the directory needs path_filestat_set_size (witx `path_open`).
  if ((oflags & kOflagTrunc) && !(dir->rightsBase & right::PathFilestatSetSize)) return Errno::NotCapable;
  if ((rightsBase & ~dir->rightsInheriting) || (rightsInheriting & ~dir->rightsInheriting)) return Errno::NotCapable;
  if (!s.memory) return Errno::Fault;
  Resolved r;
  if (Errno e = resolveArg(host, *dir, path, pathLen, r, follows(dirFlags)); e != Errno::Success) return e;
  if (!s.memory->inBounds(fdPtr, 4)) return Errno::Fault;

  std::shared_ptr<Node> node = r.node;
  if (!node) {
    if (!(oflags & kOflagCreat)) return Errno::NoEnt;
    if (r.trailingSlash || (oflags & kOflagDirectory)) return Errno::IsDir;
    if (!r.parent->mount->isWorkspace()) return Errno::Rofs;
    if (!canHoldNewEntries(*dir, *r.parent)) return Errno::NoEnt;
    if (Errno e = detail::reserveEntry(*r.parent, r.name); e != Errno::Success) return e;
    node = detail::makeNode(NodeKind::File, r.parent->mount, s.now());
    detail::linkChild(*r.parent, r.name, node);
  } else {
    if ((oflags & kOflagCreat) && (oflags & kOflagExcl)) return Errno::Exist;
    // A symlink not followed (no LOOKUPFLAGS_SYMLINK_FOLLOW) cannot be opened: O_NOFOLLOW's ELOOP.
    if (node->isSymlink()) return Errno::Loop;
    if ((oflags & kOflagDirectory) && !node->isDir()) return Errno::NotDir;
    // Writing a directory: EISDIR, unless the caller asked for a directory (O_DIRECTORY), in which case rights
    // that do not apply to directories are simply not granted (as the witx allows).
    if (node->isDir() && (oflags & kOflagTrunc)) return Errno::IsDir;
    // Outside the reference policy, POSIX open(2): a directory is never opened for writing, O_DIRECTORY or not.
    if (node->isDir() && (rightsBase & right::FdWrite) && (!(oflags & kOflagDirectory) || !s.options.referencePolicy)) {
      return Errno::IsDir;
    }
    bool writable = node->mount && node->mount->isWorkspace();
    if (node->kind == NodeKind::File && !writable &&
        ((rightsBase & (right::FdWrite | right::FdAllocate | right::FdFilestatSetSize)) || (oflags & kOflagTrunc))) {
      return Errno::Rofs;
    }
    if ((oflags & kOflagTrunc) && node->kind == NodeKind::File && node->size() != 0) {
      if (Errno e = detail::resizeFile(*node, 0); e != Errno::Success) return e;
      node->mtim = node->ctim = s.now();
    }
  }

  FdEntry entry;
  // Under the reference policy `..` stops at the preopen, for every descriptor below it. A plain WASI program
  // (--full-wasi) gets the capability model of the WASI filesystem design: a directory descriptor grants its own
  // subtree only, so `..` (or a symlink's `..`) never climbs above the directory it was opened for.
  entry.root = dir->root;
  if (node->isDir() && !s.options.referencePolicy) entry.limit = node;
  entry.node = node;
  entry.fdflags = uint16_t(fdFlags);
  bool writable = node->mount && node->mount->kind != detail::MountKind::ReadOnly;
  if (node->isDir()) {
    entry.kind = FdKind::Directory;
    entry.rightsBase = rightsBase & right::DirAll;
    entry.rightsInheriting = rightsInheriting;
  } else {
    entry.kind = FdKind::File;
    entry.rightsBase = rightsBase & (writable ? right::FileAll : right::FileReadOnly);
    entry.rightsInheriting = 0;
  }
  uint32_t fd = 0;
  if (Errno e = s.fds.allocate(s.fdBase, std::move(entry), fd); e != Errno::Success) return e;
  if (!s.memory->writeU32(fdPtr, fd)) {
    s.fds.close(fd);
    return Errno::Fault;
  }
  return Errno::Success;
}

Errno path_create_directory(Host& host, uint32_t fd, uint32_t path, uint32_t pathLen) {
  HostState& s = host.state();
  FdEntry* dir = nullptr;
  Resolved r;
  if (Errno e = resolveForMutation(host, fd, right::PathCreateDirectory, path, pathLen, dir, r); e != Errno::Success) return e;
  if (r.node || !r.parent) return Errno::Exist;
  if (!canHoldNewEntries(*dir, *r.parent)) return Errno::NoEnt;
  if (Errno e = detail::reserveEntry(*r.parent, r.name); e != Errno::Success) return e;
  detail::linkChild(*r.parent, r.name, detail::makeNode(NodeKind::Directory, r.parent->mount, s.now()));
  r.parent->mtim = s.now();
  return Errno::Success;
}

Errno path_remove_directory(Host& host, uint32_t fd, uint32_t path, uint32_t pathLen) {
  HostState& s = host.state();
  FdEntry* dir = nullptr;
  Resolved r;
  if (Errno e = resolveForMutation(host, fd, right::PathRemoveDirectory, path, pathLen, dir, r); e != Errno::Success) return e;
  if (!r.node) return Errno::NoEnt;
  if (!r.parent) return r.node == dir->root ? Errno::Busy : Errno::Inval;
  if (!r.node->isDir()) return Errno::NotDir;
  if (!r.node->children.empty()) return Errno::NotEmpty;
  detail::unlinkChild(*r.parent, r.name);
  r.parent->mtim = s.now();
  return Errno::Success;
}

Errno path_unlink_file(Host& host, uint32_t fd, uint32_t path, uint32_t pathLen) {
  HostState& s = host.state();
  FdEntry* dir = nullptr;
  Resolved r;
  if (Errno e = resolveForMutation(host, fd, right::PathUnlinkFile, path, pathLen, dir, r); e != Errno::Success) return e;
  if (!r.node) return Errno::NoEnt;
  if (r.node->isDir() || !r.parent) return Errno::IsDir;
  if (r.trailingSlash) return Errno::NotDir;
  detail::unlinkChild(*r.parent, r.name);
  r.parent->mtim = s.now();
  return Errno::Success;
}

Errno path_rename(Host& host, uint32_t oldFd, uint32_t oldPath, uint32_t oldPathLen, uint32_t newFd, uint32_t newPath,
                  uint32_t newPathLen) {
  HostState& s = host.state();
  FdEntry* from = nullptr;
  FdEntry* to = nullptr;
  if (Errno e = lookupDir(s, oldFd, 0, from); e != Errno::Success) return e;
  if (Errno e = lookupDir(s, newFd, 0, to); e != Errno::Success) return e;
  if (Errno e = mutationPolicy(s, *from); e != Errno::Success) return e;
  if (Errno e = mutationPolicy(s, *to); e != Errno::Success) return e;
  if (!(from->rightsBase & right::PathRenameSource) || !(to->rightsBase & right::PathRenameTarget)) {
    return Errno::NotCapable;
  }
  if (from->node->mount != to->node->mount) return Errno::Xdev;
  Resolved a, b;
  if (Errno e = resolveArg(host, *from, oldPath, oldPathLen, a); e != Errno::Success) return e;
  if (Errno e = resolveArg(host, *to, newPath, newPathLen, b); e != Errno::Success) return e;
  if (!a.node) return Errno::NoEnt;
  if (!a.parent || !b.parent) return Errno::Busy;
  if (a.node == b.node) return Errno::Success;
  if (!canHoldNewEntries(*to, *b.parent)) return Errno::NoEnt;
  if (a.node->isDir()) {
    if (b.node && !b.node->isDir()) return Errno::NotDir;
    if (b.node && !b.node->children.empty()) return Errno::NotEmpty;
    if (detail::isAncestor(a.node.get(), b.parent.get())) return Errno::Inval;
  } else {
    if (b.node && b.node->isDir()) return Errno::IsDir;
    if (a.trailingSlash || b.trailingSlash) return Errno::NotDir;
  }
  // The moved subtree's paths change: the path limits apply to every one of them.
  if (Errno e = detail::checkMove(*a.node, *b.parent, b.name, b.node.get()); e != Errno::Success) return e;
  if (b.node) detail::unlinkChild(*b.parent, b.name);
  std::shared_ptr<Node> moving = detail::unlinkChild(*a.parent, a.name);
  detail::linkChild(*b.parent, b.name, std::move(moving));
  a.parent->mtim = b.parent->mtim = s.now();
  return Errno::Success;
}

Errno path_filestat_get(Host& host, uint32_t fd, uint32_t flags, uint32_t path, uint32_t pathLen, uint32_t statPtr) {
  HostState& s = host.state();
  FdEntry* dir = nullptr;
  if (Errno e = lookupDir(s, fd, right::PathFilestatGet, dir); e != Errno::Success) return e;
  if (disabledWorkspace(*dir)) return Errno::Acces;
  Resolved r;
  if (Errno e = resolveArg(host, *dir, path, pathLen, r, follows(flags)); e != Errno::Success) return e;
  if (!r.node) return Errno::NoEnt;
  uint8_t buf[detail::kFilestatSize];
  detail::encodeFilestat(buf, *r.node);
  return s.memory->write(statPtr, buf, sizeof buf) ? Errno::Success : Errno::Fault;
}

Errno path_filestat_set_times(Host& host, uint32_t fd, uint32_t flags, uint32_t path, uint32_t pathLen, uint64_t atim,
                              uint64_t mtim, uint32_t fstFlags) {
  HostState& s = host.state();
  if (s.options.referencePolicy) return Errno::Perm;
  FdEntry* dir = nullptr;
  if (Errno e = lookupDir(s, fd, right::PathFilestatSetTimes, dir); e != Errno::Success) return e;
  if (disabledWorkspace(*dir)) return Errno::Acces;
  Resolved r;
  if (Errno e = resolveArg(host, *dir, path, pathLen, r, follows(flags)); e != Errno::Success) return e;
  if (!r.node) return Errno::NoEnt;
  return detail::setNodeTimes(host, *r.node, atim, mtim, fstFlags);
}

Errno path_readlink(Host& host, uint32_t fd, uint32_t path, uint32_t pathLen, uint32_t buf, uint32_t bufLen,
                    uint32_t bufUsedPtr) {
  HostState& s = host.state();
  FdEntry* dir = nullptr;
  if (Errno e = lookupDir(s, fd, right::PathReadlink, dir); e != Errno::Success) return e;
  if (disabledWorkspace(*dir)) return Errno::Acces;
  Resolved r;
  if (Errno e = resolveArg(host, *dir, path, pathLen, r); e != Errno::Success) return e;
  if (!r.node) return Errno::NoEnt;
  if (!r.node->isSymlink()) return Errno::Inval;
  // A buffer shorter than the target gets its first bufLen bytes, as readlink(2) does.
  const uint32_t n = uint32_t(std::min<uint64_t>(bufLen, r.node->data.size()));
  if (!s.memory->inBounds(buf, n) || !s.memory->inBounds(bufUsedPtr, 4)) return Errno::Fault;
  if (n && !s.memory->write(buf, r.node->data.data(), n)) return Errno::Fault;
  return s.memory->writeU32(bufUsedPtr, n) ? Errno::Success : Errno::Fault;
}

// Hard links: a node has one parent in this tree (`..`, the workspace's path accounting), so there are none, and
// link(2)'s answer for a file system without them is EPERM. The descriptors are checked first all the same.
Errno path_link(Host& host, uint32_t oldFd, uint32_t oldFlags, uint32_t oldPath, uint32_t oldPathLen, uint32_t newFd,
                uint32_t newPath, uint32_t newPathLen) {
  HostState& s = host.state();
  if (s.options.referencePolicy) return Errno::Perm;
  FdEntry* from = nullptr;
  FdEntry* to = nullptr;
  if (Errno e = lookupDir(s, oldFd, right::PathLinkSource, from); e != Errno::Success) return e;
  if (Errno e = lookupDir(s, newFd, right::PathLinkTarget, to); e != Errno::Success) return e;
  return Errno::Perm;
}

// A symbolic link holding `oldPath` at `newPath` (reference policy: EPERM). The target is stored as given and
// resolved only when followed; an absolute target is refused here already, since it could never be followed.
Errno path_symlink(Host& host, uint32_t oldPath, uint32_t oldPathLen, uint32_t fd, uint32_t newPath,
                   uint32_t newPathLen) {
  HostState& s = host.state();
  if (s.options.referencePolicy) return Errno::Perm;
  FdEntry* dir = nullptr;
  Resolved r;
  if (Errno e = resolveForMutation(host, fd, right::PathSymlink, newPath, newPathLen, dir, r); e != Errno::Success) {
    return e;
  }
  std::string target;
  if (Errno e = detail::readPath(host, oldPath, oldPathLen, target); e != Errno::Success) return e;
  if (target.empty()) return Errno::NoEnt;
  if (target.front() == '/') return Errno::NotCapable;
  if (r.node || !r.parent) return Errno::Exist;
  if (r.trailingSlash) return Errno::NoEnt;
  if (!canHoldNewEntries(*dir, *r.parent)) return Errno::NoEnt;
  if (Errno e = detail::reserveEntry(*r.parent, r.name); e != Errno::Success) return e;
  auto link = detail::makeNode(NodeKind::Symlink, r.parent->mount, s.now());
  link->data.assign(target.begin(), target.end());
  detail::linkChild(*r.parent, r.name, std::move(link));
  r.parent->mtim = s.now();
  return Errno::Success;
}

}  // namespace sw::wasi
