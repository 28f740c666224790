// cpp/abi: the contract between the core and the JavaScript around it, as C++. Every value and struct comes from the
// one table, abi.def; the shim's side (worker-shim/generated/abi.mjs) is generated from the same table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sw::abi {
#define SW_ABI_CONST(name, value) inline constexpr uint32_t name = value;
#define SW_ABI_TEXT(name, text) inline constexpr std::string_view name = text;
#include "abi.def"

// The SW_ABI_ERROR_CODE rows: an ErrorResponse code, its canonical status, its errno ("" when none).
struct ErrorCodeRow {
  std::string_view code;
  uint32_t status;
  std::string_view errnoName;
};
inline constexpr ErrorCodeRow ERROR_CODES[] = {
#define SW_ABI_ERROR_CODE(code, status, errno_name) {#code, status, errno_name},
#include "abi.def"
};
}  // namespace sw::abi

// The structs, at global scope: the C exports of the core return pointers to them.
#define SW_ABI_STRUCT(name, bytes) struct name {
#define SW_ABI_U32(s, field, offset) uint32_t field;
#define SW_ABI_BYTES(s, field, offset, size) char field[::sw::abi::size];
#define SW_ABI_END(name) };
#include "abi.def"

// The JavaScript side reads at the table's offsets: the compiler must have put every field exactly there.
#define SW_ABI_STRUCT(name, bytes) static_assert(sizeof(name) == (bytes), #name ": size differs from abi.def");
#define SW_ABI_U32(s, field, offset)                                                     \
  static_assert(offsetof(s, field) == (offset) && sizeof(s::field) == 4, #s "." #field \
                ": offset or size differs from abi.def");
#define SW_ABI_BYTES(s, field, offset, size)                                                   \
  static_assert(offsetof(s, field) == (offset) && sizeof(s::field) == ::sw::abi::size, #s "." \
                #field ": offset or size differs from abi.def");
#include "abi.def"
