// The memory scanner (docs/snapshots.md, "Scanning in place"): a small Wasm module, made here at build time
// (sw-wasm-fuel --emit-scanner), that computes what cpp/snapshot's take() needs of every 4 KiB block of a guest's
// linear memory where that memory is, instead of the core copying it into its own heap first. It uses no memory of
// its own: it imports two (multi-memory), so it can only read the guest's and write where the core tells it.
//
//   imports  "guest" "memory"  memory 0: the guest's linear memory (read only by this code)
//            "core"  "memory"  memory 1: the core's heap (refs read, hashes and flags written)
//   export   scan(first: i32, count: i32, refs: i32, hashes: i32, flags: i32) -> i32 (1)
//
// For i in [0, count), block b = first + i at guest address b * 4096: with ref = refs ? core u32 at refs + 4i : 0,
// if ref is not 0 and the guest's block equals the 4,096 core bytes at ref, core u8 flags[i] = 1 (hashes[i] is not
// written); otherwise flags[i] = 0 and core u64 hashes[i] = snapshot::blockHash of the block (0 for an all-zero
// block). A block or ref beyond its memory traps (the caller passes only ranges inside both).
#pragma once

#include <cstdint>
#include <vector>

namespace sw::tools {

std::vector<uint8_t> scannerModule();

}  // namespace sw::tools
