// The caller's `Sandbox` Durable Object (protocol §7.3-§7.10): marshalling only. The C++ core (cpp/sandbox) validates,
// routes, keeps the registry, the workspace and the storage, and decides every answer; this file performs the
// actions it asks for — a fetch or an executeInContext call on a named binding of this Worker's env, SQL and the
// alarm (through core.js's storage imports) — and moves bytes between them and the core. docs/sandbox.md.
import { DurableObject } from "cloudflare:workers";
import {
  getCore,
  readView,
  actionBody,
  toResponse,
  copyHead,
  putBytes,
  readCapped,
  pump,
  bodyReader,
  withCoreBytes,
  fallbackResponse,
} from "./core.js";
import { DurableHost } from "./durable.js";
// Every number shared with the core, generated from cpp/abi/abi.def.
import {
  ACTION_RESPOND,
  ACTION_READ_BODY,
  SBX_ACTION_FETCH,
  SBX_ACTION_CALL,
  SbxFilesView,
  ByteSpan,
  SBX_ANSWERED,
  SBX_NO_BINDING,
  SBX_THREW,
  SBX_TOO_LARGE,
  SBX_CALL_RESULT_MAX_BYTES,
  SBX_GET_FILES_MAX_BYTES,
} from "./generated/abi.mjs";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// A Fetch's or Call's body is copied out at once: the call awaits, and the core reuses it once it is called again.
function readAction(core, view) {
  const action = readView(core, view);
  if (action.kind === SBX_ACTION_FETCH || action.kind === SBX_ACTION_CALL) action.body = actionBody(core, action);
  return action;
}

function messageOf(error) {
  return String(error?.message ?? error);
}

/** The state of one Sandbox Durable Object: its core-side Sandbox and the queue that serializes requests (protocol §7.3). */
export class SandboxHost extends DurableHost {
  constructor(ctx, env) {
    super(ctx, env, { name: "Sandbox", free: "_sw_sbx_free" });
  }

  create(core, storageId, armedAlarm) {
    const ttl = this.env?.SANDBOX_IDLE_TTL_MS;
    const hasTtl = ttl !== undefined && ttl !== null;
    const fileApi = this.env?.SANDBOX_FILE_API;
    const id = encoder.encode(this.ctx.id.toString());
    const ttlBytes = encoder.encode(hasTtl ? String(ttl) : "");
    const hasFileApi = fileApi !== undefined && fileApi !== null;
    const fileApiBytes = encoder.encode(hasFileApi ? String(fileApi) : "");
    const strings = new Uint8Array(id.length + ttlBytes.length + fileApiBytes.length);
    strings.set(id, 0);
    strings.set(ttlBytes, id.length);
    strings.set(fileApiBytes, id.length + ttlBytes.length);
    return withCoreBytes(core, strings, (p) =>
      core._sw_sbx_new(storageId, p, id.length, ttlBytes.length, hasTtl ? 1 : 0, fileApiBytes.length,
        hasFileApi ? 1 : 0, armedAlarm));
  }

  fetch(request) {
    return this.serial(() => this.#run((core, exchange) => {
      const head = copyHead(core, request, (max) => core._sw_sbx_exchange_input(exchange, max));
      return core._sw_sbx_exchange_start(exchange, ...head, request.body ? 1 : 0);
    }, request));
  }

  alarm() {
    return this.serial(async () => {
      await this.#run((core, exchange) => core._sw_sbx_exchange_alarm(exchange), null);
    });
  }

  async #run(begin, request) {
    const core = await this.boundOrNull();
    if (!core) return fallbackResponse();
    const exchange = core._sw_sbx_exchange_new(this.handle);
    if (exchange === 0) return fallbackResponse();
    // After an action that awaited something else, the core must still be the one the exchange lives in.
    const same = (view) => {
      if (getCore.instance !== core) throw new Error("the core was replaced during a request");
      return view;
    };
    const readBody = bodyReader(core, request?.body, (n) => core._sw_sbx_exchange_body_received(exchange, n),
      () => core._sw_sbx_exchange_body_failed(exchange), { cancelRest: false });
    try {
      return await pump(core, begin(core, exchange), readAction, {
        [ACTION_RESPOND]: (action) => toResponse(core, action),
        [ACTION_READ_BODY]: async (action) => same(await readBody(action)),
        [SBX_ACTION_FETCH]: async (action) => same(await this.#fetchBinding(core, exchange, action)),
        [SBX_ACTION_CALL]: async (action) => same(await this.#callBinding(core, exchange, action)),
      });
    } catch (error) {
      this.failed(error);
      return fallbackResponse();
    } finally {
      if (this.boundCore === core && getCore.instance === core) core._sw_sbx_exchange_free(exchange);
    }
  }

  // Copies `bytes` into the exchange's input and returns their length.
  #put(core, exchange, bytes) {
    return putBytes(core, (len) => core._sw_sbx_exchange_input(exchange, len), bytes);
  }

  // env[binding].fetch, as the core asked. The core judges the answer (status, at most limit + 1 body bytes).
  async #fetchBinding(core, exchange, action) {
    const target = this.env?.[action.target];
    if (target === null || typeof target !== "object" && typeof target !== "function" ||
      typeof target.fetch !== "function") {
      return core._sw_sbx_exchange_fetched(exchange, SBX_NO_BINDING, 0, 0);
    }
    let status;
    let body;
    try {
      const init = { method: action.method };
      if (action.body.length > 0) {
        init.body = action.body;
        init.headers = { "content-type": "application/json" };
      }
      const response = await target.fetch(new Request(`https://sandbox.internal${action.path}`, init));
      status = response.status;
      body = await readCapped(response.body, action.limit + 1);
    } catch (error) {
      const len = this.#put(core, exchange, encoder.encode(messageOf(error)));
      return core._sw_sbx_exchange_fetched(exchange, SBX_THREW, 0, len);
    }
    const len = this.#put(core, exchange, body);
    return core._sw_sbx_exchange_fetched(exchange, SBX_ANSWERED, status, len);
  }

  // env[binding].executeInContext(key, args, getFiles). The result's workspace.files[].data bytes go into the core
  // beside the JSON (no base64); everything else about the result is the core's to judge.
  async #callBinding(core, exchange, action) {
    const target = this.env?.[action.target];
    if (target === null || typeof target !== "object" && typeof target !== "function" ||
      typeof target.executeInContext !== "function") {
      return core._sw_sbx_exchange_called(exchange, SBX_NO_BINDING, 0);
    }
    const handle = this.handle;
    const getFiles = (paths) => this.#getFiles(core, handle, paths);
    let json;
    const blobs = [];
    try {
      const args = JSON.parse(decoder.decode(action.body));
      const result = await target.executeInContext(action.path, args, getFiles);
      const files = result?.ok === true ? result?.result?.workspace?.files : undefined;
      if (Array.isArray(files)) {
        for (const file of files) {
          if (file !== null && typeof file === "object" && file.data instanceof Uint8Array) {
            blobs.push(file.data);
            file.data = null;
          } else {
            blobs.push(null);
          }
        }
      }
      json = encoder.encode(JSON.stringify(result ?? null) ?? "null");
    } catch (error) {
      const len = this.#put(core, exchange, encoder.encode(messageOf(error)));
      return core._sw_sbx_exchange_called(exchange, SBX_THREW, len);
    }
    // u32 JSON length, JSON, u32 count, per file u8 has-bytes (+ u32 length + bytes). Sized first; never copied
    // when over the core's cap.
    let size = 4 + json.length + 4;
    for (const b of blobs) size += 1 + (b ? 4 + b.length : 0);
    if (size > SBX_CALL_RESULT_MAX_BYTES) return core._sw_sbx_exchange_called(exchange, SBX_TOO_LARGE, 0);
    const ptr = core._sw_sbx_exchange_input(exchange, size);
    if (ptr === 0) throw new Error("the core could not allocate the executeInContext result");
    const heap = core.HEAPU8;
    const dv = new DataView(heap.buffer, ptr, size);
    let o = 0;
    dv.setUint32(o, json.length, true); o += 4;
    heap.set(json, ptr + o); o += json.length;
    dv.setUint32(o, blobs.length, true); o += 4;
    for (const b of blobs) {
      heap[ptr + o++] = b ? 1 : 0;
      if (!b) continue;
      dv.setUint32(o, b.length, true); o += 4;
      heap.set(b, ptr + o); o += b.length;
    }
    return core._sw_sbx_exchange_called(exchange, SBX_ANSWERED, size);
  }

  // The getFiles callback (protocol §2.7), called by the runtime Worker while the Call above is awaited: it bypasses the
  // queue (the request that made the call holds it) and only reads the core's in-memory tree.
  #getFiles(core, handle, paths) {
    if (getCore.instance !== core || this.handle !== handle) return [];
    let text;
    try {
      text = JSON.stringify(paths ?? null) ?? "null";
    } catch {
      text = "null";
    }
    const bytes = encoder.encode(text);
    let len = 0;
    if (bytes.length <= SBX_GET_FILES_MAX_BYTES) {
      const ptr = core._sw_sbx_input(handle, bytes.length);
      if (ptr === 0) return [];
      core.HEAPU8.set(bytes, ptr);
      len = bytes.length;
    }
    const view = core._sw_sbx_get_files(handle, len);
    if (!view) return [];
    const heap = core.HEAPU8;
    const u32 = core.HEAPU32;
    const count = u32[(view + SbxFilesView.count) >>> 2];
    const spans = u32[(view + SbxFilesView.spans_ptr) >>> 2];
    const times = new DataView(heap.buffer, u32[(view + SbxFilesView.times_ptr) >>> 2], count * 8);
    const span = (i) => {
      const at = spans + i * ByteSpan.BYTES;
      const p = u32[(at + ByteSpan.ptr) >>> 2];
      return [p, p + u32[(at + ByteSpan.len) >>> 2]];
    };
    const entries = [];
    for (let i = 0; i < count; i++) {
      const [ps, pe] = span(2 * i);
      const [ds, de] = span(2 * i + 1);
      entries.push({ path: decoder.decode(heap.subarray(ps, pe)), data: heap.slice(ds, de), updatedAt: times.getFloat64(i * 8, true) });
    }
    core._sw_sbx_get_files_done(handle);
    return entries;
  }
}

/**
 * The caller's Sandbox Durable Object (SQLite-backed). Export it from the caller Worker under the class name its
 * `durable_objects` binding names (the seeds use `Sandbox`), and reach it through getSandbox().
 */
export class Sandbox extends DurableObject {
  #host;

  constructor(ctx, env) {
    super(ctx, env);
    this.#host = new SandboxHost(ctx, env);
  }

  async fetch(request) {
    return this.#host.fetch(request);
  }

  async alarm() {
    return this.#host.alarm();
  }
}
