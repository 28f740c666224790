// cpp/sandbox: the caller Sandbox's /workspace and files API (protocol §7.5 step 8, §7.7, §7.10, §7.11; checklist items
// 157-177 at the unit level). The HTTP mapping (status, code, context) is the Durable Object's and is tested there.
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include "sandbox/files.h"
#include "workspace/workspace.h"

using namespace sw;
using sw::sandbox::Changes;
using sw::sandbox::FileError;
using sw::sandbox::Files;
using sw::sandbox::ListEntry;
using sw::sandbox::Row;
using Strings = std::vector<std::string>;

namespace {

constexpr std::size_t MiB = 1048576;

std::string failure(const FileError& e) { return e.errnoName + " " + e.message; }

// One line per row: "D <path>" or "F <path> <size> <hashBytes> <updatedAt>".
Strings dump(const std::vector<Row>& rows) {
  Strings out;
  for (const Row& r : rows) {
    out.push_back(r.directory ? "D " + r.path
                              : "F " + r.path + " " + std::to_string(r.data.size()) + " " +
                                    workspace::hashBytes(r.data) + " " + std::to_string(uint64_t(r.updatedAt)));
  }
  return out;
}

// "+D path" / "+F path" for upserts, then "-path" for deletes, in the order given.
Strings dump(const Changes& c) {
  Strings out;
  for (const Row& r : c.upserts) out.push_back((r.directory ? "+D " : "+F ") + r.path);
  for (const std::string& p : c.deletes) out.push_back("-" + p);
  return out;
}

// The files API with results as text: "ok", or "<errno> <message>". `changes` holds the last operation's Changes.
struct Sandbox {
  explicit Sandbox(wasi::WorkspaceLimits limits = {}) : files(limits) {}
  Files files;
  Changes changes;
  std::string normalized, newNormalized;
  FileError err;

  std::string write(std::string_view path, std::string_view bytes, double now = 1000) {
    err = {};
    return files.write(path, bytes, now, normalized, changes, err) ? "ok" : failure(err);
  }
  std::string mkdir(std::string_view path, bool recursive = false) {
    return files.mkdir(path, recursive, normalized, changes, err) ? "ok" : failure(err);
  }
  std::string remove(std::string_view path, bool recursive = false, bool force = false) {
    return files.remove(path, recursive, force, normalized, changes, err) ? "ok" : failure(err);
  }
  std::string rename(std::string_view path, std::string_view newPath) {
    return files.rename(path, newPath, normalized, newNormalized, changes, err) ? "ok" : failure(err);
  }
  std::string read(std::string_view path, std::string* bytes = nullptr) {
    std::string out;
    if (!files.read(path, normalized, out, err)) return failure(err);
    if (bytes) *bytes = out;
    return "ok";
  }
  // Relative paths of a listing, or the failure.
  Strings list(std::string_view path, bool recursive, bool includeHidden) {
    std::vector<ListEntry> out;
    if (!files.list(path, recursive, includeHidden, normalized, out, err)) return {failure(err)};
    Strings names;
    for (const ListEntry& e : out) names.push_back(e.relativePath + (e.directory ? "/" : ""));
    return names;
  }
  Strings rows() const { return dump(files.rows()); }
};

std::string bytesOf(std::size_t n, char c = 'x') { return std::string(n, c); }

std::string deepPath(std::size_t depth) {
  std::string p = "/workspace";
  for (std::size_t i = 0; i < depth; ++i) p += "/d";
  return p;
}

}  // namespace

TEST_CASE("sandbox files: a missing file is ENOENT; escaping paths are EACCES naming the path as sent (items 158-159)",
          "[sandbox]") {
  Sandbox s;
  CHECK(s.read("/workspace/missing") == "ENOENT No such file or directory: /workspace/missing");
  CHECK(s.normalized == "/workspace/missing");
  CHECK(s.read("../../etc/passwd") == "EACCES Path escapes /workspace: ../../etc/passwd");
  CHECK(s.normalized.empty());
  CHECK(s.read("/etc/passwd") == "EACCES Path escapes /workspace: /etc/passwd");
  CHECK(s.read("/workspace/../etc") == "EACCES Path escapes /workspace: /workspace/../etc");
  CHECK(s.read("") == "ENOENT Path is required");
  // Every operation normalizes the same way, before it looks at the tree.
  CHECK(s.write("/etc/x", "a") == "EACCES Path escapes /workspace: /etc/x");
  CHECK(s.mkdir("/workspace/../../x", true) == "EACCES Path escapes /workspace: /workspace/../../x");
  CHECK(s.remove("/x", true, true) == "EACCES Path escapes /workspace: /x");
  CHECK(s.rename("/workspace/a", "/tmp/a") == "EACCES Path escapes /workspace: /tmp/a");
  CHECK(s.list("/", false, false) == Strings{"EACCES Path escapes /workspace: /"});
  CHECK(s.rows().empty());
}

TEST_CASE("sandbox files: relative paths resolve under /workspace and come back normalized (items 171-172)",
          "[sandbox]") {
  Sandbox s;
  CHECK(s.mkdir("sub") == "ok");
  CHECK(s.normalized == "/workspace/sub");
  CHECK(s.write("sub/./file.txt", "x") == "ok");
  CHECK(s.normalized == "/workspace/sub/file.txt");
  CHECK(s.read("//workspace//sub/../sub/file.txt") == "ok");
  CHECK(s.normalized == "/workspace/sub/file.txt");
  CHECK(s.rename("sub/file.txt", "moved.txt") == "ok");
  CHECK(s.normalized == "/workspace/sub/file.txt");
  CHECK(s.newNormalized == "/workspace/moved.txt");
  // The cwd rule itself lives in cpp/workspace; the Sandbox's files API resolves against /workspace.
  std::string out;
  workspace::Error werr;
  REQUIRE(workspace::normalizePath("/workspace/sub", "file.txt", out, werr));
  CHECK(out == "/workspace/sub/file.txt");
  // list answers absolute paths; non-recursive shows only direct children.
  std::vector<ListEntry> entries;
  REQUIRE(s.files.list("/workspace", false, false, s.normalized, entries, s.err));
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].absolutePath == "/workspace/moved.txt");
  CHECK(entries[1].absolutePath == "/workspace/sub");
}

TEST_CASE("sandbox files: a write over 1 MiB is EFBIG with maxSize and actualSize (item 160)", "[sandbox]") {
  Sandbox s;
  CHECK(s.write("/workspace/big.bin", bytesOf(MiB + 1)) == "EFBIG File exceeds 1 MiB: /workspace/big.bin");
  CHECK(s.err.maxSize == 1048576);
  CHECK(s.err.actualSize == 1048577);
  CHECK(s.rows().empty());
  CHECK(s.write("/workspace/big.bin", bytesOf(MiB)) == "ok");
  CHECK(s.files.totalBytes() == MiB);
}

TEST_CASE("sandbox files: 16 MiB total and 4,096 entries, then ENOSPC with nothing written (item 161)", "[sandbox]") {
  SECTION("bytes") {
    Sandbox s;
    for (int i = 0; i < 16; ++i) REQUIRE(s.write("/workspace/f" + std::to_string(i), bytesOf(MiB)) == "ok");
    const Strings before = s.rows();
    CHECK(s.write("/workspace/one-more", "1") == "ENOSPC Workspace exceeds 16 MiB total");
    CHECK(s.write("/workspace/f0", bytesOf(MiB) + "") == "ok");  // replacing bytes that do not grow is fine
    CHECK(s.write("/workspace/f1", "") == "ok");
    CHECK(s.write("/workspace/one-more", "1") == "ok");  // the freed space is usable
    CHECK(s.write("/workspace/f1", bytesOf(MiB)) == "ENOSPC Workspace exceeds 16 MiB total");
    CHECK(s.files.totalBytes() == 15 * MiB + 1);
    CHECK(before.size() == 16);
  }
  SECTION("entries") {
    Sandbox s;
    REQUIRE(s.mkdir("/workspace/dir") == "ok");
    for (int i = 1; i < 4096; ++i) REQUIRE(s.write("/workspace/dir/f" + std::to_string(i), "") == "ok");
    REQUIRE(s.files.entryCount() == 4096);
    const Strings before = s.rows();
    CHECK(s.write("/workspace/f4097", "x") == "ENOSPC Workspace exceeds 4096 entries");
    CHECK(s.mkdir("/workspace/d4097") == "ENOSPC Workspace exceeds 4096 entries");
    CHECK(s.mkdir("/workspace/a/b/c", true) == "ENOSPC Workspace exceeds 4096 entries");
    CHECK(s.rows() == before);
    CHECK(s.write("/workspace/dir/f1", "rewritten") == "ok");  // no new entry
    CHECK(s.remove("/workspace/dir/f1") == "ok");
    CHECK(s.write("/workspace/f4097", "x") == "ok");
  }
}

TEST_CASE("sandbox files: mkdir EEXIST, ENOENT, ENOTDIR, recursive intermediates, the root a no-op (item 162)",
          "[sandbox]") {
  Sandbox s;
  CHECK(s.mkdir("/workspace/a") == "ok");
  CHECK(dump(s.changes) == Strings{"+D /workspace/a"});
  CHECK(s.mkdir("/workspace/a") == "EEXIST File exists: /workspace/a");
  CHECK(s.mkdir("/workspace/a", true) == "ok");  // recursive: an existing directory is fine
  CHECK(s.changes.empty());
  CHECK(s.mkdir("/workspace/x/y") == "ENOENT No such file or directory: /workspace/x/y");
  CHECK(s.mkdir("/workspace/a/b/c/d", true) == "ok");
  CHECK(dump(s.changes) == Strings{"+D /workspace/a/b", "+D /workspace/a/b/c", "+D /workspace/a/b/c/d"});
  REQUIRE(s.write("/workspace/file", "x") == "ok");
  CHECK(s.mkdir("/workspace/file") == "EEXIST File exists: /workspace/file");
  CHECK(s.mkdir("/workspace/file", true) == "ENOTDIR Not a directory: /workspace/file");
  CHECK(s.mkdir("/workspace/file/sub") == "ENOTDIR Not a directory: /workspace/file/sub");
  CHECK(s.mkdir("/workspace/file/sub/deeper", true) == "ENOTDIR Not a directory: /workspace/file/sub/deeper");
  CHECK(s.mkdir("/workspace") == "ok");
  CHECK(s.changes.empty());
  CHECK(s.mkdir("/workspace/", true) == "ok");
  CHECK(s.changes.empty());
  CHECK(s.rows() == Strings{"D /workspace/a", "D /workspace/a/b", "D /workspace/a/b/c", "D /workspace/a/b/c/d",
                            "F /workspace/file 1 " + workspace::hashBytes("x") + " 1000"});
}

TEST_CASE("sandbox files: delete needs recursive for any directory; force ignores a missing path; never the root "
          "(item 163)",
          "[sandbox]") {
  Sandbox s;
  REQUIRE(s.mkdir("/workspace/empty") == "ok");
  REQUIRE(s.mkdir("/workspace/full/inner", true) == "ok");
  REQUIRE(s.write("/workspace/full/inner/f.txt", "f") == "ok");
  REQUIRE(s.write("/workspace/full/g.txt", "g") == "ok");
  REQUIRE(s.write("/workspace/full-sibling", "s") == "ok");
  const Strings before = s.rows();
  CHECK(s.remove("/workspace/empty") == "EISDIR Is a directory: /workspace/empty");
  CHECK(s.remove("/workspace/full") == "EISDIR Is a directory: /workspace/full");
  CHECK(s.remove("/workspace/missing") == "ENOENT No such file or directory: /workspace/missing");
  CHECK(s.remove("/workspace") == "EACCES Cannot delete the /workspace root");
  CHECK(s.remove("/workspace", true, true) == "EACCES Cannot delete the /workspace root");
  CHECK(s.rows() == before);
  CHECK(s.remove("/workspace/missing", false, true) == "ok");
  CHECK(s.changes.empty());
  CHECK(s.remove("/workspace/full-sibling/under-a-file", false, true) == "ok");
  CHECK(s.remove(std::string_view("/workspace/a\0b", 14), false, true).rfind("EINVAL ", 0) == 0);
  CHECK(s.changes.empty());
  CHECK(s.remove("/workspace/empty", true) == "ok");
  CHECK(dump(s.changes) == Strings{"-/workspace/empty"});
  // A removed directory lists itself and everything below it, and nothing beside it.
  CHECK(s.remove("/workspace/full", true) == "ok");
  CHECK(dump(s.changes) == Strings{"-/workspace/full", "-/workspace/full/g.txt", "-/workspace/full/inner",
                                   "-/workspace/full/inner/f.txt"});
  CHECK(s.remove("/workspace/full-sibling") == "ok");
  CHECK(dump(s.changes) == Strings{"-/workspace/full-sibling"});
  CHECK(s.rows().empty());
  CHECK(s.files.totalBytes() == 0);
}

TEST_CASE("sandbox files: rename refusals, in the table's terms (item 164)", "[sandbox]") {
  Sandbox s;
  REQUIRE(s.write("/workspace/file.txt", "f") == "ok");
  REQUIRE(s.mkdir("/workspace/full/sub", true) == "ok");
  REQUIRE(s.write("/workspace/full/x", "x") == "ok");
  REQUIRE(s.mkdir("/workspace/dir") == "ok");
  REQUIRE(s.mkdir("/workspace/empty") == "ok");
  const Strings before = s.rows();
  CHECK(s.rename("/workspace/file.txt", "/workspace/full") == "EISDIR Is a directory: /workspace/full");
  CHECK(s.rename("/workspace/file.txt", "/workspace/empty") == "EISDIR Is a directory: /workspace/empty");
  CHECK(s.rename("/workspace/dir", "/workspace/full") == "ENOTEMPTY Directory not empty: /workspace/full");
  CHECK(s.rename("/workspace/dir", "/workspace/file.txt") == "ENOTDIR Not a directory: /workspace/file.txt");
  CHECK(s.rename("/workspace/file.txt", "/workspace/nope/file.txt") ==
        "ENOENT No such file or directory: /workspace/nope/file.txt");
  CHECK(s.rename("/workspace/file.txt", "/workspace/file.txt/child") ==
        "ENOTDIR Not a directory: /workspace/file.txt/child");
  CHECK(s.rename("/workspace/missing", "/workspace/other") ==
        "ENOENT No such file or directory: /workspace/missing");
  CHECK(s.rename("/workspace", "/workspace/root") == "EACCES Cannot rename the /workspace root");
  CHECK(s.rename("/workspace/dir", "/workspace") == "EACCES Cannot rename the /workspace root");
  CHECK(s.rename("/workspace/full", "/workspace/full/sub/inside") ==
        "EINVAL Cannot move a directory into itself: /workspace/full/sub/inside");
  CHECK(s.rows() == before);
  CHECK(s.rename("/workspace/file.txt", "/workspace/file.txt") == "ok");
  CHECK(s.changes.empty());
  CHECK(s.rows() == before);
}

TEST_CASE("sandbox files: rename moves files and subtrees, replacing a file or an empty directory; move is the same "
          "operation",
          "[sandbox]") {
  Sandbox s;
  REQUIRE(s.write("/workspace/a.txt", "aaa", 1111) == "ok");
  REQUIRE(s.write("/workspace/b.txt", "b", 2222) == "ok");
  CHECK(s.rename("/workspace/a.txt", "/workspace/b.txt") == "ok");
  CHECK(dump(s.changes) == Strings{"+F /workspace/b.txt", "-/workspace/a.txt"});
  REQUIRE(s.changes.upserts.size() == 1);
  CHECK(s.changes.upserts[0].data == "aaa");
  CHECK(s.changes.upserts[0].updatedAt == 1111);  // a move keeps the file's updatedAt
  CHECK(s.rows() == Strings{"F /workspace/b.txt 3 " + workspace::hashBytes("aaa") + " 1111"});

  REQUIRE(s.mkdir("/workspace/src/inner", true) == "ok");
  REQUIRE(s.write("/workspace/src/inner/f", "ff", 3333) == "ok");
  REQUIRE(s.mkdir("/workspace/dst") == "ok");
  CHECK(s.rename("/workspace/src", "/workspace/dst") == "ok");  // an empty directory is replaced
  CHECK(dump(s.changes) == Strings{"+D /workspace/dst", "+D /workspace/dst/inner", "+F /workspace/dst/inner/f",
                                   "-/workspace/src", "-/workspace/src/inner", "-/workspace/src/inner/f"});
  CHECK(s.rows() == Strings{"F /workspace/b.txt 3 " + workspace::hashBytes("aaa") + " 1111", "D /workspace/dst",
                            "D /workspace/dst/inner",
                            "F /workspace/dst/inner/f 2 " + workspace::hashBytes("ff") + " 3333"});
  CHECK(s.files.entryCount() == 4);
  CHECK(s.files.totalBytes() == 5);
  std::string bytes;
  CHECK(s.read("/workspace/dst/inner/f", &bytes) == "ok");
  CHECK(bytes == "ff");
}

TEST_CASE("sandbox files: read of a directory, writes under a file, onto a directory or the root (item 165)",
          "[sandbox]") {
  Sandbox s;
  REQUIRE(s.write("/workspace/file.txt", "x") == "ok");
  REQUIRE(s.mkdir("/workspace/dir") == "ok");
  const Strings before = s.rows();
  CHECK(s.read("/workspace/dir") == "EISDIR Is a directory: /workspace/dir");
  CHECK(s.read("/workspace") == "EISDIR Is a directory: /workspace");
  CHECK(s.read("/workspace/file.txt/child.txt") == "ENOTDIR Not a directory: /workspace/file.txt/child.txt");
  CHECK(s.write("/workspace/file.txt/child.txt", "y") == "ENOTDIR Not a directory: /workspace/file.txt/child.txt");
  CHECK(s.write("/workspace/dir", "y") == "EISDIR Is a directory: /workspace/dir");
  CHECK(s.write("/workspace", "y") == "EISDIR Cannot write to the /workspace root");
  CHECK(s.write("/workspace/missing/child.txt", "y") ==
        "ENOENT No such file or directory: /workspace/missing/child.txt");
  CHECK(s.rows() == before);
}

TEST_CASE("sandbox files: utf-8 and binary bytes read back exactly; isBinary; the mimeType table (items 166-167)",
          "[sandbox]") {
  Sandbox s;
  std::string bytes;
  REQUIRE(s.write("/workspace/hello.txt", "hello") == "ok");
  CHECK(s.read("/workspace/hello.txt", &bytes) == "ok");
  CHECK(bytes == "hello");
  CHECK_FALSE(sandbox::isBinary(bytes));
  CHECK(sandbox::mimeTypeOf("/workspace/hello.txt", false) == "text/plain");
  const std::string raw("\x00\x01\x02\xff\xfe", 5);
  REQUIRE(s.write("/workspace/raw.bin", raw) == "ok");
  CHECK(s.read("/workspace/raw.bin", &bytes) == "ok");
  CHECK(bytes == raw);
  CHECK(sandbox::isBinary(bytes));
  CHECK(sandbox::mimeTypeOf("/workspace/raw.bin", true) == "application/octet-stream");

  CHECK_FALSE(sandbox::isBinary(""));
  CHECK_FALSE(sandbox::isBinary("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80"));
  CHECK(sandbox::isBinary(std::string("a\0b", 3)));  // valid UTF-8, but a NUL
  CHECK(sandbox::isBinary("\xc3"));                  // truncated sequence
  CHECK(sandbox::isBinary("\xed\xa0\x80"));          // a surrogate
  CHECK(sandbox::isBinary("\xc0\xaf"));              // overlong

  const std::vector<std::pair<std::string, std::string>> table = {
      {"a.json", "application/json"}, {"a.js", "text/javascript"},  {"a.mjs", "text/javascript"},
      {"a.py", "text/x-python"},      {"a.pl", "text/x-perl"},      {"a.rb", "text/x-ruby"},
      {"a.txt", "text/plain"},        {"a.md", "text/markdown"},    {"a.html", "text/html"},
      {"a.css", "text/css"},          {"a.csv", "text/csv"},        {"a.png", "image/png"},
      {"a.jpg", "image/jpeg"},        {"a.jpeg", "image/jpeg"},     {"a.gif", "image/gif"},
      {"a.svg", "image/svg+xml"},     {"a.pdf", "application/pdf"}, {"a.wasm", "application/wasm"},
      {"a.zip", "application/zip"},   {"a.tar.gz", "application/gzip"},
  };
  for (const auto& [name, type] : table) {
    INFO(name);
    CHECK(sandbox::mimeTypeOf("/workspace/" + name, false) == type);
    CHECK(sandbox::mimeTypeOf("/workspace/" + name, true) == type);  // the table wins over the content
  }
  CHECK(sandbox::mimeTypeOf("/workspace/UPPER.JSON", false) == "application/json");  // lower-cased extension
  CHECK(sandbox::mimeTypeOf("/workspace/Photo.JpEg", true) == "image/jpeg");
  CHECK(sandbox::mimeTypeOf("/workspace/noext", false) == "text/plain");
  CHECK(sandbox::mimeTypeOf("/workspace/noext", true) == "application/octet-stream");
  CHECK(sandbox::mimeTypeOf("/workspace/a.unknown", false) == "text/plain");
  CHECK(sandbox::mimeTypeOf("/workspace/.json", false) == "text/plain");  // a leading dot names, not extends
  CHECK(sandbox::mimeTypeOf("/workspace/dir.py/file", false) == "text/plain");
}

TEST_CASE("sandbox files: list drops hidden segments unless asked, recurses parent first, paths relative to the "
          "listed directory (item 168)",
          "[sandbox]") {
  Sandbox s;
  REQUIRE(s.write("/workspace/b.txt", "bb", 5000) == "ok");
  REQUIRE(s.write("/workspace/.hidden", "h") == "ok");
  REQUIRE(s.mkdir("/workspace/dir/.h", true) == "ok");
  REQUIRE(s.write("/workspace/dir/a.txt", "a") == "ok");
  REQUIRE(s.write("/workspace/dir/.h/c.txt", "c") == "ok");
  REQUIRE(s.mkdir("/workspace/.hd") == "ok");
  REQUIRE(s.write("/workspace/.hd/x", "x") == "ok");

  CHECK(s.list("/workspace", false, false) == Strings{"b.txt", "dir/"});
  CHECK(s.list("/workspace", false, true) == Strings{".hd/", ".hidden", "b.txt", "dir/"});
  CHECK(s.list("/workspace", true, false) == Strings{"b.txt", "dir/", "dir/a.txt"});
  CHECK(s.list("/workspace", true, true) ==
        Strings{".hd/", ".hd/x", ".hidden", "b.txt", "dir/", "dir/.h/", "dir/.h/c.txt", "dir/a.txt"});
  CHECK(s.list("/workspace/dir", true, false) == Strings{"a.txt"});
  CHECK(s.list("/workspace/dir", true, true) == Strings{".h/", ".h/c.txt", "a.txt"});
  CHECK(s.list("/workspace/.hd", false, false) == Strings{"x"});  // only segments below the listed directory count
  CHECK(s.list("/workspace/missing", false, false) == Strings{"ENOENT No such file or directory: /workspace/missing"});
  CHECK(s.list("/workspace/b.txt", false, false) == Strings{"ENOTDIR Not a directory: /workspace/b.txt"});

  std::vector<ListEntry> entries;
  REQUIRE(s.files.list("/workspace/dir/../", false, false, s.normalized, entries, s.err));
  CHECK(s.normalized == "/workspace");
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].name == "b.txt");
  CHECK(entries[0].absolutePath == "/workspace/b.txt");
  CHECK_FALSE(entries[0].directory);
  CHECK(entries[0].size == 2);
  CHECK(entries[0].updatedAt == 5000);
  CHECK(entries[1].name == "dir");
  CHECK(entries[1].directory);
  CHECK(entries[1].size == 0);
  CHECK(entries[1].updatedAt == 0);
  REQUIRE(s.files.list("/workspace/dir", true, true, s.normalized, entries, s.err));
  REQUIRE(entries.size() == 3);
  CHECK(entries[1].name == "c.txt");
  CHECK(entries[1].absolutePath == "/workspace/dir/.h/c.txt");
  CHECK(entries[1].relativePath == ".h/c.txt");
}

TEST_CASE("sandbox files: exists never fails (item 169)", "[sandbox]") {
  Sandbox s;
  REQUIRE(s.mkdir("/workspace/dir") == "ok");
  REQUIRE(s.write("/workspace/dir/f", "x") == "ok");
  CHECK_FALSE(s.files.exists("/workspace/missing"));
  CHECK_FALSE(s.files.exists("../../etc/passwd"));
  CHECK_FALSE(s.files.exists("/etc/passwd"));
  CHECK_FALSE(s.files.exists(""));
  CHECK_FALSE(s.files.exists("/workspace/dir/f/under-a-file"));
  CHECK_FALSE(s.files.exists(std::string("/workspace/nul\0byte", 19)));
  CHECK_FALSE(s.files.exists("/workspace/" + std::string(100000, 'n')));
  CHECK(s.files.exists("/workspace"));
  CHECK(s.files.exists("/"
                       "workspace/"));
  CHECK(s.files.exists("/workspace/dir"));
  CHECK(s.files.exists("dir/f"));
}

TEST_CASE("sandbox files: rows are one per entry, a directory without data and updatedAt 0; load recreates them "
          "(item 174)",
          "[sandbox]") {
  Sandbox s;
  REQUIRE(s.write("/workspace/one.txt", "1", 1700000000123.0) == "ok");
  REQUIRE(s.mkdir("/workspace/empty") == "ok");
  REQUIRE(s.write("/workspace/two.bin", std::string("\0\xff", 2), 42) == "ok");
  std::vector<Row> rows = s.files.rows();
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].path == "/workspace/empty");
  CHECK(rows[0].directory);
  CHECK(rows[0].data.empty());
  CHECK(rows[0].updatedAt == 0);
  CHECK(rows[1].path == "/workspace/one.txt");
  CHECK(rows[1].updatedAt == 1700000000123.0);
  CHECK(rows[2].data == std::string("\0\xff", 2));

  Sandbox fresh;
  REQUIRE(fresh.write("/workspace/stale", "replaced by load") == "ok");
  FileError err;
  REQUIRE(fresh.files.load(rows, err));
  CHECK(fresh.rows() == s.rows());
  CHECK(fresh.files.entryCount() == 3);
  CHECK(fresh.files.totalBytes() == 3);
  CHECK(fresh.files.exists("/workspace/empty"));
  // Any order; a file's parents are created even without their rows.
  Sandbox other;
  REQUIRE(other.files.load({Row{"/workspace/a/b/c.txt", false, "c", 7}, Row{"/workspace/z", true, {}, 0},
                            Row{"/workspace", true, {}, 0}},
                           err));
  CHECK(other.rows() == Strings{"D /workspace/a", "D /workspace/a/b",
                                "F /workspace/a/b/c.txt 1 " + workspace::hashBytes("c") + " 7", "D /workspace/z"});
}

TEST_CASE("sandbox files: load of hostile rows fails with an empty tree", "[sandbox]") {
  const std::vector<std::pair<std::string, std::vector<Row>>> cases = {
      {"EACCES Path escapes /workspace: /etc/passwd", {Row{"/workspace/ok", false, "x", 1}, Row{"/etc/passwd", false, "x", 1}}},
      {"EACCES Path escapes /workspace: ../up", {Row{"../up", true, {}, 0}}},
      {"EISDIR Cannot write to the /workspace root", {Row{"/workspace", false, "x", 1}}},
      {"EFBIG File exceeds 1 MiB: /workspace/big", {Row{"/workspace/big", false, bytesOf(MiB + 1), 1}}},
      {"ENOTDIR Not a directory: /workspace/f/child", {Row{"/workspace/f", false, "x", 1}, Row{"/workspace/f/child", false, "y", 1}}},
      {"ENOTDIR Not a directory: /workspace/f/d", {Row{"/workspace/f", false, "x", 1}, Row{"/workspace/f/d", true, {}, 0}}},
      {"EISDIR Is a directory: /workspace/both", {Row{"/workspace/both", true, {}, 0}, Row{"/workspace/both", false, "x", 1}}},
      {"ENAMETOOLONG Name too long: " + deepPath(300), {Row{deepPath(300), true, {}, 0}}},
  };
  for (const auto& [expected, rows] : cases) {
    INFO(expected);
    Sandbox s;
    REQUIRE(s.write("/workspace/previous", "p") == "ok");
    FileError err;
    CHECK_FALSE(s.files.load(rows, err));
    CHECK(failure(err) == expected);
    CHECK(s.files.rows().empty());
    CHECK(s.files.entryCount() == 0);
    CHECK(s.files.totalBytes() == 0);
  }
  SECTION("over the total and the entry count") {
    std::vector<Row> rows;
    for (int i = 0; i < 17; ++i) rows.push_back(Row{"/workspace/f" + std::to_string(i), false, bytesOf(MiB), 1});
    Sandbox s;
    FileError err;
    CHECK_FALSE(s.files.load(rows, err));
    CHECK(failure(err) == "ENOSPC Workspace exceeds 16 MiB total");
    CHECK(s.files.entryCount() == 0);
    rows.clear();
    for (int i = 0; i < 4097; ++i) rows.push_back(Row{"/workspace/d" + std::to_string(i), true, {}, 0});
    CHECK_FALSE(s.files.load(rows, err));
    CHECK(failure(err) == "ENOSPC Workspace exceeds 4096 entries");
    CHECK(s.files.entryCount() == 0);
    rows.pop_back();
    CHECK(s.files.load(rows, err));
    CHECK(s.files.entryCount() == 4096);
  }
}

TEST_CASE("sandbox files: the path limits are the mirror's: 256 deep, 4,096 bytes, refused with nothing made",
          "[sandbox]") {
  Sandbox s;
  CHECK(s.mkdir(deepPath(256), true) == "ok");
  CHECK(s.files.entryCount() == 256);
  CHECK(s.mkdir(deepPath(257), true) == "ENAMETOOLONG Name too long: " + deepPath(257));
  CHECK(s.mkdir(deepPath(300), true) == "ENAMETOOLONG Name too long: " + deepPath(300));
  CHECK(s.write(deepPath(256) + "/f", "x") == "ENAMETOOLONG Name too long: " + deepPath(256) + "/f");
  CHECK(s.files.entryCount() == 256);
  CHECK(s.remove("/workspace/d", true) == "ok");
  CHECK(s.changes.deletes.size() == 256);

  // 4,096 bytes below the root: 16 components of 255 bytes and one more byte.
  std::string longPath = "/workspace";
  for (int i = 0; i < 16; ++i) longPath += "/" + std::string(255, char('a' + i));
  CHECK(longPath.size() - 11 == 16 * 256 - 1);
  CHECK(s.mkdir(longPath, true) == "ok");
  CHECK(s.write(longPath + "/x", "x") == "ENAMETOOLONG Name too long: " + longPath + "/x");
  CHECK(s.mkdir(longPath + "/y") == "ENAMETOOLONG Name too long: " + longPath + "/y");
  // A rename is checked for every path of the moved subtree.
  REQUIRE(s.mkdir("/workspace/tree/leaf", true) == "ok");
  const Strings before = s.rows();
  // Under the 15-component directory (3,839 bytes) a 253-byte name fits (4,093), its child "leaf" (4,098) does not.
  const std::string target = longPath.substr(0, longPath.size() - 256) + "/" + std::string(253, 't');
  CHECK(s.rename("/workspace/tree/leaf", target) == "ok");
  CHECK(s.rename(target, "/workspace/tree/leaf") == "ok");
  CHECK(s.rename("/workspace/tree", target) == "ENAMETOOLONG Name too long: " + target);
  CHECK(s.rows() == before);
  // A name over 255 bytes, and a hostile 1 MB path, cost one pass and change nothing.
  CHECK(s.write("/workspace/" + std::string(256, 'n'), "x") ==
        "ENAMETOOLONG Name too long: /workspace/" + std::string(256, 'n'));
  std::string huge = "/workspace";
  while (huge.size() < 1000000) huge += "/a";
  CHECK(s.mkdir(huge, true).rfind("ENAMETOOLONG Name too long: ", 0) == 0);
  CHECK(s.read(huge).rfind("ENOENT", 0) == 0);
  CHECK(s.rows() == before);
}

TEST_CASE("sandbox files: every failed operation leaves the rows unchanged and reports no changes", "[sandbox]") {
  Sandbox s;
  REQUIRE(s.mkdir("/workspace/dir/sub", true) == "ok");
  REQUIRE(s.write("/workspace/dir/sub/f.txt", "f") == "ok");
  REQUIRE(s.write("/workspace/file.txt", "x") == "ok");
  REQUIRE(s.mkdir("/workspace/other") == "ok");
  REQUIRE(s.write("/workspace/other/o", "o") == "ok");
  const Strings before = s.rows();
  const std::vector<std::function<std::string()>> failing = {
      [&] { return s.write("/workspace", "x"); },
      [&] { return s.write("/workspace/dir", "x"); },
      [&] { return s.write("/workspace/file.txt/x", "x"); },
      [&] { return s.write("/workspace/nope/x", "x"); },
      [&] { return s.write("/workspace/big", bytesOf(MiB + 1)); },
      [&] { return s.write("/../x", "x"); },
      [&] { return s.mkdir("/workspace/dir"); },
      [&] { return s.mkdir("/workspace/a/b"); },
      [&] { return s.mkdir("/workspace/file.txt/a/b", true); },
      [&] { return s.mkdir(deepPath(257), true); },
      [&] { return s.remove("/workspace/dir"); },
      [&] { return s.remove("/workspace"); },
      [&] { return s.remove("/workspace/missing"); },
      [&] { return s.rename("/workspace/dir", "/workspace/other"); },
      [&] { return s.rename("/workspace/file.txt", "/workspace/dir"); },
      [&] { return s.rename("/workspace/dir", "/workspace/file.txt"); },
      [&] { return s.rename("/workspace/dir", "/workspace/dir/sub/in"); },
      [&] { return s.rename("/workspace/file.txt", "/workspace/none/x"); },
      [&] { return s.rename("/workspace/missing", "/workspace/x"); },
      [&] { return s.rename("/workspace", "/workspace/x"); },
  };
  for (std::size_t i = 0; i < failing.size(); ++i) {
    INFO("operation " << i);
    s.changes.upserts.push_back(Row{"/workspace/sentinel", true, {}, 0});  // a failure must clear it too
    CHECK(failing[i]() != "ok");
    CHECK(s.changes.empty());
    CHECK(s.rows() == before);
  }
}

TEST_CASE("sandbox files: dirs and manifest are sorted byte-wise, root excluded, sha256 hashes (item 175)",
          "[sandbox]") {
  Sandbox s;
  REQUIRE(s.mkdir("/workspace/a/b", true) == "ok");
  REQUIRE(s.mkdir("/workspace/a-b") == "ok");
  REQUIRE(s.write("/workspace/a/b/f", "deep") == "ok");
  REQUIRE(s.write("/workspace/a-b/f", "dash") == "ok");
  REQUIRE(s.write("/workspace/z", "") == "ok");
  CHECK(s.files.dirs() == Strings{"/workspace/a", "/workspace/a-b", "/workspace/a/b"});
  const auto manifest = s.files.manifest();
  REQUIRE(manifest.size() == 3);
  CHECK(manifest[0] == std::make_pair(std::string("/workspace/a-b/f"), "sha256:" + workspace::sha256Hex("dash")));
  CHECK(manifest[1] == std::make_pair(std::string("/workspace/a/b/f"), "sha256:" + workspace::sha256Hex("deep")));
  CHECK(manifest[2].second == "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(Sandbox().files.dirs().empty());
  CHECK(Sandbox().files.manifest().empty());
}

TEST_CASE("sandbox files: the manifest hash cache hashes each file once and recomputes after any change",
          "[sandbox]") {
  Sandbox s;
  REQUIRE(s.write("/workspace/a", "aaaa") == "ok");
  REQUIRE(s.mkdir("/workspace/d") == "ok");
  REQUIRE(s.write("/workspace/d/b", "bb") == "ok");
  auto hashOf = [&](const std::string& path) {
    for (const auto& [p, h] : s.files.manifest()) {
      if (p == path) return h;
    }
    return std::string("absent");
  };
  CHECK(hashOf("/workspace/a") == "sha256:" + workspace::sha256Hex("aaaa"));
  CHECK(s.files.hashedBytes() == 6);
  s.files.manifest();
  CHECK(s.files.hashedBytes() == 6);  // nothing changed: nothing hashed
  REQUIRE(s.write("/workspace/a", "AAAA") == "ok");  // same size, new bytes
  CHECK(hashOf("/workspace/a") == "sha256:" + workspace::sha256Hex("AAAA"));
  CHECK(s.files.hashedBytes() == 10);
  REQUIRE(s.rename("/workspace/d", "/workspace/e") == "ok");
  CHECK(hashOf("/workspace/e/b") == "sha256:" + workspace::sha256Hex("bb"));
  CHECK(hashOf("/workspace/d/b") == "absent");
  REQUIRE(s.write("/workspace/d2", "zz") == "ok");
  REQUIRE(s.rename("/workspace/d2", "/workspace/e/b") == "ok");  // replaces a file of the same size
  CHECK(hashOf("/workspace/e/b") == "sha256:" + workspace::sha256Hex("zz"));
  Changes changes;
  FileError err;
  REQUIRE(s.files.apply({"/workspace/e"}, {workspace::File{"/workspace/e/b", "yy", 5}}, {}, changes, err));
  CHECK(hashOf("/workspace/e/b") == "sha256:" + workspace::sha256Hex("yy"));
  REQUIRE(s.files.load({Row{"/workspace/e/b", false, "xx", 1}}, err));
  CHECK(hashOf("/workspace/e/b") == "sha256:" + workspace::sha256Hex("xx"));
  CHECK(hashOf("/workspace/a") == "absent");
  REQUIRE(s.remove("/workspace/e", true) == "ok");
  REQUIRE(s.write("/workspace/e", "ww") == "ok");
  CHECK(hashOf("/workspace/e") == "sha256:" + workspace::sha256Hex("ww"));
}

TEST_CASE("sandbox files: filesFor answers the asked paths that are files, as asked, with bytes and updatedAt",
          "[sandbox]") {
  Sandbox s;
  REQUIRE(s.mkdir("/workspace/dir") == "ok");
  REQUIRE(s.write("/workspace/dir/f", "bytes", 1234) == "ok");
  REQUIRE(s.write("/workspace/g", "", 99) == "ok");
  auto files = s.files.filesFor({"/workspace/dir/f", "/workspace/dir", "/workspace/missing", "/etc/passwd",
                                 "/workspace", "/workspace/g"});
  REQUIRE(files.size() == 2);
  CHECK(files[0].path == "/workspace/dir/f");
  CHECK(files[0].data == "bytes");
  CHECK(files[0].updatedAt == 1234);
  CHECK(files[1].path == "/workspace/g");
  CHECK(files[1].data.empty());
  CHECK(files[1].updatedAt == 99);
}

TEST_CASE("sandbox files: apply writes files, removes deleted files and unlisted directories with their subtrees "
          "(item 176)",
          "[sandbox]") {
  Sandbox s;
  REQUIRE(s.mkdir("/workspace/keep") == "ok");
  REQUIRE(s.write("/workspace/keep/k", "k") == "ok");
  REQUIRE(s.mkdir("/workspace/old/deep", true) == "ok");
  REQUIRE(s.write("/workspace/old/deep/g", "g") == "ok");
  REQUIRE(s.write("/workspace/x.txt", "x") == "ok");
  REQUIRE(s.write("/workspace/stays.txt", "s") == "ok");
  Changes changes;
  FileError err;
  REQUIRE(s.files.apply({"/workspace/keep", "/workspace/new"},
                        {workspace::File{"/workspace/new/n.txt", "new", 1700000000000.0},
                         workspace::File{"/workspace/keep/k", "k2", 77}},
                        {"/workspace/x.txt"}, changes, err));
  CHECK(dump(changes) == Strings{"+F /workspace/keep/k", "+D /workspace/new", "+F /workspace/new/n.txt",
                                 "-/workspace/old", "-/workspace/old/deep", "-/workspace/old/deep/g",
                                 "-/workspace/x.txt"});
  CHECK(s.rows() == Strings{"D /workspace/keep", "F /workspace/keep/k 2 " + workspace::hashBytes("k2") + " 77",
                            "D /workspace/new",
                            "F /workspace/new/n.txt 3 " + workspace::hashBytes("new") + " 1700000000000",
                            "F /workspace/stays.txt 1 " + workspace::hashBytes("s") + " 1000"});
  // The upserted rows carry what the table must hold.
  CHECK(changes.upserts[2].data == "new");
  CHECK(changes.upserts[2].updatedAt == 1700000000000.0);
  CHECK(changes.upserts[1].directory);
  // Applying the same result again changes nothing.
  REQUIRE(s.files.apply({"/workspace/keep", "/workspace/new"}, {}, {"/workspace/x.txt"}, changes, err));
  CHECK(changes.empty());
}

TEST_CASE("sandbox files: apply turns a file into a directory and back, as the interpreter's tree ended", "[sandbox]") {
  Sandbox s;
  REQUIRE(s.write("/workspace/x", "file") == "ok");
  REQUIRE(s.mkdir("/workspace/d") == "ok");
  REQUIRE(s.write("/workspace/d/inner", "i") == "ok");
  Changes changes;
  FileError err;
  // The guest removed file x and made a directory x with a file in it; removed directory d and wrote a file d.
  REQUIRE(s.files.apply({"/workspace/x"},
                        {workspace::File{"/workspace/x/y", "y", 1}, workspace::File{"/workspace/d", "now a file", 2}},
                        {"/workspace/x", "/workspace/d/inner"}, changes, err));
  CHECK(s.rows() == Strings{"F /workspace/d 10 " + workspace::hashBytes("now a file") + " 2", "D /workspace/x",
                            "F /workspace/x/y 1 " + workspace::hashBytes("y") + " 1"});
  CHECK(dump(changes) == Strings{"+F /workspace/d", "+D /workspace/x", "+F /workspace/x/y", "-/workspace/d/inner"});
  // A file under a directory the result does not list, or both written and deleted, is not there in the end.
  REQUIRE(s.files.apply({"/workspace/x"},
                        {workspace::File{"/workspace/gone/f", "f", 1}, workspace::File{"/workspace/both", "b", 1}},
                        {"/workspace/both"}, changes, err));
  CHECK_FALSE(s.files.exists("/workspace/gone"));
  CHECK_FALSE(s.files.exists("/workspace/both"));
  // Listed directories keep their parents even when the list leaves them out.
  REQUIRE(s.files.apply({"/workspace/p/q/r"}, {}, {}, changes, err));
  CHECK(s.files.dirs() == Strings{"/workspace/p", "/workspace/p/q", "/workspace/p/q/r"});
}

TEST_CASE("sandbox files: apply at the 16 MiB cap removes before it writes, so a result that fits applies",
          "[sandbox]") {
  Sandbox s;
  for (int i = 0; i < 16; ++i) REQUIRE(s.write("/workspace/f" + std::to_string(i), bytesOf(MiB)) == "ok");
  Changes changes;
  FileError err;
  std::vector<workspace::File> files = {workspace::File{"/workspace/g0", bytesOf(MiB, 'g'), 1},
                                        workspace::File{"/workspace/f1", bytesOf(MiB, 'h'), 1}};
  REQUIRE(s.files.apply({}, files, {"/workspace/f0"}, changes, err));
  CHECK(s.files.totalBytes() == 16 * MiB);
  CHECK(dump(changes) == Strings{"+F /workspace/f1", "+F /workspace/g0", "-/workspace/f0"});
}

TEST_CASE("sandbox files: apply of a result over the limits, or with a bad path, fails with nothing changed",
          "[sandbox]") {
  Sandbox s;
  REQUIRE(s.write("/workspace/x", "file in the way", 5) == "ok");
  REQUIRE(s.mkdir("/workspace/unlisted/sub", true) == "ok");
  REQUIRE(s.write("/workspace/unlisted/sub/u", "u", 6) == "ok");
  REQUIRE(s.write("/workspace/deleted", "d", 7) == "ok");
  for (int i = 0; i < 14; ++i) REQUIRE(s.write("/workspace/f" + std::to_string(i), bytesOf(MiB)) == "ok");
  const Strings before = s.rows();
  const uint32_t entries = s.files.entryCount();
  const uint64_t bytes = s.files.totalBytes();
  const Strings dirs = {"/workspace/x", "/workspace/new/a"};  // x replaces a file; `unlisted` goes
  struct Case {
    std::string expected;
    Strings dirs;
    std::vector<workspace::File> files;
    Strings deleted;
  };
  std::vector<workspace::File> tooMuch;
  for (int i = 0; i < 3; ++i) tooMuch.push_back({"/workspace/new/a/m" + std::to_string(i), bytesOf(MiB), 1});
  Strings manyDirs = dirs;
  for (int i = 0; i < 4100; ++i) manyDirs.push_back("/workspace/many/" + std::to_string(i));
  std::vector<workspace::File> manyFiles;
  for (int i = 0; i < 4100; ++i) manyFiles.push_back({"/workspace/new/a/" + std::to_string(i), "", 1});
  const std::vector<Case> cases = {
      {"ENOSPC Workspace exceeds 16 MiB total", dirs, tooMuch, {"/workspace/deleted"}},
      {"EFBIG File exceeds 1 MiB: /workspace/new/a/big", dirs, {{"/workspace/new/a/big", bytesOf(MiB + 1), 1}}, {}},
      {"ENOSPC Workspace exceeds 4096 entries", manyDirs, {}, {"/workspace/deleted"}},
      {"ENOSPC Workspace exceeds 4096 entries", dirs, manyFiles, {"/workspace/deleted"}},
      {"EACCES Path escapes /workspace: /etc/passwd", dirs, {{"/etc/passwd", "x", 1}}, {}},
      {"EACCES Path escapes /workspace: ../d", {"../d"}, {}, {}},
      {"EACCES Cannot delete the /workspace root", dirs, {}, {"/workspace"}},
      {"EISDIR Cannot write to the /workspace root", dirs, {{"/workspace/", "x", 1}}, {}},
      {"EISDIR Is a directory: /workspace/new/a", dirs, {{"/workspace/new/a", "x", 1}}, {"/workspace/deleted"}},
      {"ENAMETOOLONG Name too long: " + deepPath(300), {deepPath(300)}, {}, {}},
  };
  for (const Case& c : cases) {
    INFO(c.expected);
    Changes changes;
    changes.deletes.push_back("/workspace/sentinel");
    FileError err;
    CHECK_FALSE(s.files.apply(c.dirs, c.files, c.deleted, changes, err));
    CHECK(failure(err) == c.expected);
    CHECK(changes.empty());
    CHECK(s.rows() == before);
    CHECK(s.files.entryCount() == entries);
    CHECK(s.files.totalBytes() == bytes);
  }
  FileError err;
  Changes changes;
  CHECK_FALSE(s.files.apply(dirs, {{"/workspace/new/a/big", bytesOf(MiB + 1), 1}}, {}, changes, err));
  CHECK(err.maxSize == MiB);
  CHECK(err.actualSize == MiB + 1);
  // And the same tree still takes a result that fits.
  REQUIRE(s.files.apply(dirs, {{"/workspace/new/a/m", bytesOf(MiB), 1}}, {"/workspace/deleted"}, changes, err));
  CHECK(s.files.totalBytes() == bytes - 1 - 1 - std::string("file in the way").size() + MiB);
}

TEST_CASE("wasi::Workspace rename and forEachUnder keep entries, bytes and path bytes exact", "[sandbox]") {
  using wasi::Errno;
  wasi::Workspace ws;
  REQUIRE(ws.makeDirectories("a/bb") == Errno::Success);
  REQUIRE(ws.writeFile("a/bb/c", "123", 5) == Errno::Success);
  REQUIRE(ws.writeFile("x", "xx", 6) == Errno::Success);
  CHECK(ws.pathBytes() == 1 + 4 + 6 + 1);
  CHECK(ws.rename("a", "zzz") == Errno::Success);
  CHECK(ws.pathBytes() == 3 + 6 + 8 + 1);
  CHECK(ws.entryCount() == 4);
  CHECK(ws.rename("x", "zzz/bb/c") == Errno::Success);  // replaces a file
  CHECK(ws.entryCount() == 3);
  CHECK(ws.totalBytes() == 2);
  CHECK(ws.pathBytes() == 3 + 6 + 8);
  wasi::Workspace::Entry e;
  REQUIRE(ws.stat("zzz/bb/c", e) == Errno::Success);
  CHECK(e.data == "xx");
  CHECK(e.mtimeNs == 6);  // a move keeps the mtime
  REQUIRE(ws.makeDirectories("empty") == Errno::Success);
  REQUIRE(ws.writeFile("f", "f") == Errno::Success);
  CHECK(ws.rename("missing", "y") == Errno::NoEnt);
  CHECK(ws.rename("f", "nowhere/f") == Errno::NoEnt);
  CHECK(ws.rename("f", "zzz/bb/c/under") == Errno::NotDir);
  CHECK(ws.rename("f", "empty") == Errno::IsDir);
  CHECK(ws.rename("empty", "f") == Errno::NotDir);
  CHECK(ws.rename("empty", "zzz") == Errno::NotEmpty);
  CHECK(ws.rename("zzz", "zzz/bb/inside") == Errno::Inval);
  CHECK(ws.rename("f", "f") == Errno::Success);
  CHECK(ws.rename("zzz", "empty") == Errno::Success);  // replaces an empty directory
  CHECK(ws.entryCount() == 4);
  CHECK(ws.pathBytes() == 5 + 8 + 10 + 1);

  Strings seen;
  auto visit = [&](const wasi::Workspace::Entry& entry) { seen.push_back(entry.path); };
  CHECK(ws.forEachUnder("empty/bb", visit) == Errno::Success);
  CHECK(seen == Strings{"empty/bb", "empty/bb/c"});
  seen.clear();
  CHECK(ws.forEachUnder("f", visit) == Errno::Success);
  CHECK(seen == Strings{"f"});
  seen.clear();
  CHECK(ws.forEachUnder("", visit) == Errno::Success);
  CHECK(seen == Strings{"empty", "empty/bb", "empty/bb/c", "f"});
  CHECK(ws.forEachUnder("missing", visit) == Errno::NoEnt);
  CHECK(ws.forEachUnder("f/under", visit) == Errno::NotDir);
}

TEST_CASE("sandbox files: entryCount and totalBytes always match the rows", "[sandbox]") {
  Sandbox s;
  auto exact = [&] {
    uint32_t entries = 0;
    uint64_t bytes = 0;
    for (const Row& r : s.files.rows()) {
      ++entries;
      bytes += r.data.size();
    }
    CHECK(s.files.entryCount() == entries);
    CHECK(s.files.totalBytes() == bytes);
  };
  REQUIRE(s.mkdir("/workspace/a/b", true) == "ok");
  REQUIRE(s.write("/workspace/a/b/f", "12345") == "ok");
  REQUIRE(s.write("/workspace/g", "12") == "ok");
  exact();
  REQUIRE(s.rename("/workspace/g", "/workspace/a/b/f") == "ok");
  exact();
  REQUIRE(s.rename("/workspace/a", "/workspace/c") == "ok");
  exact();
  Changes changes;
  FileError err;
  REQUIRE(s.files.apply({"/workspace/c/b", "/workspace/n"}, {{"/workspace/n/x", "xyz", 1}}, {"/workspace/c/b/f"},
                        changes, err));
  exact();
  CHECK_FALSE(s.files.apply({}, {{"/workspace/big", bytesOf(MiB + 1), 1}}, {}, changes, err));
  exact();
  REQUIRE(s.remove("/workspace/c", true) == "ok");
  exact();
  CHECK(s.files.entryCount() == 2);
  CHECK(s.files.totalBytes() == 3);
  s.files.clear();
  CHECK(s.files.entryCount() == 0);
  CHECK(s.files.manifest().empty());
}
