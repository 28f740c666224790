// Issue 23: the public Playground's per-client limits, attacked from outside in workerd (the gateway with its real
// Sandbox and Limiter Durable Objects and the JavaScript runtime). A client is its CF-Connecting-IP header, as
// Cloudflare sets it. The windows are an hour long, so nothing here waits or depends on timing; the window's boundary
// is checked with a fake clock in test/unit/test_gateway.cpp.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { assertErrorResponse, assertExecutionResult, wranglerWorker } from "./helpers.mjs";
import { startPlayground, GATEWAY_CONFIG, LOCAL_VARS } from "../playground/harness.mjs";

const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const post = (body, ip) => ({
  method: "POST",
  headers: { "content-type": "application/json", ...(ip ? { "cf-connecting-ip": ip } : {}) },
  body: JSON.stringify(body),
});
const get = (ip) => ({ headers: { "cf-connecting-ip": ip } });

// The gateway's 429: an ErrorResponse whose context names the rule, with Retry-After in whole seconds.
async function assertRefusal(res, message, context, maxRetryAfter) {
  const text = await res.text();
  assert.equal(res.status, 429, `status (body: ${text.slice(0, 300)})`);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  assert.equal(res.headers.get("cache-control"), "no-store");
  const body = JSON.parse(text);
  assert.deepEqual(Object.keys(body), ["code", "message", "context", "httpStatus", "timestamp"]);
  assert.equal(body.code, "VALIDATION_FAILED");
  assert.equal(body.message, message);
  assert.deepEqual(body.context, context);
  assert.equal(body.httpStatus, 429);
  assert.match(body.timestamp, ISO_RE);
  // When a slot frees: within the window (the exact value depends on when the first request was made).
  const retryAfter = res.headers.get("retry-after");
  assert.match(retryAfter, /^\d+$/);
  assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= maxRetryAfter, `retry-after ${retryAfter}`);
}

// The gateway in front of the JavaScript runtime: the deploy config's vars, the local ones, then `vars` over them.
const startWith = (vars) =>
  startPlayground({
    languages: ["javascript"],
    gateway: { bindings: { ...wranglerWorker(GATEWAY_CONFIG).workerOptions.bindings, ...LOCAL_VARS, ...vars } },
  });

const run = async (pg, path, ip, code = "6 * 7") => {
  const r = await assertExecutionResult(await pg.fetch(path, post({ code }, ip)));
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  return r;
};

describe("Playground gateway: per-client rate limit", () => {
  let pg;
  before(async () => {
    pg = await startWith({ PLAYGROUND_RATE_LIMIT: "4", PLAYGROUND_RATE_WINDOW_SECONDS: "3600" });
  });
  after(() => pg?.dispose());

  it("the 5th request from one client in the window is 429; another client is still served", async () => {
    const a = "203.0.113.7";
    // Refused before the limit (validation) costs nothing: never counted.
    await assertErrorResponse(await pg.fetch("/execute/php", post({ code: "1" }, a)), 400, "Unsupported language: php");
    for (let i = 0; i < 3; i++) assert.deepEqual((await run(pg, "/execute/javascript", a)).results, [{ text: "42" }]);
    // A sandbox request draws on the same budget.
    await run(pg, "/languages/javascript/sandboxes/rate-a/execute", a);
    const limited = "Rate limit exceeded: at most 4 requests per 3600 s from one client";
    const context = { limit: "requests", max: 4, windowSeconds: 3600 };
    await assertRefusal(await pg.fetch("/execute/javascript", post({ code: "1" }, a)), limited, context, 3600);
    await assertRefusal(await pg.fetch("/languages/javascript/sandboxes/rate-a", get(a)), limited, context, 3600);
    // The page and GET /languages are not limited.
    assert.equal((await pg.fetch("/", get(a))).status, 200);
    assert.equal((await pg.fetch("/languages", get(a))).status, 200);
    // Another client, and the same client's sandbox seen by another client, are served.
    const b = "203.0.113.8";
    assert.deepEqual((await run(pg, "/execute/javascript", b)).results, [{ text: "42" }]);
    await run(pg, "/languages/javascript/sandboxes/rate-a/execute", b);
  });

  it("an IPv6 client is its /64; a CF-Connecting-IP that is not an address is one shared budget", async () => {
    const limited = "Rate limit exceeded: at most 4 requests per 3600 s from one client";
    const context = { limit: "requests", max: 4, windowSeconds: 3600 };
    // Four addresses of one /64 (written four ways) are one client.
    for (const ip of ["2001:db8:1:2::1", "2001:DB8:1:2::2", "2001:0db8:0001:0002:0:0:0:3", "2001:db8:1:2:ffff::4"])
      await run(pg, "/execute/javascript", ip);
    await assertRefusal(await pg.fetch("/execute/javascript", post({ code: "1" }, "2001:db8:1:2::5")), limited, context, 3600);
    await run(pg, "/execute/javascript", "2001:db8:1:3::1"); // the next /64
    // Without the header, Miniflare (like Cloudflare's edge and wrangler dev) sets it from the connection: 127.0.0.1.
    for (let i = 0; i < 4; i++) await run(pg, "/execute/javascript", undefined);
    await assertRefusal(await pg.fetch("/execute/javascript", post({ code: "1" })), limited, context, 3600);
    await assertRefusal(await pg.fetch("/execute/javascript", post({ code: "1" }, "127.0.0.1")), limited, context, 3600);
    // A value that is not an address: every such client shares one key.
    for (const ip of ["not an address", "203.0.113", "unknown", "1.2.3.4.5"]) await run(pg, "/execute/javascript", ip);
    await assertRefusal(await pg.fetch("/execute/javascript", post({ code: "1" }, "garbage")), limited, context, 3600);
  });
});

describe("Playground gateway: per-client cap on sandboxes", () => {
  let pg;
  before(async () => {
    pg = await startWith({
      PLAYGROUND_MAX_SANDBOXES: "2", PLAYGROUND_RATE_LIMIT: "12", PLAYGROUND_RATE_WINDOW_SECONDS: "3600",
    });
  });
  after(() => pg?.dispose());

  it("a client's 3rd sandbox id is 429 while its first two keep working; another client may still create one", async () => {
    const c = "198.51.100.20";
    await run(pg, "/languages/javascript/sandboxes/cap-1/execute", c, "globalThis.n = 41; n");
    const write = await pg.fetch("/languages/javascript/sandboxes/cap-2/files",
      post({ op: "write", path: "/workspace/a.txt", content: "kept" }, c));
    assert.equal(write.status, 200);
    const capped = "Sandbox limit exceeded: at most 2 sandboxes per client; a sandbox counts until it has been idle for 3600 s";
    const context = { limit: "sandboxes", max: 2, idleSeconds: 3600 };
    await assertRefusal(await pg.fetch("/languages/javascript/sandboxes/cap-3/execute", post({ code: "1" }, c)), capped, context, 3600);
    // Every route of a new id is refused (a GET would create the Durable Object too), under any language.
    await assertRefusal(await pg.fetch("/languages/python/sandboxes/cap-3", get(c)), capped, context, 3600);
    await assertRefusal(await pg.fetch("/languages/javascript/sandboxes/cap-4/contexts", post({}, c)), capped, context, 3600);
    // The two it has keep their state and files; one id under another language is the same sandbox.
    assert.deepEqual((await run(pg, "/languages/javascript/sandboxes/cap-1/execute", c, "n + 1")).results, [{ text: "42" }]);
    const read = await pg.fetch("/languages/javascript/sandboxes/cap-2/files", post({ op: "read", path: "/workspace/a.txt" }, c));
    assert.equal(read.status, 200);
    assert.equal((await read.json()).content, "kept");
    assert.equal((await pg.fetch("/languages/python/sandboxes/cap-1", get(c))).status, 200);
    // Stateless runs do not count toward sandboxes.
    await run(pg, "/execute/javascript", c);
    // Another client has its own count.
    const d = "198.51.100.21";
    const info = await (await pg.fetch("/languages/javascript/sandboxes/cap-3", get(d))).json();
    assert.deepEqual([info.id, info.contexts], ["cap-3", []]);
    await run(pg, "/languages/javascript/sandboxes/cap-3/execute", d);
    // The refusals were not counted: c has made 6 admitted requests and 3 refused ones; 6 more reach the rate limit.
    for (let i = 0; i < 6; i++) assert.equal((await pg.fetch("/languages/javascript/sandboxes/cap-1", get(c))).status, 200);
    await assertRefusal(await pg.fetch("/languages/javascript/sandboxes/cap-1", get(c)),
      "Rate limit exceeded: at most 12 requests per 3600 s from one client", { limit: "requests", max: 12, windowSeconds: 3600 }, 3600);
  });
});

describe("Playground gateway: a cap on the sandboxes of all clients together", () => {
  let pg;
  before(async () => {
    pg = await startWith({
      PLAYGROUND_MAX_TOTAL_SANDBOXES: "3", PLAYGROUND_MAX_SANDBOXES: "2",
      PLAYGROUND_RATE_LIMIT: "100", PLAYGROUND_RATE_WINDOW_SECONDS: "3600",
    });
  });
  after(() => pg?.dispose());

  it("a new sandbox id past the total is 429 for every client; sandboxes in use keep their state; refusals cost the client nothing", async () => {
    const [a, b, c] = ["198.51.100.30", "198.51.100.31", "198.51.100.32"];
    await run(pg, "/languages/javascript/sandboxes/all-1/execute", a, "globalThis.n = 1; n");
    await run(pg, "/languages/javascript/sandboxes/all-2/execute", a, "globalThis.n = 2; n");
    await run(pg, "/languages/javascript/sandboxes/all-3/execute", b, "globalThis.n = 3; n");
    const full = "The Playground is full: at most 3 sandboxes in use across all clients; a sandbox counts until it has been idle for 3600 s";
    const context = { limit: "totalSandboxes", max: 3, idleSeconds: 3600 };
    // Three new ids from a client with a per-client cap of 2: each is the total's refusal, so none took one of its slots.
    for (const id of ["all-4", "all-5", "all-6"])
      await assertRefusal(await pg.fetch(`/languages/javascript/sandboxes/${id}/execute`, post({ code: "1" }, c)), full, context, 3600);
    await assertRefusal(await pg.fetch("/languages/javascript/sandboxes/all-4", get(b)), full, context, 3600);
    // The sandboxes in use keep working with their state, also for another client.
    assert.deepEqual((await run(pg, "/languages/javascript/sandboxes/all-1/execute", a, "n + 40")).results, [{ text: "41" }]);
    assert.deepEqual((await run(pg, "/languages/javascript/sandboxes/all-3/execute", b, "n + 40")).results, [{ text: "43" }]);
    assert.deepEqual((await run(pg, "/languages/javascript/sandboxes/all-2/execute", c, "n + 40")).results, [{ text: "42" }]);
    // Stateless runs are not sandboxes.
    await run(pg, "/execute/javascript", c);
  });
});

describe("Playground gateway: limits as deployed (gateway/wrangler.jsonc's own vars)", () => {
  let pg;
  const { workerOptions } = wranglerWorker(GATEWAY_CONFIG);
  before(async () => {
    pg = await startPlayground({ languages: ["javascript"], gateway: { bindings: workerOptions.bindings } });
  });
  after(() => pg?.dispose());

  it("the deploy config turns the limits on (60 requests per 60 s, 5 sandboxes per client, 100 in all); the 6th sandbox is refused", async () => {
    assert.equal(workerOptions.bindings.PLAYGROUND_RATE_LIMIT, "60");
    assert.equal(workerOptions.bindings.PLAYGROUND_RATE_WINDOW_SECONDS, "60");
    assert.equal(workerOptions.bindings.PLAYGROUND_MAX_SANDBOXES, "5");
    assert.equal(workerOptions.bindings.PLAYGROUND_MAX_TOTAL_SANDBOXES, "100");
    assert.equal(workerOptions.bindings.SANDBOX_IDLE_TTL_MS, "3600000");
    assert.equal(workerOptions.durableObjects.LIMITER.className, "Limiter");
    assert.equal(workerOptions.durableObjects.LIMITER.useSQLite, true);
    const e = "192.0.2.50";
    for (let i = 1; i <= 5; i++) assert.equal((await pg.fetch(`/languages/javascript/sandboxes/dep-${i}`, get(e))).status, 200);
    await assertRefusal(await pg.fetch("/languages/javascript/sandboxes/dep-6", get(e)),
      "Sandbox limit exceeded: at most 5 sandboxes per client; a sandbox counts until it has been idle for 3600 s",
      { limit: "sandboxes", max: 5, idleSeconds: 3600 }, 3600);
    assert.equal((await pg.fetch("/languages/javascript/sandboxes/dep-5", get(e))).status, 200);
  });
});

describe("Playground gateway: the limits fail closed", () => {
  it("without its LIMITER binding, execute and the sandbox routes are 502; GET /languages and the page still answer", async () => {
    const pg = await startPlayground({ languages: ["javascript"], gateway: { durableObjects: { SANDBOX: { className: "Sandbox", useSQLite: true } } } });
    try {
      await assertErrorResponse(await pg.fetch("/execute/javascript", post({ code: "1" })), 502, "Engine execution failed", "INTERNAL_ERROR");
      await assertErrorResponse(await pg.fetch("/languages/javascript/sandboxes/x"), 502, "Engine execution failed", "INTERNAL_ERROR");
      assert.equal((await pg.fetch("/languages")).status, 200);
      assert.equal((await pg.fetch("/")).status, 200);
    } finally {
      await pg.dispose();
    }
  });

  it("a limit variable that is not an integer in range is 500 naming it, never a gateway without limits", async () => {
    const bindings = { ...wranglerWorker(GATEWAY_CONFIG).workerOptions.bindings, PLAYGROUND_RATE_LIMIT: "lots" };
    const pg = await startPlayground({ languages: ["javascript"], gateway: { bindings } });
    try {
      await assertErrorResponse(await pg.fetch("/execute/javascript", post({ code: "1" })), 500,
        'Invalid gateway configuration: PLAYGROUND_RATE_LIMIT must be an integer from 0 to 100000 (got "lots")', "INTERNAL_ERROR");
      assert.equal((await pg.fetch("/languages")).status, 200);
    } finally {
      await pg.dispose();
    }
  });
});
