// sock_*: there is no network. The reference policy answers EPERM (protocol §5.4); otherwise a valid descriptor is
// simply not a socket.
#include "internal.h"

namespace sw::wasi {

namespace {
Errno notASocket(Host& host, uint32_t fd) {
  if (host.state().options.referencePolicy) return Errno::Perm;
  return host.state().fds.get(fd) ? Errno::NotSock : Errno::Badf;
}
}  // namespace

Errno sock_accept(Host& host, uint32_t fd, uint32_t flags, uint32_t fdPtr) { return notASocket(host, fd); }

Errno sock_recv(Host& host, uint32_t fd, uint32_t riData, uint32_t riDataLen, uint32_t riFlags, uint32_t roDataLenPtr,
                uint32_t roFlagsPtr) {
  return notASocket(host, fd);
}

Errno sock_send(Host& host, uint32_t fd, uint32_t siData, uint32_t siDataLen, uint32_t siFlags,
                uint32_t soDataLenPtr) {
  return notASocket(host, fd);
}

Errno sock_shutdown(Host& host, uint32_t fd, uint32_t how) { return notASocket(host, fd); }

}  // namespace sw::wasi
