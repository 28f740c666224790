// cpp/workspace: hashBytes / SHA-256, path normalization, and the Interpreter's mirror (protocol §2.8, §2.9, §7.11).
#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "test_wasi_support.h"
#include "workspace/workspace.h"

using namespace sw;
using sw::workspace::Error;
using sw::workspace::File;
using sw::workspace::Mirror;
using Manifest = std::vector<std::pair<std::string, std::string>>;
using Strings = std::vector<std::string>;

namespace {

std::string pattern(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = char((i * 31 + 7) & 0xff);
  return s;
}

// Expected totals of a tree, counted from scratch.
void usage(const wasi::Workspace& ws, uint32_t& entries, uint64_t& bytes) {
  entries = 0;
  bytes = 0;
  ws.forEach([&](const wasi::Workspace::Entry& e) {
    ++entries;
    bytes += e.data.size();
  });
}

void requireAccountingExact(const wasi::Workspace& ws) {
  uint32_t entries;
  uint64_t bytes;
  usage(ws, entries, bytes);
  REQUIRE(ws.entryCount() == entries);
  REQUIRE(ws.totalBytes() == bytes);
}

std::string read(Mirror& m, const std::string& rel) {
  std::string out;
  REQUIRE(m.workspace()->readFile(rel, out) == wasi::Errno::Success);
  return out;
}

bool exists(Mirror& m, const std::string& rel) {
  wasi::Workspace::Entry e;
  return m.workspace()->stat(rel, e) == wasi::Errno::Success;
}

// One reconcile that must succeed; returns `missing`.
Strings reconcile(Mirror& m, const Strings& dirs, const Manifest& manifest, std::vector<File> files = {}) {
  Strings missing;
  Error err;
  bool ok = m.reconcile(dirs, manifest, std::move(files), missing, err);
  INFO(err.errnoName << " " << err.message);
  REQUIRE(ok);
  return missing;
}

// The full execute-time flow: pass 1, then pass 2 with the missing files taken from `source`.
void sync(Mirror& m, const Strings& dirs, const std::vector<File>& source, bool sha = false) {
  Manifest manifest;
  for (const File& f : source) {
    manifest.emplace_back(f.path, sha ? "sha256:" + workspace::sha256Hex(f.data) : workspace::hashBytes(f.data));
  }
  Strings missing = reconcile(m, dirs, manifest);
  if (missing.empty()) return;
  std::vector<File> pulled;
  for (const File& f : source) {
    if (std::find(missing.begin(), missing.end(), f.path) != missing.end()) pulled.push_back(f);
  }
  REQUIRE(reconcile(m, dirs, manifest, pulled).empty());
}

}  // namespace

// --- the wasi::Workspace maintenance calls the mirror is built on ------------------------------------------------

TEST_CASE("workspace: wasi::Workspace stat, remove, clear, forceDirectories, restoreFile keep the accounting",
          "[workspace]") {
  wasi::Workspace ws(wasi::WorkspaceLimits{8, 20, 3});
  REQUIRE(ws.writeFile("d/f", "12345678", 7) == wasi::Errno::Success);
  wasi::Workspace::Entry e;
  REQUIRE(ws.stat("d/f", e) == wasi::Errno::Success);
  CHECK(e.path == "d/f");
  CHECK_FALSE(e.directory);
  CHECK(e.data == "12345678");
  CHECK(e.mtimeNs == 7);
  REQUIRE(ws.stat("d", e) == wasi::Errno::Success);
  CHECK(e.directory);
  CHECK(ws.stat("nope", e) == wasi::Errno::NoEnt);
  CHECK(ws.stat("d/f/x", e) == wasi::Errno::NotDir);
  CHECK(ws.stat("../x", e) == wasi::Errno::Inval);

  // writeFile: a new file over the total is refused before it is linked (not left behind empty).
  REQUIRE(ws.writeFile("g", "12345678") == wasi::Errno::Success);
  CHECK(ws.writeFile("h", "12345") == wasi::Errno::NoSpc);
  CHECK(ws.stat("h", e) == wasi::Errno::NoEnt);
  CHECK(ws.entryCount() == 3);

  // forceDirectories: no entry cap; a file in the way becomes a directory.
  REQUIRE(ws.forceDirectories("g/x/y") == wasi::Errno::Success);
  CHECK(ws.entryCount() == 5);
  CHECK(ws.totalBytes() == 8);
  requireAccountingExact(ws);

  // restoreFile: no limits, in place, parents must exist.
  REQUIRE(ws.restoreFile("d/f", std::string(30, 'r'), 9) == wasi::Errno::Success);
  CHECK(ws.totalBytes() == 30);
  REQUIRE(ws.restoreFile("g/x/new", "n", 1) == wasi::Errno::Success);
  CHECK(ws.restoreFile("missing/new", "n", 1) == wasi::Errno::NoEnt);
  CHECK(ws.restoreFile("g/x", "n", 1) == wasi::Errno::IsDir);
  CHECK(ws.entryCount() == 6);
  requireAccountingExact(ws);

  // remove: a file, or a whole subtree.
  CHECK(ws.remove("g") == wasi::Errno::Success);
  CHECK(ws.entryCount() == 2);
  CHECK(ws.totalBytes() == 30);
  CHECK(ws.remove("g") == wasi::Errno::NoEnt);
  requireAccountingExact(ws);

  const auto* root = ws.root().get();
  ws.clear();
  CHECK(ws.root().get() == root);
  CHECK(ws.entryCount() == 0);
  CHECK(ws.totalBytes() == 0);
  CHECK(ws.stat("d", e) == wasi::Errno::NoEnt);
}

// --- hashes ---------------------------------------------------------------------------------------------------------

TEST_CASE("workspace hashBytes matches the JavaScript reference bit for bit", "[workspace]") {
  // Values from test/unit/test_workspace_hash_reference.mjs (protocol §7.11 written in JavaScript, run with node).
  std::string bytes256;
  for (int i = 0; i < 256; ++i) bytes256.push_back(char(i));
  CHECK(workspace::hashBytes("") == "811c9dc501000193");
  CHECK(workspace::hashBytes("a") == "e40c292c759b8e91");
  CHECK(workspace::hashBytes("hello world") == "d58b3fa7acdacbb4");
  CHECK(workspace::hashBytes(bytes256) == "90a458c52eca4e13");
  CHECK(workspace::hashBytes(pattern(1048576)) == "c2dc9dc517180193");
  CHECK(workspace::hashBytes("h\xc3\xa9llo \xe2\x9c\x93") == "b4ab03a7ca7f787b");
}

TEST_CASE("workspace sha256Hex: FIPS 180-4 vectors and block boundaries", "[workspace]") {
  CHECK(workspace::sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(workspace::sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(workspace::sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(workspace::sha256Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlm"
                             "nopqrsmnopqrstnopqrstu") ==
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  CHECK(workspace::sha256Hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // Padding edges (node:crypto values): the length field fits the last block, or needs one more.
  const std::pair<int, const char*> edges[] = {
      {55, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"},
      {56, "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"},
      {63, "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2"},
      {64, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c"},
      {65, "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9"},
      {119, "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c"},
      {120, "13f05a0b594787f5ecd315edc96141bd3243203d1b7d4f0836f37308b276ba98"},
      {128, "24da1b81d0b16df6428eee73c69fcb2a93c76bc6df706f0c6670fe6bfe800464"},
  };
  for (const auto& [n, hex] : edges) {
    INFO(n);
    CHECK(workspace::sha256Hex(std::string(std::size_t(n), 'x')) == hex);
  }
  CHECK(workspace::sha256Hex(pattern(1048576)) == "06b7bbfb7824aa03382051691630eb26de85102d1b08a81e907ec0744cd8a286");
}

TEST_CASE("workspace hashLike answers in the form of the manifest entry", "[workspace]") {
  CHECK(workspace::hashLike("e40c292c759b8e91", "a") == "e40c292c759b8e91");
  CHECK(workspace::hashLike("", "a") == "e40c292c759b8e91");
  CHECK(workspace::hashLike("sha256:whatever", "a") ==
        "sha256:ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb");
  CHECK(workspace::hashLike("SHA256:x", "a") == "e40c292c759b8e91");  // the prefix is lower-case only
}

// --- paths ----------------------------------------------------------------------------------------------------------

TEST_CASE("workspace normalizePath (protocol §7.11)", "[workspace]") {
  std::string out;
  Error err;
  auto ok = [&](std::string_view cwd, std::string_view path) {
    err = {};
    REQUIRE(workspace::normalizePath(cwd, path, out, err));
    return out;
  };
  auto fails = [&](std::string_view cwd, std::string_view path) {
    out = "untouched";
    REQUIRE_FALSE(workspace::normalizePath(cwd, path, out, err));
    return err.errnoName + " " + err.message;
  };
  CHECK(ok("/workspace/sub", "file.txt") == "/workspace/sub/file.txt");  // protocol §10.8 item 171
  CHECK(ok("/workspace", "/workspace") == "/workspace");
  CHECK(ok("/workspace", "/workspace/") == "/workspace");
  CHECK(ok("/workspace", ".") == "/workspace");
  CHECK(ok("/workspace", "//workspace/./a//b/") == "/workspace/a/b");
  CHECK(ok("/workspace/a/b", "../c") == "/workspace/a/c");
  CHECK(ok("/workspace", "/workspace/../workspace/x") == "/workspace/x");
  CHECK(ok("/workspace", "/x/../workspace/y") == "/workspace/y");
  CHECK(ok("/workspace/a", "/workspace/b") == "/workspace/b");  // absolute ignores cwd
  CHECK(fails("/workspace", "") == "ENOENT Path is required");
  CHECK(out == "untouched");
  CHECK(fails("/workspace", "/etc") == "EACCES Path escapes /workspace: /etc");
  CHECK(fails("/workspace", "/") == "EACCES Path escapes /workspace: /");
  CHECK(fails("/workspace", "..") == "EACCES Path escapes /workspace: ..");
  CHECK(fails("/workspace", "/../workspace") == "EACCES Path escapes /workspace: /../workspace");  // popping above /
  CHECK(fails("/workspace", "/workspaces/a") == "EACCES Path escapes /workspace: /workspaces/a");
  CHECK(fails("/workspace/a", "../../etc/passwd") == "EACCES Path escapes /workspace: ../../etc/passwd");
}

TEST_CASE("workspace updatedAt <-> mtime", "[workspace]") {
  CHECK(workspace::mtimeFromUpdatedAt(1700000000123.0) == 1700000000123000000ull);
  CHECK(workspace::updatedAtFromMtime(1700000000123000000ull) == 1700000000123.0);
  CHECK(workspace::updatedAtFromMtime(1700000000123999999ull) == 1700000000123.0);
  CHECK(workspace::mtimeFromUpdatedAt(1.5) == 1500000);
  CHECK(workspace::mtimeFromUpdatedAt(0) == 0);
  CHECK(workspace::mtimeFromUpdatedAt(-5) == 0);
  CHECK(workspace::mtimeFromUpdatedAt(std::nan("")) == 0);
  CHECK(workspace::mtimeFromUpdatedAt(1e300) == UINT64_MAX);
}

// --- reconciliation -------------------------------------------------------------------------------------------------

TEST_CASE("workspace reconcile: an empty mirror asks for every file, then holds them (protocol §10.4 items 86-88)",
          "[workspace]") {
  Mirror m;
  std::vector<File> source = {{"/workspace/b.txt", "bee", 1700000000002.0},
                              {"/workspace/a.txt", "ay", 1700000000001.0},
                              {"/workspace/d/e/deep.bin", std::string("\0\1\2", 3), 5.0}};
  Manifest manifest;
  for (const File& f : source) manifest.emplace_back(f.path, workspace::hashBytes(f.data));
  Strings dirs = {"/workspace/d", "/workspace/d/e", "/workspace/empty"};

  Strings missing = reconcile(m, dirs, manifest);
  CHECK(missing == Strings{"/workspace/a.txt", "/workspace/b.txt", "/workspace/d/e/deep.bin"});
  CHECK(m.dirs() == Strings{"/workspace/d", "/workspace/d/e", "/workspace/empty"});
  CHECK(reconcile(m, dirs, manifest, source).empty());
  CHECK(read(m, "a.txt") == "ay");
  CHECK(read(m, "d/e/deep.bin") == std::string("\0\1\2", 3));
  wasi::Workspace::Entry e;
  REQUIRE(m.workspace()->stat("b.txt", e) == wasi::Errno::Success);
  CHECK(e.mtimeNs == 1700000000002000000ull);  // updatedAt kept
  requireAccountingExact(*m.workspace());

  // Nothing changed: nothing missing, nothing hashed again.
  uint64_t hashed = m.hashedBytes();
  CHECK(reconcile(m, dirs, manifest).empty());
  CHECK(m.hashedBytes() == hashed);

  // A new file on the sandbox side: only that one is asked for.
  manifest.emplace_back("/workspace/c.txt", workspace::hashBytes("sea"));
  CHECK(reconcile(m, dirs, manifest) == Strings{"/workspace/c.txt"});
  CHECK(reconcile(m, dirs, manifest, {{"/workspace/c.txt", "sea", 3.0}}).empty());
  // A changed file: only that one.
  manifest[0].second = workspace::hashBytes("BEE");
  CHECK(reconcile(m, dirs, manifest) == Strings{"/workspace/b.txt"});
  CHECK(m.hashedBytes() == hashed + 3);  // c.txt's pulled bytes; b.txt's cached hash answered
}

TEST_CASE("workspace reconcile deletes unlisted files, then unlisted directories deepest first (protocol §10.4 item 91)",
          "[workspace]") {
  Mirror m;
  sync(m, {"/workspace/keep", "/workspace/gone", "/workspace/gone/sub", "/workspace/gone/sub/x"},
       {{"/workspace/keep/k", "k", 1}, {"/workspace/stale.txt", "s", 1}, {"/workspace/gone/sub/f", "f", 1}});
  REQUIRE(m.cachedHashes() == 3);
  Strings missing = reconcile(m, {"/workspace/keep"}, {{"/workspace/keep/k", workspace::hashBytes("k")}});
  CHECK(missing.empty());
  CHECK(m.dirs() == Strings{"/workspace/keep"});
  CHECK_FALSE(exists(m, "stale.txt"));
  CHECK_FALSE(exists(m, "gone"));
  CHECK(m.cachedHashes() == 1);
  requireAccountingExact(*m.workspace());
  CHECK(m.workspace()->entryCount() == 2);
  CHECK(m.workspace()->totalBytes() == 1);

  // A directory not listed goes with its subtree even when the manifest still names a file in it (inconsistent
  // input): the file is then reported missing.
  sync(m, {"/workspace/keep", "/workspace/d"}, {{"/workspace/keep/k", "k", 1}, {"/workspace/d/f", "f", 1}});
  missing = reconcile(m, {"/workspace/keep"},
                      {{"/workspace/keep/k", workspace::hashBytes("k")}, {"/workspace/d/f", workspace::hashBytes("f")}});
  CHECK(missing == Strings{"/workspace/d/f"});
  CHECK_FALSE(exists(m, "d"));
  requireAccountingExact(*m.workspace());

  // Disabled: the caller sends an empty shape and the mirror reconciles to empty.
  m.setDisabled(true);
  CHECK(reconcile(m, {}, {}).empty());
  CHECK(m.workspace()->entryCount() == 0);
  CHECK(m.disabled());
}

TEST_CASE("workspace reconcile: directories replace files in the way and ignore the entry cap", "[workspace]") {
  Mirror m(wasi::WorkspaceLimits{1048576, 16777216, 3});
  sync(m, {}, {{"/workspace/x", "file", 1}});
  REQUIRE(m.cachedHashes() == 1);
  // The sandbox turned x into a directory: step 1 replaces the file, step 3 finds nothing left to delete.
  CHECK(reconcile(m, {"/workspace/x", "/workspace/x/y", "/workspace/x/y/z", "/workspace/w"}, {}).empty());
  CHECK(m.dirs() == Strings{"/workspace/w", "/workspace/x", "/workspace/x/y", "/workspace/x/y/z"});
  CHECK(m.workspace()->entryCount() == 4);  // over the cap of 3: the caller's shape is authoritative
  CHECK(m.workspace()->totalBytes() == 0);
  CHECK(m.cachedHashes() == 0);
  requireAccountingExact(*m.workspace());
  // Intermediate directories are created even when not listed (then step 4 removes them again: not listed).
  Strings missing = reconcile(m, {"/workspace/p/q"}, {});
  CHECK(missing.empty());
  CHECK(m.dirs() == Strings{});
  // The sandbox turned a directory into a file: pass 1 removes the directory, pass 2 writes the file.
  sync(m, {"/workspace/t"}, {});
  sync(m, {}, {{"/workspace/t", "now a file", 9}});
  CHECK(read(m, "t") == "now a file");
  requireAccountingExact(*m.workspace());
}

TEST_CASE("workspace reconcile: paths are normalized; escapes are EACCES before anything changes", "[workspace]") {
  Mirror m;
  sync(m, {"/workspace/d"}, {{"/workspace/d/f", "f", 1}});
  Strings missing;
  Error err;
  auto fails = [&](const Strings& dirs, const Manifest& manifest, std::vector<File> files = {}) {
    err = {};
    REQUIRE_FALSE(m.reconcile(dirs, manifest, std::move(files), missing, err));
    return err.errnoName + " " + err.message;
  };
  CHECK(fails({"/etc"}, {}) == "EACCES Path escapes /workspace: /etc");
  CHECK(fails({}, {{"/workspace/../x", "h"}}) == "EACCES Path escapes /workspace: /workspace/../x");
  CHECK(fails({}, {}, {{"/tmp/x", "x", 1}}) == "EACCES Path escapes /workspace: /tmp/x");
  CHECK(fails({}, {{"", "h"}}) == "ENOENT Path is required");
  CHECK(fails({}, {{"/workspace", "h"}}) == "EISDIR Cannot write to the /workspace root");
  CHECK(fails({}, {}, {{"/workspace/", "x", 1}}) == "EISDIR Cannot write to the /workspace root");
  CHECK(read(m, "d/f") == "f");  // untouched

  // Non-canonical spellings name the same entries; `missing` is canonical and sorted; the root in `dirs` is a no-op.
  missing = reconcile(m, {"/workspace", "/workspace/./d/", "relative"},
                      {{"/workspace//d/f", workspace::hashBytes("f")}, {"new.txt", workspace::hashBytes("n")}});
  CHECK(missing == Strings{"/workspace/new.txt"});
  CHECK(m.dirs() == Strings{"/workspace/d", "/workspace/relative"});
}

TEST_CASE("workspace reconcile: limits of protocol §7.11 on written files", "[workspace]") {
  SECTION("EFBIG over 1 MiB") {
    Mirror m;
    std::string big(1048577, 'x');
    Strings missing;
    Error err;
    CHECK_FALSE(m.reconcile({}, {{"/workspace/big", workspace::hashBytes(big)}}, {{"/workspace/big", big, 1}},
                            missing, err));
    CHECK(err.errnoName == "EFBIG");
    CHECK(err.message == "File exceeds 1 MiB: /workspace/big");
    CHECK(m.workspace()->entryCount() == 0);
  }
  SECTION("ENOSPC over the total") {
    Mirror m(wasi::WorkspaceLimits{1048576, 2 * 1048576, 4096});
    std::string mib(1048576, 'm');
    sync(m, {}, {{"/workspace/1", mib, 1}, {"/workspace/2", mib, 1}});
    Manifest manifest = {{"/workspace/1", workspace::hashBytes(mib)},
                         {"/workspace/2", workspace::hashBytes(mib)},
                         {"/workspace/3", workspace::hashBytes("x")}};
    Strings missing;
    Error err;
    CHECK_FALSE(m.reconcile({}, manifest, {{"/workspace/3", "x", 1}}, missing, err));
    CHECK(err.errnoName == "ENOSPC");
    CHECK(err.message == "Workspace exceeds 2 MiB total");
    CHECK_FALSE(exists(m, "3"));  // a new file that does not fit is not left behind empty
    requireAccountingExact(*m.workspace());
  }
  SECTION("ENOSPC over the entry count") {
    Mirror m(wasi::WorkspaceLimits{1048576, 16777216, 2});
    Strings missing;
    Error err;
    CHECK_FALSE(m.reconcile({}, {}, {{"/workspace/a", "a", 1}, {"/workspace/b", "b", 1}, {"/workspace/c", "c", 1}},
                            missing, err));
    CHECK(err.errnoName == "ENOSPC");
    CHECK(err.message == "Workspace exceeds 2 entries");
  }
  SECTION("16 MiB replaced by 16 MiB of other contents fits: shrinking writes go first") {
    Mirror m(wasi::WorkspaceLimits{1048576, 2 * 1048576, 4096});
    sync(m, {}, {{"/workspace/a", std::string(1048576, 'a'), 1}, {"/workspace/b", std::string(1048575, 'b'), 1}});
    // a shrinks by one byte, b grows by one: written in path order b would overflow first.
    sync(m, {}, {{"/workspace/a", std::string(1048575, 'A'), 2}, {"/workspace/b", std::string(1048576, 'B'), 2}});
    CHECK(m.workspace()->totalBytes() == 2 * 1048576 - 1);
    CHECK(read(m, "b") == std::string(1048576, 'B'));
  }
}

TEST_CASE("workspace reconcile: a failed reconcile leaves the mirror exactly as it was (tree, bytes, cache)",
          "[workspace]") {
  // Found by sw_fuzz_mirror: the directories and the earlier pulled files of a reconcile that then failed on a limit
  // used to stay behind (a file in the way of a directory was gone, a file half the set was rewritten).
  Mirror m(wasi::WorkspaceLimits{8, 1048576, 4096});
  sync(m, {}, {{"/workspace/keep", "old", 5}, {"/workspace/d", "file", 6}});
  auto before = m.checkpoint();
  Manifest manifest = {{"/workspace/keep", workspace::hashBytes("new")},
                       {"/workspace/z", workspace::hashBytes("too long!")}};
  Strings missing;
  Error err;
  // "d" becomes a directory (the file in the way is replaced), "keep" is rewritten, then "z" is over 8 bytes.
  CHECK_FALSE(m.reconcile({"/workspace/d/e"}, manifest, {{"/workspace/keep", "new", 7}, {"/workspace/z", "too long!", 8}},
                          missing, err));
  CHECK(err.errnoName == "EFBIG");
  const uint64_t hashedAfterFailure = m.hashedBytes();
  CHECK(read(m, "keep") == "old");
  CHECK(read(m, "d") == "file");
  CHECK_FALSE(exists(m, "d/e"));
  CHECK_FALSE(exists(m, "z"));
  requireAccountingExact(*m.workspace());
  auto after = m.checkpoint();
  REQUIRE(after.files.size() == before.files.size());
  for (std::size_t i = 0; i < after.files.size(); ++i) {
    CHECK(after.files[i].path == before.files[i].path);
    CHECK(after.files[i].data == before.files[i].data);
    CHECK(after.files[i].mtimeNs == before.files[i].mtimeNs);
  }
  CHECK(after.dirs == before.dirs);
  // The cache still answers for the old bytes: the same manifest as before finds nothing missing, hashing nothing.
  CHECK(reconcile(m, {}, {{"/workspace/keep", workspace::hashBytes("old")}, {"/workspace/d", workspace::hashBytes("file")}})
            .empty());
  CHECK(m.hashedBytes() == hashedAfterFailure);
}

TEST_CASE("workspace reconcile: both hash forms, per entry, cached separately", "[workspace]") {
  Mirror m;
  std::vector<File> source = {{"/workspace/s", "sha me", 1}, {"/workspace/f", "fnv me", 1}};
  Manifest manifest = {{"/workspace/s", "sha256:" + workspace::sha256Hex("sha me")},
                       {"/workspace/f", workspace::hashBytes("fnv me")}};
  CHECK(reconcile(m, {}, manifest).size() == 2);
  CHECK(reconcile(m, {}, manifest, source).empty());
  uint64_t hashed = m.hashedBytes();
  CHECK(reconcile(m, {}, manifest).empty());
  CHECK(m.hashedBytes() == hashed);
  // The other form for the same bytes: computed once, then cached too.
  Manifest swapped = {{"/workspace/s", workspace::hashBytes("sha me")},
                      {"/workspace/f", "sha256:" + workspace::sha256Hex("fnv me")}};
  CHECK(reconcile(m, {}, swapped).empty());
  CHECK(m.hashedBytes() == hashed + 12);
  CHECK(reconcile(m, {}, swapped).empty());
  CHECK(reconcile(m, {}, manifest).empty());
  CHECK(m.hashedBytes() == hashed + 12);
  // An upper-case or otherwise foreign hash never matches: the file is reported missing.
  CHECK(reconcile(m, {}, {{"/workspace/f", "SHA256:" + workspace::sha256Hex("fnv me")}}) == Strings{"/workspace/f"});
}

// --- checkpoint, guest run, diff / rollback -------------------------------------------------------------------------

namespace {

// A guest whose host mounts the mirror's workspace at fd 5 (the fixed layout of protocol §5.4).
struct MountedGuest {
  wasi::testing::Guest guest;
  explicit MountedGuest(Mirror& m) : guest(options(m)) {}
  static wasi::HostOptions options(Mirror& m) {
    wasi::HostOptions o;
    o.workspace = m.workspace();
    return o;
  }
  void write(const std::string& rel, const std::string& data) {
    uint32_t fd = 0;
    REQUIRE(guest.open(wasi::testing::kWorkspaceFd, rel, wasi::testing::kCreat | wasi::testing::kTrunc,
                       wasi::testing::Guest::kWriteRights, fd) == wasi::Errno::Success);
    if (!data.empty()) REQUIRE(guest.write(fd, data) == wasi::Errno::Success);
    REQUIRE(wasi::fd_close(*guest.host, fd) == wasi::Errno::Success);
  }
  std::string read(const std::string& rel) {
    uint32_t fd = 0;
    REQUIRE(guest.open(wasi::testing::kWorkspaceFd, rel, 0, wasi::testing::Guest::kReadRights, fd) ==
            wasi::Errno::Success);
    std::string out;
    REQUIRE(guest.read(fd, out, 1 << 16) == wasi::Errno::Success);
    REQUIRE(wasi::fd_close(*guest.host, fd) == wasi::Errno::Success);
    return out;
  }
};

}  // namespace

TEST_CASE("workspace diff: created, updated and deleted files since the checkpoint (protocol §10.4 item 92)", "[workspace]") {
  Mirror m;
  sync(m, {"/workspace/d"},
       {{"/workspace/same.txt", "same", 10}, {"/workspace/upd.txt", "old", 10}, {"/workspace/del.txt", "bye", 10},
        {"/workspace/d/touched", "t", 10}, {"/workspace/a.txt", "1", 10}});
  Mirror::Checkpoint cp = m.checkpoint();
  CHECK(cp.files.size() == 5);
  CHECK(cp.dirs == Strings{"d"});
  MountedGuest g(m);
  g.guest.clock->realtime = 1700000000123456789ull;
  g.write("out.txt", "new bytes");
  g.write("upd.txt", "NEW");
  g.write("d/touched", "t");  // rewritten with the same bytes: not a change
  REQUIRE(g.guest.unlink(wasi::testing::kWorkspaceFd, "del.txt") == wasi::Errno::Success);
  REQUIRE(g.guest.mkdir(wasi::testing::kWorkspaceFd, "a") == wasi::Errno::Success);
  g.write("a/b", "sorted");  // "a.txt" < "a/b" < "d/..." byte-wise, unlike the tree's pre-order

  Mirror::Diff d = m.diff(cp);
  std::vector<std::string> paths;
  for (const File& f : d.files) paths.push_back(f.path);
  CHECK(paths == Strings{"/workspace/a/b", "/workspace/out.txt", "/workspace/upd.txt"});
  CHECK(d.files[1].data == "new bytes");
  CHECK(d.files[1].updatedAt == 1700000000123.0);
  CHECK(d.files[2].data == "NEW");
  CHECK(d.deleted == Strings{"/workspace/del.txt"});
  // The reported deletion is real: the guest can no longer open the file and the mirror's tree no longer has it.
  uint32_t fd = 0;
  CHECK(g.guest.open(wasi::testing::kWorkspaceFd, "del.txt", 0, wasi::testing::Guest::kReadRights, fd) ==
        wasi::Errno::NoEnt);
  CHECK_FALSE(exists(m, "del.txt"));
  CHECK(m.dirs() == Strings{"/workspace/a", "/workspace/d"});

  // A file turned into a directory is a deletion; a directory turned into a file a creation.
  sync(m, {"/workspace/dir"}, {{"/workspace/f", "f", 1}});
  cp = m.checkpoint();
  REQUIRE(g.guest.unlink(wasi::testing::kWorkspaceFd, "f") == wasi::Errno::Success);
  REQUIRE(g.guest.mkdir(wasi::testing::kWorkspaceFd, "f") == wasi::Errno::Success);
  REQUIRE(g.guest.rmdir(wasi::testing::kWorkspaceFd, "dir") == wasi::Errno::Success);
  g.write("dir", "x");
  d = m.diff(cp);
  REQUIRE(d.files.size() == 1);
  CHECK(d.files[0].path == "/workspace/dir");
  CHECK(d.deleted == Strings{"/workspace/f"});

  // Nothing happened: an empty diff.
  cp = m.checkpoint();
  d = m.diff(cp);
  CHECK(d.files.empty());
  CHECK(d.deleted.empty());
}

TEST_CASE("workspace rollback restores in place, with exact accounting (protocol §10.4 item 93)", "[workspace]") {
  Mirror m;
  sync(m, {"/workspace/d", "/workspace/d/e", "/workspace/kind"},
       {{"/workspace/keep.txt", "keep", 100}, {"/workspace/upd.txt", std::string(5000, 'u'), 200},
        {"/workspace/d/e/del.txt", "del", 300}, {"/workspace/flip", "was a file", 400}});
  const std::shared_ptr<wasi::Workspace> ws = m.workspace();
  const auto* root = ws->root().get();
  uint32_t entries = ws->entryCount();
  uint64_t bytes = ws->totalBytes();
  Mirror::Checkpoint cp = m.checkpoint();

  MountedGuest g(m);
  g.guest.clock->realtime = 999000000000ull;
  g.write("upd.txt", "short");
  g.write("keep.txt", "keep");  // same bytes, new mtime
  g.write("new.txt", std::string(70000, 'n'));
  REQUIRE(g.guest.mkdir(wasi::testing::kWorkspaceFd, "newdir") == wasi::Errno::Success);
  g.write("newdir/inner", "i");
  REQUIRE(g.guest.unlink(wasi::testing::kWorkspaceFd, "d/e/del.txt") == wasi::Errno::Success);
  REQUIRE(g.guest.rmdir(wasi::testing::kWorkspaceFd, "d/e") == wasi::Errno::Success);
  REQUIRE(g.guest.unlink(wasi::testing::kWorkspaceFd, "flip") == wasi::Errno::Success);
  REQUIRE(g.guest.mkdir(wasi::testing::kWorkspaceFd, "flip") == wasi::Errno::Success);
  g.write("flip/child", "c");
  REQUIRE(g.guest.rmdir(wasi::testing::kWorkspaceFd, "kind") == wasi::Errno::Success);
  g.write("kind", "now a file");
  m.setDisabled(true);

  m.rollback(cp);
  CHECK(m.workspace() == ws);
  CHECK(ws->root().get() == root);
  CHECK(ws->entryCount() == entries);
  CHECK(ws->totalBytes() == bytes);
  requireAccountingExact(*ws);
  CHECK(m.disabled());  // untouched
  m.setDisabled(false);
  CHECK(m.dirs() == Strings{"/workspace/d", "/workspace/d/e", "/workspace/kind"});
  CHECK(read(m, "upd.txt") == std::string(5000, 'u'));
  CHECK(read(m, "d/e/del.txt") == "del");
  CHECK(read(m, "flip") == "was a file");
  CHECK_FALSE(exists(m, "new.txt"));
  CHECK_FALSE(exists(m, "newdir"));
  wasi::Workspace::Entry e;
  REQUIRE(ws->stat("keep.txt", e) == wasi::Errno::Success);
  CHECK(e.mtimeNs == 100000000);
  REQUIRE(ws->stat("upd.txt", e) == wasi::Errno::Success);
  CHECK(e.mtimeNs == 200000000);
  // The live mount sees the restored tree through its preopen, and the next diff is empty.
  CHECK(g.read("upd.txt") == std::string(5000, 'u'));
  Mirror::Diff d = m.diff(cp);
  CHECK(d.files.empty());
  CHECK(d.deleted.empty());
  // Rolling back twice is harmless.
  m.rollback(cp);
  requireAccountingExact(*ws);
  CHECK(ws->entryCount() == entries);
}

TEST_CASE("workspace rollback keeps the surviving file nodes (a guest's open descriptor stays valid)",
          "[workspace]") {
  Mirror m;
  sync(m, {}, {{"/workspace/f", "original", 1}});
  Mirror::Checkpoint cp = m.checkpoint();
  MountedGuest g(m);
  uint32_t fd = 0;
  REQUIRE(g.guest.open(wasi::testing::kWorkspaceFd, "f", 0, wasi::testing::Guest::kWriteRights, fd) ==
          wasi::Errno::Success);
  REQUIRE(g.guest.write(fd, "CHANGED!") == wasi::Errno::Success);
  m.rollback(cp);
  REQUIRE(g.guest.seek(fd, 0, 0) == wasi::Errno::Success);
  std::string s;
  REQUIRE(g.guest.read(fd, s) == wasi::Errno::Success);
  CHECK(s == "original");
  CHECK(wasi::fd_close(*g.guest.host, fd) == wasi::Errno::Success);
}

TEST_CASE("workspace removal detaches subtrees: a held descriptor cannot grow the accounting", "[workspace]") {
  Mirror m;
  sync(m, {"/workspace/d"}, {{"/workspace/d/f", "x", 1}});
  MountedGuest g(m);
  uint32_t fd = 0;
  REQUIRE(g.guest.open(wasi::testing::kWorkspaceFd, "d/f", 0, wasi::testing::Guest::kWriteRights, fd) ==
          wasi::Errno::Success);
  // `d` is not listed: step 4 removes it with its subtree (the manifest naming d/f makes it missing again).
  CHECK(reconcile(m, {}, {{"/workspace/d/f", workspace::hashBytes("x")}}) == Strings{"/workspace/d/f"});
  CHECK(m.workspace()->entryCount() == 0);
  REQUIRE(g.guest.write(fd, std::string(1000, 'y')) == wasi::Errno::Success);  // writes into the unlinked file
  CHECK(m.workspace()->totalBytes() == 0);
  requireAccountingExact(*m.workspace());
  CHECK(wasi::fd_close(*g.guest.host, fd) == wasi::Errno::Success);
}

TEST_CASE("workspace hash cache never answers for bytes a file no longer has", "[workspace]") {
  Mirror m;
  const std::string v1 = "version one", v2 = "version two";
  const Manifest m1 = {{"/workspace/f", workspace::hashBytes(v1)}}, m2 = {{"/workspace/f", workspace::hashBytes(v2)}};
  sync(m, {}, {{"/workspace/f", v1, 1}});

  SECTION("guest writes, then diff: the next manifest is checked against the new bytes") {
    Mirror::Checkpoint cp = m.checkpoint();
    MountedGuest g(m);
    g.write("f", v2);  // same length: only the bytes differ
    Mirror::Diff d = m.diff(cp);
    REQUIRE(d.files.size() == 1);
    CHECK(m.cachedHashes() == 0);
    CHECK(reconcile(m, {}, m2).empty());  // the caller applied the diff: nothing to pull
    CHECK(reconcile(m, {}, m1) == Strings{"/workspace/f"});
  }
  SECTION("guest writes, then rollback: the old hash holds again, the new one does not") {
    Mirror::Checkpoint cp = m.checkpoint();
    MountedGuest g(m);
    g.write("f", v2);
    m.rollback(cp);
    uint64_t hashed = m.hashedBytes();
    CHECK(reconcile(m, {}, m1).empty());
    CHECK(m.hashedBytes() == hashed);  // answered from the restored cache
    CHECK(reconcile(m, {}, m2) == Strings{"/workspace/f"});
  }
  SECTION("a reconcile between checkpoint and rollback: rollback brings back the checkpoint's hashes") {
    Mirror::Checkpoint cp = m.checkpoint();
    CHECK(reconcile(m, {}, m2, {{"/workspace/f", v2, 2}}).empty());
    m.rollback(cp);
    CHECK(read(m, "f") == v1);
    CHECK(reconcile(m, {}, m2) == Strings{"/workspace/f"});
    CHECK(reconcile(m, {}, m1).empty());
  }
  SECTION("the guest deletes and recreates the file with other bytes; diff forgets it") {
    Mirror::Checkpoint cp = m.checkpoint();
    MountedGuest g(m);
    REQUIRE(g.guest.unlink(wasi::testing::kWorkspaceFd, "f") == wasi::Errno::Success);
    g.write("f", v2);
    m.diff(cp);
    CHECK(reconcile(m, {}, m1) == Strings{"/workspace/f"});
  }
  SECTION("a file replaced by a directory and back: no stale hash survives") {
    CHECK(reconcile(m, {"/workspace/f"}, {}).empty());
    CHECK(m.cachedHashes() == 0);
    CHECK(reconcile(m, {}, m1) == Strings{"/workspace/f"});
  }
}

TEST_CASE("workspace checkpoint, diff and rollback of an empty workspace do no work", "[workspace]") {
  Mirror m;
  Mirror::Checkpoint cp = m.checkpoint();
  CHECK(cp.files.empty());
  CHECK(cp.dirs.empty());
  CHECK(m.diff(cp).files.empty());
  MountedGuest g(m);
  g.write("x", "y");
  m.rollback(cp);
  CHECK(m.workspace()->entryCount() == 0);
  CHECK(m.workspace()->totalBytes() == 0);
}

TEST_CASE("workspace clear empties the tree in place and resets the flag and the cache", "[workspace]") {
  Mirror m;
  sync(m, {"/workspace/d"}, {{"/workspace/d/f", "f", 1}});
  const auto* root = m.workspace()->root().get();
  m.setDisabled(true);
  m.clear();
  CHECK(m.workspace()->root().get() == root);
  CHECK(m.workspace()->entryCount() == 0);
  CHECK(m.workspace()->totalBytes() == 0);
  CHECK_FALSE(m.disabled());
  CHECK(m.cachedHashes() == 0);
  CHECK(m.dirs().empty());
  CHECK(reconcile(m, {}, {{"/workspace/d/f", workspace::hashBytes("f")}}) == Strings{"/workspace/d/f"});
}

TEST_CASE("workspace mirror at the 16 MiB cap: one round of each operation", "[workspace]") {
  Mirror m;
  std::vector<File> source;
  for (int i = 0; i < 16; ++i) {
    std::string data = pattern(1048576);
    data[0] = char(i);
    source.push_back({"/workspace/big/" + std::to_string(100 + i), std::move(data), 1700000000000.0 + i});
  }
  sync(m, {"/workspace/big"}, source);
  CHECK(m.workspace()->totalBytes() == 16u * 1048576);
  uint64_t hashed = m.hashedBytes();
  CHECK(hashed == 16u * 1048576);  // each pulled file hashed once
  sync(m, {"/workspace/big"}, source);
  CHECK(m.hashedBytes() == hashed);  // and never again while unchanged

  Mirror::Checkpoint cp = m.checkpoint();
  MountedGuest g(m);
  REQUIRE(g.guest.unlink(wasi::testing::kWorkspaceFd, "big/100") == wasi::Errno::Success);
  g.write("big/101", "tiny");
  g.write("big/new", std::string(1048576, 'z'));
  m.rollback(cp);
  CHECK(m.workspace()->totalBytes() == 16u * 1048576);
  CHECK(m.workspace()->entryCount() == 17);
  requireAccountingExact(*m.workspace());
  sync(m, {"/workspace/big"}, source);
  CHECK(m.hashedBytes() == hashed);
}
