// The Playground gateway Worker (protocol §8): one Service Binding per runtime Worker (each language's manifest names
// it; build/gateway/wrangler.jsonc), its own Sandbox Durable Object, and the page as static assets. Every route, check and cap is C++
// (cpp/gateway, in the same core module as the runtime Workers'); this file only carries out what the core asks for.
import { getCore, discardCore, copyHead, readBodyInto, fallbackResponse } from "../worker-shim/core.js";
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

// The Worker's string vars, for the core to read its settings from (which ones matter is the core's business).
const varsOf = (env) =>
  encoder.encode(JSON.stringify(Object.fromEntries(Object.entries(env ?? {}).filter(([, v]) => typeof v === "string"))));

function readView(core, view) {
  if (!view) throw new Error("core returned no action");
  const u32 = core.HEAPU32;
  const field = (offset) => u32[(view + offset) >>> 2];
  const bytes = (ptr, len) => core.HEAPU8.slice(ptr, ptr + len); // copied: the core may reuse them
  const text = (ptr, len) => decoder.decode(core.HEAPU8.subarray(ptr, ptr + len));
  const headers = [];
  const block = text(field(GatewayView.headers_ptr), field(GatewayView.headers_len));
  for (const line of block.split("\r\n")) {
    const colon = line.indexOf(": ");
    if (colon > 0) headers.push([line.slice(0, colon), line.slice(colon + 2)]);
  }
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

// At most `limit` bytes of a response body (the core refuses more).
async function readAnswer(response, limit) {
  if (!response.body) return new Uint8Array(0);
  const buffer = new Uint8Array(limit);
  const reader = response.body.getReader();
  let n = 0;
  try {
    while (n < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      const take = Math.min(value.byteLength, limit - n);
      buffer.set(value.subarray(0, take), n);
      n += take;
    }
  } finally {
    if (n >= limit) reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  return buffer.subarray(0, n);
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
    let view = core._sw_gateway_exchange_start(exchange, ...head, request.body ? 1 : 0, env.ASSETS ? 1 : 0);
    for (;;) {
      const action = readView(core, view);
      switch (action.kind) {
        case GW_RESPOND:
          return toResponse(action);
        case GW_READ_BODY: {
          let n;
          try {
            n = await readBodyInto(core, request.body, action.bodyPtr, action.bodyLen);
          } catch {
            view = core._sw_gateway_body_failed(exchange);
            break;
          }
          view = core._sw_gateway_body_received(exchange, n);
          break;
        }
        case GW_FETCH:
        case GW_LIMIT: {
          let status;
          let answer;
          try {
            // LIMIT: the Limiter Durable Object named by the client key the core chose.
            const target = action.kind === GW_LIMIT ? env.LIMITER.get(env.LIMITER.idFromName(action.target)) : env[action.target];
            const response = await target.fetch(outgoing(action));
            status = response.status;
            answer = await readAnswer(response, action.status + 1);
          } catch {
            view = core._sw_gateway_fetch_failed(exchange);
            break;
          }
          const ptr = core._sw_gateway_exchange_input(exchange, answer.length);
          if (ptr === 0) throw new Error("core could not allocate an input buffer");
          core.HEAPU8.set(answer, ptr);
          view = core._sw_gateway_fetched(exchange, status, answer.length);
          break;
        }
        case GW_RELAY:
          try {
            return await env[action.target].fetch(outgoing(action));
          } catch {
            view = core._sw_gateway_fetch_failed(exchange);
            break;
          }
        case GW_SANDBOX:
          try {
            const stub = env.SANDBOX.get(env.SANDBOX.idFromName(action.target));
            return await stub.fetch(outgoing(action, clientHeaders(request)));
          } catch {
            view = core._sw_gateway_fetch_failed(exchange);
            break;
          }
        case GW_ASSET:
          return env.ASSETS.fetch(request);
        default:
          throw new Error(`unknown gateway action ${action.kind}`);
      }
    }
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
