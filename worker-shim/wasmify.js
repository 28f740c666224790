// ./wasmify (seed 000 "Wasm-based engines"): the wasmify ABI (docs/abi.md) and the embedded-interpreter session host,
// over cpp/wasmify -- the same C++ the built-in engines run on. Marshalling only.
//
// Today a driver is a built-in one, named ("javascript", "python", "perl": cpp/wasmify/registry.cpp); a WasmifyDriver
// written in JavaScript (seed 000) is not bridged yet (docs/engine-authors.md, "./wasmify").
import { ExecutionLimitError } from "./core.js";
import { WASMIFY_OK, WASMIFY_LIMIT } from "./generated/abi.mjs";
import { restoreMemory } from "./snapshot.js";

export { ExecutionLimitError };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function withBytes(core, text, fn) {
  const bytes = encoder.encode(text);
  const p = core._malloc(Math.max(1, bytes.length));
  if (p === 0) throw new Error("./wasmify: out of core memory");
  core.HEAPU8.set(bytes, p);
  try {
    return fn(p, bytes.length);
  } finally {
    core._free(p);
  }
}

function result(core) {
  const p = core._sw_wasmify_result();
  return decoder.decode(core.HEAPU8.subarray(p, p + core._sw_wasmify_result_len()));
}

function driverName(driver) {
  if (typeof driver !== "string") {
    throw new TypeError("./wasmify: pass a built-in driver's name; WasmifyDriver objects written in JavaScript are not supported yet");
  }
  return driver;
}

// Registers `instance` with the core's wasmify bridge under the WASI host (its memory too).
function bind(wasi, instance) {
  wasi.bind(instance);
  wasi.core.wasmifyBind(wasi.handle, instance);
}

function budgetOf(wasi) {
  return wasi.core._sw_wasi_fuel_budget_of(wasi.fuel);
}

/**
 * One stateless execution (Engine.run) of built-in driver `driver` on `instance`, a fresh instance of the engine
 * module created with `wasi.imports`. Returns the EngineOutcome; throws ExecutionLimitError for a limit, an Error for a
 * trap or an engine failure (the instance must then be dropped).
 */
export function runWasmify(wasi, instance, driver, payload) {
  const core = wasi.core;
  bind(wasi, instance);
  const status = withBytes(core, driverName(driver), (dp, dn) => withBytes(core, payload.code, (cp, cn) =>
    withBytes(core, payload.envVars ? JSON.stringify(payload.envVars) : "", (ep, en) =>
      core._sw_wasmify_run(wasi.handle, dp, dn, cp, cn, ep, en, budgetOf(wasi)))));
  const text = result(core);
  if (status === WASMIFY_OK) return JSON.parse(text);
  if (status === WASMIFY_LIMIT) throw new ExecutionLimitError(text);
  throw new Error(text);
}

/** A wasmify session: a SessionInstance (seed 000) over cpp/wasmify's WasmifySession. */
export class WasmifySession {
  #wasi;
  #instance;
  #session;

  constructor(wasi, instance, session) {
    this.#wasi = wasi;
    this.#instance = instance;
    this.#session = session;
  }

  get invalid() {
    return this.#session === 0 || this.#wasi.core._sw_wasmify_session_invalid(this.#session) !== 0;
  }

  get cwd() {
    if (this.#session === 0) return "";
    const core = this.#wasi.core;
    core._sw_wasmify_session_cwd(this.#session);
    return result(core);
  }

  /** The interpreter handle a snapshot stores. */
  get handle() {
    return BigInt(this.#session === 0 ? 0 : this.#wasi.core._sw_wasmify_session_handle(this.#session));
  }

  execute({ code, envVars }) {
    const core = this.#wasi.core;
    const status = withBytes(core, code, (cp, cn) => withBytes(core, envVars ? JSON.stringify(envVars) : "", (ep, en) =>
      core._sw_wasmify_session_execute(this.#session, cp, cn, ep, en)));
    const text = result(core);
    if (status !== WASMIFY_OK) throw new Error(text);
    return JSON.parse(text);
  }

  canSnapshot() {
    return !this.invalid && !this.#wasi.hasOpenGuestFds();
  }

  snapshot() {
    return { handle: this.handle, extra: {}, memory: this.#instance.exports.memory };
  }

  close() {
    if (this.#session === 0) return;
    this.#wasi.core._sw_wasmify_session_free(this.#session);
    this.#session = 0;
    this.#wasi.core.wasmifyUnbind(this.#wasi.handle);
    this.#wasi.close();
  }
}

function open(wasi, instance, driver, cwd, start) {
  const core = wasi.core;
  const session = withBytes(core, driverName(driver), (dp, dn) => withBytes(core, cwd ?? "", (cp, cn) => start(dp, dn, cp, cn)));
  if (session === 0) throw new Error(result(core));
  return new WasmifySession(wasi, instance, session);
}

/** Boots a session of built-in driver `driver` on a fresh `instance` (created with `wasi.imports`), in `cwd`. */
export function bootWasmifySession(wasi, instance, driver, { cwd = "" } = {}) {
  bind(wasi, instance);
  return open(wasi, instance, driver, cwd, (dp, dn, cp, cn) =>
    wasi.core._sw_wasmify_session_boot(wasi.handle, dp, dn, cp, cn, budgetOf(wasi)));
}

/** Restores a session from `source` (a SessionSnapshotSource) into a fresh `instance` (created with `wasi.imports`). */
export function restoreWasmifySession(wasi, instance, driver, source, { cwd = "" } = {}) {
  restoreMemory(instance.exports.memory, source);
  bind(wasi, instance);
  return open(wasi, instance, driver, cwd, (dp, dn, cp, cn) =>
    wasi.core._sw_wasmify_session_restore(wasi.handle, dp, dn, Number(source.handle), cp, cn, budgetOf(wasi)));
}
