// The Playground's Limiter Durable Object: one per client key (idFromName), holding that client's counters in its own
// SQLite. Marshalling only: the request's body goes into the core, whose gateway::Limiter (cpp/gateway/limits.h)
// decides and records over ctx.storage (through core.js's SQL and alarm imports); its answer is sent back as is.
import { DurableObject } from "cloudflare:workers";
import { getCore, discardCore, fallbackResponse } from "../worker-shim/core.js";
import { ByteSpan } from "../worker-shim/generated/abi.mjs";

let nextStorageId = 2_000_000; // apart from interpreter.js's and sandbox.js's ids: all share one core's storages map

const released = new FinalizationRegistry(({ core, handle, storageId }) => {
  try {
    core.storages.delete(storageId);
    if (getCore.instance === core) core._sw_limiter_free(handle);
  } catch {
    // the core was replaced meanwhile: its memory went with it
  }
});

export class Limiter extends DurableObject {
  #core = null;
  #handle = 0;
  #storageId = nextStorageId++;

  async #limiter() {
    const core = await getCore();
    if (this.#core === core && this.#handle !== 0) return core;
    // First use, or the core was replaced after a trap: a new Limiter over the same storage.
    released.unregister(this);
    this.#core = core;
    core.storages.set(this.#storageId, this.ctx.storage);
    this.#handle = core._sw_limiter_new(this.#storageId);
    if (this.#handle === 0) throw new Error("the Limiter could not start");
    released.register(this, { core, handle: this.#handle, storageId: this.#storageId }, this);
    return core;
  }

  #failed(error) {
    console.error("[sandbox-workers] Limiter failure:", error);
    if (error instanceof WebAssembly.RuntimeError) {
      discardCore();
      this.#core = null;
      this.#handle = 0;
    }
    return fallbackResponse();
  }

  async fetch(request) {
    try {
      const body = new Uint8Array(await request.arrayBuffer()); // only the gateway reaches it: its own small JSON
      const core = await this.#limiter();
      const ptr = core._sw_limiter_input(this.#handle, body.length);
      if (ptr === 0) throw new Error("the core could not allocate an input buffer");
      core.HEAPU8.set(body, ptr);
      const span = core._sw_limiter_admit(this.#handle, body.length);
      if (span === 0) return fallbackResponse();
      const p = core.HEAPU32[(span + ByteSpan.ptr) >>> 2];
      const len = core.HEAPU32[(span + ByteSpan.len) >>> 2];
      return new Response(core.HEAPU8.slice(p, p + len), { headers: { "content-type": "application/json" } });
    } catch (error) {
      return this.#failed(error);
    }
  }

  async alarm() {
    try {
      const core = await this.#limiter();
      if (core._sw_limiter_alarm(this.#handle) === 0) throw new Error("the Limiter's alarm failed");
    } catch (error) {
      this.#failed(error);
    }
  }
}
