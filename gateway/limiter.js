// The Playground's Limiter Durable Object: one per client key (idFromName), holding that client's counters in its own
// SQLite. Marshalling only: the request's body goes into the core, whose gateway::Limiter (cpp/gateway/limits.h)
// decides and records over ctx.storage (through core.js's SQL and alarm imports); its answer is sent back as is.
// Its core-side object is kept like the Interpreter's and the Sandbox's (worker-shim/durable.js: made on first use and
// again after a trap, storage registered, freed when collected), and its calls run one at a time, so two first calls
// cannot each make one.
import { DurableObject } from "cloudflare:workers";
import { fallbackResponse } from "../worker-shim/core.js";
import { DurableHost } from "../worker-shim/durable.js";
import { ByteSpan } from "../worker-shim/generated/abi.mjs";

class LimiterHost extends DurableHost {
  constructor(ctx, env) {
    super(ctx, env, { name: "Limiter", free: "_sw_limiter_free" });
  }

  create(core, storageId) {
    return core._sw_limiter_new(storageId);
  }

  async fetch(request) {
    let body;
    try {
      body = new Uint8Array(await request.arrayBuffer()); // only the gateway reaches it: its own small JSON
    } catch (error) {
      this.failed(error);
      return fallbackResponse();
    }
    return this.serial(async () => {
      try {
        const core = await this.bound();
        const ptr = core._sw_limiter_input(this.handle, body.length);
        if (ptr === 0) throw new Error("the core could not allocate an input buffer");
        core.HEAPU8.set(body, ptr);
        const span = core._sw_limiter_admit(this.handle, body.length);
        if (span === 0) return fallbackResponse();
        const p = core.HEAPU32[(span + ByteSpan.ptr) >>> 2];
        const len = core.HEAPU32[(span + ByteSpan.len) >>> 2];
        return new Response(core.HEAPU8.slice(p, p + len), { headers: { "content-type": "application/json" } });
      } catch (error) {
        this.failed(error);
        return fallbackResponse();
      }
    });
  }

  alarm() {
    return this.serial(async () => {
      try {
        const core = await this.bound();
        if (core._sw_limiter_alarm(this.handle) === 0) throw new Error("the Limiter's alarm failed");
      } catch (error) {
        this.failed(error);
      }
    });
  }
}

export class Limiter extends DurableObject {
  #host;

  constructor(ctx, env) {
    super(ctx, env);
    this.#host = new LimiterHost(ctx, env);
  }

  fetch(request) {
    return this.#host.fetch(request);
  }

  alarm() {
    return this.#host.alarm();
  }
}
