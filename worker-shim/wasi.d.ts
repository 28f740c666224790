// ./wasi: the WASI host of protocol §5.4 for an Engine written in JavaScript, built in the C++ core (docs/engine-authors.md).
import type { ExecutionUsage, SessionWorkspace } from "./runtime.js";

export { ExecutionLimitError } from "./runtime.js";

/** A fuel meter: `fuel` is the engine's limits.fuel (0 = unmetered); the count lives in the core's host. */
export declare class FuelMeter {
  constructor(fuel: number);
  readonly fuel: number;
  /** Refills the meter of the host that adopted it (createWasi) to `fuel`. */
  reset(): void;
  /** Fuel used since the last reset, capped at the budget. */
  consumed(): number;
}

/** `budget(fuel)`: the fuel meter of protocol §5.5 (§5.7). */
export declare function budget(fuel: number): FuelMeter;

export type ImportFunctions = Record<string, Record<string, (...args: any[]) => unknown>>;

export interface CreateWasiOptions {
  /** Functions for imports WASI does not provide (a name WASI provides is overridden too); others throw when called. */
  imports?: ImportFunctions;
}

/** The host createWasi returns. */
export declare class WasiHost {
  private constructor();
  /** The import object for `module`: WASI preview1, `sandbox.tick`/`sandbox.charge` (this host's meter), `env`. */
  readonly imports: WebAssembly.Imports;
  /** The core's handle of the host (0 once closed). */
  readonly handle: number;
  /** The meter's limits.fuel (0 when unmetered). */
  readonly fuel: number;
  /** The memory bound by start/initialize/bind, or null. */
  readonly memory: WebAssembly.Memory | null;
  /** Binds the instance's exported memory without running anything (after restoring it from a snapshot). */
  bind(instance: WebAssembly.Instance): void;
  /** A command module: binds its memory and runs `_start`; the exit code (proc_exit's, else 0). */
  start(instance: WebAssembly.Instance): number;
  /** A reactor module: binds its memory and runs `_initialize` when exported. */
  initialize(instance: WebAssembly.Instance): void;
  /** Captured stdout, as lines (protocol §3.3). */
  stdout(): string[];
  /** Captured stderr, as lines (protocol §3.3). */
  stderr(): string[];
  /** protocol §3.4 usage; throws ExecutionLimitError once the budget is exhausted. */
  usage(): ExecutionUsage;
  /** The usage an outcome reports: usage(), also once the budget is exhausted (fuelConsumed = fuelLimit then). */
  outcomeUsage(): ExecutionUsage;
  /** The start of an execute: meter refilled, captured output and its limits' counters cleared. */
  reset(): void;
  /**
   * For a module metered by our fuel tool: charges the rest of its count (under one batch of 1,024 units) when a run
   * returns, so usage is exact. False when that charge overdrew the budget (report ExecutionLimitError).
   */
  flushFuel(): boolean;
  /** True while the guest holds a descriptor beyond the fixed preopens. */
  hasOpenGuestFds(): boolean;
  /** Releases the host (idempotent); the guest's later WASI calls fail with EBADF. */
  close(): void;
}

/**
 * Builds a WASI host for `module` (protocol §5.4, §5.7). `archive`: the engine's /stdlib (tar or stored zip) or null;
 * `meter`: budget(limits.fuel) or null (unmetered); `envVars`: the guest's environment; `workspaceDir`: a session's
 * `options.workspace` (mounted as /workspace, fd 5) or null. Synchronous: call it from Engine.run or sessions.
 */
export declare function createWasi(
  module: WebAssembly.Module,
  archive: ArrayBuffer | Uint8Array | null,
  meter: FuelMeter | null,
  envVars: Record<string, string> | null,
  workspaceDir: SessionWorkspace | null,
  options?: CreateWasiOptions,
): WasiHost;

/** True while the guest holds a descriptor beyond the fixed preopens: then canSnapshot() is false (protocol §5.2). */
export declare function hasOpenGuestFds(host: WasiHost): boolean;

/** Resolves once the core is loaded (createWasi needs it; inside Engine.run and sessions it always is). */
export declare function ready(): Promise<void>;
