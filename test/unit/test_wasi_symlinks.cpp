// cpp/wasi: symbolic links (reference policy off, the runner's --full-wasi), the EBADF-first order and the other
// rules our conformance suite (test/wasi/conformance/) found. Under the reference policy of protocol §5.4 none of this
// is reachable: path_symlink stays EPERM.
#include "test_wasi_support.h"

using namespace sw::wasi;
using namespace sw::wasi::testing;

namespace {

HostOptions fullWasi() {
  HostOptions o;
  o.referencePolicy = false;
  return o;
}

Errno symlink(Guest& g, std::string_view target, uint32_t dirFd, std::string_view path) {
  return path_symlink(*g.host, g.put(target), uint32_t(target.size()), dirFd, g.put(path), uint32_t(path.size()));
}

// path_open with explicit lookup flags (Guest::open always follows).
Errno openFlags(Guest& g, uint32_t dirFd, uint32_t lookup, std::string_view path, uint32_t oflags, uint32_t& fd) {
  uint32_t out = g.alloc(4);
  Errno e = path_open(*g.host, dirFd, lookup, g.put(path), uint32_t(path.size()), oflags, Guest::kReadRights,
                      detail::right::All, 0, out);
  fd = g.u32(out);
  return e;
}

Errno statType(Guest& g, uint32_t dirFd, uint32_t lookup, std::string_view path, uint8_t& type) {
  uint32_t out = g.alloc(64);
  Errno e = path_filestat_get(*g.host, dirFd, lookup, g.put(path), uint32_t(path.size()), out);
  type = g.memory.bytes()[out + 16];
  return e;
}

constexpr uint8_t kTypeFile = 4, kTypeDir = 3, kTypeLink = 7;

}  // namespace

TEST_CASE("wasi symlinks: the reference policy keeps path_symlink EPERM, whatever the descriptor") {
  Guest g;
  CHECK(symlink(g, "x", kWorkspaceFd, "l") == Errno::Perm);
  CHECK(symlink(g, "x", 99, "l") == Errno::Perm);  // protocol §5.4: EPERM unconditionally
  uint32_t used = g.alloc(4);
  REQUIRE(g.workspace->writeFile("f", "x") == Errno::Success);
  CHECK(path_readlink(*g.host, kWorkspaceFd, g.put("f"), 1, g.alloc(8), 8, used) == Errno::Inval);
}

TEST_CASE("wasi symlinks: created, read back, followed only when asked") {
  Guest g(fullWasi());
  REQUIRE(g.workspace->writeFile("dir/file", "data") == Errno::Success);
  REQUIRE(symlink(g, "dir/file", kWorkspaceFd, "flink") == Errno::Success);
  REQUIRE(symlink(g, "dir", kWorkspaceFd, "dlink") == Errno::Success);
  CHECK(symlink(g, "x", kWorkspaceFd, "flink") == Errno::Exist);
  CHECK(symlink(g, "x", kWorkspaceFd, "new/") == Errno::NoEnt);
  CHECK(symlink(g, "/etc/passwd", kWorkspaceFd, "abs") == Errno::NotCapable);
  CHECK(symlink(g, "", kWorkspaceFd, "empty") == Errno::NoEnt);
  CHECK(symlink(g, "x", 99, "l") == Errno::Badf);
  CHECK(symlink(g, "x", kStdlibFd, "l") == Errno::Rofs);

  uint32_t buf = g.alloc(16), used = g.alloc(4);
  REQUIRE(path_readlink(*g.host, kWorkspaceFd, g.put("flink"), 5, buf, 16, used) == Errno::Success);
  CHECK(g.str(buf, g.u32(used)) == "dir/file");
  REQUIRE(path_readlink(*g.host, kWorkspaceFd, g.put("flink"), 5, buf, 3, used) == Errno::Success);
  CHECK(g.u32(used) == 3);

  uint8_t type = 0;
  REQUIRE(statType(g, kWorkspaceFd, 0, "flink", type) == Errno::Success);
  CHECK(type == kTypeLink);
  REQUIRE(statType(g, kWorkspaceFd, detail::kLookupSymlinkFollow, "flink", type) == Errno::Success);
  CHECK(type == kTypeFile);
  REQUIRE(statType(g, kWorkspaceFd, 0, "dlink/file", type) == Errno::Success);  // followed on the way
  CHECK(type == kTypeFile);
  REQUIRE(statType(g, kWorkspaceFd, 0, "dlink/", type) == Errno::Success);  // a trailing slash follows
  CHECK(type == kTypeDir);

  uint32_t fd = 0;
  CHECK(openFlags(g, kWorkspaceFd, 0, "flink", 0, fd) == Errno::Loop);
  REQUIRE(openFlags(g, kWorkspaceFd, detail::kLookupSymlinkFollow, "flink", 0, fd) == Errno::Success);
  std::string s;
  REQUIRE(g.read(fd, s) == Errno::Success);
  CHECK(s == "data");
  CHECK(openFlags(g, kWorkspaceFd, detail::kLookupSymlinkFollow, "flink", kDirectory, fd) == Errno::NotDir);

  // Removing a link removes the link, never what it points to.
  CHECK(g.rmdir(kWorkspaceFd, "dlink") == Errno::NotDir);
  REQUIRE(g.unlink(kWorkspaceFd, "dlink") == Errno::Success);
  REQUIRE(g.unlink(kWorkspaceFd, "flink") == Errno::Success);
  std::string kept;
  CHECK(g.workspace->readFile("dir/file", kept) == Errno::Success);
  CHECK(g.workspace->entryCount() == 2);
}

TEST_CASE("wasi symlinks: loops are ELOOP, and a link never leaves its preopen") {
  Guest g(fullWasi());
  REQUIRE(symlink(g, "self", kWorkspaceFd, "self") == Errno::Success);
  REQUIRE(symlink(g, "b", kWorkspaceFd, "a") == Errno::Success);
  REQUIRE(symlink(g, "a", kWorkspaceFd, "b") == Errno::Success);
  uint32_t fd = 0;
  uint8_t type = 0;
  CHECK(openFlags(g, kWorkspaceFd, 1, "self", 0, fd) == Errno::Loop);
  CHECK(openFlags(g, kWorkspaceFd, 0, "a/x", 0, fd) == Errno::Loop);
  CHECK(statType(g, kWorkspaceFd, 1, "b", type) == Errno::Loop);
  // A chain of kMaxSymlinkHops links resolves; one more is a loop.
  for (uint32_t i = 0; i < detail::kMaxSymlinkHops; ++i) {
    REQUIRE(symlink(g, "c" + std::to_string(i + 1), kWorkspaceFd, "c" + std::to_string(i)) == Errno::Success);
  }
  REQUIRE(g.workspace->writeFile("c" + std::to_string(detail::kMaxSymlinkHops), "end") == Errno::Success);
  CHECK(statType(g, kWorkspaceFd, 1, "c0", type) == Errno::Success);
  REQUIRE(symlink(g, "c0", kWorkspaceFd, "longer") == Errno::Success);
  CHECK(statType(g, kWorkspaceFd, 1, "longer", type) == Errno::Loop);

  // `..` in a target stops at the preopen: the other mounts are out of reach.
  REQUIRE(symlink(g, "../stdlib", kWorkspaceFd, "up") == Errno::Success);
  REQUIRE(symlink(g, "sub/../..", kWorkspaceFd, "up2") == Errno::Success);
  REQUIRE(g.mkdir(kWorkspaceFd, "sub") == Errno::Success);
  CHECK(openFlags(g, kWorkspaceFd, 1, "up", kDirectory, fd) == Errno::NotCapable);
  CHECK(openFlags(g, kWorkspaceFd, 0, "up2/x", 0, fd) == Errno::NotCapable);
  // A host-side absolute link is refused too (the runner copying a host directory).
  CHECK(g.workspace->makeSymlink("hostabs", "/etc") == Errno::NotCapable);
  CHECK(g.workspace->makeSymlink("hostrel", "sub") == Errno::Success);
  CHECK(statType(g, kWorkspaceFd, 1, "hostrel", type) == Errno::Success);
  CHECK(type == kTypeDir);
}

TEST_CASE("wasi symlinks: with the policy off a directory descriptor is a capability for its own subtree") {
  Guest g(fullWasi());
  REQUIRE(g.workspace->writeFile("sub/inner/f", "x") == Errno::Success);
  REQUIRE(g.workspace->writeFile("top", "t") == Errno::Success);
  uint32_t sub = 0, fd = 0;
  REQUIRE(g.open(kWorkspaceFd, "sub", kDirectory, Guest::kReadRights | detail::right::PathOpen, sub) == Errno::Success);
  CHECK(g.open(sub, "inner/../inner/f", 0, Guest::kReadRights, fd) == Errno::Success);
  CHECK(g.open(sub, "../top", 0, Guest::kReadRights, fd) == Errno::NotCapable);
  // Under the reference policy (engines) `..` stops at the preopen only (test_wasi_paths.cpp).
  Guest e;
  REQUIRE(e.workspace->writeFile("sub/inner/f", "x") == Errno::Success);
  REQUIRE(e.open(kWorkspaceFd, "sub", kDirectory, Guest::kReadRights | detail::right::PathOpen, sub) == Errno::Success);
  CHECK(e.open(sub, "../sub/inner/f", 0, Guest::kReadRights, fd) == Errno::Success);
}

TEST_CASE("wasi full mode: a bad descriptor is EBADF first; renumber over a preopen; O_TRUNC needs its right") {
  Guest g(fullWasi());
  CHECK(sock_shutdown(*g.host, 77, 0) == Errno::Badf);
  CHECK(sock_shutdown(*g.host, 1, 0) == Errno::NotSock);
  CHECK(path_link(*g.host, 77, 0, 0, 0, kWorkspaceFd, 0, 0) == Errno::Badf);
  CHECK(path_link(*g.host, kWorkspaceFd, 0, 0, 0, 77, 0, 0) == Errno::Badf);
  CHECK(path_link(*g.host, kWorkspaceFd, 0, g.put("a"), 1, kWorkspaceFd, g.put("b"), 1) == Errno::Perm);
  CHECK(path_readlink(*g.host, 77, 0, 0, 0, 0, 0) == Errno::Badf);
  CHECK(fd_pwrite(*g.host, 77, 0, 0, 0, 0) == Errno::Badf);
  CHECK(fd_allocate(*g.host, 77, 0, 1) == Errno::Badf);
  CHECK(fd_filestat_set_size(*g.host, 77, 0) == Errno::Badf);

  // fd_renumber may replace a preopen here (a plain WASI program), never under the reference policy.
  uint32_t fd = 0;
  REQUIRE(g.open(kWorkspaceFd, "f", kCreat, Guest::kWriteRights, fd) == Errno::Success);
  CHECK(fd_renumber(*g.host, fd, kStdlibFd) == Errno::Success);
  CHECK(g.write(kStdlibFd, "x") == Errno::Success);
  Guest e;
  REQUIRE(e.open(kWorkspaceFd, "f", kCreat, Guest::kWriteRights, fd) == Errno::Success);
  CHECK(fd_renumber(*e.host, fd, kStdlibFd) == Errno::NotSup);

  // O_TRUNC through a directory without path_filestat_set_size: ENOTCAPABLE (both modes).
  REQUIRE(fd_fdstat_set_rights(*g.host, kWorkspaceFd, detail::right::DirAll & ~detail::right::PathFilestatSetSize,
                               detail::right::All) == Errno::Success);
  CHECK(g.open(kWorkspaceFd, "f", kTrunc, Guest::kWriteRights, fd) == Errno::NotCapable);
  // A directory is never opened for writing here, O_DIRECTORY or not.
  CHECK(g.open(kWorkspaceFd, ".", kDirectory, Guest::kWriteRights, fd) == Errno::IsDir);
}

TEST_CASE("wasi symlinks: the workspace counts a link as an entry and lists it as one") {
  Guest g(fullWasi());
  REQUIRE(symlink(g, "target", kWorkspaceFd, "l") == Errno::Success);
  CHECK(g.workspace->entryCount() == 1);
  CHECK(g.workspace->totalBytes() == 0);
  std::vector<Workspace::Entry> seen;
  g.workspace->forEach([&](const Workspace::Entry& e) { seen.push_back(e); });
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].symlink);
  CHECK(!seen[0].directory);
  CHECK(seen[0].data == "target");
  std::vector<std::string> names;
  REQUIRE(g.list(kWorkspaceFd, names) == Errno::Success);
  CHECK(names.size() == 3);
  REQUIRE(g.unlink(kWorkspaceFd, "l") == Errno::Success);
  CHECK(g.workspace->entryCount() == 0);
}
