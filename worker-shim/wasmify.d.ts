// ./wasmify: the wasmify ABI and its embedded-interpreter session host (cpp/wasmify), for engines whose module
// speaks wasmify (docs/abi.md, docs/engine-authors.md). Today the driver is a built-in one, by name.
import type { EngineOutcome, ExecutePayload, SessionInstance, SessionOutcome, SessionSnapshotSource } from "./runtime.js";
import type { WasiHost } from "./wasi.js";

export { ExecutionLimitError } from "./runtime.js";

/** A built-in driver of cpp/wasmify/registry.cpp. */
export type BuiltinWasmifyDriver = "javascript" | "python" | "perl";

/**
 * The seed's language-specific driver. Declared for reference: only built-in drivers (by name) are accepted today;
 * passing an object throws a TypeError (docs/engine-authors.md, "./wasmify").
 */
export interface WasmifyDriver {
  initMethod: number;
  sessionBoot: string;
  evaluate(code: string): string;
  sessionExecute(request: { code: string; envVars: Record<string, string>; cwd: string }): {
    results: EngineOutcome["results"];
    error?: EngineOutcome["error"];
    cwd?: string;
  };
  runOnce(payload: ExecutePayload): EngineOutcome;
  afterRestore?(): void;
}

/** One stateless execution on a fresh `instance` (created with `wasi.imports`); throws ExecutionLimitError for a limit. */
export declare function runWasmify(
  wasi: WasiHost,
  instance: WebAssembly.Instance,
  driver: BuiltinWasmifyDriver,
  payload: ExecutePayload,
): EngineOutcome;

/** A session over cpp/wasmify's WasmifySession; a complete SessionInstance. close() also closes its WASI host. */
export declare class WasmifySession implements SessionInstance {
  private constructor();
  readonly cwd: string;
  readonly invalid: boolean;
  readonly handle: bigint;
  execute(request: { code: string; envVars: Record<string, string> }): SessionOutcome;
  canSnapshot(): boolean;
  snapshot(): { handle: bigint; extra: Record<string, never>; memory: WebAssembly.Memory };
  close(): void;
}

export declare function bootWasmifySession(
  wasi: WasiHost,
  instance: WebAssembly.Instance,
  driver: BuiltinWasmifyDriver,
  options?: { cwd?: string },
): WasmifySession;

export declare function restoreWasmifySession(
  wasi: WasiHost,
  instance: WebAssembly.Instance,
  driver: BuiltinWasmifyDriver,
  source: SessionSnapshotSource,
  options?: { cwd?: string },
): WasmifySession;
