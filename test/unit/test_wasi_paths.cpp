// cpp/wasi: path resolution can never leave a preopen.
#include "test_wasi_support.h"

using namespace sw::wasi;
using namespace sw::wasi::testing;

TEST_CASE("wasi paths: escapes are refused") {
  Guest g;
  REQUIRE(g.workspace->writeFile("sub/inner/f", "x") == Errno::Success);
  uint32_t fd = 0;
  for (const char* bad : {"..", "../workspace", "sub/../..", "sub/../../x", "./../x", "sub/inner/../../../x"}) {
    INFO(bad);
    CHECK(g.open(kWorkspaceFd, bad, 0, Guest::kReadRights, fd) == Errno::NotCapable);
  }
  for (const char* bad : {"/", "/etc/passwd", "//x", "/workspace/sub"}) {
    INFO(bad);
    CHECK(g.open(kWorkspaceFd, bad, 0, Guest::kReadRights, fd) == Errno::NotCapable);
  }
  // `..` inside the preopen is fine.
  CHECK(g.open(kWorkspaceFd, "sub/inner/../inner/f", 0, Guest::kReadRights, fd) == Errno::Success);
  CHECK(g.open(kWorkspaceFd, "sub//inner///f", 0, Guest::kReadRights, fd) == Errno::Success);
  CHECK(g.open(kWorkspaceFd, "sub/..", 0, Guest::kReadRights, fd) == Errno::Success);
  // A descriptor opened below the preopen still stops at the preopen's root, not at itself.
  uint32_t sub = 0;
  REQUIRE(g.open(kWorkspaceFd, "sub", kDirectory, Guest::kReadRights | detail::right::PathOpen, sub) == Errno::Success);
  CHECK(g.open(sub, "../sub/inner/f", 0, Guest::kReadRights, fd) == Errno::Success);
  CHECK(g.open(sub, "../..", 0, Guest::kReadRights, fd) == Errno::NotCapable);
  CHECK(g.open(sub, "../../workspace/sub", 0, Guest::kReadRights, fd) == Errno::NotCapable);
  // Same rules under /stdlib and /dev.
  CHECK(g.open(kStdlibFd, "../workspace", 0, Guest::kReadRights, fd) == Errno::NotCapable);
  CHECK(g.open(kDevFd, "../stdlib", 0, Guest::kReadRights, fd) == Errno::NotCapable);
  CHECK(g.mkdir(kWorkspaceFd, "../x") == Errno::NotCapable);
  CHECK(g.unlink(kWorkspaceFd, "../x") == Errno::NotCapable);
  CHECK(g.rename(kWorkspaceFd, "sub/inner/f", kWorkspaceFd, "../f") == Errno::NotCapable);
}

TEST_CASE("wasi paths: NUL bytes, over-long paths and names") {
  Guest g;
  uint32_t fd = 0;
  CHECK(g.open(kWorkspaceFd, std::string_view("a\0b", 3), kCreat, Guest::kWriteRights, fd) == Errno::Inval);
  CHECK(g.open(kWorkspaceFd, std::string(4097, 'a'), kCreat, Guest::kWriteRights, fd) == Errno::NameTooLong);
  CHECK(g.open(kWorkspaceFd, std::string(256, 'a'), kCreat, Guest::kWriteRights, fd) == Errno::NameTooLong);
  CHECK(g.open(kWorkspaceFd, std::string(255, 'a'), kCreat, Guest::kWriteRights, fd) == Errno::Success);
  CHECK(g.open(kWorkspaceFd, "", 0, Guest::kReadRights, fd) == Errno::NoEnt);
  std::string deep;
  for (int i = 0; i < 2000; ++i) deep += "./";
  deep += "x";
  CHECK(g.open(kWorkspaceFd, deep, kCreat, Guest::kWriteRights, fd) == Errno::Success);
  CHECK(g.workspace->readFile("x", deep) == Errno::Success);
}

TEST_CASE("wasi paths: trailing slashes") {
  Guest g;
  REQUIRE(g.workspace->writeFile("f", "x") == Errno::Success);
  uint32_t fd = 0;
  CHECK(g.open(kWorkspaceFd, "f/", 0, Guest::kReadRights, fd) == Errno::NotDir);
  CHECK(g.open(kWorkspaceFd, "new/", kCreat, Guest::kWriteRights, fd) == Errno::IsDir);
  REQUIRE(g.mkdir(kWorkspaceFd, "d/") == Errno::Success);
  CHECK(g.open(kWorkspaceFd, "d/", kDirectory, Guest::kReadRights, fd) == Errno::Success);
  CHECK(g.rmdir(kWorkspaceFd, "d/") == Errno::Success);
}

TEST_CASE("wasi paths: rename and link across preopens") {
  HostOptions o;
  auto other = std::make_shared<Workspace>();
  o.extraPreopens.push_back({"/other", other});
  Guest g(std::move(o));
  REQUIRE(g.host->fdBase() == 7);
  REQUIRE(g.workspace->writeFile("f", "x") == Errno::Success);
  CHECK(g.rename(kWorkspaceFd, "f", 6, "f") == Errno::Xdev);
  CHECK(g.rename(kWorkspaceFd, "f", kStdlibFd, "f") == Errno::Perm);
  CHECK(g.rename(kStdlibFd, "f", kWorkspaceFd, "g") == Errno::Perm);
  CHECK(path_link(*g.host, kWorkspaceFd, 0, g.put("f"), 1, kWorkspaceFd, g.put("g"), 1) == Errno::Perm);
  CHECK(path_symlink(*g.host, g.put("/etc"), 4, kWorkspaceFd, g.put("l"), 1) == Errno::Perm);
  uint32_t used = g.alloc(4);
  CHECK(path_readlink(*g.host, kWorkspaceFd, g.put("f"), 1, g.alloc(16), 16, used) == Errno::Inval);
}

TEST_CASE("wasi paths: a removed directory descriptor resolves nothing") {
  Guest g;
  REQUIRE(g.mkdir(kWorkspaceFd, "gone") == Errno::Success);
  uint32_t d = 0, fd = 0;
  REQUIRE(g.open(kWorkspaceFd, "gone", kDirectory, Guest::kReadRights | detail::right::PathOpen |
                                                       detail::right::PathCreateFile, d) == Errno::Success);
  REQUIRE(g.rmdir(kWorkspaceFd, "gone") == Errno::Success);
  CHECK(g.open(d, "x", kCreat, Guest::kWriteRights, fd) == Errno::NoEnt);
  CHECK(g.open(d, "..", 0, Guest::kReadRights, fd) == Errno::NoEnt);
  CHECK(g.workspace->entryCount() == 0);
}
