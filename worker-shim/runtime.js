// defineInterpreterRuntime(engine): the runtime Worker (and, for an engine with sessions, the Interpreter Durable
// Object) for an Engine (protocol §5.7).
import { DurableObject, WorkerEntrypoint } from "cloudflare:workers";
import { handleRequest, ExecutionLimitError } from "./core.js";
import { InterpreterHost, forwardExecuteInContext } from "./interpreter.js";
export { manifestLimits } from "./limits.js";

export { ExecutionLimitError };

/** Base class of a runtime Worker entrypoint; subclasses set `engine` as a class field. */
export class InterpreterWorker extends WorkerEntrypoint {
  async fetch(request) {
    return handleRequest(this.engine, request, this.env, this.ctx);
  }

  /** Workers RPC (protocol §2.7): checked here, then forwarded to the Interpreter for `key`. Never throws. */
  async executeInContext(key, args, getFiles) {
    return forwardExecuteInContext(this.engine, this.env, key, args, getFiles);
  }
}

/**
 * Base class of the Interpreter Durable Object; subclasses set `engine` as a class field. The engine is read lazily
 * (on the first call), because a subclass's field initializers run after this constructor.
 */
export class InterpreterDurableObject extends DurableObject {
  #host;

  constructor(ctx, env) {
    super(ctx, env);
    this.#host = new InterpreterHost(ctx, env, undefined);
  }

  #ready() {
    this.#host.engine = this.engine;
    return this.#host;
  }

  async fetch(request) {
    return this.#ready().fetch(request);
  }

  async executeInContext(key, args, getFiles) {
    return this.#ready().executeInContext(key, args, getFiles);
  }

  async alarm() {
    return this.#ready().alarm();
  }
}

/**
 * Builds the runtime for `engine`. Returns `{ Worker, Interpreter }`: export `Worker` as the module's default export
 * and, for an engine with `sessions`, `Interpreter` under that name (bound as INTERPRETER, SQLite-backed).
 */
export function defineInterpreterRuntime(engine) {
  class Worker extends InterpreterWorker {
    engine = engine;
  }
  class Interpreter extends InterpreterDurableObject {
    engine = engine;
  }
  return { Worker, Interpreter };
}
