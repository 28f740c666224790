// cpp/wasi: the /stdlib archive mount (stored zip and ustar tar, files are views into the buffer).
#include "test_wasi_support.h"

using namespace sw::wasi;
using namespace sw::wasi::testing;

namespace {
std::string readAll(Guest& g, std::string_view path) {
  uint32_t fd = 0;
  REQUIRE(g.open(kStdlibFd, path, 0, Guest::kReadRights, fd) == Errno::Success);
  std::string s;
  REQUIRE(g.read(fd, s) == Errno::Success);
  REQUIRE(fd_close(*g.host, fd) == Errno::Success);
  return s;
}
}  // namespace

TEST_CASE("wasi archive: a stored zip mounts as /stdlib") {
  std::string error;
  auto zip = makeZip({{"lib/", ""}, {"lib/a.py", "A = 1\n"}, {"lib/pkg/b.py", "B"}, {"top.txt", ""}});
  auto archive = Archive::parse(zip, error);
  REQUIRE(archive);
  CHECK(error.empty());
  CHECK(archive->fileCount() == 3);
  // Files are views into the archive's own buffer, not copies.
  const auto& a = archive->root()->children.at("lib")->children.at("a.py");
  CHECK(a->view != nullptr);
  CHECK(a->data.empty());
  HostOptions o;
  o.stdlib = archive;
  Guest g(std::move(o));
  CHECK(readAll(g, "lib/a.py") == "A = 1\n");
  CHECK(readAll(g, "lib/pkg/b.py") == "B");
  CHECK(readAll(g, "top.txt").empty());
  std::vector<std::string> names;
  uint32_t dir = 0;
  REQUIRE(g.open(kStdlibFd, "lib", kDirectory, Guest::kReadRights, dir) == Errno::Success);
  REQUIRE(g.list(dir, names) == Errno::Success);
  CHECK(names == std::vector<std::string>{".", "..", "a.py", "pkg"});
  uint8_t type;
  uint64_t size;
  REQUIRE(g.stat(kStdlibFd, "lib/a.py", type, size) == Errno::Success);
  CHECK(size == 6);
  // One archive serves several hosts.
  HostOptions o2;
  o2.stdlib = archive;
  Guest g2(std::move(o2));
  CHECK(readAll(g2, "lib/a.py") == "A = 1\n");
}

TEST_CASE("wasi archive: a ustar tar mounts too") {
  std::string error;
  auto archive = Archive::parse(makeTar({{"d/", ""}, {"d/x.pm", "package X; 1;"}, {"y", std::string(1000, 'y')}}),
                                error);
  REQUIRE(archive);
  CHECK(archive->fileCount() == 2);
  HostOptions o;
  o.stdlib = archive;
  Guest g(std::move(o));
  CHECK(readAll(g, "d/x.pm") == "package X; 1;");
  CHECK(readAll(g, "y") == std::string(1000, 'y'));
}

TEST_CASE("wasi archive: invalid archives are refused") {
  std::string error;
  CHECK_FALSE(Archive::parse(makeZip({{"../evil", "x"}}), error));
  CHECK(error == "Invalid archive path");
  error.clear();
  CHECK_FALSE(Archive::parse(makeZip({{"a/../../evil", "x"}}), error));
  CHECK(error == "Invalid archive path");
  error.clear();
  CHECK_FALSE(Archive::parse(makeTar({{"../evil", "x"}}), error));
  CHECK(error == "Invalid archive path");
  error.clear();
  CHECK_FALSE(Archive::parse(makeZip({{"a", "x"}, {"a/b", "y"}}), error));
  CHECK(error == "Invalid archive path");
  error.clear();
  CHECK_FALSE(Archive::parse(makeZip({{"a", "x"}}, /*deflate*/ 8), error));
  CHECK(error == "Unsupported archive compression");
  error.clear();
  CHECK_FALSE(Archive::parse(std::vector<uint8_t>{'P', 'K', 1, 2}, error));
  CHECK(error == "Invalid archive");
  // Truncated central directory.
  auto zip = makeZip({{"a", "x"}});
  zip.resize(zip.size() - 30);
  error.clear();
  CHECK_FALSE(Archive::parse(zip, error));
  // Absolute names are relative to the mount.
  error.clear();
  auto abs = Archive::parse(makeZip({{"/abs/x", "1"}}), error);
  REQUIRE(abs);
  CHECK(abs->root()->children.count("abs") == 1);
  // Empty buffer: empty archive.
  auto empty = Archive::parse({}, error);
  REQUIRE(empty);
  CHECK(empty->fileCount() == 0);
}

TEST_CASE("wasi archive: a directory named in .mounts is preopened at its guest path after /workspace") {
  std::string error;
  auto archive = Archive::parse(makeTar({{"driver.pl", "1;"},
                                         {"perl/lib/5.42.0/strict.pm", "package strict; 1;"},
                                         {"perl/lib/5.42.0/wasm32-wasi/re.pm", "package re; 1;"},
                                         {".mounts", "/zeroperl/lib perl/lib\n"}}),
                                error);
  REQUIRE(archive);
  REQUIRE(archive->mounts().size() == 1);
  CHECK(archive->fileCount() == 3);  // the .mounts file is not one of them
  CHECK(archive->mounts()[0].guestPath == "/zeroperl/lib");
  // Taken out of /stdlib, with the .mounts file: each file is seen at one path only.
  CHECK(archive->root()->children.at("perl")->children.empty());
  CHECK(archive->root()->children.count(".mounts") == 0);
  HostOptions o;
  o.stdlib = archive;
  Guest g(std::move(o));  // with /workspace at fd 5: the mount is fd 6, the first guest descriptor 7
  CHECK(g.host->fdBase() == 7);
  uint32_t name = g.alloc(64), prestat = g.alloc(8);
  REQUIRE(fd_prestat_get(*g.host, 6, prestat) == Errno::Success);
  CHECK(g.u32(prestat + 4) == 13);
  REQUIRE(fd_prestat_dir_name(*g.host, 6, name, 13) == Errno::Success);
  CHECK(g.str(name, 13) == "/zeroperl/lib");
  uint32_t fd = 0;
  REQUIRE(g.open(6, "5.42.0/wasm32-wasi/re.pm", 0, Guest::kReadRights, fd) == Errno::Success);
  std::string s;
  REQUIRE(g.read(fd, s) == Errno::Success);
  CHECK(s == "package re; 1;");
  REQUIRE(fd_close(*g.host, fd) == Errno::Success);
  // Read-only, and `..` stops at the mount's root.
  CHECK(g.open(6, "5.42.0/new.pm", kCreat, Guest::kWriteRights, fd) != Errno::Success);
  CHECK(g.open(6, "../../stdlib/driver.pl", 0, Guest::kReadRights, fd) != Errno::Success);
  CHECK(g.open(kStdlibFd, "perl/lib/5.42.0/strict.pm", 0, Guest::kReadRights, fd) == Errno::NoEnt);
  CHECK(readAll(g, "driver.pl") == "1;");
  // Without /workspace the mount follows /dev.
  HostOptions bare;
  bare.stdlib = archive;
  Guest g2(std::move(bare), /*withWorkspace*/ false);
  CHECK(g2.host->fdBase() == 6);
  REQUIRE(g2.open(5, "5.42.0/strict.pm", 0, Guest::kReadRights, fd) == Errno::Success);
}

TEST_CASE("wasi archive: .mounts that would shadow a fixed preopen, repeat a path or name no directory are refused") {
  const std::vector<std::string> bad = {
      "/stdlib/x d\n", "/dev d\n", "/ d\n", "/work d\n/work/x d\n", "relative d\n", "/a//b d\n", "/a/../b d\n",
      "/a d/../d\n", "/a nothere\n", "/a d/f\n", "/a\n", "/a d\n/b d\n", "/a d\n/b d\n/c d\n/e d\n/f d\n",
      "/workspace/x d\n"};
  for (const auto& text : bad) {
    std::string error;
    INFO(text);
    CHECK_FALSE(Archive::parse(makeTar({{"d/f", "x"}, {"e/f", "y"}, {".mounts", text}}), error));
    CHECK(error == "Invalid archive mounts");
  }
  std::string error;
  auto two = Archive::parse(makeTar({{"d/f", "x"}, {"e/f", "y"}, {".mounts", "/a d\n\n/b e"}}), error);
  REQUIRE(two);
  CHECK(two->mounts().size() == 2);
  CHECK(two->mounts()[1].guestPath == "/b");
}
