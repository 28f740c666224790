// defineInterpreterRuntime(engine): the runtime Worker for an Engine (seed 000 "Quick start").
import { WorkerEntrypoint } from "cloudflare:workers";
import { handleRequest, ExecutionLimitError } from "./core.js";

export { ExecutionLimitError };

/** Base class of a runtime Worker entrypoint; subclasses set `engine` as a class field. */
export class InterpreterWorker extends WorkerEntrypoint {
  async fetch(request) {
    return handleRequest(this.engine, request, this.env);
  }
}

/**
 * Builds the runtime for `engine`. Returns `{ Worker }`; export `Worker` as the module's default export.
 * (Durable code contexts, and with them the `Interpreter` export, arrive with engines that have `sessions`.)
 */
export function defineInterpreterRuntime(engine) {
  class Worker extends InterpreterWorker {
    engine = engine;
  }
  return { Worker };
}
