// Public types of the runtime side of the sandbox-workers protocol, version 1 (docs/protocol/ in the repository, and README.md).
import { DurableObject, WorkerEntrypoint } from "cloudflare:workers";
import type { WasiHost } from "./wasi.js";

/** JSON value as it crosses the wire. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface ExecutionLogs {
  stdout: string[];
  stderr: string[];
}

/** At most one entry per execution: `{ text }` for scalars, `{ json }` for containers. */
export interface ExecutionResultEntry {
  text?: string;
  json?: JsonValue;
}

export interface ExecutionError {
  name: string;
  message: string;
  traceback: string[];
  lineNumber?: number;
}

export interface ExecutionUsage {
  fuelConsumed: number;
  fuelLimit: number;
  memoryBytes: number;
}

/** What `Engine.run` returns. Guest errors and limits are outcomes, never throws. */
export interface EngineOutcome {
  logs: ExecutionLogs;
  results: ExecutionResultEntry[];
  error?: ExecutionError;
  usage?: ExecutionUsage;
}

/** The validated request the engine runs: `envVars` only when the request carried the key. */
export interface ExecutePayload {
  code: string;
  envVars?: Record<string, string>;
}

export interface EngineLimits {
  fuel: number;
  memoryBytes: number;
  codeBytes: number;
  requestBytes: number;
}

interface EngineIdentity {
  language: string;
  engineName: string;
  /** Identifies this build; a snapshot from a different build boots fresh instead of restoring. */
  build: string;
  limits: EngineLimits;
}

/** The guest's /workspace of a session: an opaque handle to the Interpreter's mirror, for ./wasi `createWasi`. */
export interface SessionWorkspace {
  readonly __sessionWorkspace?: never;
}

/** A guest instance the runtime lent the engine until its WASI host is closed (then it is the runtime's again). */
export interface EngineInstance {
  /** The guest's exports; a call that throws (a trap, a limit) keeps the instance out of the pool. */
  readonly exports: WebAssembly.Exports;
}

/**
 * Where an Engine written in JavaScript that declares a boot image (`module`, `bootImage`) gets its guest instances:
 * a pooled instance reset by the core, or a new one (docs/engine-authors.md, "A boot image"). Closing the WASI host
 * hands the instance back; the core pools it again unless a call into it threw or its memory grew.
 */
export interface EngineInstances {
  /** An instance under `wasi` started from the boot image, with the handle its boot returned; null without an image. */
  fromImage(wasi: WasiHost): { instance: EngineInstance; handle: bigint } | null;
  /** An instance under `wasi` whose memory is `source` (the SessionSnapshotSource restore received). */
  restore(wasi: WasiHost, source: SessionSnapshotSource): { instance: EngineInstance };
}

/** `run`'s second argument. */
export interface RunOptions {
  instances: EngineInstances;
}

/** What `sessions.boot`/`restore` receive (protocol §5.1). */
export interface SessionOptions {
  /** This runtime's instances of the engine's module (fromImage for boot, restore for restore). */
  instances: EngineInstances;
  workspace: SessionWorkspace;
  /** The context's cwd (absolute, under /workspace). */
  cwd: string;
  /** May be called during execute whenever the guest changes directory. */
  onCwdChange(cwd: string): void;
}

/**
 * A stored snapshot, served from the core; `readPage` is synchronous and valid only while `restore` runs (until its
 * promise settles, for an async restore).
 */
export interface SessionSnapshotSource {
  handle: bigint;
  extra: Record<string, JsonValue>;
  memoryPages: number;
  /** The page's 65,536 bytes, or undefined for an all-zero page. */
  readPage(page: number): Uint8Array | undefined;
}

/** `EngineOutcome` plus the cwd after the call. */
export interface SessionOutcome extends EngineOutcome {
  cwd?: string;
}

/**
 * One live engine instance of a code context (protocol §5.2). `execute` may answer a promise (awaited by the Interpreter,
 * at most INTERPRETER_ENGINE_WAIT_MS); every other member is synchronous.
 */
export interface SessionInstance {
  readonly cwd: string;
  /** True after a trap: the Interpreter drops the instance and restores the last snapshot next time. */
  readonly invalid: boolean;
  /**
   * Never throws (or rejects) for a guest error or a limit; a throw or a rejection is a host bug (EngineError, instance
   * dropped), and so is a promise still pending after INTERPRETER_ENGINE_WAIT_MS.
   */
  execute(request: { code: string; envVars: Record<string, string> }): SessionOutcome | Promise<SessionOutcome>;
  /** False while the guest holds a descriptor beyond the preopens (./wasi hasOpenGuestFds), or once invalid. */
  canSnapshot(): boolean;
  snapshot(): { handle: bigint; extra: Record<string, JsonValue>; memory: WebAssembly.Memory };
  close(): void;
}

/**
 * Durable sessions of an engine written in JavaScript (protocol §5.1). Either call may answer a promise (awaited by the
 * Interpreter, at most INTERPRETER_ENGINE_WAIT_MS): a failed boot is the generic 502, a failed restore boots fresh.
 */
export interface EngineSessions {
  boot(options: SessionOptions): SessionInstance | Promise<SessionInstance>;
  restore(options: SessionOptions, snapshot: SessionSnapshotSource): SessionInstance | Promise<SessionInstance>;
}

/** The Engine contract (protocol §5.1) for an engine written in JavaScript: a stateless engine needs only `run`. */
export interface JavaScriptEngine extends EngineIdentity {
  /** May throw `ExecutionLimitError` for a resource limit; any other throw becomes an `EngineError`. */
  run(payload: ExecutePayload, options: RunOptions): EngineOutcome | Promise<EngineOutcome>;
  /** The compiled guest module `bootImage` was taken of (with its data segments). */
  module?: WebAssembly.Module;
  /**
   * The boot image (build/boot-image.bin, made by scripts/boot-images.mjs from the manifest's `bootImage`): the
   * runtime then starts instances from it and keeps a used one in its pool (`options.instances`).
   */
  bootImage?: ArrayBuffer;
  /**
   * Durable sessions (code contexts), see docs/engine-authors.md. Omit it for a stateless-only engine (GET /interpreter
   * then reports `contexts: false` and every /interpreters route answers 400).
   */
  sessions?: EngineSessions;
  builtin?: undefined;
}

/** A Wasm engine the core drives itself over the wasmify ABI (docs/abi.md); `module` is its compiled engine.wasm. */
export interface BuiltinWasmEngine extends EngineIdentity {
  builtin: "javascript";
  module: WebAssembly.Module;
  /** The core boots, snapshots and restores a built-in engine's instances itself. */
  sessions?: { builtin: true };
}

export type Engine = JavaScriptEngine | BuiltinWasmEngine;

/** The complete `POST /execute` response body. */
export interface ExecutionResult extends EngineOutcome {
  code: string;
  language: string;
  engine: string;
  durationMs: number;
}

/** Every non-200 JSON error. */
export interface ErrorResponse {
  code: string;
  message: string;
  context: Record<string, unknown>;
  httpStatus: number;
  timestamp: string;
  operation?: string;
}

/** Thrown by an Engine for a resource limit (fuel, output, result). */
export declare class ExecutionLimitError extends Error {
  constructor(message?: string);
  readonly name: "ExecutionLimitError";
}

/** A file of the caller's /workspace, raw bytes (protocol §2.7). */
export interface WorkspaceFileEntry {
  path: string;
  data: Uint8Array;
  updatedAt: number;
}

/** The shape of the caller's /workspace: every directory, and every file's content hash (never contents). */
export interface InterpreterWorkspaceManifest {
  dirs: string[];
  /** absolute path -> hash: the 16-hex `hashBytes` form, or `sha256:<64 hex>`. */
  manifest: Record<string, string>;
  disabled?: boolean;
}

export interface InterpreterExecuteArgs {
  contextId: string;
  code: string;
  envVars?: Record<string, string>;
  workspace: InterpreterWorkspaceManifest;
}

export type GetWorkspaceFiles = (paths: string[]) => WorkspaceFileEntry[] | Promise<WorkspaceFileEntry[]>;

/** A code context's stored snapshot, as reported on the wire. */
export interface SnapshotInfo {
  build: string;
  /** non-zero 64 KiB pages of the image */
  pages: number;
  bytes: number;
  /** bytes actually stored (compressed blocks, docs/snapshots.md) */
  storedBytes: number;
  takenAt: number;
  stale: boolean;
}

export interface InterpreterExecuteResponse extends EngineOutcome {
  code: string;
  language: string;
  engine: string;
  durationMs: number;
  executionCount: number;
  context: {
    id: string;
    cwd: string;
    executions: number;
    snapshotMs?: number;
    snapshot: SnapshotInfo | null;
    /** Only when this round's state was not restored (docs/snapshots.md). */
    restored?: false;
    restoreError?: { code: "BUILD_CHANGED" | "SNAPSHOT_DAMAGED" | "RESTORE_FAILED" | (string & {}); message: string };
  };
  workspace: { dirs: string[]; files: WorkspaceFileEntry[]; deleted: string[] };
}

/** Errors are returned, never thrown (Workers RPC would strip the status). */
export type InterpreterExecuteRpcResult =
  | { ok: true; result: InterpreterExecuteResponse }
  | { ok: false; status: number; body: ErrorResponse };

/** Base class of a runtime Worker entrypoint. Subclasses set `engine` as a class field (not in a constructor). */
export declare abstract class InterpreterWorker<Env = unknown> extends WorkerEntrypoint<Env> {
  protected abstract readonly engine: Engine;
  fetch(request: Request): Promise<Response>;
  /** Checks the key and the engine, then forwards to the Interpreter Durable Object for `key`. */
  executeInContext(key: string, args: InterpreterExecuteArgs, getFiles: GetWorkspaceFiles): Promise<InterpreterExecuteRpcResult>;
}

/** Base class of the Interpreter Durable Object (bind it as INTERPRETER, SQLite-backed). `engine` as a class field. */
export declare abstract class InterpreterDurableObject<Env = unknown> extends DurableObject<Env> {
  protected abstract readonly engine: Engine;
  fetch(request: Request): Promise<Response>;
  executeInContext(key: string, args: InterpreterExecuteArgs, getFiles: GetWorkspaceFiles): Promise<InterpreterExecuteRpcResult>;
  alarm(): Promise<void>;
}

export interface InterpreterRuntime {
  /** The runtime Worker: export it as the module's default export. */
  Worker: new (ctx: ExecutionContext, env: unknown) => InterpreterWorker;
  /** The Interpreter Durable Object: export it as `Interpreter` for an engine with `sessions`. */
  Interpreter: new (ctx: DurableObjectState, env: unknown) => InterpreterDurableObject;
}

/** Builds the runtime Worker (and the Interpreter Durable Object) for `engine`. */
export declare function defineInterpreterRuntime(engine: Engine): InterpreterRuntime;

export { manifestLimits } from "./limits.js";
