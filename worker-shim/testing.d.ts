// ./testing (Node >= 22.5 only): the real core over node:sqlite, for engine authors' tests.
import type { DatabaseSync } from "node:sqlite";
import type { Engine, GetWorkspaceFiles, InterpreterExecuteArgs, InterpreterExecuteRpcResult } from "./runtime.js";

export interface TestState {
  db: DatabaseSync;
  storage: unknown;
  /** The alarm currently armed (epoch ms) or null. */
  readonly alarm: number | null;
  blockConcurrencyWhile<T>(fn: () => Promise<T>): Promise<T>;
}

/** A fake Durable Object state over node:sqlite. Pass `db` from another state to simulate an eviction. */
export declare function createTestState(options?: { db?: DatabaseSync; path?: string; alarm?: number | null }): TestState;

export interface TestInterpreter {
  fetch(request: Request): Promise<Response>;
  executeInContext(key: string, args: InterpreterExecuteArgs, getFiles: GetWorkspaceFiles): Promise<InterpreterExecuteRpcResult>;
  alarm(): Promise<void>;
}

/** An Interpreter Durable Object for `engine` over `state`. */
export declare function createTestInterpreter(engine: Engine, state?: TestState, env?: Record<string, string>): TestInterpreter;

export interface ConformancePrograms {
  simple: { code: string; expectResultText: string };
  error: { code: string };
  stateful?: { define: string; use: string; expectResultText: string };
}

/** Throws (node:assert) on the first contract violation. */
export declare function runEngineConformance(engine: Engine, options: { programs: ConformancePrograms }): Promise<void>;
