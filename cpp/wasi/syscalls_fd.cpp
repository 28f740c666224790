// fd_* syscalls: descriptors on files, directories, /dev/null and the stdio capture.
#include <algorithm>
#include <cstring>
#include <optional>

#include "internal.h"

namespace sw::wasi {

using detail::FdEntry;
using detail::FdKind;
using detail::HostState;
using detail::Iovec;
using detail::Node;
using detail::NodeKind;
namespace right = detail::right;

namespace {

constexpr uint32_t kWhenceSet = 0, kWhenceCur = 1, kWhenceEnd = 2;
constexpr uint16_t kFdflagAppend = 1, kFdflagsAll = 0x1f;
constexpr uint32_t kFstAtim = 1, kFstAtimNow = 2, kFstMtim = 4, kFstMtimNow = 8;

// Acces while the descriptor's workspace is disabled (protocol §5.4/§10.5; the flag is read on every call).
Errno gate(const FdEntry& e) {
  return e.inWorkspace() && e.node->mount->disabled ? Errno::Acces : Errno::Success;
}

// Missing read/write rights answer Badf, as POSIX read(2)/write(2) do on a descriptor opened the other way.
Errno lookupIo(HostState& s, uint32_t fd, uint64_t needed, FdEntry*& e) {
  Errno err = s.fds.lookup(fd, needed, e);
  return err == Errno::NotCapable ? Errno::Badf : err;
}

Errno lookupGated(HostState& s, uint32_t fd, uint64_t needed, FdEntry*& e) {
  if (Errno err = s.fds.lookup(fd, needed, e); err != Errno::Success) return err;
  return gate(*e);
}

detail::FileType typeOf(const FdEntry& e) {
  if (e.kind == FdKind::Stdout || e.kind == FdKind::Stderr) return detail::FileType::CharacterDevice;
  return e.node ? e.node->fileType() : detail::FileType::Unknown;
}

Errno writeStdio(Host& host, const FdEntry& e, const std::vector<Iovec>& iov, uint64_t total) {
  HostState& s = host.state();
  uint32_t fd = e.kind == FdKind::Stdout ? 1 : 2;
  if (s.options.stdio == StdioMode::Passthrough) {
    // Streamed in bounded pieces: a guest cannot make the host allocate its whole write at once.
    constexpr uint32_t kPiece = 65536;
    s.scratch.resize(kPiece);
    for (const Iovec& v : iov) {
      for (uint32_t done = 0; done < v.len;) {
        uint32_t n = std::min(v.len - done, kPiece);
        if (!s.memory->read(v.buf + done, s.scratch.data(), n)) return Errno::Fault;
        std::string_view piece(reinterpret_cast<const char*>(s.scratch.data()), n);
        if (s.options.stdioSink) s.options.stdioSink(fd, piece);
        done += n;
      }
    }
    return Errno::Success;
  }
  // A chunk the capture would refuse is refused before it is copied.
  if (s.stdio.wouldRefuse(total)) return host.raiseTrap(TrapKind::OutputLimit, "Output limit exceeded");
  s.scratch.resize(std::size_t(total));
  uint64_t at = 0;
  for (const Iovec& v : iov) {
    if (!s.memory->read(v.buf, s.scratch.data() + at, v.len)) return Errno::Fault;
    at += v.len;
  }
  std::string_view bytes(reinterpret_cast<const char*>(s.scratch.data()), std::size_t(total));
  if (!s.stdio.capture(fd, bytes)) return host.raiseTrap(TrapKind::OutputLimit, "Output limit exceeded");
  return Errno::Success;
}

// Writes the iovecs at `offset` (growing the file within the workspace limits); `written` gets the byte count.
Errno writeFileAt(Host& host, Node& node, const std::vector<Iovec>& iov, uint64_t total, uint64_t offset) {
  HostState& s = host.state();
  if (node.kind == NodeKind::NullDevice) return Errno::Success;
  if (node.kind != NodeKind::File || node.view || !node.mount || node.mount->kind != detail::MountKind::Workspace) {
    return Errno::Badf;
  }
  // offset comes from the guest (fd_pwrite, fd_seek): offset + total must not wrap around to a small size.
  if (total > UINT64_MAX - offset) return Errno::Fbig;
  if (offset + total > node.size()) {
    if (Errno e = detail::resizeFile(node, offset + total); e != Errno::Success) return e;
  }
  uint64_t at = offset;
  for (const Iovec& v : iov) {
    if (!s.memory->read(v.buf, node.data.data() + at, v.len)) return Errno::Fault;
    at += v.len;
  }
  if (total) node.mtim = node.ctim = s.now();
  return Errno::Success;
}

Errno readFileAt(Host& host, const Node& node, const std::vector<Iovec>& iov, uint64_t offset, uint64_t& nread) {
  HostState& s = host.state();
  nread = 0;
  if (node.kind == NodeKind::NullDevice) return Errno::Success;
  if (node.kind == NodeKind::Directory) return Errno::IsDir;
  uint64_t size = node.size();
  for (const Iovec& v : iov) {
    if (offset >= size) break;
    uint32_t n = uint32_t(std::min<uint64_t>(v.len, size - offset));
    if (!s.memory->write(v.buf, node.bytes() + offset, n)) return Errno::Fault;
    offset += n;
    nread += n;
    if (n < v.len) break;
  }
  return Errno::Success;
}

Errno setTimes(Host& host, Node& node, uint64_t atim, uint64_t mtim, uint32_t fstFlags) {
  if (fstFlags & ~uint32_t(0xf)) return Errno::Inval;
  if (((fstFlags & kFstAtim) && (fstFlags & kFstAtimNow)) || ((fstFlags & kFstMtim) && (fstFlags & kFstMtimNow))) {
    return Errno::Inval;
  }
  if (!node.mount || !node.mount->isWorkspace()) return Errno::Rofs;
  uint64_t now = host.state().now();
  if (fstFlags & kFstAtim) node.atim = atim;
  if (fstFlags & kFstAtimNow) node.atim = now;
  if (fstFlags & kFstMtim) node.mtim = mtim;
  if (fstFlags & kFstMtimNow) node.mtim = now;
  return Errno::Success;
}

}  // namespace

Errno fd_write(Host& host, uint32_t fd, uint32_t iovs, uint32_t iovsLen, uint32_t nwrittenPtr) {
  HostState& s = host.state();
  if (!s.memory) return Errno::Fault;
  FdEntry* e = nullptr;
  if (Errno err = lookupIo(s, fd, right::FdWrite, e); err != Errno::Success) return err;
  if (Errno err = gate(*e); err != Errno::Success) return err;
  std::vector<Iovec>& iov = s.iovs;  // reused: no allocation per call
  uint64_t total = 0;
  if (Errno err = detail::readIovecs(*s.memory, iovs, iovsLen, iov, total); err != Errno::Success) return err;
  if (!s.memory->inBounds(nwrittenPtr, 4)) return Errno::Fault;
  if (e->kind == FdKind::Stdout || e->kind == FdKind::Stderr) {
    if (Errno err = writeStdio(host, *e, iov, total); err != Errno::Success) return err;
  } else if (e->kind == FdKind::File) {
    uint64_t offset = (e->fdflags & kFdflagAppend) ? e->node->size() : e->offset;
    if (Errno err = writeFileAt(host, *e->node, iov, total, offset); err != Errno::Success) return err;
    if (e->node->kind == NodeKind::File) e->offset = offset + total;
  } else {
    return Errno::Badf;
  }
  return s.memory->writeU32(nwrittenPtr, uint32_t(total)) ? Errno::Success : Errno::Fault;
}

Errno fd_pwrite(Host& host, uint32_t fd, uint32_t iovs, uint32_t iovsLen, uint64_t offset, uint32_t nwrittenPtr) {
  HostState& s = host.state();
  if (s.options.referencePolicy) return Errno::Perm;
  if (!s.memory) return Errno::Fault;
  FdEntry* e = nullptr;
  if (Errno err = lookupIo(s, fd, right::FdWrite | right::FdSeek, e); err != Errno::Success) return err;
  if (Errno err = gate(*e); err != Errno::Success) return err;
  if (e->kind != FdKind::File) return Errno::Spipe;
  std::vector<Iovec>& iov = s.iovs;  // reused: no allocation per call
  uint64_t total = 0;
  if (Errno err = detail::readIovecs(*s.memory, iovs, iovsLen, iov, total); err != Errno::Success) return err;
  if (!s.memory->inBounds(nwrittenPtr, 4)) return Errno::Fault;
  if (Errno err = writeFileAt(host, *e->node, iov, total, offset); err != Errno::Success) return err;
  return s.memory->writeU32(nwrittenPtr, uint32_t(total)) ? Errno::Success : Errno::Fault;
}

namespace {

// fd_read and fd_pread: `at` is the position for pread; without it the descriptor's offset is used and advanced.
Errno readIntoIovecs(Host& host, uint32_t fd, uint32_t iovs, uint32_t iovsLen, std::optional<uint64_t> at,
                     uint32_t nreadPtr) {
  HostState& s = host.state();
  if (!s.memory) return Errno::Fault;
  FdEntry* e = nullptr;
  if (Errno err = lookupIo(s, fd, right::FdRead, e); err != Errno::Success) return err;
  if (Errno err = gate(*e); err != Errno::Success) return err;
  if (e->kind == FdKind::Directory) return Errno::IsDir;
  if (e->kind != FdKind::File) return at ? Errno::Spipe : Errno::Badf;
  std::vector<Iovec>& iov = s.iovs;  // reused: no allocation per call
  uint64_t total = 0, nread = 0;
  if (Errno err = detail::readIovecs(*s.memory, iovs, iovsLen, iov, total); err != Errno::Success) return err;
  if (!s.memory->inBounds(nreadPtr, 4)) return Errno::Fault;
  if (Errno err = readFileAt(host, *e->node, iov, at.value_or(e->offset), nread); err != Errno::Success) return err;
  if (!at && e->node->kind == NodeKind::File) e->offset += nread;
  return s.memory->writeU32(nreadPtr, uint32_t(nread)) ? Errno::Success : Errno::Fault;
}

}  // namespace

Errno fd_read(Host& host, uint32_t fd, uint32_t iovs, uint32_t iovsLen, uint32_t nreadPtr) {
  return readIntoIovecs(host, fd, iovs, iovsLen, std::nullopt, nreadPtr);
}

Errno fd_pread(Host& host, uint32_t fd, uint32_t iovs, uint32_t iovsLen, uint64_t offset, uint32_t nreadPtr) {
  return readIntoIovecs(host, fd, iovs, iovsLen, offset, nreadPtr);
}

Errno fd_seek(Host& host, uint32_t fd, int64_t offset, uint32_t whence, uint32_t newOffsetPtr) {
  HostState& s = host.state();
  FdEntry* e = s.fds.get(fd);
  if (!e) return Errno::Badf;
  if (e->kind == FdKind::Stdout || e->kind == FdKind::Stderr) return Errno::Spipe;
  uint64_t needed = (offset == 0 && whence == kWhenceCur) ? right::FdTell : right::FdSeek;
  if (Errno err = s.fds.lookup(fd, needed, e); err != Errno::Success) return err;
  if (Errno err = gate(*e); err != Errno::Success) return err;
  if (e->kind != FdKind::File) return Errno::Inval;
  int64_t base = 0;
  switch (whence) {
    case kWhenceSet: base = 0; break;
    case kWhenceCur: base = int64_t(e->offset); break;
    case kWhenceEnd: base = int64_t(e->node->size()); break;
    default: return Errno::Inval;
  }
  if ((offset > 0 && base > INT64_MAX - offset) || base + offset < 0) return Errno::Inval;
  uint64_t next = uint64_t(base + offset);
  if (!s.memory || !s.memory->inBounds(newOffsetPtr, 8)) return Errno::Fault;
  if (e->node->kind == NodeKind::File) e->offset = next;
  return s.memory->writeU64(newOffsetPtr, e->node->kind == NodeKind::File ? next : 0) ? Errno::Success
                                                                                       : Errno::Fault;
}

Errno fd_tell(Host& host, uint32_t fd, uint32_t offsetPtr) {
  HostState& s = host.state();
  FdEntry* e = s.fds.get(fd);
  if (!e) return Errno::Badf;
  if (e->kind == FdKind::Stdout || e->kind == FdKind::Stderr) return Errno::Spipe;
  if (Errno err = lookupGated(s, fd, right::FdTell, e); err != Errno::Success) return err;
  if (!s.memory || !s.memory->writeU64(offsetPtr, e->offset)) return Errno::Fault;
  return Errno::Success;
}

Errno fd_close(Host& host, uint32_t fd) { return host.state().fds.close(fd); }

Errno fd_datasync(Host& host, uint32_t fd) {
  FdEntry* e = nullptr;
  return lookupGated(host.state(), fd, right::FdDatasync, e);
}

Errno fd_sync(Host& host, uint32_t fd) {
  FdEntry* e = nullptr;
  return lookupGated(host.state(), fd, right::FdSync, e);
}

Errno fd_advise(Host& host, uint32_t fd, uint64_t offset, uint64_t len, uint32_t advice) {
  FdEntry* e = nullptr;
  if (Errno err = lookupGated(host.state(), fd, right::FdAdvise, e); err != Errno::Success) return err;
  return advice > 5 ? Errno::Inval : Errno::Success;
}

Errno fd_allocate(Host& host, uint32_t fd, uint64_t offset, uint64_t len) {
  HostState& s = host.state();
  if (s.options.referencePolicy) return Errno::Perm;
  FdEntry* e = nullptr;
  if (Errno err = lookupGated(s, fd, right::FdAllocate, e); err != Errno::Success) return err;
  if (e->kind != FdKind::File || e->node->kind != NodeKind::File) return Errno::Badf;
  if (len == 0 || offset > UINT64_MAX - len) return Errno::Inval;
  if (offset + len <= e->node->size()) return Errno::Success;
  return detail::resizeFile(*e->node, offset + len);
}

Errno fd_fdstat_get(Host& host, uint32_t fd, uint32_t statPtr) {
  HostState& s = host.state();
  FdEntry* e = s.fds.get(fd);
  if (!e) return Errno::Badf;
  uint8_t buf[detail::kFdstatSize];
  detail::encodeFdstat(buf, typeOf(*e), e->fdflags, e->rightsBase, e->rightsInheriting);
  if (!s.memory || !s.memory->write(statPtr, buf, sizeof buf)) return Errno::Fault;
  return Errno::Success;
}

Errno fd_fdstat_set_flags(Host& host, uint32_t fd, uint32_t flags) {
  FdEntry* e = nullptr;
  if (Errno err = host.state().fds.lookup(fd, right::FdFdstatSetFlags, e); err != Errno::Success) return err;
  if (flags & ~uint32_t(kFdflagsAll)) return Errno::Inval;
  e->fdflags = uint16_t(flags);
  return Errno::Success;
}

Errno fd_fdstat_set_rights(Host& host, uint32_t fd, uint64_t rightsBase, uint64_t rightsInheriting) {
  FdEntry* e = host.state().fds.get(fd);
  if (!e) return Errno::Badf;
  if ((rightsBase & ~e->rightsBase) || (rightsInheriting & ~e->rightsInheriting)) return Errno::NotCapable;
  e->rightsBase = rightsBase;
  e->rightsInheriting = rightsInheriting;
  return Errno::Success;
}

Errno fd_filestat_get(Host& host, uint32_t fd, uint32_t statPtr) {
  HostState& s = host.state();
  FdEntry* e = nullptr;
  if (Errno err = lookupGated(s, fd, right::FdFilestatGet, e); err != Errno::Success) return err;
  uint8_t buf[detail::kFilestatSize];
  detail::encodeFilestat(buf, *e->node);
  if (!s.memory || !s.memory->write(statPtr, buf, sizeof buf)) return Errno::Fault;
  return Errno::Success;
}

Errno fd_filestat_set_size(Host& host, uint32_t fd, uint64_t size) {
  HostState& s = host.state();
  if (s.options.referencePolicy) return Errno::Perm;
  FdEntry* e = nullptr;
  if (Errno err = lookupGated(s, fd, right::FdFilestatSetSize, e); err != Errno::Success) return err;
  if (e->kind != FdKind::File || e->node->kind != NodeKind::File) return Errno::Inval;
  if (!e->node->mount->isWorkspace()) return Errno::Rofs;
  if (Errno err = detail::resizeFile(*e->node, size); err != Errno::Success) return err;
  e->node->mtim = e->node->ctim = s.now();
  return Errno::Success;
}

Errno fd_filestat_set_times(Host& host, uint32_t fd, uint64_t atim, uint64_t mtim, uint32_t fstFlags) {
  HostState& s = host.state();
  if (s.options.referencePolicy) return Errno::Perm;
  FdEntry* e = nullptr;
  if (Errno err = lookupGated(s, fd, right::FdFilestatSetTimes, e); err != Errno::Success) return err;
  return setTimes(host, *e->node, atim, mtim, fstFlags);
}

Errno fd_prestat_get(Host& host, uint32_t fd, uint32_t prestatPtr) {
  HostState& s = host.state();
  FdEntry* e = s.fds.get(fd);
  if (!e || e->preopenName.empty()) return Errno::Badf;
  uint8_t buf[detail::kPrestatSize] = {};
  detail::put32(buf + 4, uint32_t(e->preopenName.size()));
  if (!s.memory || !s.memory->write(prestatPtr, buf, sizeof buf)) return Errno::Fault;
  return Errno::Success;
}

Errno fd_prestat_dir_name(Host& host, uint32_t fd, uint32_t pathPtr, uint32_t pathLen) {
  HostState& s = host.state();
  FdEntry* e = s.fds.get(fd);
  if (!e || e->preopenName.empty()) return Errno::Badf;
  if (pathLen < e->preopenName.size()) return Errno::NameTooLong;
  if (!s.memory || !s.memory->write(pathPtr, e->preopenName.data(), uint32_t(e->preopenName.size()))) {
    return Errno::Fault;
  }
  return Errno::Success;
}

Errno fd_readdir(Host& host, uint32_t fd, uint32_t buf, uint32_t bufLen, uint64_t cookie, uint32_t bufUsedPtr) {
  HostState& s = host.state();
  FdEntry* e = nullptr;
  if (Errno err = lookupGated(s, fd, right::FdReaddir, e); err != Errno::Success) return err;
  if (e->kind != FdKind::Directory) return Errno::NotDir;
  if (!s.memory || !s.memory->inBounds(buf, bufLen) || !s.memory->inBounds(bufUsedPtr, 4)) return Errno::Fault;
  const Node& dir = *e->node;
  const Node* up = (e->node == e->root || !dir.parent) ? &dir : dir.parent;
  // Cookie i names the i-th entry of: ".", "..", then the children in name order.
  std::vector<uint8_t>& out = s.scratch;
  out.clear();
  uint64_t index = 0;
  auto emit = [&](std::string_view name, const Node& node) {
    if (index++ < cookie || out.size() >= bufLen) return false;
    uint8_t head[detail::kDirentSize];
    detail::encodeDirent(head, index, node.ino, uint32_t(name.size()), node.fileType());
    out.insert(out.end(), head, head + sizeof head);
    out.insert(out.end(), name.begin(), name.end());
    return true;
  };
  auto it = dir.children.begin();
  FdEntry::DirPos& pos = e->dirPos;
  const bool resume = pos.dir == &dir && pos.generation == dir.generation && !pos.name.empty() &&
                      (cookie == pos.index + 1 || cookie == pos.index);
  if (resume) {
    // The libc asks for the entry after the last one it consumed, or again for the last one when it did not fit.
    it = cookie == pos.index + 1 ? dir.children.upper_bound(pos.name) : dir.children.find(pos.name);
    index = cookie;
  } else {
    emit(".", dir);
    emit("..", *up);
  }
  for (; it != dir.children.end(); ++it) {
    if (out.size() >= bufLen) break;
    const uint64_t at = index;
    if (emit(it->first, *it->second)) pos = {&dir, dir.generation, at, it->first};
  }
  uint32_t used = uint32_t(std::min<std::size_t>(out.size(), bufLen));
  if (!s.memory->write(buf, out.data(), used) || !s.memory->writeU32(bufUsedPtr, used)) return Errno::Fault;
  return Errno::Success;
}

Errno fd_renumber(Host& host, uint32_t from, uint32_t to) {
  HostState& s = host.state();
  FdEntry* a = s.fds.get(from);
  FdEntry* b = s.fds.get(to);
  if (!a || !b) return Errno::Badf;
  // The fixed descriptors (stdio, preopens) are part of an engine's snapshot contract: under the reference policy they
  // never move or get replaced. A plain WASI program (--full-wasi) may renumber over them, as POSIX dup2 would.
  if (s.options.referencePolicy && (from < s.fdBase || to < s.fdBase)) return Errno::NotSup;
  if (from == to) return Errno::Success;
  *b = std::move(*a);
  return s.fds.close(from);
}

// Helpers for the path syscalls (syscalls_path.cpp).
namespace detail {
Errno setNodeTimes(Host& host, Node& node, uint64_t atim, uint64_t mtim, uint32_t fstFlags) {
  return setTimes(host, node, atim, mtim, fstFlags);
}
}  // namespace detail

}  // namespace sw::wasi
