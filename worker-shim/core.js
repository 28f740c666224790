// Loads the C++ core (one Emscripten module per isolate) and marshals calls into it. No protocol rules live here:
// the core decides every status, header and body; this file only moves bytes and awaits what the core asks for.
import createCore from "./generated/core.mjs";
import coreWasm from "./generated/core.wasm";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// Action kinds (cpp/server/server.h ActionKind, plus AwaitEngine from cpp/core/core.h).
const RESPOND = 1;
const READ_BODY = 2;
const FORWARD = 4;
const AWAIT_ENGINE = 5;

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
    servers: new Map(), // engine object -> server handle
    enginesByServer: new Map(), // server handle -> engine object
    pendingRuns: new Map(), // exchange handle -> promise of the engine's outcome
    hostEngineRun(server, exchange, payloadPtr, payloadLen) {
      const engine = this.enginesByServer.get(server);
      let run;
      try {
        const text = decoder.decode(this.HEAPU8.subarray(payloadPtr, payloadPtr + payloadLen));
        run = Promise.resolve(engine.run(JSON.parse(text)));
      } catch (error) {
        run = Promise.reject(error);
      }
      run.catch(() => {}); // settled by the exchange loop; never an unhandled rejection
      this.pendingRuns.set(exchange, run);
    },
    print: (line) => console.log("[core]", line),
    printErr: (line) => console.error("[core]", line),
  });
}

/** The core instance for this isolate (created once, recreated after a trap). */
export async function getCore() {
  if (!corePromise) corePromise = loadCore().then((core) => (getCore.instance = core));
  return corePromise;
}

/** Drops a core that trapped: its memory can no longer be trusted. */
function discardCore() {
  corePromise = null;
  getCore.instance = null;
}

function engineDescription(engine) {
  const { language, engineName, build, limits } = engine ?? {};
  return JSON.stringify({ language, engineName, build, limits, sessions: Boolean(engine?.sessions) });
}

function serverFor(core, engine) {
  let server = core.servers.get(engine);
  if (server === undefined) {
    const bytes = encoder.encode(engineDescription(engine));
    const ptr = core._malloc(bytes.length);
    core.HEAPU8.set(bytes, ptr);
    server = core._sw_server_new(ptr, bytes.length);
    core._free(ptr);
    if (server === 0) {
      const p = core._sw_last_error();
      let end = p;
      while (core.HEAPU8[end] !== 0) end++;
      console.error("[sandbox-workers] invalid Engine:", decoder.decode(core.HEAPU8.subarray(p, end)));
    } else {
      core.enginesByServer.set(server, engine);
    }
    core.servers.set(engine, server);
  }
  return server;
}

function readView(core, view) {
  if (!view) throw new Error("core returned no action");
  const u32 = core.HEAPU32;
  const i = view >>> 2;
  return {
    kind: u32[i],
    status: u32[i + 1],
    bodyPtr: u32[i + 2],
    bodyLen: u32[i + 3],
    headersPtr: u32[i + 4],
    headersLen: u32[i + 5],
    extraPtr: u32[i + 6],
    extraLen: u32[i + 7],
  };
}

function headerPairs(core, ptr, len) {
  const pairs = [];
  if (len === 0) return pairs;
  for (const line of decoder.decode(core.HEAPU8.subarray(ptr, ptr + len)).split("\r\n")) {
    const colon = line.indexOf(": ");
    if (colon > 0) pairs.push([line.slice(0, colon), line.slice(colon + 2)]);
  }
  return pairs;
}

function toResponse(core, action) {
  const body = core.HEAPU8.slice(action.bodyPtr, action.bodyPtr + action.bodyLen);
  return new Response(body, { status: action.status, headers: headerPairs(core, action.headersPtr, action.headersLen) });
}

function headBlock(request) {
  let block = "";
  for (const [name, value] of request.headers) block += `${name}: ${value}\r\n`;
  return block;
}

// Copies the body into the core's buffer, reading at most `capacity` bytes (the core's limit + 1).
async function readBodyInto(core, body, ptr, capacity) {
  const reader = body.getReader();
  let n = 0;
  try {
    while (n < capacity) {
      const { done, value } = await reader.read();
      if (done) break;
      const take = Math.min(value.byteLength, capacity - n);
      core.HEAPU8.set(take === value.byteLength ? value : value.subarray(0, take), ptr + n);
      n += take;
    }
  } finally {
    if (n >= capacity) reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  return n;
}

function copyIn(core, exchange, text) {
  const bytes = encoder.encode(text);
  const ptr = core._sw_exchange_input(exchange, bytes.length);
  if (ptr === 0) throw new Error("core could not allocate an input buffer");
  core.HEAPU8.set(bytes, ptr);
  return bytes.length;
}

function isLimitError(error) {
  return error instanceof ExecutionLimitError || error?.name === "ExecutionLimitError";
}

async function settleEngine(core, exchange) {
  const run = core.pendingRuns.get(exchange);
  core.pendingRuns.delete(exchange);
  let outcome;
  try {
    outcome = await run;
  } catch (error) {
    const hasMessage = error instanceof Error || (typeof error?.message === "string" && isLimitError(error));
    const len = hasMessage ? copyIn(core, exchange, String(error.message)) : 0;
    return core._sw_exchange_engine_threw(exchange, (isLimitError(error) ? 1 : 0) | (hasMessage ? 2 : 0), len);
  }
  let text;
  try {
    text = JSON.stringify(outcome ?? null);
  } catch (error) {
    const len = copyIn(core, exchange, `Engine returned an outcome that cannot be serialized: ${error?.message ?? error}`);
    return core._sw_exchange_engine_threw(exchange, 2, len);
  }
  return core._sw_exchange_engine_finished(exchange, copyIn(core, exchange, text));
}

async function forward(core, action, request, env) {
  const key = decoder.decode(core.HEAPU8.subarray(action.extraPtr, action.extraPtr + action.extraLen));
  const path = decoder.decode(core.HEAPU8.subarray(action.bodyPtr, action.bodyPtr + action.bodyLen));
  const headers = new Headers(request.headers);
  for (const [name, value] of headerPairs(core, action.headersPtr, action.headersLen)) headers.set(name, value);
  const method = request.method;
  const body = method === "GET" || method === "HEAD" ? undefined : await request.arrayBuffer();
  const stub = env.INTERPRETER.get(env.INTERPRETER.idFromName(key));
  return stub.fetch(new Request(`https://interpreter.internal${path}`, { method, headers, body }));
}

async function fallbackResponse() {
  try {
    const core = await getCore();
    return toResponse(core, readView(core, core._sw_fallback_response()));
  } catch {
    discardCore();
    return new Response("Engine execution failed", { status: 502 });
  }
}

/** Serves one HTTP request for `engine` through the core. */
export async function handleRequest(engine, request, env) {
  const core = await getCore();
  const server = serverFor(core, engine);
  if (server === 0) return fallbackResponse();
  const exchange = core._sw_exchange_new(server);
  if (exchange === 0) return fallbackResponse();
  try {
    const method = encoder.encode(request.method);
    const url = encoder.encode(request.url);
    const headers = encoder.encode(headBlock(request));
    const ptr = core._sw_exchange_input(exchange, method.length + url.length + headers.length);
    core.HEAPU8.set(method, ptr);
    core.HEAPU8.set(url, ptr + method.length);
    core.HEAPU8.set(headers, ptr + method.length + url.length);
    const hasInterpreter = env?.INTERPRETER != null ? 1 : 0;
    let view = core._sw_exchange_start(exchange, method.length, url.length, headers.length, request.body ? 1 : 0, hasInterpreter);
    for (;;) {
      const action = readView(core, view);
      switch (action.kind) {
        case RESPOND:
          return toResponse(core, action);
        case READ_BODY: {
          let n;
          try {
            n = await readBodyInto(core, request.body, action.bodyPtr, action.bodyLen);
          } catch {
            view = core._sw_exchange_body_failed(exchange);
            break;
          }
          view = core._sw_exchange_body_received(exchange, n);
          break;
        }
        case AWAIT_ENGINE:
          view = await settleEngine(core, exchange);
          break;
        case FORWARD:
          return await forward(core, action, request, env);
        default:
          throw new Error(`unknown core action ${action.kind}`);
      }
    }
  } catch (error) {
    // A trap (or a shim bug): the core's state is suspect, so start over with a fresh instance.
    console.error("[sandbox-workers] core failure:", error);
    core.pendingRuns.delete(exchange);
    if (error instanceof WebAssembly.RuntimeError) {
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
