// EngineInstances (./wasi, docs/engine-authors.md "A boot image"): where an Engine written in JavaScript gets its
// guest instances when it declares a boot image (`module` and `bootImage`). The core decides everything
// (cpp/core/js_images.cpp: a parked instance or a new one, the image or the snapshot written, pooled again or dropped
// when the WASI host is closed); this file asks it, hands the engine the instance, and tells the core when a call
// into that instance threw.
import { imageOf, copyPages } from "./js_sessions.js";

const decoder = new TextDecoder();

function coreError(core) {
  const p = core._sw_image_error();
  return decoder.decode(core.HEAPU8.subarray(p, core.HEAPU8.indexOf(0, p)));
}

// The instance the core put under `host`, as the engine sees it until the host is closed: its exports, each function
// reporting a throw to the core (such an instance is never pooled) and refusing calls once the host was closed (the
// instance may be serving another request by then).
function leased(core, host, raw) {
  const lease = { live: true };
  const exports = {};
  for (const [name, value] of Object.entries(raw.exports)) {
    if (typeof value !== "function") {
      exports[name] = value;
      continue;
    }
    exports[name] = (...args) => {
      if (!lease.live) throw new Error("this engine instance went back to the runtime when its WASI host was closed");
      try {
        return value(...args);
      } catch (error) {
        core._sw_image_guest_failed(host);
        throw error;
      }
    };
  }
  (core.leases ??= new Map()).set(host, lease);
  return Object.freeze({ exports: Object.freeze(exports) });
}

function hostOf(core, wasi, what) {
  const host = wasi?.handle;
  if (!host || wasi.core !== core) throw new TypeError(`${what}: expected an open WASI host from createWasi`);
  if (core.guestInstances.has(host)) throw new Error(`${what}: this WASI host already has an instance`);
  return host;
}

/** The EngineInstances of the engine served by `server` (run's second argument, SessionOptions.instances). */
export function engineInstances(core, server) {
  return Object.freeze({
    /**
     * An instance of engine.module under `wasi`, started from engine.bootImage: `{ instance, handle }` (the handle the
     * image's boot returned, a bigint), or null when the engine has no boot image in use (boot one yourself).
     */
    fromImage(wasi) {
      const host = hostOf(core, wasi, "fromImage");
      const status = core._sw_image_start(server, host);
      if (status === 0) return null;
      if (status < 0) throw new Error(coreError(core));
      const raw = core.guestInstances.get(host);
      wasi.bind(raw);
      return { instance: leased(core, host, raw), handle: BigInt.asUintN(64, BigInt(core._sw_image_handle(server))) };
    },
    /**
     * An instance of engine.module under `wasi` whose memory is `source`: `{ instance }`. Nothing of the guest has run;
     * the engine adopts `source.handle`. The SessionSnapshotSource sessions.restore received (or captureMemory's) is
     * written by the core, into a pooled instance or a new one; any other { memoryPages, readPage } is copied here
     * page by page, into a new instance (the core gives it no pooled one).
     */
    restore(wasi, source) {
      const host = hostOf(core, wasi, "restore");
      const served = imageOf(source);
      if (served && !served.live()) throw new Error("restore: this snapshot source is no longer available");
      const image = served?.core === core ? served.image : 0;
      if (core._sw_image_restore(server, host, image) < 0) throw new Error(coreError(core));
      const raw = core.guestInstances.get(host);
      if (image === 0) copyPages(raw.exports.memory, source);
      wasi.bind(raw);
      return { instance: leased(core, host, raw) };
    },
  });
}

/** ./wasi close(): the lease of the host's instance ends, and the core pools or drops the instance. */
export function releaseInstance(core, host) {
  const lease = core.leases?.get(host);
  if (!lease) return;
  lease.live = false;
  core.leases.delete(host);
  core._sw_image_release(host);
}
