// The Host: the fixed descriptor layout of protocol §5.4 and the trap record.
#include "internal.h"

namespace sw::wasi {

using detail::FdEntry;
using detail::FdKind;
using detail::HostState;
using detail::Mount;
using detail::MountKind;
using detail::NodeKind;
namespace right = detail::right;

const char* errnoName(Errno e) {
  static const char* const kNames[] = {
      "ESUCCESS", "E2BIG", "EACCES", "EADDRINUSE", "EADDRNOTAVAIL", "EAFNOSUPPORT", "EAGAIN", "EALREADY", "EBADF",
      "EBADMSG", "EBUSY", "ECANCELED", "ECHILD", "ECONNABORTED", "ECONNREFUSED", "ECONNRESET", "EDEADLK",
      "EDESTADDRREQ", "EDOM", "EDQUOT", "EEXIST", "EFAULT", "EFBIG", "EHOSTUNREACH", "EIDRM", "EILSEQ",
      "EINPROGRESS", "EINTR", "EINVAL", "EIO", "EISCONN", "EISDIR", "ELOOP", "EMFILE", "EMLINK", "EMSGSIZE",
      "EMULTIHOP", "ENAMETOOLONG", "ENETDOWN", "ENETRESET", "ENETUNREACH", "ENFILE", "ENOBUFS", "ENODEV", "ENOENT",
      "ENOEXEC", "ENOLCK", "ENOLINK", "ENOMEM", "ENOMSG", "ENOPROTOOPT", "ENOSPC", "ENOSYS", "ENOTCONN", "ENOTDIR",
      "ENOTEMPTY", "ENOTRECOVERABLE", "ENOTSOCK", "ENOTSUP", "ENOTTY", "ENXIO", "EOVERFLOW", "EOWNERDEAD", "EPERM",
      "EPIPE", "EPROTO", "EPROTONOSUPPORT", "EPROTOTYPE", "ERANGE", "EROFS", "ESPIPE", "ESRCH", "ESTALE",
      "ETIMEDOUT", "ETXTBSY", "EXDEV", "ENOTCAPABLE"};
  auto i = std::size_t(e);
  return i < sizeof(kNames) / sizeof(kNames[0]) ? kNames[i] : "EUNKNOWN";
}

namespace {

FdEntry directoryFd(std::shared_ptr<detail::Node> node, std::string name, uint64_t base) {
  FdEntry e;
  e.kind = FdKind::Directory;
  e.root = node;
  e.node = std::move(node);
  e.rightsBase = base;
  e.rightsInheriting = right::All;
  e.preopenName = std::move(name);
  return e;
}

}  // namespace

Host::Host(HostOptions options) : state_(std::make_unique<HostState>()) {
  HostState& s = *state_;
  s.options = std::move(options);
  if (!s.options.clock) s.options.clock = systemClock();
  if (!s.options.random) s.options.random = systemRandom();
  s.stdio = StdioCapture(s.options.outputLimits);
  s.fuel.reset(-1);
  uint64_t now = s.options.clock->realtimeNs();

  s.privateMount = std::make_unique<Mount>();
  s.privateMount->kind = MountKind::ReadOnly;
  s.privateMount->device = 0;
  s.devMount = std::make_unique<Mount>();
  s.devMount->kind = MountKind::Device;
  s.devMount->device = 2;

  FdEntry in;
  in.kind = FdKind::File;
  in.node = detail::makeNode(NodeKind::File, s.privateMount.get(), now);
  in.rightsBase = right::FileReadOnly;
  s.fds.set(0, std::move(in));
  for (uint32_t fd : {1u, 2u}) {
    FdEntry out;
    out.kind = fd == 1 ? FdKind::Stdout : FdKind::Stderr;
    out.node = detail::makeNode(NodeKind::NullDevice, s.privateMount.get(), now);
    out.rightsBase = right::Stdio;
    s.fds.set(fd, std::move(out));
  }

  std::shared_ptr<detail::Node> stdlibRoot;
  if (s.options.stdlib) {
    stdlibRoot = s.options.stdlib->root();
  } else {
    s.emptyStdlib = detail::makeNode(NodeKind::Directory, s.privateMount.get(), now);
    stdlibRoot = s.emptyStdlib;
  }
  s.fds.set(3, directoryFd(stdlibRoot, "/stdlib", right::DirReadOnly));

  auto dev = detail::makeNode(NodeKind::Directory, s.devMount.get(), now);
  detail::linkChild(*dev, "null", detail::makeNode(NodeKind::NullDevice, s.devMount.get(), now));
  s.fds.set(4, directoryFd(dev, "/dev", right::DirReadOnly));

  uint32_t next = 5;
  if (s.options.workspace) s.fds.set(next++, directoryFd(s.options.workspace->root(), "/workspace", right::DirAll));
  if (s.options.stdlib) {
    for (const auto& m : s.options.stdlib->mounts()) s.fds.set(next++, directoryFd(m.root, m.guestPath, right::DirReadOnly));
  }
  for (auto& [guestPath, ws] : s.options.extraPreopens) {
    if (ws) s.fds.set(next++, directoryFd(ws->root(), guestPath, right::DirAll));
  }
  s.fdBase = next;
}

Host::~Host() = default;

void Host::setMemory(GuestMemory* memory) { state_->memory = memory; }
GuestMemory* Host::memory() const { return state_->memory; }
Fuel& Host::fuel() { return state_->fuel; }
StdioCapture& Host::stdio() { return state_->stdio; }
const Trap& Host::trap() const { return state_->trap; }
void Host::clearTrap() { state_->trap = Trap{}; }

Errno Host::raiseTrap(TrapKind kind, std::string message, uint32_t exitCode) {
  if (state_->trap.kind == TrapKind::None) {
    state_->trap.kind = kind;
    state_->trap.message = std::move(message);
    state_->trap.exitCode = exitCode;
  }
  return Errno::Trap;
}

uint32_t Host::fdBase() const { return state_->fdBase; }
bool Host::hasOpenGuestFds() const { return state_->fds.anyOpenFrom(state_->fdBase); }
Workspace* Host::workspace() const { return state_->options.workspace.get(); }
bool Host::noDataSegments() const { return state_->options.noDataSegments; }

}  // namespace sw::wasi
