// ./wasmify (protocol §5.7): the wasmify ABI (protocol §5.6, docs/abi.md) and the embedded-interpreter session host,
// over cpp/wasmify -- the same C++ the built-in engines run on. Marshalling only.
//
// A driver is a built-in one, named (a manifest's id with a `builtin` section: cpp/wasmify/registry.cpp), or a
// WasmifyDriver object written in JavaScript (protocol §5.7): the core keeps the ABI and the session bookkeeping and
// calls the object's hooks back through sw_host_wasmify_hook (hostWasmifyHook below); a hook reaches its guest with
// ctx.invoke, which the core performs (docs/engine-authors.md, "./wasmify").
import { ExecutionLimitError } from "./core.js";
import {
  WASMIFY_OK,
  WASMIFY_LIMIT,
  WASMIFY_PENDING,
  WASMIFY_HOOK_EVALUATE,
  WASMIFY_HOOK_SESSION_EXECUTE,
  WASMIFY_HOOK_RUN_ONCE,
  WASMIFY_HOOK_AFTER_RESTORE,
  SESSION_OK,
  SESSION_THREW,
  SESSION_THREW_LIMIT,
  SESSION_PROMISE,
  SESSION_UNSERIALIZABLE,
} from "./generated/abi.mjs";
import { restoreMemory } from "./snapshot.js";
import { reply } from "./js_sessions.js";

export { ExecutionLimitError };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function withBytes(core, text, fn) {
  const bytes = typeof text === "string" ? encoder.encode(text) : text;
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

// --- WasmifyDriver objects written in JavaScript ------------------------------------------------------------------

const HOOKS = [
  ["evaluate", WASMIFY_HOOK_EVALUATE],
  ["sessionExecute", WASMIFY_HOOK_SESSION_EXECUTE],
  ["runOnce", WASMIFY_HOOK_RUN_ONCE],
  ["afterRestore", WASMIFY_HOOK_AFTER_RESTORE],
];
const HOOK_NAMES = new Map(HOOKS.map(([name, id]) => [id, name]));

// A driver object's registration per core: driver -> Map(core -> the core's driver handle). A driver stays registered
// for the core's lifetime (drivers are module-level objects of an engine).
const registered = new WeakMap();
let nextDriverId = 1;

// ctx.invoke's fields in core memory (cpp/wasmify/exports.cpp encodeFields): u32 count, then u32 number, u8 wire type
// (0: u64 LE, 2: u32 length + bytes).
function encodeFields(fields) {
  if (!Array.isArray(fields)) throw new TypeError("./wasmify: fields must be an array of [number, value] pairs");
  const parts = [];
  let size = 4;
  for (const pair of fields) {
    if (!Array.isArray(pair) || pair.length !== 2) throw new TypeError("./wasmify: a field is a [number, value] pair");
    const [number, value] = pair;
    if (!Number.isInteger(number) || number < 0 || number > 0xffffffff) throw new TypeError("./wasmify: a field number is an integer");
    if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") {
      if (typeof value === "number" && !Number.isInteger(value)) throw new TypeError("./wasmify: a varint field is an integer");
      parts.push({ number, varint: BigInt.asUintN(64, BigInt(value)) });
      size += 5 + 8;
    } else if (typeof value === "string" || value instanceof Uint8Array) {
      const bytes = typeof value === "string" ? encoder.encode(value) : value;
      parts.push({ number, bytes });
      size += 5 + 4 + bytes.length;
    } else {
      throw new TypeError("./wasmify: a field value is an integer, a bigint, a boolean, a string or a Uint8Array");
    }
  }
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, parts.length, true);
  let o = 4;
  for (const part of parts) {
    dv.setUint32(o, part.number, true);
    if (part.bytes) {
      out[o + 4] = 2;
      dv.setUint32(o + 5, part.bytes.length, true);
      out.set(part.bytes, o + 9);
      o += 9 + part.bytes.length;
    } else {
      out[o + 4] = 0;
      dv.setBigUint64(o + 5, part.varint, true);
      o += 13;
    }
  }
  return out;
}

/** A wasmify response message (its payload fields; the last occurrence of each number). */
export class WasmifyMessage {
  constructor(fields) {
    /** `[{ number, varint }]` or `[{ number, bytes }]`, in message order. */
    this.fields = fields;
  }
  #find(number) {
    return this.fields.find((f) => f.number === number);
  }
  /** A varint field as a bigint, undefined when absent or not a varint. */
  varint(number) {
    return this.#find(number)?.varint;
  }
  /** A length-delimited field's bytes, undefined when absent or not bytes. */
  bytes(number) {
    return this.#find(number)?.bytes;
  }
  /** A length-delimited field as UTF-8 text, undefined when absent or not bytes. */
  string(number) {
    const bytes = this.bytes(number);
    return bytes === undefined ? undefined : decoder.decode(bytes);
  }
}

function decodeFields(bytes) {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = dv.getUint32(0, true);
  const fields = [];
  let o = 4;
  for (let i = 0; i < count; i++) {
    const number = dv.getUint32(o, true);
    if (bytes[o + 4] === 0) {
      fields.push({ number, varint: dv.getBigUint64(o + 5, true) });
      o += 13;
    } else {
      const n = dv.getUint32(o + 5, true);
      fields.push({ number, bytes: bytes.slice(o + 9, o + 9 + n) });
      o += 9 + n;
    }
  }
  return new WasmifyMessage(fields);
}

// The context a hook receives: the interpreter handle and invoke, valid while the hook runs.
function hookContext(core, call, handle) {
  let live = true;
  const ctx = {
    handle: BigInt(handle),
    /** Calls wasmify method `method` of the guest with `fields` ([number, value] pairs); the response message. */
    invoke(method, fields = []) {
      if (!live) throw new Error("./wasmify: ctx.invoke after the hook returned");
      const bytes = encodeFields(fields);
      const status = withBytes(core, bytes, (p, n) => core._sw_wasmify_hook_invoke(call, method, p, n));
      if (status !== WASMIFY_OK) {
        const message = result(core);
        throw status === WASMIFY_LIMIT ? new ExecutionLimitError(message) : new Error(message);
      }
      const p = core._sw_wasmify_result();
      return decodeFields(core.HEAPU8.slice(p, p + core._sw_wasmify_result_len()));
    },
  };
  return { ctx, end: () => (live = false) };
}

function isThenable(value) {
  return value !== null && (typeof value === "object" || typeof value === "function") && typeof value.then === "function";
}

function messageOf(error) {
  return error instanceof Error || typeof error?.message === "string" ? String(error.message) : String(error);
}

// A hook's reply buffer for what it answered, or for what it threw.
function answered(core, value) {
  let json;
  try {
    json = JSON.stringify(value ?? null) ?? "null";
  } catch (error) {
    return reply(core, SESSION_UNSERIALIZABLE, [messageOf(error)]);
  }
  return reply(core, SESSION_OK, [json]);
}

function threw(core, error) {
  return reply(core, error?.name === "ExecutionLimitError" ? SESSION_THREW_LIMIT : SESSION_THREW, [messageOf(error)]);
}

// The core calls a driver's hook (sw_host_wasmify_hook); `this` is the core module. Reports what JavaScript saw. A
// promise is kept for the session (core.wasmifyPending, by the hook call's id) with its ctx still live: the core
// decides whether it may wait for it (sessionExecute) or refuses it.
function hostWasmifyHook(driverId, hook, call, handle, argPtr, argLen) {
  const core = this;
  const driver = core.jsWasmifyDrivers.get(driverId);
  const name = HOOK_NAMES.get(hook);
  const { ctx, end } = hookContext(core, call, handle);
  const depth = core._sw_wasi_call_depth();
  let value;
  try {
    const arg = decoder.decode(core.HEAPU8.subarray(argPtr, argPtr + argLen));
    value = driver[name](ctx, hook === WASMIFY_HOOK_EVALUATE ? arg : JSON.parse(arg));
  } catch (error) {
    end();
    // Thrown inside core code the guest re-entered: dropped unless the core says it is consistent (js_sessions.js).
    if (!core._sw_wasi_unwound(depth, core.isHostStackOverflow(error) ? 1 : 0)) core.coreCorrupted = error;
    return threw(core, error);
  }
  if (isThenable(value)) {
    const promise = Promise.resolve(value);
    promise.catch(() => {}); // settled by WasmifySession.execute, or refused by the core: never unhandled
    if (hook === WASMIFY_HOOK_SESSION_EXECUTE) {
      if (!core.wasmifyPending) core.wasmifyPending = new Map();
      core.wasmifyPending.set(call, { promise, end });
    } else {
      end();
    }
    return reply(core, SESSION_PROMISE);
  }
  end();
  return answered(core, value);
}

// The core's handle for `driver` (registered on first use).
function jsDriver(core, driver) {
  if (driver === null || typeof driver !== "object") {
    throw new TypeError("./wasmify: a driver is a built-in driver's name or a WasmifyDriver object");
  }
  let perCore = registered.get(driver);
  if (!perCore) registered.set(driver, (perCore = new Map()));
  const known = perCore.get(core);
  if (known) return known;
  if (!core.jsWasmifyDrivers) core.jsWasmifyDrivers = new Map();
  core.hostWasmifyHook = hostWasmifyHook.bind(core);
  const id = nextDriverId++;
  let hooks = 0;
  for (const [name, bit] of HOOKS) if (typeof driver[name] === "function") hooks |= 1 << bit;
  const boot = driver.sessionBoot ?? "";
  if (typeof boot !== "string") throw new TypeError("./wasmify: WasmifyDriver.sessionBoot is a string");
  const init = driver.initRequest === undefined ? new Uint8Array(0) : encodeFields(driver.initRequest);
  const handle = withBytes(core, init, (ip, il) => withBytes(core, boot, (bp, bl) =>
    core._sw_wasmify_js_driver_new(id, Number(driver.initMethod), ip, il, bp, bl, hooks)));
  if (handle === 0) throw new TypeError(`./wasmify: ${result(core)}`);
  core.jsWasmifyDrivers.set(id, driver);
  perCore.set(core, handle);
  return handle;
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
  const env = payload.envVars ? JSON.stringify(payload.envVars) : "";
  const status = typeof driver === "string"
    ? withBytes(core, driver, (dp, dn) => withBytes(core, payload.code, (cp, cn) => withBytes(core, env, (ep, en) =>
      core._sw_wasmify_run(wasi.handle, dp, dn, cp, cn, ep, en, budgetOf(wasi)))))
    : withBytes(core, payload.code, (cp, cn) => withBytes(core, env, (ep, en) =>
      core._sw_wasmify_run_driver(wasi.handle, jsDriver(core, driver), cp, cn, ep, en, budgetOf(wasi))));
  const text = result(core);
  if (status === WASMIFY_OK) return JSON.parse(text);
  if (status === WASMIFY_LIMIT) throw new ExecutionLimitError(text);
  throw new Error(text);
}

/** A wasmify session: a SessionInstance (protocol §5.2) over cpp/wasmify's WasmifySession. */
export class WasmifySession {
  #wasi;
  #instance;
  #session;
  #pending = null; // { promise, end } of a sessionExecute that has not settled

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

  /**
   * One call. A SessionOutcome, or a promise of one when the driver's sessionExecute answered a promise (the session
   * takes no other call until it settled).
   */
  execute({ code, envVars }) {
    const core = this.#wasi.core;
    if (this.#session === 0) throw new Error("WasmifySession: the session was closed");
    const status = withBytes(core, code, (cp, cn) => withBytes(core, envVars ? JSON.stringify(envVars) : "", (ep, en) =>
      core._sw_wasmify_session_execute(this.#session, cp, cn, ep, en)));
    const text = result(core);
    if (status === WASMIFY_PENDING) {
      const call = Number(text);
      const pending = core.wasmifyPending.get(call);
      core.wasmifyPending.delete(call);
      this.#pending = pending;
      return pending.promise.then((value) => this.#settle(pending, answered, value),
        (error) => this.#settle(pending, threw, error));
    }
    if (status !== WASMIFY_OK) throw new Error(text);
    return JSON.parse(text);
  }

  // The pending sessionExecute settled: the core takes its answer (or its throw) as if it had come at once.
  #settle(pending, replyOf, value) {
    pending.end();
    if (this.#pending !== pending) throw new Error("WasmifySession: the session was closed");
    this.#pending = null;
    const core = this.#wasi.core;
    const status = core._sw_wasmify_session_settled(this.#session, replyOf(core, value));
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
    // A pending call's ctx dies with the session: its later ctx.invoke throws instead of reaching freed state.
    this.#pending?.end();
    this.#pending = null;
    this.#wasi.core._sw_wasmify_session_free(this.#session);
    this.#session = 0;
    this.#wasi.core.wasmifyUnbind(this.#wasi.handle);
    this.#wasi.close();
  }
}

function open(wasi, instance, cwd, start) {
  const core = wasi.core;
  const session = withBytes(core, cwd ?? "", (cp, cn) => start(cp, cn));
  if (session === 0) throw new Error(result(core));
  return new WasmifySession(wasi, instance, session);
}

/**
 * Boots a session of `driver` (a built-in driver's name or a WasmifyDriver object) on a fresh `instance` (created with
 * `wasi.imports`), in `cwd`.
 */
export function bootWasmifySession(wasi, instance, driver, { cwd = "" } = {}) {
  const core = wasi.core;
  const handle = typeof driver === "string" ? 0 : jsDriver(core, driver);
  bind(wasi, instance);
  return open(wasi, instance, cwd, (cp, cn) => handle !== 0
    ? core._sw_wasmify_session_boot_driver(wasi.handle, handle, cp, cn, budgetOf(wasi))
    : withBytes(core, driver, (dp, dn) => core._sw_wasmify_session_boot(wasi.handle, dp, dn, cp, cn, budgetOf(wasi))));
}

/** Restores a session from `source` (a SessionSnapshotSource) into a fresh `instance` (created with `wasi.imports`). */
export function restoreWasmifySession(wasi, instance, driver, source, { cwd = "" } = {}) {
  const core = wasi.core;
  const handle = typeof driver === "string" ? 0 : jsDriver(core, driver);
  restoreMemory(instance.exports.memory, source);
  bind(wasi, instance);
  return open(wasi, instance, cwd, (cp, cn) => handle !== 0
    ? core._sw_wasmify_session_restore_driver(wasi.handle, handle, Number(source.handle), cp, cn, budgetOf(wasi))
    : withBytes(core, driver, (dp, dn) =>
      core._sw_wasmify_session_restore(wasi.handle, dp, dn, Number(source.handle), cp, cn, budgetOf(wasi))));
}
