// Loads the C++ core (one Emscripten module per isolate) and marshals calls into it. No protocol rules live here:
// the core decides every status, header and body; this file only moves bytes and awaits what the core asks for.
import createCore from "./generated/core.mjs";
import coreWasm from "./generated/core.wasm";
// The memory scanner (cpp/tools/scanner.h, made by sw-wasm-fuel --emit-scanner): snapshots read guest memory in place.
import scannerWasm from "./generated/scanner.wasm";
import { makeImportObject, makeWasiImports, importStubsOf, bindGuestMemory, unbindGuestMemory } from "./generated/wasi_imports.mjs";
import { sessionHostImports } from "./js_sessions.js";
import { engineInstances } from "./instances.js";
// Every number shared with the core, generated from cpp/abi/abi.def.
import {
  ACTION_RESPOND,
  ACTION_READ_BODY,
  ACTION_FORWARD,
  ACTION_AWAIT_ENGINE,
  ActionView,
  ENGINE_THREW_LIMIT,
  ENGINE_THREW_MESSAGE,
  SQL_NULL,
  SQL_NUMBER,
  SQL_TEXT,
  SQL_BLOB,
  SQL_OK,
  SQL_FAILED,
  FAILURE_STATUS,
  FAILURE_MESSAGE,
} from "./generated/abi.mjs";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

let corePromise = null;

function loadCore(wasmModule = coreWasm) {
  // Emscripten uses this object as the module itself, so per-instance state lives on it.
  return createCore({
    locateFile: (path) => path, // import.meta.url is undefined in workerd
    instantiateWasm(imports, receive) {
      const instance = new WebAssembly.Instance(wasmModule, imports); // no runtime compilation from bytes
      receive(instance, wasmModule);
      return instance.exports;
    },
    swScanner: scannerWasm, // instantiated by the core's sw_guest_scan (cpp/wasi/wasi_bridge.js)
    servers: new Map(), // engine object -> server handle
    enginesByServer: new Map(), // server handle -> engine object
    importStubs: new Map(), // server handle -> its built-in engine's import stubs (the core's table, read once)
    pendingRuns: new Map(), // exchange handle -> promise of the engine's outcome
    hostEngineRun(server, exchange, payloadPtr, payloadLen) {
      const engine = this.enginesByServer.get(server);
      // { value } for a synchronous engine (no promise round trip), { promise } for an async one, { error } for a throw.
      let run;
      try {
        const text = decoder.decode(this.HEAPU8.subarray(payloadPtr, payloadPtr + payloadLen));
        const value = engine.run(JSON.parse(text), { instances: this.instancesFor(server) });
        if (typeof value?.then === "function") {
          run = { promise: Promise.resolve(value) };
          run.promise.catch(() => {}); // settled by the exchange loop; never an unhandled rejection
        } else {
          run = { value };
        }
      } catch (error) {
        run = { error };
      }
      this.pendingRuns.set(exchange, run);
    },
    // The EngineInstances of an Engine written in JavaScript (instances.js), one per server.
    engineInstances: new Map(),
    instancesFor(server) {
      let instances = this.engineInstances.get(server);
      if (!instances) this.engineInstances.set(server, instances = engineInstances(this, server));
      return instances;
    },
    // A module whose Engine written in JavaScript has a boot image in use (createWasi gives its hosts the image's
    // descriptors: a stateless one an empty, disabled /workspace).
    imageModules: new WeakSet(),
    // createWasi's options.imports per host, for an instance the core moves between hosts (the pool).
    hostExtraImports: new Map(),
    // A fresh instance of the engine's module under WASI host `host`: a built-in engine's (the core drives it), or
    // one an Engine written in JavaScript asked for (EngineInstances), whose imports beyond WASI call the functions of
    // whichever host it is bound to (createWasi's options.imports).
    hostInstantiateGuest(server, host) {
      const engine = this.enginesByServer.get(server);
      try {
        const binding = { host }; // retargeted when the instance is recycled under another host
        const stubs = this.importStubs.get(server);
        const imports = makeImportObject(this, binding, engine.module, stubs);
        if (!engine.builtin) routeExtraImports(this, binding, engine.module, imports);
        const instance = new WebAssembly.Instance(engine.module, imports);
        this.bindGuest(host, { instance, binding });
        return 1;
      } catch (error) {
        console.error("[sandbox-workers] engine instantiation failed:", error);
        return 0;
      }
    },
    // A guest's exported mutable globals (a snapshot carries them; docs/snapshots.md): JSON {name: value} with i64
    // values as decimal strings, written into core memory (the core frees it). 0 when there is no such guest.
    hostGuestGlobals(host) {
      const instance = this.guestInstances.get(host);
      if (!instance) return 0;
      const globals = {};
      for (const [name, value] of Object.entries(instance.exports)) {
        if (!(value instanceof WebAssembly.Global)) continue;
        try {
          value.value = value.value; // throws for an immutable global: only mutable ones are state
        } catch {
          continue;
        }
        globals[name] = typeof value.value === "bigint" ? String(value.value) : value.value;
      }
      const bytes = encoder.encode(JSON.stringify(globals));
      const p = this._malloc(bytes.length + 1);
      if (p === 0) return 0;
      this.HEAPU8.set(bytes, p);
      this.HEAPU8[p + bytes.length] = 0;
      return p;
    },
    hostGuestSetGlobal(host, namePtr, nameLen, valuePtr, valueLen) {
      const instance = this.guestInstances.get(host);
      const name = decoder.decode(this.HEAPU8.subarray(namePtr, namePtr + nameLen));
      const text = decoder.decode(this.HEAPU8.subarray(valuePtr, valuePtr + valueLen));
      const global = instance?.exports[name];
      if (!(global instanceof WebAssembly.Global)) return 0;
      try {
        global.value = typeof global.value === "bigint" ? BigInt(text) : Number(text);
        return 1;
      } catch {
        return 0;
      }
    },
    // The stack mark of an engine module our fuel tool rewrote (docs/fuel-tool.md "The stack mark"): the core reads
    // it, and resets it to the stack pointer, around a snapshot. 0 = the guest has none.
    hostGuestStack(host, reset, out) {
      if (this.swStackMark === false) return 0; // bench/engines.mjs --no-stack-mark: as a module without the mark
      const e = this.guestInstances.get(host)?.exports;
      const g = e && [e.sw_stack_low, e.sw_stack_pointer, e.sw_stack_base, e.sw_stack_top];
      if (!g || !g.every((v) => v instanceof WebAssembly.Global)) return 0;
      if (reset) g[0].value = g[1].value;
      for (let i = 0; i < 4; i++) this.HEAPU32[(out >>> 2) + i] = g[i].value >>> 0;
      return 1;
    },
    guestInstances: new Map(), // WASI host handle -> guest instance
    guestBindings: new Map(), // WASI host handle -> { instance, binding } (binding.host routes its WASI imports)
    bindGuest(host, guest) {
      guest.binding.host = host;
      guest.binding.extras = this.hostExtraImports.get(host);
      bindGuestMemory(this, host, guest.instance.exports.memory);
      this.wasmifyBind(host, guest.instance);
      this.guestInstances.set(host, guest.instance);
      this.guestBindings.set(host, guest);
    },
    hostReleaseGuest(host) {
      const guest = this.guestBindings.get(host);
      if (guest) guest.binding.host = 0; // a stray call from the released instance reaches no host
      this.guestInstances.delete(host);
      this.guestBindings.delete(host);
      this.wasmifyUnbind(host);
      unbindGuestMemory(this, host);
    },
    // The instance pool: the core decides what is parked and resets its memory before reuse; this only holds them.
    parkedGuests: new Map(), // pool id -> { instance, binding }
    nextParkId: 1,
    hostParkGuest(host) {
      const guest = this.guestBindings.get(host);
      if (!guest) return 0;
      this.hostReleaseGuest(host);
      guest.binding.host = 0; // a stray call from the parked instance reaches no host
      const id = this.nextParkId++;
      this.parkedGuests.set(id, guest);
      return id;
    },
    hostUnparkGuest(id, host) {
      const guest = this.parkedGuests.get(id);
      if (!guest) return 0;
      this.parkedGuests.delete(id);
      this.bindGuest(host, guest);
      return 1;
    },
    hostDropParked(id) {
      this.parkedGuests.delete(id);
    },
    // Interpreter Durable Objects (worker-shim/interpreter.js): ctx.storage per storage id, for do_sql.cpp's imports.
    storages: new Map(),
    hostSqlExec(storage, ptr, len) {
      // Nothing may throw back into the core (it would unwind C++ frames unseen): any failure here -- a statement,
      // an allocation for a large row -- is the core's SqlError (answer 0).
      try {
        return sqlExec(this, this.storages.get(storage), ptr, len);
      } catch (error) {
        console.error("[sandbox-workers] SQL bridge failure:", error);
        return 0;
      }
    },
    hostSqlTransaction(storage, cookie) {
      try {
        this.storages.get(storage).transactionSync(() => {
          if (this._sw_sql_transaction_body(cookie) !== 0) throw new Error("transaction rolled back");
        });
        return 0;
      } catch {
        return 1;
      }
    },
    hostAlarmSet(storage, epochMs) {
      const p = this.storages.get(storage)?.setAlarm(epochMs);
      p?.catch?.((error) => console.error("[sandbox-workers] setAlarm failed:", error));
    },
    hostAlarmDelete(storage) {
      const p = this.storages.get(storage)?.deleteAlarm();
      p?.catch?.((error) => console.error("[sandbox-workers] deleteAlarm failed:", error));
    },
    hostGuestGrow(host, pages) {
      try {
        const memory = this.wasiMemories.get(host);
        const have = memory.buffer.byteLength / 65536;
        if (pages > have) memory.grow(pages - have);
        return 1;
      } catch {
        return 0;
      }
    },
    // Sessions of an Engine written in JavaScript (js_sessions.js).
    ...sessionHostImports,
    jsSessions: new Map(),
    print: (line) => console.log("[core]", line),
    printErr: (line) => console.error("[core]", line),
  });
}

/** The core instance for this isolate (created once, recreated after a trap). */
export async function getCore() {
  // A core that threw out of any of its exports is never handed out again, whoever saw the throw (guardExports).
  if (getCore.instance?.coreCorrupted) discardCore();
  if (!corePromise) corePromise = loadCore().then((core) => (getCore.instance = guardExports(core)));
  return corePromise;
}

// Issue 13 part 1: no exception crosses the core boundary by design (cpp/core: every export catches; the imports
// catch too), so anything thrown out of a core export -- a trap (RuntimeError), V8's stack overflow (RangeError), an
// import that threw -- unwound C++ frames unseen and left the core's memory suspect. Every export is wrapped to mark
// the core corrupted on any throw; the callers' existing coreCorrupted checks and getCore then drop it, whatever the
// error's type and whether or not the caller caught it (prepareSpare, the finalizer's free).
function guardExports(core) {
  for (const [name, raw] of Object.entries(core.asm ?? {})) {
    const key = `_${name}`;
    if (typeof raw !== "function" || typeof core[key] !== "function") continue;
    core[key] = (...args) => {
      try {
        return raw(...args);
      } catch (error) {
        core.coreCorrupted ??= error;
        throw error;
      }
    };
  }
  return core;
}

/** Drops a core that trapped: its memory can no longer be trusted. */
export function discardCore() {
  corePromise = null;
  getCore.instance = null;
}

function engineDescription(engine) {
  const { language, engineName, build, limits, builtin } = engine ?? {};
  return JSON.stringify({ language, engineName, build, limits, sessions: Boolean(engine?.sessions), builtin });
}

// One SQL statement for cpp/core/do_sql.cpp: decode the request from core memory, run it on ctx.storage.sql, encode
// the rows into a buffer allocated in the core (the core frees it). Returns its pointer.
function sqlExec(core, storage, ptr, len) {
  const heap = core.HEAPU8;
  const view = new DataView(heap.buffer, ptr, len);
  let at = 0;
  const u32 = () => { const v = view.getUint32(at, true); at += 4; return v; };
  const sqlLen = u32();
  const sql = decoder.decode(heap.subarray(ptr + at, ptr + at + sqlLen));
  at += sqlLen;
  const args = new Array(u32());
  for (let i = 0; i < args.length; i++) {
    const tag = heap[ptr + at++];
    if (tag === SQL_NUMBER) { args[i] = view.getFloat64(at, true); at += 8; }
    else if (tag === SQL_TEXT) { const n = u32(); args[i] = decoder.decode(heap.subarray(ptr + at, ptr + at + n)); at += n; }
    else if (tag === SQL_BLOB) { const n = u32(); args[i] = heap.slice(ptr + at, ptr + at + n).buffer; at += n; }
    else args[i] = null;
  }
  let rows;
  let columns = 0;
  let failure = null;
  try {
    const cursor = storage.sql.exec(sql, ...args);
    rows = Array.from(cursor.raw());
    columns = cursor.columnNames.length;
  } catch (error) {
    failure = encoder.encode(String(error?.message ?? error));
  }
  // Size, allocate, write.
  let size = 8;
  const encoded = [];
  if (failure) {
    size += 4 + failure.length;
  } else {
    size += 8;
    for (const row of rows) {
      for (const value of row) {
        if (value === null || value === undefined) { size += 1; encoded.push(null); }
        else if (typeof value === "number" || typeof value === "bigint") { size += 9; encoded.push(Number(value)); }
        else if (typeof value === "string") { const b = encoder.encode(value); size += 5 + b.length; encoded.push(b, SQL_TEXT); }
        else { const b = value instanceof Uint8Array ? value : new Uint8Array(value); size += 5 + b.length; encoded.push(b, SQL_BLOB); }
      }
    }
  }
  const out = core._malloc(size);
  if (out === 0) return 0;
  const h = core.HEAPU8;
  const dv = new DataView(h.buffer, out, size);
  let o = 0;
  const put32 = (v) => { dv.setUint32(o, v, true); o += 4; };
  put32(size - 4);
  if (failure) {
    put32(SQL_FAILED); put32(failure.length); h.set(failure, out + o); o += failure.length;
    return out;
  }
  put32(SQL_OK); put32(rows.length); put32(columns);
  for (let i = 0; i < encoded.length; i++) {
    const v = encoded[i];
    if (v === null) { h[out + o++] = SQL_NULL; }
    else if (typeof v === "number") { h[out + o++] = SQL_NUMBER; dv.setFloat64(o, v, true); o += 8; }
    else { h[out + o++] = encoded[++i]; put32(v.length); h.set(v, out + o); o += v.length; }
  }
  return out;
}

/** Copies `bytes` into the core buffer `reserve(bytes.length)` returns (an exchange's input); returns their length. */
export function putBytes(core, reserve, bytes) {
  const ptr = reserve(bytes.length);
  if (ptr === 0) throw new Error("core could not allocate an input buffer");
  core.HEAPU8.set(bytes, ptr);
  return bytes.length;
}

// Copies `bytes` into core memory for the duration of `fn(ptr, len)`; returns what fn returns (0 if out of memory).
export function withCoreBytes(core, bytes, fn) {
  const p = core._malloc(Math.max(1, bytes.length));
  if (p === 0) return 0;
  core.HEAPU8.set(bytes, p);
  try { return fn(p, bytes.length); } finally { core._free(p); }
}

export function serverFor(core, engine) {
  let server = core.servers.get(engine);
  if (server === undefined) {
    const bytes = encoder.encode(engineDescription(engine));
    const ptr = core._malloc(bytes.length);
    core.HEAPU8.set(bytes, ptr);
    server = core._sw_server_new(ptr, bytes.length);
    core._free(ptr);
    if (server === 0) {
      console.error("[sandbox-workers] invalid Engine:", cString(core, core._sw_last_error()));
    } else {
      core.enginesByServer.set(server, engine);
      if (engine.builtin) {
        try {
          core.importStubs.set(server, importStubsOf(core, engine.builtin));
        } catch (error) {
          console.error("[sandbox-workers] invalid Engine:", error.message);
        }
      }
      // A built-in engine's /stdlib archive: copied into the core once per isolate and server.
      if (engine.builtin && engine.stdlib && !withCoreBytes(core, new Uint8Array(engine.stdlib),
        (p, n) => core._sw_builtin_set_stdlib(server, p, n))) {
        console.error("[sandbox-workers] invalid Engine: engine.stdlib is not a stored zip or tar archive");
      }
      // A module stripped of its data segments carries a sw.nodata section (docs/boot-images.md): the core then starts
      // it only from the boot image taken with its id. Passed before the image.
      const nodata = engine.builtin && engine.module instanceof WebAssembly.Module ?
        WebAssembly.Module.customSections(engine.module, "sw.nodata") : [];
      for (const section of nodata) {
        if (!withCoreBytes(core, new Uint8Array(section), (p, n) => core._sw_builtin_set_module_nodata(server, p, n))) {
          console.error("[sandbox-workers] invalid Engine: engine.module's sw.nodata section is malformed or repeated");
        }
      }
      // Its boot image (docs/boot-images.md): instances start from it instead of booting. An Engine written in
      // JavaScript declares one with its `module` (docs/engine-authors.md, "A boot image").
      const hasImage = Boolean(engine.bootImage) && (Boolean(engine.builtin) || engine.module instanceof WebAssembly.Module);
      let imageUsed = 0;
      if (hasImage) {
        const bytes = new Uint8Array(engine.bootImage);
        const p = core._sw_builtin_boot_image_buffer(server, bytes.length); // copied into the core once
        if (p) {
          core.HEAPU8.set(bytes, p);
          imageUsed = core._sw_builtin_set_boot_image(server);
        }
      }
      if (hasImage && !imageUsed) {
        console.warn("[sandbox-workers] engine.bootImage ignored: malformed or from another engine build or module");
      }
      if (imageUsed && !engine.builtin) core.imageModules.add(engine.module);
      if (nodata.length && !imageUsed) {
        console.error("[sandbox-workers] invalid Engine: engine.module has no data segments and no boot image of its " +
          "own (engines/<name>/build/engine-nodata.wasm ships with that build's boot-image.bin); it cannot start");
      }
    }
    core.servers.set(engine, server);
  }
  return server;
}

// An instance the core may move between hosts (the pool): each import WASI does not provide calls the
// options.imports function of the host it is bound to now (binding.extras), or fails as an unknown import does.
function routeExtraImports(core, binding, module, imports) {
  const wasi = makeWasiImports(core, binding);
  for (const imp of WebAssembly.Module.imports(module)) {
    if (imp.kind !== "function" || typeof wasi[imp.module]?.[imp.name] === "function") continue;
    imports[imp.module][imp.name] = (...args) => {
      const fn = binding.extras?.[imp.module]?.[imp.name];
      if (typeof fn !== "function") throw new Error(`Unsupported host capability: ${imp.module}.${imp.name}`);
      return fn(...args);
    };
  }
}

/** The NUL-terminated string at `p` in core memory. */
export function cString(core, p) {
  let end = p;
  while (core.HEAPU8[end] !== 0) end++;
  return decoder.decode(core.HEAPU8.subarray(p, end));
}

/**
 * The one reader of every exchange's next action (a sw_action_view, cpp/abi/abi.def; the Worker's, an Interpreter
 * route's, the Sandbox's, the gateway's). Bodies and header blocks stay in core memory (bodyPtr/bodyLen, headersPtr/
 * headersLen) until used; the short strings are copied out now, as the core reuses them once it is called again.
 */
export function readView(core, view) {
  if (!view) throw new Error("core returned no action");
  const u32 = core.HEAPU32;
  const field = (offset) => u32[(view + offset) >>> 2];
  const text = (ptr, len) => (len === 0 ? "" : decoder.decode(core.HEAPU8.subarray(ptr, ptr + len)));
  return {
    kind: field(ActionView.kind),
    status: field(ActionView.status),
    bodyPtr: field(ActionView.body_ptr),
    bodyLen: field(ActionView.body_len),
    headersPtr: field(ActionView.headers_ptr),
    headersLen: field(ActionView.headers_len),
    target: text(field(ActionView.target_ptr), field(ActionView.target_len)),
    path: text(field(ActionView.path_ptr), field(ActionView.path_len)),
    method: text(field(ActionView.method_ptr), field(ActionView.method_len)),
    limit: field(ActionView.limit),
  };
}

/** A copy of the action's body bytes (an outgoing request's), out of core memory. */
export function actionBody(core, action) {
  return core.HEAPU8.slice(action.bodyPtr, action.bodyPtr + action.bodyLen);
}

// The core sends very few distinct header blocks; parse each once.
const headerBlockCache = new Map();

/** The [name, value] pairs of the "name: value\r\n" block at `ptr` in core memory (every exchange's header block). */
export function headerPairs(core, ptr, len) {
  if (len === 0) return [];
  const block = decoder.decode(core.HEAPU8.subarray(ptr, ptr + len));
  let pairs = headerBlockCache.get(block);
  if (pairs === undefined) {
    pairs = [];
    for (const line of block.split("\r\n")) {
      const colon = line.indexOf(": ");
      if (colon > 0) pairs.push([line.slice(0, colon), line.slice(colon + 2)]);
    }
    if (headerBlockCache.size < 64) headerBlockCache.set(block, pairs);
  }
  return pairs;
}

export function toResponse(core, action) {
  const body = action.bodyLen === 0 ? null : core.HEAPU8.slice(action.bodyPtr, action.bodyPtr + action.bodyLen);
  return new Response(body, { status: action.status, headers: headerPairs(core, action.headersPtr, action.headersLen) });
}

function headBlock(request) {
  let block = "";
  for (const [name, value] of request.headers) block += `${name}: ${value}\r\n`;
  return block;
}

// Encodes `text` straight into the core buffer `reserve(maxBytes)` returns (an exchange's input); returns its UTF-8
// byte length.
function encodeInto(core, reserve, text) {
  const max = text.length * 3;
  const ptr = reserve(max);
  if (ptr === 0) throw new Error("core could not allocate an input buffer");
  return encoder.encodeInto(text, core.HEAPU8.subarray(ptr, ptr + max)).written;
}

/**
 * Copies the request head into the core buffer `reserve(maxBytes)` returns — method, URL, then a "name: value\r\n"
 * header block — and returns their byte lengths, for sw_exchange_start and sw_do_exchange_start.
 */
export function copyHead(core, request, reserve) {
  // The method and URL are ASCII (Fetch normalizes them), so their UTF-8 length is their string length.
  const { method, url } = request;
  const written = encodeInto(core, reserve, method + url + headBlock(request));
  return [method.length, url.length, written - method.length - url.length];
}

// Reads at most `capacity` bytes of `body` (the core's limit + 1, so a body over the limit shows without being read
// whole), handing each piece to put(bytes, offset). Returns how many bytes were read.
// cancelRest: cancel the stream once `capacity` bytes arrived (a client upload: stop receiving it). A Durable Object
// leaves a forwarded body alone instead: cancelling it fails the caller's stub.fetch ("Network connection lost").
async function readAtMost(body, capacity, put, { cancelRest }) {
  const reader = body.getReader();
  let n = 0;
  try {
    while (n < capacity) {
      const { done, value } = await reader.read();
      if (done) break;
      const take = Math.min(value.byteLength, capacity - n);
      put(take === value.byteLength ? value : value.subarray(0, take), n);
      n += take;
    }
  } finally {
    if (n >= capacity && cancelRest) reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  return n;
}

/** Copies the body into the core's buffer at `ptr`: at most `capacity` bytes, as the core's action says. */
export function readBodyInto(core, body, ptr, capacity, { cancelRest = true } = {}) {
  // HEAPU8 is read per piece: another request may grow the core's memory while this one awaits.
  return readAtMost(body, capacity, (bytes, at) => core.HEAPU8.set(bytes, ptr + at), { cancelRest });
}

/** At most `capacity` bytes of an answer's body (`body` may be null), the rest cancelled: for the core to judge. */
export async function readCapped(body, capacity) {
  if (!body) return new Uint8Array(0);
  const chunks = []; // kept as they come: the cap may be MiBs, the answer is usually small
  const n = await readAtMost(body, capacity, (bytes) => chunks.push(bytes), { cancelRest: true });
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * The one loop of every exchange the shim drives (the Worker's, the Interpreter's routes, the Sandbox's, the
 * gateway's): read the action the core published at `view` with `readAction`, run the handler of its kind, and go on
 * with the view the handler's call into the core returned (a number), until a handler answers anything else — the
 * Response. A handler that needs no await answers synchronously, and the loop then does not await either.
 */
export async function pump(core, view, readAction, handlers) {
  for (;;) {
    const action = readAction(core, view);
    const handler = handlers[action.kind];
    if (handler === undefined) throw new Error(`unexpected core action ${action.kind}`);
    let next = handler(action);
    if (typeof next?.then === "function") next = await next;
    if (typeof next !== "number") return next;
    view = next;
  }
}

/**
 * The READ_BODY handler every exchange shares: copies at most the action's capacity of `body` (none when null) into
 * the core, then answers `received(n)`, or `failed()` when reading threw; both call the core and return its next view.
 */
export function bodyReader(core, body, received, failed, options = undefined) {
  return async (action) => {
    let n;
    try {
      n = body ? await readBodyInto(core, body, action.bodyPtr, action.bodyLen, options) : 0;
    } catch {
      return failed();
    }
    return received(n);
  };
}

// Encodes `text` straight into the exchange's input buffer; returns the UTF-8 byte length.
function copyIn(core, exchange, text) {
  return encodeInto(core, (max) => core._sw_exchange_input(exchange, max), text);
}

function isLimitError(error) {
  return error instanceof ExecutionLimitError || error?.name === "ExecutionLimitError";
}

function reportThrow(core, exchange, error) {
  const hasMessage = error instanceof Error || (typeof error?.message === "string" && isLimitError(error));
  const len = hasMessage ? copyIn(core, exchange, String(error.message)) : 0;
  const flags = (isLimitError(error) ? ENGINE_THREW_LIMIT : 0) | (hasMessage ? ENGINE_THREW_MESSAGE : 0);
  return core._sw_exchange_engine_threw(exchange, flags, len);
}

function reportOutcome(core, exchange, outcome) {
  let text;
  try {
    text = JSON.stringify(outcome ?? null);
  } catch (error) {
    return core._sw_exchange_engine_unserializable(exchange, copyIn(core, exchange, `${error?.message ?? error}`));
  }
  return core._sw_exchange_engine_finished(exchange, copyIn(core, exchange, text));
}

// Hands the engine's answer to the core: synchronously for a synchronous engine, else once its promise settles.
function settleEngine(core, exchange) {
  const run = core.pendingRuns.get(exchange);
  core.pendingRuns.delete(exchange);
  if (run === undefined) return reportThrow(core, exchange, new Error("the core did not start the engine"));
  if ("promise" in run) {
    return run.promise.then(
      (outcome) => reportOutcome(core, exchange, outcome),
      (error) => reportThrow(core, exchange, error),
    );
  }
  if ("error" in run) return reportThrow(core, exchange, run.error);
  return reportOutcome(core, exchange, run.value);
}

async function forward(core, exchange, action, request, env) {
  const { target: key, path } = action;
  const headers = new Headers(request.headers);
  for (const [name, value] of headerPairs(core, action.headersPtr, action.headersLen)) headers.set(name, value);
  const method = request.method;
  let body;
  if (method !== "GET" && method !== "HEAD" && request.body) {
    // At most the core's limit + 1 bytes: the Interpreter answers 413 for more, and a hostile body of any size is
    // never buffered whole.
    const capacity = action.limit + 1;
    const buffer = new Uint8Array(capacity);
    let n;
    try {
      n = await readAtMost(request.body, capacity, (bytes, at) => buffer.set(bytes, at), { cancelRest: false });
    } catch {
      return toResponse(core, readView(core, core._sw_exchange_body_failed(exchange))); // the core's 400
    }
    body = buffer.subarray(0, n);
    // The body is re-sent as a buffer: its framing headers describe the client's upload, not this request.
    headers.delete("content-length");
    headers.delete("transfer-encoding");
  }
  const stub = env.INTERPRETER.get(env.INTERPRETER.idFromName(key));
  return stub.fetch(new Request(`https://interpreter.internal${path}`, { method, headers, body }));
}

export async function fallbackResponse() {
  try {
    const core = await getCore();
    return toResponse(core, readView(core, core._sw_fallback_response()));
  } catch {
    discardCore();
    return new Response(FAILURE_MESSAGE, { status: FAILURE_STATUS }); // no core could say it
  }
}

// After a response of a built-in engine went out: let the core boot the next request's instance, off the critical
// path (ctx.waitUntil keeps the isolate working on it; the timer lets the response leave first).
export function prepareSpare(core, server, ctx) {
  if (typeof ctx?.waitUntil !== "function") return;
  ctx.waitUntil(
    new Promise((resolve) => {
      setTimeout(() => {
        try {
          if (getCore.instance === core) core._sw_builtin_prepare_spare(server);
        } catch (error) {
          console.error("[sandbox-workers] preparing an engine instance failed:", error);
        }
        if (core.coreCorrupted && getCore.instance === core) discardCore();
        resolve();
      }, 0);
    }),
  );
}

/** Serves one HTTP request for `engine` through the core. `ctx` (optional): the ExecutionContext, for waitUntil. */
export async function handleRequest(engine, request, env, ctx) {
  const core = await getCore();
  const server = serverFor(core, engine);
  if (server === 0) return fallbackResponse();
  const exchange = core._sw_exchange_new(server);
  if (exchange === 0) return fallbackResponse();
  try {
    const head = copyHead(core, request, (max) => core._sw_exchange_input(exchange, max));
    const hasInterpreter = env?.INTERPRETER != null ? 1 : 0;
    return await pump(core, core._sw_exchange_start(exchange, ...head, request.body ? 1 : 0, hasInterpreter), readView, {
      [ACTION_RESPOND]: (action) => {
        if (core.coreCorrupted) throw new Error("the core failed inside a guest call");
        if (engine?.builtin) prepareSpare(core, server, ctx);
        return toResponse(core, action);
      },
      [ACTION_READ_BODY]: bodyReader(core, request.body, (n) => core._sw_exchange_body_received(exchange, n),
        () => core._sw_exchange_body_failed(exchange)),
      [ACTION_AWAIT_ENGINE]: () => settleEngine(core, exchange),
      [ACTION_FORWARD]: (action) => forward(core, exchange, action, request, env),
    });
  } catch (error) {
    // A trap (or a shim bug): the core's state is suspect, so start over with a fresh instance.
    console.error("[sandbox-workers] core failure:", error);
    core.pendingRuns.delete(exchange);
    // So is a core that failed inside a guest call (core.coreCorrupted, set by wasmify_bridge.js).
    if (error instanceof WebAssembly.RuntimeError || core.coreCorrupted) {
      discardCore();
      return fallbackResponse();
    }
    try {
      return toResponse(core, readView(core, core._sw_exchange_fail(exchange)));
    } catch {
      discardCore();
      return fallbackResponse();
    }
  } finally {
    if (getCore.instance === core) core._sw_exchange_free(exchange);
  }
}

/** Thrown by an Engine for a resource limit (fuel, output, result). */
export class ExecutionLimitError extends Error {
  constructor(message = "Execution limit exceeded") {
    super(message);
    this.name = "ExecutionLimitError";
  }
}
