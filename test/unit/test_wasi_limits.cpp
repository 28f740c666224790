// cpp/wasi: stdio capture limits (protocol §3.3), the fuel meter (protocol §5.5), clocks, random, args, environ, exit.
#include "test_wasi_support.h"

using namespace sw::wasi;
using namespace sw::wasi::testing;

TEST_CASE("wasi stdio: chunks, lines and the 200-chunk limit") {
  StdioCapture c;
  CHECK(c.capture(1, "a\nb"));
  CHECK(c.capture(2, "err\n"));
  CHECK(c.capture(1, "c\n"));
  CHECK(c.capture(1, ""));  // empty chunks are ignored
  CHECK(c.chunkCount() == 3);
  CHECK(c.lines(1) == std::vector<std::string>{"a", "bc"});
  CHECK(c.lines(2) == std::vector<std::string>{"err"});
  StdioCapture d;
  for (int i = 0; i < 200; ++i) REQUIRE(d.capture(i % 2 ? 1 : 2, "x"));
  CHECK_FALSE(d.capture(1, "y"));
  CHECK(d.capture(1, ""));
  StdioCapture e;
  CHECK(e.capture(1, "\n\n"));
  CHECK(e.lines(1) == std::vector<std::string>{"", ""});
}

TEST_CASE("wasi stdio: 32768 bytes across both streams") {
  StdioCapture c;
  CHECK(c.capture(1, std::string(16384, 'a')));
  CHECK(c.capture(2, std::string(16384, 'b')));
  CHECK_FALSE(c.capture(1, "!"));
  CHECK(c.totalBytes() == 32769);
}

TEST_CASE("wasi stdio: fd_write over the limit traps with 'Output limit exceeded'") {
  Guest g;
  REQUIRE(g.write(1, std::string(32768, 'x')) == Errno::Success);
  CHECK(g.write(2, "y") == Errno::Trap);
  CHECK(g.host->trap().kind == TrapKind::OutputLimit);
  CHECK(g.host->trap().message == "Output limit exceeded");
  CHECK(g.host->trap().isLimit());
  CHECK(g.host->stdio().text(1).size() == 32768);
}

TEST_CASE("wasi stdio: passthrough hands every write to the sink, unlimited") {
  std::string seen;
  HostOptions o;
  o.stdio = StdioMode::Passthrough;
  o.stdioSink = [&](uint32_t fd, std::string_view b) { seen += std::to_string(fd) + ":" + std::string(b) + ";"; };
  Guest g(std::move(o));
  for (int i = 0; i < 300; ++i) REQUIRE(g.write(1 + i % 2, "z") == Errno::Success);
  CHECK(seen.substr(0, 12) == "1:z;2:z;1:z;");
  CHECK(g.host->stdio().chunkCount() == 0);
}

TEST_CASE("wasi fuel: ticks charge the budget; exhaustion traps") {
  Guest g;
  CHECK(tick(*g.host) == Errno::Success);  // unmetered by default
  CHECK_FALSE(g.host->fuel().metered());
  g.host->fuel().reset(3);
  for (int i = 0; i < 3; ++i) REQUIRE(tick(*g.host) == Errno::Success);
  CHECK(g.host->fuel().consumed() == 3);
  CHECK(tick(*g.host) == Errno::Trap);
  CHECK(g.host->trap().kind == TrapKind::Fuel);
  CHECK(g.host->trap().message == "Execution fuel exhausted");
  CHECK(g.host->fuel().exhausted());
  CHECK(g.host->fuel().consumed() == 3);  // capped at the budget
  g.host->clearTrap();
  g.host->fuel().reset(0);
  CHECK(tick(*g.host) == Errno::Trap);
}

TEST_CASE("wasi: args, environ, clocks, random, exit") {
  HostOptions o;
  o.args = {"sandbox", "x y"};
  o.env = {"A=1", "EMPTY="};
  uint8_t counter = 0;
  o.random = [&](uint8_t* b, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) b[i] = counter++;
    return true;
  };
  Guest g(std::move(o));
  uint32_t cnt = g.alloc(4), size = g.alloc(4);
  REQUIRE(args_sizes_get(*g.host, cnt, size) == Errno::Success);
  CHECK(g.u32(cnt) == 2);
  CHECK(g.u32(size) == 12);
  uint32_t argv = g.alloc(8), buf = g.alloc(12);
  REQUIRE(args_get(*g.host, argv, buf) == Errno::Success);
  CHECK(g.str(g.u32(argv + 4), 3) == "x y");
  REQUIRE(environ_sizes_get(*g.host, cnt, size) == Errno::Success);
  CHECK(g.u32(cnt) == 2);
  CHECK(g.u32(size) == 11);
  uint32_t envp = g.alloc(8), ebuf = g.alloc(11);
  REQUIRE(environ_get(*g.host, envp, ebuf) == Errno::Success);
  CHECK(g.str(g.u32(envp), 3) == "A=1");

  uint32_t t = g.alloc(8);
  REQUIRE(clock_time_get(*g.host, 0, 1, t) == Errno::Success);
  CHECK(g.u64(t) == g.clock->realtime);
  REQUIRE(clock_time_get(*g.host, 1, 1, t) == Errno::Success);
  CHECK(g.u64(t) == 42);
  CHECK(clock_time_get(*g.host, 9, 1, t) == Errno::Inval);
  REQUIRE(clock_res_get(*g.host, 1, t) == Errno::Success);
  CHECK(g.u64(t) == 1000);

  uint32_t r = g.alloc(70000);
  REQUIRE(random_get(*g.host, r, 70000) == Errno::Success);
  CHECK(g.memory.bytes()[r + 1] == 1);
  CHECK(g.memory.bytes()[r + 65537] == 1);

  CHECK(proc_exit(*g.host, 3) == Errno::Trap);
  CHECK(g.host->trap().kind == TrapKind::Exit);
  CHECK(g.host->trap().exitCode == 3);
  CHECK(sched_yield(*g.host) == Errno::Success);
}

TEST_CASE("wasi: the system random source produces bytes") {
  Guest g;
  uint32_t r = g.alloc(64);
  REQUIRE(random_get(*g.host, r, 64) == Errno::Success);
  int nonzero = 0;
  for (int i = 0; i < 64; ++i) nonzero += g.memory.bytes()[r + i] != 0;
  CHECK(nonzero > 32);
}

TEST_CASE("wasi stdio: a write over the limit is refused before it is copied") {
  Guest g;
  // One iovec of 4 MiB: refused by size, the capture stays empty.
  uint32_t iov = g.alloc(8);
  detail::put32(g.memory.bytes().data() + iov, 0);
  detail::put32(g.memory.bytes().data() + iov + 4, 4 << 20);
  CHECK(fd_write(*g.host, 1, iov, 1, g.alloc(4)) == Errno::Trap);
  CHECK(g.host->trap().message == "Output limit exceeded");
  CHECK(g.host->stdio().chunkCount() == 0);
}

TEST_CASE("wasi stdio: passthrough streams large writes in pieces") {
  std::size_t pieces = 0, bytes = 0;
  HostOptions o;
  o.stdio = StdioMode::Passthrough;
  o.stdioSink = [&](uint32_t, std::string_view b) {
    ++pieces;
    bytes += b.size();
  };
  Guest g(std::move(o));
  uint32_t iov = g.alloc(8), n = g.alloc(4);
  detail::put32(g.memory.bytes().data() + iov, 0);
  detail::put32(g.memory.bytes().data() + iov + 4, 200000);
  REQUIRE(fd_write(*g.host, 2, iov, 1, n) == Errno::Success);
  CHECK(g.u32(n) == 200000);
  CHECK(bytes == 200000);
  CHECK(pieces == 4);
}

TEST_CASE("wasi fuel: interrupt mode signals once, the backstop traps (protocol §5.5)") {
  Guest g;
  uint32_t flag = g.alloc(4), bits = g.alloc(4);
  detail::put32(g.memory.bytes().data() + bits, 0x10);
  g.host->fuel().setInterrupt(FuelInterrupt{flag, bits, 0x3});
  resetFuel(*g.host, 16);
  for (int i = 0; i < 16; ++i) REQUIRE(tick(*g.host) == Errno::Success);
  CHECK(g.u32(flag) == 0);
  CHECK_FALSE(g.host->fuel().interrupted());
  REQUIRE(tick(*g.host) == Errno::Success);  // past zero: interrupt words written, execution continues
  CHECK(g.host->fuel().interrupted());
  CHECK(g.u32(flag) == 1);
  CHECK(g.u32(bits) == 0x13);
  REQUIRE(charge(*g.host, (1 << 20) - 1) == Errno::Success);  // -2^20: a small budget's backstop, its last unit
  CHECK(g.host->trap().kind == TrapKind::None);
  CHECK(tick(*g.host) == Errno::Trap);  // past the backstop
  CHECK(g.host->trap().message == "Execution fuel exhausted");
  CHECK(g.host->fuel().consumed() == 16);
  // reset clears the interrupt words.
  g.host->clearTrap();
  resetFuel(*g.host, 16);
  CHECK(g.u32(flag) == 0);
  CHECK(g.u32(bits) == 0x10);
  CHECK_FALSE(g.host->fuel().interrupted());
}
