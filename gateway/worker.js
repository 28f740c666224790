// The Playground gateway Worker (protocol §8): one Service Binding per runtime Worker (each language's manifest names
// it; build/gateway/wrangler.jsonc), its own Sandbox Durable Object, and the page as static assets. Every route, check and cap is C++
// (cpp/gateway, in the same core module as the runtime Workers'); this file only carries out what the core asks for.
import {
  getCore,
  discardCore,
  copyHead,
  headerPairs,
  readCapped,
  pump,
  bodyReader,
  fallbackResponse,
} from "../worker-shim/core.js";
import {
  GW_RESPOND,
  GW_READ_BODY,
  GW_FETCH,
  GW_RELAY,
  GW_SANDBOX,
  GW_ASSET,
  GW_LIMIT,
  GatewayView,
} from "../worker-shim/generated/abi.mjs";

// The gateway's own Sandbox Durable Object (binding SANDBOX): the caller side of code contexts and workspace files.
export { Sandbox } from "../worker-shim/sandbox.js";
// The per-client counters (binding LIMITER): one Durable Object per client key; cpp/gateway/limits.h decides.
export { Limiter } from "./limiter.js";

const decoder = new TextDecoder();
const encoder = new TextEncoder();
const ASSET = Symbol("serve the request from env.ASSETS");

// The Worker's string vars, for the core to read its settings from (which ones matter is the core's business).
const varsOf = (env) =>
  encoder.encode(JSON.stringify(Object.fromEntries(Object.entries(env ?? {}).filter(([, v]) => typeof v === "string"))));

function readView(core, view) {
  if (!view) throw new Error("core returned no action");
  const u32 = core.HEAPU32;
  const field = (offset) => u32[(view + offset) >>> 2];
  const bytes = (ptr, len) => core.HEAPU8.slice(ptr, ptr + len); // copied: the core may reuse them
  const text = (ptr, len) => decoder.decode(core.HEAPU8.subarray(ptr, ptr + len));
  const headers = headerPairs(core, field(GatewayView.headers_ptr), field(GatewayView.headers_len));
  const kind = field(GatewayView.kind);
  const bodyPtr = field(GatewayView.body_ptr);
  const bodyLen = field(GatewayView.body_len);
  return {
    kind,
    status: field(GatewayView.status),
    bodyPtr,
    bodyLen,
    body: kind === GW_READ_BODY ? null : bytes(bodyPtr, bodyLen),
    headers,
    target: text(field(GatewayView.target_ptr), field(GatewayView.target_len)),
    path: text(field(GatewayView.path_ptr), field(GatewayView.path_len)),
    method: text(field(GatewayView.method_ptr), field(GatewayView.method_len)),
  };
}

// The request the core described, to a runtime binding or the Sandbox. `base`: headers to start from.
function outgoing(action, base) {
  const headers = new Headers(base);
  for (const [name, value] of action.headers) headers.set(name, value);
  const hasBody = action.method !== "GET" && action.method !== "HEAD" && action.method !== "DELETE";
  return new Request(`https://sandbox.internal${action.path}`, {
    method: action.method,
    headers,
    body: hasBody && action.body.length > 0 ? action.body : undefined,
  });
}

// The client's headers minus what described its own upload (the body is re-sent as a buffer).
function clientHeaders(request) {
  const headers = new Headers(request.headers);
  for (const name of ["content-length", "transfer-encoding", "host"]) headers.delete(name);
  return headers;
}

async function handle(request, env) {
  const core = await getCore();
  const exchange = core._sw_gateway_exchange_new();
  if (exchange === 0) return fallbackResponse();
  try {
    const vars = varsOf(env);
    const varsPtr = core._sw_gateway_exchange_input(exchange, vars.length);
    if (varsPtr === 0) throw new Error("core could not allocate an input buffer");
    core.HEAPU8.set(vars, varsPtr);
    if (core._sw_gateway_exchange_configure(exchange, vars.length) === 0) throw new Error("core refused the vars");
    const head = copyHead(core, request, (max) => core._sw_gateway_exchange_input(exchange, max));
    // FETCH, and LIMIT (the Limiter Durable Object named by the client key the core chose): the answer goes back to
    // the core, at most `status` + 1 bytes of it.
    const fetchInto = async (action, target) => {
      let status;
      let answer;
      try {
        const response = await target().fetch(outgoing(action));
        status = response.status;
        answer = await readCapped(response.body, action.status + 1);
      } catch {
        return core._sw_gateway_fetch_failed(exchange);
      }
      const ptr = core._sw_gateway_exchange_input(exchange, answer.length);
      if (ptr === 0) throw new Error("core could not allocate an input buffer");
      core.HEAPU8.set(answer, ptr);
      return core._sw_gateway_fetched(exchange, status, answer.length);
    };
    // RELAY and SANDBOX: the answer goes to the client as it is.
    const relay = async (action, target, base) => {
      try {
        return await target().fetch(outgoing(action, base));
      } catch {
        return core._sw_gateway_fetch_failed(exchange);
      }
    };
    const start = core._sw_gateway_exchange_start(exchange, ...head, request.body ? 1 : 0, env.ASSETS ? 1 : 0);
    const answer = await pump(core, start, readView, {
      [GW_RESPOND]: (action) => toResponse(action),
      [GW_READ_BODY]: bodyReader(core, request.body, (n) => core._sw_gateway_body_received(exchange, n),
        () => core._sw_gateway_body_failed(exchange)),
      [GW_FETCH]: (action) => fetchInto(action, () => env[action.target]),
      [GW_LIMIT]: (action) => fetchInto(action, () => env.LIMITER.get(env.LIMITER.idFromName(action.target))),
      [GW_RELAY]: (action) => relay(action, () => env[action.target]),
      [GW_SANDBOX]: (action) => relay(action, () => env.SANDBOX.get(env.SANDBOX.idFromName(action.target)),
        clientHeaders(request)),
      [GW_ASSET]: () => ASSET,
    });
    // The assets' answer is the platform's to give, outside the exchange's failure handling (not awaited here).
    return answer === ASSET ? env.ASSETS.fetch(request) : answer;
  } catch (error) {
    console.error("[sandbox-workers] gateway failure:", error);
    if (error instanceof WebAssembly.RuntimeError) {
      discardCore();
      return fallbackResponse();
    }
    try {
      return respondFrom(core, core._sw_gateway_fail(exchange)); // the core's 502
    } catch {
      discardCore();
      return fallbackResponse();
    }
  } finally {
    if (getCore.instance === core) core._sw_gateway_exchange_free(exchange);
  }
}

function toResponse(action) {
  return new Response(action.body.length ? action.body : null, { status: action.status, headers: action.headers });
}

function respondFrom(core, view) {
  return toResponse(readView(core, view));
}

export default {
  fetch: (request, env) => handle(request, env),
};
