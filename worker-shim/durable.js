// What the shim's Durable Object hosts share (the Interpreter's, interpreter.js; the caller's Sandbox, sandbox.js): one
// core-side object per Durable Object instance over its ctx.storage, created on first use and again after a trap
// replaced the core; calls one at a time; the core-side object freed when the JavaScript one is collected. Marshalling
// only, like the rest of the shim: what the object decides is the core's (cpp/durable).
import { getCore, discardCore } from "./core.js";

// One counter for every kind of host: all register their storage in the same core's storages map.
let nextStorageId = 1;

// An evicted Durable Object's JavaScript object is collected while the isolate (and the core) live on: free its
// core-side object too, with whatever it holds (an Interpreter's resident engine instance and workspace mirror).
const released = new FinalizationRegistry(({ core, free, handle, storageId }) => {
  try {
    core.storages.delete(storageId);
    if (handle !== 0 && getCore.instance === core) core[free](handle);
  } catch {
    // the core was replaced meanwhile: its memory went with it
  }
});

/**
 * Base class of a Durable Object's host. A subclass implements `create(core, storageId, armedAlarm)`, which makes its
 * core-side object and returns the handle (0: it could not).
 */
export class DurableHost {
  #ctx;
  #env;
  #name;
  #free;
  #core = null;
  #handle = 0;
  #storageId = nextStorageId++;
  #queue = Promise.resolve();

  /** `name` for messages; `free`, the core export that frees the core-side object. */
  constructor(ctx, env, { name, free }) {
    this.#ctx = ctx;
    this.#env = env;
    this.#name = name;
    this.#free = free;
  }

  get ctx() {
    return this.#ctx;
  }

  get env() {
    return this.#env;
  }

  /** The core-side object, valid on the core bound() answered (0 before, and after a trap). */
  get handle() {
    return this.#handle;
  }

  /** The core the core-side object lives in (null before, and after a trap). */
  get boundCore() {
    return this.#core;
  }

  /** Runs `fn` after every earlier call settled; a failure never blocks later calls (protocol §4.9, §7.3). */
  serial(fn) {
    const run = this.#queue.then(fn);
    this.#queue = run.then(
      () => {},
      () => {},
    );
    return run;
  }

  /** The core, with this host's core-side object in it. */
  async bound() {
    const core = await getCore();
    if (this.#core === core && this.#handle !== 0) return core;
    // First use, or the core was replaced after a trap: a new core-side object over the same storage.
    released.unregister(this);
    this.#core = core;
    this.#handle = 0;
    core.storages.set(this.#storageId, this.#ctx.storage);
    const armed = await this.#ctx.storage.getAlarm();
    this.#handle = this.create(core, this.#storageId, typeof armed === "number" ? armed : NaN);
    if (this.#handle === 0) throw new Error(`the ${this.#name} could not start`);
    released.register(this, { core, free: this.#free, handle: this.#handle, storageId: this.#storageId }, this);
    return core;
  }

  /** bound(), or null when the core-side object could not be made (logged): the caller answers the generic 502. */
  async boundOrNull() {
    try {
      return await this.bound();
    } catch (error) {
      console.error(`[sandbox-workers] ${this.#name} failure:`, error);
      return null;
    }
  }

  create(core, storageId, armedAlarm) {
    throw new Error(`${this.#name}: create() is the subclass's`);
  }

  // A trap leaves the core's memory suspect: the next call starts a new core (and a new core-side object over the same
  // storage, which restores its state from there). So does any exception thrown inside core code a guest re-entered
  // (core.coreCorrupted, wasmify_bridge.js).
  failed(error) {
    console.error(`[sandbox-workers] ${this.#name} failure:`, error);
    if (error instanceof WebAssembly.RuntimeError || this.#core?.coreCorrupted) {
      discardCore();
      this.#core = null;
      this.#handle = 0;
    }
  }
}
