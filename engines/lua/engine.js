// The Lua engine: Lua 5.4.7 for wasm32-wasi with a small C driver (engines/lua/README.md, scripts/engines/lua.sh),
// written as an Engine in JavaScript on the public engine-author API only (docs/engine-authors.md, "Worked example:
// Lua"): ./wasi for the WASI host and its fuel meter, ./snapshot for restoring a context's linear memory. A third party
// would import the same files as "sandbox-workers-cpp/wasi" and "sandbox-workers-cpp/snapshot". The Worker is
// worker.js.
//
// Instances start from the engine's boot image (build/boot-image.bin: the memory right after `sw_lua_new`, taken at
// build time by scripts/boot-images.mjs from the manifest's `bootImage`), and the runtime keeps a used one in its
// pool, reset to the image (EngineInstances, docs/engine-authors.md "A boot image").
//
// The guest speaks its own small C ABI (not wasmify): sw_lua_new() → a handle (one lua_State), sw_lua_eval(handle,
// code, env, session) → the outcome JSON (logs, results, error, cwd), sw_lua_after_restore(handle, bootImage). Fuel is
// charged by the module through `sandbox.charge`: the build meters it at the Wasm level (scripts/engines/meter.sh,
// docs/fuel.md) and the driver counts nothing itself; the host traps the charge that overdraws the
// budget ("hard mode"), which kills the instance.
import { createWasi, budget, hasOpenGuestFds, ExecutionLimitError } from "../../worker-shim/wasi.js";
import { restoreMemory } from "../../worker-shim/snapshot.js";
import engineModule from "./build/engine.wasm";
import bootImage from "./build/boot-image.bin";
import { engineName, build } from "./build/engine-build.js";
import manifest from "./engine.json";
import { manifestLimits } from "../../worker-shim/limits.js";

// The limits are the manifest's (engine.json): fuel in units of the Wasm-level meter, about a second of CPU for any
// Lua work (docs/fuel.md); memory the module's own cap (the linker's --max-memory, from the same manifest); the Lua heap
// is capped at 48 MiB inside it.
const limits = manifestLimits(manifest);

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const noLogs = () => ({ stdout: [], stderr: [] });
const failure = (name, message) => ({ name, message, traceback: [] });

/** Copies `bytes` into a fresh guest allocation. */
function put(exports, bytes) {
  const p = exports.sw_lua_alloc(bytes.length || 1);
  if (!p) throw new Error("lua engine: sw_lua_alloc failed");
  new Uint8Array(exports.memory.buffer).set(bytes, p);
  return p;
}

/**
 * One sw_lua_eval: `{ outcome }`, or `{ outcome, dead: true }` when the instance trapped. The fuel trap is an outcome
 * (ExecutionLimitError, empty logs: the captured lines live in the dead instance); any other trap is rethrown (the
 * runtime reports an EngineError; a session is dropped and restored from its last snapshot).
 */
function evaluate(wasi, exports, handle, code, envVars, session) {
  const c = encoder.encode(code);
  const e = encoder.encode(JSON.stringify(envVars ?? {}));
  const cp = put(exports, c);
  const ep = put(exports, e);
  let packed;
  try {
    packed = exports.sw_lua_eval(handle, cp, c.length, ep, e.length, session ? 1 : 0);
  } catch (err) {
    if (err?.name === "ExecutionLimitError") {
      return { outcome: { logs: noLogs(), results: [], error: failure("ExecutionLimitError", err.message) }, dead: true };
    }
    throw err;
  }
  exports.sw_lua_free(cp);
  exports.sw_lua_free(ep);
  if (packed === 0n) throw new Error("lua engine: sw_lua_eval failed (bad handle or env JSON)");
  const ptr = Number(packed >> 32n);
  const len = Number(packed & 0xffffffffn);
  const outcome = JSON.parse(decoder.decode(new Uint8Array(exports.memory.buffer, ptr, len)));
  exports.sw_lua_free(ptr);
  // The meter charges the host once per batch: the rest of this run's count is charged now, so usage is exact and a
  // run that ended past the budget within its last batch is a limit like any other.
  if (!wasi.flushFuel()) {
    return { outcome: { logs: noLogs(), results: [], error: failure("ExecutionLimitError", "Execution fuel exhausted") }, dead: true };
  }
  return { outcome };
}

/** A fresh instance under `wasi` with one lua_State: its exports and handle. */
function bootInstance(wasi) {
  const instance = new WebAssembly.Instance(engineModule, wasi.imports);
  wasi.initialize(instance); // _initialize: wasi-libc's constructors record the preopens
  const handle = instance.exports.sw_lua_new(); // the standard libraries, sandboxed; chdir("/workspace"); seeded
  if (!handle) throw new Error("lua engine: sw_lua_new failed");
  wasi.flushFuel(); // the boot's last partial batch, so that the first execute's count starts at zero
  return { instance, handle };
}

/**
 * An instance with one lua_State under `wasi`: started from the boot image by the runtime (`instances`, a pooled
 * instance or a new one), else booted here. The image is shared by every instance, so its math.random is re-seeded.
 */
function startInstance(wasi, instances) {
  const started = instances?.fromImage(wasi);
  if (!started) return bootInstance(wasi);
  const { instance } = started;
  const handle = Number(started.handle);
  // 1: a shared boot image: math.random re-seeded from random_get (protocol §6.6).
  if (instance.exports.sw_lua_after_restore(handle, 1) !== 0) throw new Error("lua engine: sw_lua_after_restore failed");
  wasi.flushFuel(); // the re-seeding's last partial batch, so that the first execute's count starts at zero
  return { instance, handle };
}

/**
 * One code context's live instance (SessionInstance): started from the boot image (or booted), or restored from the
 * context's snapshot.
 */
class LuaSession {
  #wasi;
  #instance;
  #handle;
  #onCwdChange;
  invalid = false;
  cwd;

  constructor(options, source) {
    // Sessions get an empty WASI environment (protocol §5.4): env vars reach os.getenv through each sw_lua_eval.
    this.#wasi = createWasi(engineModule, null, budget(limits.fuel), {}, options.workspace);
    this.#onCwdChange = options.onCwdChange;
    this.cwd = options.cwd;
    try {
      if (source) {
        // The memory holds everything (the lua_State, wasi-libc's preopen table and cwd, the driver's streams);
        // __stack_pointer, the only mutable global, is at its initial value between calls: no _initialize. The
        // runtime writes it into a pooled instance or a new one.
        if (options.instances) {
          ({ instance: this.#instance } = options.instances.restore(this.#wasi, source));
        } else {
          this.#instance = new WebAssembly.Instance(engineModule, this.#wasi.imports);
          restoreMemory(this.#instance.exports.memory, source);
          this.#wasi.bind(this.#instance);
        }
        this.#handle = Number(source.handle);
        // 0: the context's own snapshot. Nothing to re-seed: a context keeps its math.random sequence (protocol §6.6).
        if (this.#instance.exports.sw_lua_after_restore(this.#handle, 0) !== 0) {
          throw new Error("lua engine: sw_lua_after_restore failed");
        }
      } else {
        ({ instance: this.#instance, handle: this.#handle } = startInstance(this.#wasi, options.instances));
      }
    } catch (e) {
      this.#wasi.close();
      throw e;
    }
  }

  execute({ code, envVars }) {
    if (this.invalid) throw new Error("lua engine: execute on an invalid session");
    this.#wasi.reset(); // protocol §5.5: the meter refilled for every execute
    let result;
    try {
      result = evaluate(this.#wasi, this.#instance.exports, this.#handle, code, envVars, true);
    } catch (e) {
      this.invalid = true; // any other trap: the instance can no longer be trusted
      throw e;
    }
    const { outcome, dead } = result;
    if (dead) this.invalid = true;
    if (!dead && outcome.cwd && outcome.cwd !== this.cwd) {
      this.cwd = outcome.cwd;
      this.#onCwdChange?.(this.cwd);
    }
    return { ...outcome, usage: this.#wasi.outcomeUsage(), cwd: this.cwd };
  }

  canSnapshot() {
    return !this.invalid && !hasOpenGuestFds(this.#wasi);
  }

  snapshot() {
    return { handle: BigInt(this.#handle), extra: { engine: "lua" }, memory: this.#instance.exports.memory };
  }

  close() {
    this.#wasi.close();
  }
}

export const luaEngine = {
  language: "lua",
  engineName,
  build, // sha256 of engine.wasm: a snapshot from another build boots fresh
  limits,
  module: engineModule, // the module the boot image was taken of
  bootImage,
  // Stateless: fresh engine state per request, from the boot image (a pooled instance reset to it, or a new one);
  // the host closed in `finally` hands the instance back to the runtime.
  run(payload, { instances } = {}) {
    const meter = budget(limits.fuel);
    // No session mirror (protocol §5.4 stateless): with the image, an empty, disabled /workspace.
    const wasi = createWasi(engineModule, null, meter, {}, null);
    try {
      const { instance, handle } = startInstance(wasi, instances);
      wasi.reset(); // the boot is not the request's fuel
      const { outcome } = evaluate(wasi, instance.exports, handle, payload.code, payload.envVars, false);
      return { ...outcome, usage: wasi.outcomeUsage() }; // the limit's too: usage() would throw
    } finally {
      wasi.close();
    }
  },
  sessions: {
    boot: (options) => new LuaSession(options),
    restore: (options, source) => new LuaSession(options, source),
  },
};

export { ExecutionLimitError };
