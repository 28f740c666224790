// The Interpreter Durable Object and the executeInContext RPC (protocol §2.5–2.9, §4): marshalling only. The C++ core
// (cpp/interp) validates, keeps the contexts, runs the engine, reconciles the workspace mirror and writes snapshots;
// this file moves bytes between it, ctx.storage (SQL + alarm) and the caller's getFiles callback.
import {
  getCore,
  serverFor,
  readView,
  toResponse,
  copyHead,
  pump,
  bodyReader,
  withCoreBytes,
  cString,
  fallbackResponse,
  discardCore,
  prepareSpare,
} from "./core.js";
import { DurableHost } from "./durable.js";
import { awaitSession } from "./js_sessions.js";
// Every number shared with the core, generated from cpp/abi/abi.def.
import {
  ACTION_RESPOND,
  ACTION_READ_BODY,
  STEP_DONE,
  STEP_NEED_FILES,
  STEP_AWAIT_ENGINE,
  StepView,
  ByteSpan,
  FILE_IS_OBJECT,
  FILE_PATH_IS_STRING,
  FILE_DATA_IS_BYTES,
  FILE_UPDATED_AT_IS_NUMBER,
  FAILURE_STATUS,
  FAILURE_CODE,
  FAILURE_MESSAGE,
  RPC_ARGS_MAX_BYTES,
  PULLED_MAX_BYTES,
} from "./generated/abi.mjs";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// The protocol's generic failure as an RPC result, as the core words it (a fresh core if this one was discarded). ""
// from the core means it could not even build that: it is discarded too. Only when no core can answer does the shim
// build the result itself, from the ABI table, as fallbackResponse does for HTTP.
async function rpcFailure() {
  try {
    const core = await getCore();
    const text = cString(core, core._sw_rpc_failure());
    if (text !== "") return JSON.parse(text);
  } catch {
    // no core to ask
  }
  discardCore();
  const timestamp = new Date().toISOString();
  const body = { code: FAILURE_CODE, message: FAILURE_MESSAGE, context: {}, httpStatus: FAILURE_STATUS, timestamp };
  return { ok: false, status: FAILURE_STATUS, body };
}

/** The Worker side of executeInContext: the core's pre-checks, then the call is forwarded to the Durable Object. */
export async function forwardExecuteInContext(engine, env, key, args, getFiles) {
  const core = await getCore();
  const server = serverFor(core, engine);
  if (server === 0) return rpcFailure();
  const keyText = typeof key === "string" ? key : "";
  const hasBinding = env?.INTERPRETER != null ? 1 : 0;
  const check = withCoreBytes(core, encoder.encode(keyText),
    (p, n) => core._sw_server_rpc_check(server, p, n, hasBinding));
  if (check !== 0) {
    const refusal = cString(core, check);
    return refusal !== "" ? JSON.parse(refusal) : rpcFailure();
  }
  const stub = env.INTERPRETER.get(env.INTERPRETER.idFromName(keyText));
  return stub.executeInContext(keyText, args, getFiles);
}

/**
 * The state of one Interpreter Durable Object: its core-side Interpreter (recreated if the core was replaced after a
 * trap) and the queue that keeps every call strictly sequential (protocol §4.9).
 */
export class InterpreterHost extends DurableHost {
  #engine;

  constructor(ctx, env, engine) {
    super(ctx, env, { name: "Interpreter", free: "_sw_do_free" });
    this.#engine = engine;
  }

  set engine(engine) {
    this.#engine = engine;
  }

  create(core, storageId, armedAlarm) {
    const server = serverFor(core, this.#engine);
    if (server === 0) throw new Error("invalid engine");
    const ttl = this.env?.INTERPRETER_IDLE_TTL_MS;
    const hasTtl = ttl !== undefined && ttl !== null;
    const handle = withCoreBytes(core, encoder.encode(hasTtl ? String(ttl) : ""),
      (p, n) => core._sw_do_new(server, storageId, p, n, hasTtl ? 1 : 0, armedAlarm));
    if (handle === 0) return 0;
    const wait = this.env?.INTERPRETER_ENGINE_WAIT_MS;
    const hasWait = wait !== undefined && wait !== null;
    withCoreBytes(core, encoder.encode(hasWait ? String(wait) : ""),
      (p, n) => core._sw_do_set_engine_wait(handle, p, n, hasWait ? 1 : 0));
    const cap = this.env?.INTERPRETER_MAX_SNAPSHOT_BYTES;
    const hasCap = cap !== undefined && cap !== null;
    withCoreBytes(core, encoder.encode(hasCap ? String(cap) : ""),
      (p, n) => core._sw_do_set_max_snapshot(handle, p, n, hasCap ? 1 : 0));
    return handle;
  }

  fetch(request) {
    return this.serial(() => this.#fetch(request));
  }

  async #fetch(request) {
    const core = await this.boundOrNull();
    if (!core) return fallbackResponse();
    const exchange = core._sw_do_exchange_new(this.handle);
    if (exchange === 0) return fallbackResponse();
    try {
      const head = copyHead(core, request, (max) => core._sw_do_exchange_input(exchange, max));
      const read = (c, view) => {
        const action = readView(c, view);
        if (c.coreCorrupted) throw new Error("the core failed inside a guest call");
        return action;
      };
      return await pump(core, core._sw_do_exchange_start(exchange, ...head, request.body ? 1 : 0), read, {
        [ACTION_RESPOND]: (action) => toResponse(core, action),
        [ACTION_READ_BODY]: bodyReader(core, request.body, (n) => core._sw_do_exchange_body_received(exchange, n),
          () => core._sw_do_exchange_body_failed(exchange), { cancelRest: false }),
      });
    } catch (error) {
      this.failed(error);
      return fallbackResponse();
    } finally {
      if (this.boundCore === core) core._sw_do_exchange_free(exchange);
    }
  }

  executeInContext(key, args, getFiles) {
    return this.serial(() => this.#execute(key, args, getFiles));
  }

  async #execute(key, args, getFiles) {
    try {
      const core = await this.bound();
      const keyBytes = encoder.encode(typeof key === "string" ? key : "");
      let argsText = "";
      try {
        argsText = JSON.stringify(args ?? null) ?? "";
      } catch {
        argsText = ""; // not serializable (a BigInt, a cycle): the core reports what is missing
      }
      // At most the core's cap + 1 bytes are copied (RPC_ARGS_MAX_BYTES, a C++ constant); args that do not fit are
      // passed as cap + 1 bytes long, and the core answers for them.
      const max = keyBytes.length + Math.min(argsText.length * 3, RPC_ARGS_MAX_BYTES + 1);
      let input = core._sw_do_input(this.handle, max);
      core.HEAPU8.set(keyBytes, input);
      const { read, written } = encoder.encodeInto(argsText, core.HEAPU8.subarray(input + keyBytes.length, input + max));
      const argsLen = read < argsText.length ? RPC_ARGS_MAX_BYTES + 1 : written;
      let step = this.#readStep(core, core._sw_do_execute_start(this.handle, keyBytes.length, argsLen));
      if (step.kind === STEP_NEED_FILES) {
        const paths = JSON.parse(step.json);
        let answer;
        let answered = true;
        try {
          answer = await getFiles(paths);
        } catch (error) {
          console.error("[sandbox-workers] getFiles failed:", error);
          answered = false;
        }
        if (answered) {
          const len = encodeFiles(answer, (size) => core._sw_do_input(this.handle, size), () => core.HEAPU8);
          step = this.#readStep(core, len === null
            ? core._sw_do_execute_files_too_large(this.handle) // over PULLED_MAX_BYTES: never copied
            : core._sw_do_execute_files(this.handle, len));
        } else {
          step = this.#readStep(core, core._sw_do_execute_files_failed(this.handle)); // the core's 502
        }
      }
      // An engine written in JavaScript answered boot, restore or execute with a promise: await it, then the core
      // reads what it settled to and goes on (cpp/interp: the AwaitEngine step; later calls queue behind this one).
      // A promise that never settles is abandoned after the step's waitMs (the core's INTERPRETER_ENGINE_WAIT_MS).
      while (step.kind === STEP_AWAIT_ENGINE) {
        if (core.coreCorrupted) break;
        const { session, waitMs } = JSON.parse(step.json);
        const settled = await awaitSession(core, session, waitMs);
        step = this.#readStep(core, settled
          ? core._sw_do_execute_resume(this.handle)
          : core._sw_do_execute_abandon(this.handle));
      }
      if (core.coreCorrupted) throw new Error("the core failed inside a guest call");
      if (step.kind !== STEP_DONE) throw new Error(`unexpected Interpreter step ${step.kind}`);
      const result = JSON.parse(step.json);
      // A spare instance for the next context this isolate boots or restores (the core's pool takes it).
      if (this.#engine?.builtin) prepareSpare(core, serverFor(core, this.#engine), this.ctx);
      const files = result?.result?.workspace?.files;
      if (files) {
        for (let i = 0; i < files.length; i++) {
          const [p, n] = step.files[i];
          files[i].data = core.HEAPU8.slice(p, p + n);
        }
      }
      return result;
    } catch (error) {
      this.failed(error);
      return rpcFailure();
    }
  }

  #readStep(core, view) {
    if (!view) throw new Error("the core returned no step");
    const u32 = core.HEAPU32;
    const field = (at) => u32[at >>> 2];
    const jsonPtr = field(view + StepView.json_ptr);
    const json = decoder.decode(core.HEAPU8.subarray(jsonPtr, jsonPtr + field(view + StepView.json_len)));
    const files = [];
    const table = field(view + StepView.files_ptr);
    for (let f = 0, count = field(view + StepView.files_count); f < count; f++) {
      const span = table + f * ByteSpan.BYTES;
      files.push([field(span + ByteSpan.ptr), field(span + ByteSpan.len)]);
    }
    return { kind: field(view + StepView.kind), json, files };
  }

  alarm() {
    return this.serial(async () => {
      try {
        const core = await this.bound();
        core._sw_do_alarm(this.handle);
      } catch (error) {
        this.failed(error);
      }
    });
  }
}

// The getFiles answer for sw_do_execute_files: the JavaScript types are reported, C++ judges them (protocol §2.7 11/11a).
// Written straight into the core buffer reserve(size) returns; null (nothing copied) when it would exceed the core's
// PULLED_MAX_BYTES. Returns the encoded length.
function encodeFiles(answer, reserve, heap) {
  const isArray = Array.isArray(answer);
  const entries = isArray ? answer : [];
  const parts = [];
  let size = 8;
  for (const entry of entries) {
    const isObject = entry !== null && typeof entry === "object";
    const path = isObject && typeof entry.path === "string" ? encoder.encode(entry.path) : new Uint8Array(0);
    const data = isObject && entry.data instanceof Uint8Array ? entry.data : null;
    const updatedAt = isObject && typeof entry.updatedAt === "number" ? entry.updatedAt : 0;
    const flags = (isObject ? FILE_IS_OBJECT : 0) |
      (isObject && typeof entry.path === "string" ? FILE_PATH_IS_STRING : 0) | (data ? FILE_DATA_IS_BYTES : 0) |
      (isObject && typeof entry.updatedAt === "number" ? FILE_UPDATED_AT_IS_NUMBER : 0);
    parts.push({ flags, path, data: data ?? new Uint8Array(0), updatedAt });
    size += 1 + 4 + path.length + 4 + (data ? data.length : 0) + 8;
  }
  if (size > PULLED_MAX_BYTES) return null;
  const ptr = reserve(size);
  if (!ptr) throw new Error("the core could not allocate the getFiles answer");
  const out = heap().subarray(ptr, ptr + size);
  const dv = new DataView(out.buffer, out.byteOffset, size);
  let o = 0;
  dv.setUint32(o, isArray ? 1 : 0, true); o += 4;
  dv.setUint32(o, entries.length, true); o += 4;
  for (const p of parts) {
    out[o++] = p.flags;
    dv.setUint32(o, p.path.length, true); o += 4;
    out.set(p.path, o); o += p.path.length;
    dv.setUint32(o, p.data.length, true); o += 4;
    out.set(p.data, o); o += p.data.length;
    dv.setFloat64(o, p.updatedAt, true); o += 8;
  }
  return size;
}
