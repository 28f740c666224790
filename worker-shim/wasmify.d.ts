// ./wasmify: the wasmify ABI and its embedded-interpreter session host (cpp/wasmify), for engines whose module
// speaks wasmify (docs/abi.md, docs/engine-authors.md). The driver is a built-in one, by name, or a WasmifyDriver
// object written in JavaScript.
import type { EngineOutcome, ExecutePayload, SessionInstance, SessionOutcome, SessionSnapshotSource } from "./runtime.js";
import type { WasiHost } from "./wasi.js";

export { ExecutionLimitError } from "./runtime.js";

/** A built-in driver of cpp/wasmify/registry.cpp: generated from the manifests with a `builtin` section. */
export type { BuiltinWasmifyDriver } from "./generated/languages.js";
import type { BuiltinWasmifyDriver } from "./generated/languages.js";

/** A request field for `WasmifyCall.invoke`: `[number, value]`; integers, bigints and booleans are varints. */
export type WasmifyField = [number, number | bigint | boolean | string | Uint8Array];

/** A wasmify response message: its payload fields, the last occurrence of each number. */
export declare class WasmifyMessage {
  private constructor();
  readonly fields: ReadonlyArray<{ number: number; varint?: bigint; bytes?: Uint8Array }>;
  /** A varint field, undefined when absent or not a varint. */
  varint(number: number): bigint | undefined;
  /** A length-delimited field's bytes, undefined when absent. */
  bytes(number: number): Uint8Array | undefined;
  /** A length-delimited field as UTF-8 text, undefined when absent. */
  string(number: number): string | undefined;
}

/** What a driver hook receives: the interpreter handle and the guest's methods, valid while the hook runs. */
export interface WasmifyCall {
  readonly handle: bigint;
  /**
   * Calls `w_0_<method>` with `fields` encoded by the core; the response message. Throws the call's failure (an
   * ExecutionLimitError for a limit); a hook that lets it escape fails with that failure's kind.
   */
  invoke(method: number, fields?: WasmifyField[]): WasmifyMessage;
}

/** What `sessionExecute`/`runOnce` answer; logs default to the WASI host's captured stdout/stderr of the call. */
export interface WasmifyDriverOutcome {
  results: EngineOutcome["results"];
  error?: EngineOutcome["error"];
  logs?: EngineOutcome["logs"];
}

/**
 * The seed's language-specific driver, written in JavaScript. `sessionExecute` may answer a promise (then
 * `WasmifySession.execute` does too); the other hooks run inside one synchronous call sequence of the core (boot,
 * restore, a stateless run) and must answer at once. The ABI (wasm_init, the init method, the zero-handle rule,
 * invoke and its limits), the fuel reset, logs, cwd and invalidation are the core's (docs/engine-authors.md).
 */
export interface WasmifyDriver {
  /** The wasmify method that creates the interpreter handle (field 1 of its response; 0 = initialization failed). */
  initMethod: number;
  /** The init method's request (default: empty). */
  initRequest?: WasmifyField[];
  /** A script run once through `evaluate` when a session boots ("" or absent: none). */
  sessionBoot?: string;
  /** Runs one script; its string result. Needed for `sessionBoot`. */
  evaluate?(ctx: WasmifyCall, code: string): string;
  /** One session call in the context's `cwd`; `cwd` in the answer is the cwd afterwards (default: unchanged). */
  sessionExecute?(
    ctx: WasmifyCall,
    request: { code: string; envVars: Record<string, string>; cwd: string },
  ): (WasmifyDriverOutcome & { cwd?: string }) | Promise<WasmifyDriverOutcome & { cwd?: string }>;
  /** One stateless call on a freshly booted instance. */
  runOnce?(ctx: WasmifyCall, payload: { code: string; envVars: Record<string, string> }): WasmifyDriverOutcome;
  /** After a restore (a snapshot, or a boot image when `bootImage`). */
  afterRestore?(ctx: WasmifyCall, info: { bootImage: boolean }): void;
}

/** One stateless execution on a fresh `instance` (created with `wasi.imports`); throws ExecutionLimitError for a limit. */
export declare function runWasmify(
  wasi: WasiHost,
  instance: WebAssembly.Instance,
  driver: BuiltinWasmifyDriver | WasmifyDriver,
  payload: ExecutePayload,
): EngineOutcome;

/** A session over cpp/wasmify's WasmifySession; a complete SessionInstance. close() also closes its WASI host. */
export declare class WasmifySession implements SessionInstance {
  private constructor();
  readonly cwd: string;
  readonly invalid: boolean;
  readonly handle: bigint;
  /** A promise when a WasmifyDriver's sessionExecute answered one; no other call until it settled. */
  execute(request: { code: string; envVars: Record<string, string> }): SessionOutcome | Promise<SessionOutcome>;
  canSnapshot(): boolean;
  snapshot(): { handle: bigint; extra: Record<string, never>; memory: WebAssembly.Memory };
  close(): void;
}

export declare function bootWasmifySession(
  wasi: WasiHost,
  instance: WebAssembly.Instance,
  driver: BuiltinWasmifyDriver | WasmifyDriver,
  options?: { cwd?: string },
): WasmifySession;

export declare function restoreWasmifySession(
  wasi: WasiHost,
  instance: WebAssembly.Instance,
  driver: BuiltinWasmifyDriver | WasmifyDriver,
  source: SessionSnapshotSource,
  options?: { cwd?: string },
): WasmifySession;
