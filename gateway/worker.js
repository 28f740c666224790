// The Playground gateway Worker (protocol §8): one Service Binding per runtime Worker (each language's manifest names
// it; build/gateway/wrangler.jsonc), its own Sandbox Durable Object, and the page as static assets. Every route, check and cap is C++
// (cpp/gateway, in the same core module as the runtime Workers'); this file only carries out what the core asks for.
import {
  getCore,
  discardCore,
  readView,
  actionBody,
  toResponse,
  copyHead,
  putBytes,
  headerPairs,
  readCapped,
  pump,
  bodyReader,
  fallbackResponse,
} from "../worker-shim/core.js";
import {
  ACTION_RESPOND,
  ACTION_READ_BODY,
  GW_FETCH,
  GW_RELAY,
  GW_SANDBOX,
  GW_ASSET,
  GW_LIMIT,
} from "../worker-shim/generated/abi.mjs";

// The gateway's own Sandbox Durable Object (binding SANDBOX): the caller side of code contexts and workspace files.
export { Sandbox } from "../worker-shim/sandbox.js";
// The per-client counters (binding LIMITER): one Durable Object per client key; cpp/gateway/limits.h decides.
export { Limiter } from "./limiter.js";

const encoder = new TextEncoder();
const ASSET = Symbol("serve the request from env.ASSETS");

// The Worker's string vars, for the core to read its settings from (which ones matter is the core's business).
const varsOf = (env) =>
  encoder.encode(JSON.stringify(Object.fromEntries(Object.entries(env ?? {}).filter(([, v]) => typeof v === "string"))));

// An outgoing request's body and headers, out of core memory.
function readAction(core, view) {
  const action = readView(core, view);
  action.body = action.kind === ACTION_READ_BODY ? null : actionBody(core, action);
  action.headers = headerPairs(core, action.headersPtr, action.headersLen);
  return action;
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
    const input = (len) => core._sw_gateway_exchange_input(exchange, len);
    putBytes(core, input, vars);
    if (core._sw_gateway_exchange_configure(exchange, vars.length) === 0) throw new Error("core refused the vars");
    const head = copyHead(core, request, input);
    // FETCH, and LIMIT (the Limiter Durable Object named by the client key the core chose): the answer goes back to
    // the core, at most `limit` + 1 bytes of it.
    const fetchInto = async (action, target) => {
      let status;
      let answer;
      try {
        const response = await target().fetch(outgoing(action));
        status = response.status;
        answer = await readCapped(response.body, action.limit + 1);
      } catch {
        return core._sw_gateway_fetch_failed(exchange);
      }
      return core._sw_gateway_fetched(exchange, status, putBytes(core, input, answer));
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
    const answer = await pump(core, start, readAction, {
      [ACTION_RESPOND]: (action) => toResponse(core, action),
      [ACTION_READ_BODY]: bodyReader(core, request.body, (n) => core._sw_gateway_body_received(exchange, n),
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
      return toResponse(core, readView(core, core._sw_gateway_fail(exchange))); // the core's 502
    } catch {
      discardCore();
      return fallbackResponse();
    }
  } finally {
    if (getCore.instance === core) core._sw_gateway_exchange_free(exchange);
  }
}

export default {
  fetch: (request, env) => handle(request, env),
};
