// Public types of the runtime side of the sandbox-workers protocol, version 1 (see ../../shared SPEC and README).
import { WorkerEntrypoint } from "cloudflare:workers";

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
  /** Durable sessions (code contexts). Not supported by this runtime yet: omit it. */
  sessions?: unknown;
}

/** The Engine contract (seed 000) for an engine written in JavaScript: a stateless engine needs only `run`. */
export interface JavaScriptEngine extends EngineIdentity {
  /** May throw `ExecutionLimitError` for a resource limit; any other throw becomes an `EngineError`. */
  run(payload: ExecutePayload): EngineOutcome | Promise<EngineOutcome>;
  builtin?: undefined;
}

/** A Wasm engine the core drives itself over the wasmify ABI (docs/abi.md); `module` is its compiled engine.wasm. */
export interface BuiltinWasmEngine extends EngineIdentity {
  builtin: "javascript";
  module: WebAssembly.Module;
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

/** Base class of a runtime Worker entrypoint. Subclasses set `engine` as a class field (not in a constructor). */
export declare abstract class InterpreterWorker<Env = unknown> extends WorkerEntrypoint<Env> {
  protected abstract readonly engine: Engine;
  fetch(request: Request): Promise<Response>;
}

export interface InterpreterRuntime {
  /** The runtime Worker: export it as the module's default export. */
  Worker: new (ctx: ExecutionContext, env: unknown) => InterpreterWorker;
}

/** Builds the runtime Worker for `engine`. */
export declare function defineInterpreterRuntime(engine: Engine): InterpreterRuntime;
