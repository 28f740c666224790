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
