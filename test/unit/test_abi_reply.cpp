// The reply buffer of abi.def (sw_reply_head, sw_reply_field) and its one decoder (cpp/abi/reply.h). The buffers
// here are written at the offsets abi.def declares, as worker-shim/js_sessions.js writes them from the generated
// abi.mjs; malformed ones are what a shim with another idea of the layout would hand over (issue 23 item 5).
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "abi/reply.h"

using sw::abi::decodeReply;

namespace {

struct Buffer {
  std::vector<uint8_t> bytes;
  void u32(std::size_t at, uint32_t v) { std::memcpy(bytes.data() + at, &v, 4); }
};

// A reply as the shim writes it.
Buffer encode(uint32_t status, const std::vector<std::string>& fields) {
  std::size_t size = sizeof(sw_reply_head);
  for (const auto& f : fields) size += sizeof(sw_reply_field) + f.size();
  Buffer b{std::vector<uint8_t>(size)};
  b.u32(offsetof(sw_reply_head, bytes), uint32_t(size));
  b.u32(offsetof(sw_reply_head, status), status);
  b.u32(offsetof(sw_reply_head, count), uint32_t(fields.size()));
  std::size_t at = sizeof(sw_reply_head);
  for (const auto& f : fields) {
    b.u32(at + offsetof(sw_reply_field, len), uint32_t(f.size()));
    std::memcpy(b.bytes.data() + at + sizeof(sw_reply_field), f.data(), f.size());
    at += sizeof(sw_reply_field) + f.size();
  }
  return b;
}

// The decoder on an exact-size heap copy, so ASan sees any read past the buffer's end.
sw::abi::Reply decodeExact(const Buffer& b) {
  std::unique_ptr<uint8_t[]> exact(new uint8_t[b.bytes.size()]);
  std::memcpy(exact.get(), b.bytes.data(), b.bytes.size());
  return decodeReply(exact.get());
}

}  // namespace

TEST_CASE("abi reply: the layout abi.def declares decodes field for field") {
  STATIC_REQUIRE(sizeof(sw_reply_head) == 12);
  STATIC_REQUIRE(sizeof(sw_reply_field) == 4);
  auto r = decodeExact(encode(sw::abi::SESSION_OK, {"{\"results\":[]}", "/workspace/sub", ""}));
  CHECK(r.status == sw::abi::SESSION_OK);
  REQUIRE(r.fields.size() == 3);
  CHECK(r.fields[0] == "{\"results\":[]}");
  CHECK(r.fields[1] == "/workspace/sub");
  CHECK(r.fields[2].empty());
  CHECK(r.field(7).empty());

  auto none = decodeExact(encode(sw::abi::SESSION_PROMISE, {}));
  CHECK(none.status == sw::abi::SESSION_PROMISE);
  CHECK(none.fields.empty());
}

TEST_CASE("abi reply: a buffer that does not add up is a failed reply, never a read beyond it") {
  const std::string message = "malformed reply buffer";
  SECTION("a field length past the declared size") {
    Buffer b = encode(sw::abi::SESSION_OK, {"abc"});
    b.u32(sizeof(sw_reply_head) + offsetof(sw_reply_field, len), 0x7fffffff);
    auto r = decodeExact(b);
    CHECK(r.status == sw::abi::SESSION_FAILED);
    REQUIRE(r.fields.size() == 1);
    CHECK(r.fields[0].rfind(message, 0) == 0);
  }
  SECTION("more fields counted than the buffer holds") {
    Buffer b = encode(sw::abi::SESSION_OK, {"abc"});
    b.u32(offsetof(sw_reply_head, count), 2);
    auto r = decodeExact(b);
    CHECK(r.status == sw::abi::SESSION_FAILED);
    CHECK(r.field(0).rfind(message, 0) == 0);
  }
  SECTION("the layout before the head declared its size (u32 status, u32 count, fields)") {
    // What a shim writing the old hand-copied layout would hand over: status where the size is.
    Buffer b{std::vector<uint8_t>(8 + 4 + 3)};
    b.u32(0, sw::abi::SESSION_OK);
    b.u32(4, 1);
    b.u32(8, 3);
    std::memcpy(b.bytes.data() + 12, "abc", 3);
    auto r = decodeExact(b);
    CHECK(r.status == sw::abi::SESSION_FAILED);
    CHECK(r.field(0).rfind(message, 0) == 0);
  }
  SECTION("bytes after the last field") {
    Buffer b = encode(sw::abi::SESSION_OK, {"abc"});
    b.u32(offsetof(sw_reply_head, count), 0);
    auto r = decodeExact(b);
    CHECK(r.status == sw::abi::SESSION_FAILED);
    CHECK(r.field(0).rfind(message, 0) == 0);
  }
}

TEST_CASE("abi reply: no buffer (the shim could not allocate one) is a failed reply with the caller's message") {
  auto r = sw::abi::takeReply(0, "the engine's answer could not be copied into the core");
  CHECK(r.status == sw::abi::SESSION_FAILED);
  CHECK(r.fields == std::vector<std::string>{"the engine's answer could not be copied into the core"});
}
