// ./snapshot (unstable): linear-memory snapshot helpers for an engine author's own session code (docs/engine-authors.md).
import type { JsonValue, SessionSnapshotSource } from "./runtime.js";

/** A Wasm page: the unit of SessionSnapshotSource.readPage. */
export declare const PAGE_BYTES: 65536;

/** A memory image held in the core; usable wherever a SessionSnapshotSource is. */
export interface MemoryImage extends SessionSnapshotSource {
  /** Frees the image (it is freed when collected otherwise); readPage throws afterwards. */
  close(): void;
}

/**
 * Grows `memory` to `source.memoryPages` and writes the snapshot into it (pages the snapshot holds as zero are
 * zeroed): protocol §4.5's restore contract. Use it in `sessions.restore` before binding the instance (WasiHost.bind).
 */
export declare function restoreMemory(
  memory: WebAssembly.Memory,
  source: Pick<SessionSnapshotSource, "memoryPages" | "readPage">,
): void;

/** Captures `memory` into the core (e.g. to test an engine's restore without an Interpreter). */
export declare function captureMemory(
  memory: WebAssembly.Memory,
  options?: { handle?: bigint | number; extra?: Record<string, JsonValue> },
): MemoryImage;
