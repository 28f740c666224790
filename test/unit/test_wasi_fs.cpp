// cpp/wasi: descriptor layout, the in-memory tree, workspace limits and the disabled flag.
#include "test_wasi_support.h"

using namespace sw::wasi;
using namespace sw::wasi::testing;

TEST_CASE("wasi fs: preopens in the fixed order of protocol §5.4") {
  Guest g;
  CHECK(g.host->fdBase() == 6);
  const char* names[] = {"/stdlib", "/dev", "/workspace"};
  for (uint32_t fd = 3; fd <= 5; ++fd) {
    uint32_t pre = g.alloc(8), name = g.alloc(64);
    REQUIRE(fd_prestat_get(*g.host, fd, pre) == Errno::Success);
    CHECK(g.memory.bytes()[pre] == 0);
    uint32_t len = g.u32(pre + 4);
    REQUIRE(fd_prestat_dir_name(*g.host, fd, name, len) == Errno::Success);
    CHECK(g.str(name, len) == names[fd - 3]);
  }
  for (uint32_t fd : {0u, 1u, 2u, 6u}) CHECK(fd_prestat_get(*g.host, fd, g.alloc(8)) == Errno::Badf);
  CHECK_FALSE(g.host->hasOpenGuestFds());

  Guest noWorkspace({}, false);
  CHECK(noWorkspace.host->fdBase() == 5);
  CHECK(fd_prestat_get(*noWorkspace.host, 5, noWorkspace.alloc(8)) == Errno::Badf);
}

TEST_CASE("wasi fs: write, seek, read back, stat and list in /workspace") {
  Guest g;
  uint32_t fd = 0;
  REQUIRE(g.open(kWorkspaceFd, "a.txt", kCreat | kTrunc, Guest::kWriteRights, fd) == Errno::Success);
  CHECK(fd == 6);
  CHECK(g.host->hasOpenGuestFds());
  uint32_t n = 0;
  REQUIRE(g.write(fd, "hello world", &n) == Errno::Success);
  CHECK(n == 11);
  uint64_t pos = 0;
  REQUIRE(g.seek(fd, 6, 0, &pos) == Errno::Success);
  CHECK(pos == 6);
  std::string text;
  REQUIRE(g.read(fd, text) == Errno::Success);
  CHECK(text == "world");
  CHECK(g.read(fd, text) == Errno::Success);
  CHECK(text.empty());
  CHECK(g.seek(fd, -100, 1) == Errno::Inval);
  REQUIRE(fd_close(*g.host, fd) == Errno::Success);
  CHECK_FALSE(g.host->hasOpenGuestFds());
  CHECK(fd_close(*g.host, fd) == Errno::Badf);

  std::string stored;
  REQUIRE(g.workspace->readFile("a.txt", stored) == Errno::Success);
  CHECK(stored == "hello world");
  CHECK(g.workspace->totalBytes() == 11);
  CHECK(g.workspace->entryCount() == 1);

  uint8_t type = 0;
  uint64_t size = 0;
  REQUIRE(g.stat(kWorkspaceFd, "a.txt", type, size) == Errno::Success);
  CHECK(type == 4);
  CHECK(size == 11);

  REQUIRE(g.mkdir(kWorkspaceFd, "sub") == Errno::Success);
  CHECK(g.mkdir(kWorkspaceFd, "sub") == Errno::Exist);
  std::vector<std::string> names;
  REQUIRE(g.list(kWorkspaceFd, names) == Errno::Success);
  CHECK(names == std::vector<std::string>{".", "..", "a.txt", "sub"});
}

TEST_CASE("wasi fs: append, O_EXCL, O_TRUNC, O_DIRECTORY") {
  Guest g;
  uint32_t fd = 0;
  REQUIRE(g.open(kWorkspaceFd, "log", kCreat, Guest::kWriteRights, fd, /*APPEND*/ 1) == Errno::Success);
  REQUIRE(g.write(fd, "one ") == Errno::Success);
  REQUIRE(g.seek(fd, 0, 0) == Errno::Success);
  REQUIRE(g.write(fd, "two") == Errno::Success);
  std::string s;
  g.workspace->readFile("log", s);
  CHECK(s == "one two");
  uint32_t fd2 = 0;
  CHECK(g.open(kWorkspaceFd, "log", kCreat | kExcl, Guest::kWriteRights, fd2) == Errno::Exist);
  CHECK(g.open(kWorkspaceFd, "log", kDirectory, Guest::kReadRights, fd2) == Errno::NotDir);
  REQUIRE(g.open(kWorkspaceFd, "log", kTrunc, Guest::kWriteRights, fd2) == Errno::Success);
  g.workspace->readFile("log", s);
  CHECK(s.empty());
  CHECK(g.workspace->totalBytes() == 0);
  CHECK(g.open(kWorkspaceFd, "missing", 0, Guest::kReadRights, fd2) == Errno::NoEnt);
  CHECK(g.open(kWorkspaceFd, "missing/x", kCreat, Guest::kWriteRights, fd2) == Errno::NoEnt);
  CHECK(g.open(kWorkspaceFd, "log/x", kCreat, Guest::kWriteRights, fd2) == Errno::NotDir);
}

TEST_CASE("wasi fs: rights are checked") {
  Guest g;
  uint32_t fd = 0;
  REQUIRE(g.open(kWorkspaceFd, "r.txt", kCreat, Guest::kReadRights, fd) == Errno::Success);
  CHECK(g.write(fd, "x") == Errno::Badf);  // opened read-only
  uint32_t w = 0;
  REQUIRE(g.open(kWorkspaceFd, "w.txt", kCreat, detail::right::FdWrite, w) == Errno::Success);
  std::string s;
  CHECK(g.read(w, s) == Errno::Badf);  // opened write-only
  CHECK(fd_tell(*g.host, w, g.alloc(8)) == Errno::NotCapable);
  // Rights can only shrink.
  CHECK(fd_fdstat_set_rights(*g.host, fd, detail::right::FdRead | detail::right::FdWrite, 0) == Errno::NotCapable);
  REQUIRE(fd_fdstat_set_rights(*g.host, fd, 0, 0) == Errno::Success);
  CHECK(g.read(fd, s) == Errno::Badf);
  // A directory descriptor without PATH_OPEN opens nothing.
  uint32_t d = 0;
  REQUIRE(g.mkdir(kWorkspaceFd, "d") == Errno::Success);
  REQUIRE(g.open(kWorkspaceFd, "d", kDirectory, detail::right::FdReaddir, d) == Errno::Success);
  CHECK(g.open(d, "x", kCreat, Guest::kWriteRights, fd) == Errno::NotCapable);
  // Writing to a directory descriptor.
  CHECK(g.write(kWorkspaceFd, "x") == Errno::Badf);
  CHECK(g.open(kWorkspaceFd, "d", 0, detail::right::FdWrite, fd) == Errno::IsDir);
}

TEST_CASE("wasi fs: unlink, rmdir and rename follow POSIX") {
  Guest g;
  uint32_t fd = 0;
  REQUIRE(g.mkdir(kWorkspaceFd, "d") == Errno::Success);
  REQUIRE(g.open(kWorkspaceFd, "d/f", kCreat, Guest::kWriteRights, fd) == Errno::Success);
  REQUIRE(g.write(fd, "abc") == Errno::Success);
  CHECK(g.rmdir(kWorkspaceFd, "d") == Errno::NotEmpty);
  CHECK(g.rmdir(kWorkspaceFd, "d/f") == Errno::NotDir);
  CHECK(g.unlink(kWorkspaceFd, "d") == Errno::IsDir);
  CHECK(g.unlink(kWorkspaceFd, "nope") == Errno::NoEnt);
  CHECK(g.rmdir(kWorkspaceFd, ".") == Errno::Busy);

  REQUIRE(g.mkdir(kWorkspaceFd, "e") == Errno::Success);
  CHECK(g.rename(kWorkspaceFd, "d", kWorkspaceFd, "d/inner") == Errno::Inval);  // into its own subtree
  CHECK(g.rename(kWorkspaceFd, "d/f", kWorkspaceFd, "e") == Errno::IsDir);
  CHECK(g.rename(kWorkspaceFd, "e", kWorkspaceFd, "d/f") == Errno::NotDir);
  CHECK(g.rename(kWorkspaceFd, "e", kWorkspaceFd, "d") == Errno::NotEmpty);
  CHECK(g.rename(kWorkspaceFd, "missing", kWorkspaceFd, "x") == Errno::NoEnt);
  CHECK(g.rename(kWorkspaceFd, "d/f", kWorkspaceFd, "nodir/f") == Errno::NoEnt);
  REQUIRE(g.rename(kWorkspaceFd, "d/f", kWorkspaceFd, "e/g") == Errno::Success);
  std::string s;
  REQUIRE(g.workspace->readFile("e/g", s) == Errno::Success);
  CHECK(s == "abc");
  CHECK(g.workspace->entryCount() == 3);
  CHECK(g.workspace->totalBytes() == 3);

  // The open descriptor follows the file; unlinking keeps it readable but frees the accounting.
  REQUIRE(g.seek(fd, 0, 0) == Errno::Success);
  REQUIRE(g.unlink(kWorkspaceFd, "e/g") == Errno::Success);
  CHECK(g.workspace->totalBytes() == 0);
  CHECK(g.workspace->entryCount() == 2);
  REQUIRE(g.read(fd, s) == Errno::Success);
  CHECK(s == "abc");

  // Replacing an existing file drops its bytes.
  uint32_t a = 0, b = 0;
  REQUIRE(g.open(kWorkspaceFd, "a", kCreat, Guest::kWriteRights, a) == Errno::Success);
  REQUIRE(g.write(a, "1234") == Errno::Success);
  REQUIRE(g.open(kWorkspaceFd, "b", kCreat, Guest::kWriteRights, b) == Errno::Success);
  REQUIRE(g.write(b, "12") == Errno::Success);
  REQUIRE(g.rename(kWorkspaceFd, "a", kWorkspaceFd, "b") == Errno::Success);
  CHECK(g.workspace->totalBytes() == 4);
  CHECK(g.workspace->entryCount() == 3);  // d, e, b
}

TEST_CASE("wasi fs: workspace limits (protocol §7.11)") {
  SECTION("1 MiB per file") {
    Guest g;
    uint32_t fd = 0;
    REQUIRE(g.open(kWorkspaceFd, "big", kCreat, Guest::kWriteRights, fd) == Errno::Success);
    std::string chunk(512 * 1024, 'x');
    REQUIRE(g.write(fd, chunk) == Errno::Success);
    REQUIRE(g.write(fd, chunk) == Errno::Success);
    CHECK(g.write(fd, "y") == Errno::Fbig);
    CHECK(g.workspace->totalBytes() == 1048576);
  }
  SECTION("16 MiB total") {
    HostOptions o;
    o.workspace = std::make_shared<Workspace>(WorkspaceLimits{1048576, 3 * 1048576, 4096});
    Guest g(std::move(o));
    std::string mib(1048576, 'x');
    for (int i = 0; i < 3; ++i) REQUIRE(g.workspace->writeFile("f" + std::to_string(i), mib) == Errno::Success);
    uint32_t fd = 0;
    REQUIRE(g.open(kWorkspaceFd, "more", kCreat, Guest::kWriteRights, fd) == Errno::Success);
    CHECK(g.write(fd, "z") == Errno::NoSpc);
    CHECK(g.workspace->writeFile("more", "z") == Errno::NoSpc);
    REQUIRE(g.unlink(kWorkspaceFd, "f0") == Errno::Success);
    CHECK(g.write(fd, "z") == Errno::Success);
  }
  SECTION("4096 entries") {
    HostOptions o;
    o.workspace = std::make_shared<Workspace>(WorkspaceLimits{1048576, 16777216, 5});
    Guest g(std::move(o));
    REQUIRE(g.mkdir(kWorkspaceFd, "d") == Errno::Success);
    uint32_t fd = 0;
    for (int i = 0; i < 4; ++i) {
      REQUIRE(g.open(kWorkspaceFd, "d/" + std::to_string(i), kCreat, Guest::kWriteRights, fd) == Errno::Success);
    }
    CHECK(g.open(kWorkspaceFd, "d/x", kCreat, Guest::kWriteRights, fd) == Errno::NoSpc);
    CHECK(g.mkdir(kWorkspaceFd, "e") == Errno::NoSpc);
    CHECK(g.workspace->entryCount() == 5);
    // Opening an existing file still works at the cap.
    CHECK(g.open(kWorkspaceFd, "d/0", kCreat, Guest::kWriteRights, fd) == Errno::Success);
  }
}

TEST_CASE("wasi fs: a disabled workspace answers EACCES on every access, read live") {
  Guest g;
  uint32_t fd = 0;
  REQUIRE(g.workspace->writeFile("sub/f.txt", "data") == Errno::Success);
  REQUIRE(g.open(kWorkspaceFd, "sub/f.txt", 0, Guest::kReadRights, fd) == Errno::Success);
  g.workspace->setDisabled(true);
  uint32_t other = 0;
  std::string s;
  std::vector<std::string> names;
  uint8_t type;
  uint64_t size;
  CHECK(g.open(kWorkspaceFd, "sub/f.txt", 0, Guest::kReadRights, other) == Errno::Acces);
  CHECK(g.open(kWorkspaceFd, "new", kCreat, Guest::kWriteRights, other) == Errno::Acces);
  CHECK(g.read(fd, s) == Errno::Acces);
  CHECK(g.list(kWorkspaceFd, names) == Errno::Acces);
  CHECK(g.mkdir(kWorkspaceFd, "d") == Errno::Acces);
  CHECK(g.rmdir(kWorkspaceFd, "sub") == Errno::Acces);
  CHECK(g.unlink(kWorkspaceFd, "sub/f.txt") == Errno::Acces);
  CHECK(g.rename(kWorkspaceFd, "sub", kWorkspaceFd, "sub2") == Errno::Acces);
  CHECK(g.stat(kWorkspaceFd, "sub", type, size) == Errno::Acces);
  CHECK(fd_filestat_get(*g.host, fd, g.alloc(64)) == Errno::Acces);
  // Metadata of the descriptor itself and closing still work (wasi-libc reads preopens at startup).
  CHECK(fd_fdstat_get(*g.host, kWorkspaceFd, g.alloc(24)) == Errno::Success);
  CHECK(fd_prestat_get(*g.host, kWorkspaceFd, g.alloc(8)) == Errno::Success);
  // Host-side writes (reconciliation) still work.
  CHECK(g.workspace->writeFile("host.txt", "h") == Errno::Success);
  g.workspace->setDisabled(false);
  CHECK(g.read(fd, s) == Errno::Success);
  CHECK(s == "data");
  CHECK(fd_close(*g.host, fd) == Errno::Success);
}

TEST_CASE("wasi fs: /stdlib and /dev are read-only; reference policy overrides (protocol §5.4)") {
  std::string error;
  auto archive = Archive::parse(makeZip({{"lib/os.py", "import sys\n"}}), error);
  REQUIRE(archive);
  HostOptions o;
  o.stdlib = archive;
  Guest g(std::move(o));
  uint32_t fd = 0;
  CHECK(g.open(kStdlibFd, "lib/os.py", kCreat, Guest::kReadRights, fd) == Errno::Perm);
  CHECK(g.open(kStdlibFd, "lib/os.py", kTrunc, Guest::kReadRights, fd) == Errno::Perm);
  CHECK(g.open(kStdlibFd, "lib/new.py", kCreat, Guest::kWriteRights, fd) == Errno::Perm);
  CHECK(g.open(kStdlibFd, "lib/os.py", 0, Guest::kWriteRights, fd) == Errno::Rofs);
  CHECK(g.mkdir(kStdlibFd, "x") == Errno::Perm);
  CHECK(g.unlink(kStdlibFd, "lib/os.py") == Errno::Perm);
  CHECK(g.rmdir(kStdlibFd, "lib") == Errno::Perm);
  CHECK(g.rename(kStdlibFd, "lib/os.py", kStdlibFd, "lib/b.py") == Errno::Perm);
  CHECK(g.rename(kWorkspaceFd, "x", kStdlibFd, "lib/b.py") == Errno::Perm);
  CHECK(g.mkdir(kDevFd, "x") == Errno::Perm);
  REQUIRE(g.open(kStdlibFd, "lib/os.py", 0, Guest::kReadRights, fd) == Errno::Success);
  std::string s;
  REQUIRE(g.read(fd, s) == Errno::Success);
  CHECK(s == "import sys\n");
  CHECK(g.write(fd, "x") == Errno::Badf);
  CHECK(fd_filestat_set_size(*g.host, fd, 0) == Errno::Perm);
  CHECK(fd_allocate(*g.host, fd, 0, 10) == Errno::Perm);
  CHECK(fd_pwrite(*g.host, fd, 0, 0, 0, 0) == Errno::Perm);
  CHECK(fd_filestat_set_times(*g.host, fd, 0, 0, 0) == Errno::Perm);
  CHECK(path_filestat_set_times(*g.host, kWorkspaceFd, 0, 0, 0, 0, 0, 0) == Errno::Perm);
  CHECK(path_link(*g.host, kWorkspaceFd, 0, 0, 0, kWorkspaceFd, 0, 0) == Errno::Perm);
  CHECK(path_symlink(*g.host, 0, 0, kWorkspaceFd, 0, 0) == Errno::Perm);
  CHECK(poll_oneoff(*g.host, 0, 0, 1, 0) == Errno::Perm);
  CHECK(sock_accept(*g.host, 0, 0, 0) == Errno::Perm);
  CHECK(sock_recv(*g.host, 0, 0, 0, 0, 0, 0) == Errno::Perm);
  CHECK(sock_send(*g.host, 0, 0, 0, 0, 0) == Errno::Perm);
  CHECK(sock_shutdown(*g.host, 0, 0) == Errno::Perm);
  CHECK(proc_raise(*g.host, 9) == Errno::NoSys);

  // /dev/null swallows writes and reads nothing.
  uint32_t null = 0;
  REQUIRE(g.open(kDevFd, "null", 0, Guest::kWriteRights, null) == Errno::Success);
  uint32_t n = 0;
  REQUIRE(g.write(null, "discard", &n) == Errno::Success);
  CHECK(n == 7);
  REQUIRE(g.read(null, s) == Errno::Success);
  CHECK(s.empty());
  // stdin is an empty read-only file.
  REQUIRE(g.read(0, s) == Errno::Success);
  CHECK(s.empty());
  CHECK(g.write(0, "x") == Errno::Badf);
}

TEST_CASE("wasi fs: without the reference policy the real operations run") {
  HostOptions o;
  o.referencePolicy = false;
  Guest g(std::move(o));
  uint32_t fd = 0;
  REQUIRE(g.open(kWorkspaceFd, "f", kCreat, Guest::kWriteRights, fd) == Errno::Success);
  REQUIRE(fd_filestat_set_size(*g.host, fd, 10) == Errno::Success);
  CHECK(g.workspace->totalBytes() == 10);
  CHECK(fd_filestat_set_size(*g.host, fd, 2 * 1048576) == Errno::Fbig);
  CHECK(g.mkdir(kStdlibFd, "x") == Errno::Rofs);
  CHECK(sock_accept(*g.host, 1, 0, 0) == Errno::NotSock);
  CHECK(sock_accept(*g.host, 99, 0, 0) == Errno::Badf);
  // poll_oneoff: one clock subscription completes at once.
  uint32_t sub = g.alloc(48), ev = g.alloc(32), nev = g.alloc(4);
  std::memset(g.memory.bytes().data() + sub, 0, 48);
  detail::put64(g.memory.bytes().data() + sub, 77);
  REQUIRE(poll_oneoff(*g.host, sub, ev, 1, nev) == Errno::Success);
  CHECK(g.u32(nev) == 1);
  CHECK(g.u64(ev) == 77);
}

TEST_CASE("wasi fs: fd_renumber never touches the fixed descriptors") {
  Guest g;
  uint32_t a = 0, b = 0;
  REQUIRE(g.open(kWorkspaceFd, "a", kCreat, Guest::kWriteRights, a) == Errno::Success);
  REQUIRE(g.open(kWorkspaceFd, "b", kCreat, Guest::kWriteRights, b) == Errno::Success);
  CHECK(fd_renumber(*g.host, a, 1) == Errno::NotSup);
  CHECK(fd_renumber(*g.host, 3, b) == Errno::NotSup);
  CHECK(fd_renumber(*g.host, a, 99) == Errno::Badf);
  REQUIRE(fd_renumber(*g.host, a, b) == Errno::Success);
  CHECK(fd_close(*g.host, a) == Errno::Badf);
  CHECK(g.write(b, "to a") == Errno::Success);
  std::string s;
  g.workspace->readFile("a", s);
  CHECK(s == "to a");
}

TEST_CASE("wasi fs: guest memory is bounds-checked (EFAULT)") {
  Guest g;
  uint32_t end = uint32_t(g.memory.bytes().size());
  CHECK(fd_write(*g.host, 1, end - 4, 1, g.alloc(4)) == Errno::Fault);
  uint32_t iov = g.alloc(8);
  detail::put32(g.memory.bytes().data() + iov, end - 2);
  detail::put32(g.memory.bytes().data() + iov + 4, 16);
  CHECK(fd_write(*g.host, 1, iov, 1, g.alloc(4)) == Errno::Fault);
  CHECK(fd_write(*g.host, 1, 0xfffffff8u, 2, g.alloc(4)) == Errno::Fault);
  CHECK(args_sizes_get(*g.host, end, 0) == Errno::Fault);
  CHECK(fd_fdstat_get(*g.host, 1, end - 8) == Errno::Fault);
  CHECK(random_get(*g.host, end - 8, 9) == Errno::Fault);
  CHECK(path_open(*g.host, kWorkspaceFd, 0, end - 2, 8, 0, 0, 0, 0, g.alloc(4)) == Errno::Fault);
  CHECK(fd_write(*g.host, 1, 0, 2000, 0) == Errno::Inval);  // more than IOV_MAX iovecs
  Host bare(HostOptions{});
  CHECK(fd_write(bare, 1, 0, 0, 0) == Errno::Fault);  // no memory attached
}

TEST_CASE("wasi fs: opening a directory for writing") {
  Guest g;
  uint32_t fd = 0;
  CHECK(g.open(kWorkspaceFd, ".", 0, Guest::kWriteRights, fd) == Errno::IsDir);
  CHECK(g.open(kWorkspaceFd, ".", kTrunc, Guest::kReadRights, fd) == Errno::IsDir);
  // With O_DIRECTORY, rights that do not apply to a directory are just not granted.
  REQUIRE(g.open(kWorkspaceFd, ".", kDirectory, detail::right::All, fd) == Errno::Success);
  CHECK(g.write(fd, "x") == Errno::Badf);
}
