// Sessions of an Engine written in JavaScript (protocol §5.1 `sessions`, §5.2), as the core drives them: the
// sw_host_session_* imports (cpp/core/host_imports.js) land here. Marshalling only: every rule (when to boot, restore,
// snapshot, drop; what a throw or a promise means; which cwd wins) is C++ (cpp/core/js_sessions.cpp, cpp/interp). This
// file calls the engine, reports what JavaScript saw (a value, a throw, a promise) and copies bytes; a promise is kept
// and awaited when the Interpreter's AwaitEngine step asks for it (awaitSession), and its outcome reported the same
// way.
import { bindGuestMemory, unbindGuestMemory } from "./generated/wasi_imports.mjs";
import {
  SESSION_OK,
  SESSION_FAILED,
  SESSION_THREW,
  SESSION_THREW_LIMIT,
  SESSION_PROMISE,
  SESSION_UNSERIALIZABLE,
  SESSION_INVALID,
  ReplyHead,
  ReplyField,
} from "./generated/abi.mjs";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const PAGE_BYTES = 65536;

// SessionOptions.workspace: an opaque handle. Only ./wasi's createWasi can read what it names (a workspace registered
// in the core, cpp/wasi/bridge.h registerWorkspace).
const workspaces = new WeakMap();
class SessionWorkspace {
  toString() {
    return "[SessionWorkspace]";
  }
}

/** The core and workspace id a SessionOptions.workspace handle names, or undefined for anything else. */
export function workspaceOf(handle) {
  return handle !== null && typeof handle === "object" ? workspaces.get(handle) : undefined;
}

// A core-held page image behind a SessionSnapshotSource (the restore's, or ./snapshot's captureMemory): lets
// ./snapshot's restoreMemory copy it inside the core instead of page by page.
const sourceImages = new WeakMap();

/** { core, image, live() } for a source served by the core, else undefined. */
export function imageOf(source) {
  return source !== null && typeof source === "object" ? sourceImages.get(source) : undefined;
}

/** Registers `source` as served by the core's page image `image` (valid while `live()` is true). */
export function registerImage(source, core, image, live) {
  sourceImages.set(source, { core, image, live });
}

/** A SessionSnapshotSource.readPage over the core's page image: a copy of the page, undefined for a zero page. */
export function pageReader(core, image, live) {
  return (page) => {
    if (!live()) throw new Error("readPage: this snapshot source is no longer available");
    const p = core._sw_page_image_page(image, page >>> 0);
    return p === 0 ? undefined : core.HEAPU8.slice(p, p + PAGE_BYTES);
  };
}

/**
 * Copies a SessionSnapshotSource the core does not serve into `memory` page by page (./snapshot restoreMemory's and
 * EngineInstances.restore's fallback, into a new instance): grows it to the source's pages, zeroes its zero pages.
 */
export function copyPages(memory, source) {
  const pages = source.memoryPages >>> 0;
  const have = memory.buffer.byteLength / PAGE_BYTES;
  if (pages > have) memory.grow(pages - have);
  const view = new Uint8Array(memory.buffer);
  for (let page = 0; page < pages; page++) {
    const bytes = source.readPage(page);
    if (bytes) view.set(bytes.subarray(0, PAGE_BYTES), page * PAGE_BYTES);
    else view.fill(0, page * PAGE_BYTES, (page + 1) * PAGE_BYTES);
  }
}

function isThenable(value) {
  return value !== null && (typeof value === "object" || typeof value === "function") && typeof value.then === "function";
}

function messageOf(error) {
  return error instanceof Error || typeof error?.message === "string" ? String(error.message) : "";
}

function isLimit(error) {
  return error?.name === "ExecutionLimitError";
}

// A reply buffer (abi.def sw_reply_head, sw_reply_field; the core decodes it with cpp/abi/reply.h). 0 if out of memory.
export function reply(core, status, fields = []) {
  const encoded = fields.map((f) => encoder.encode(f));
  let size = ReplyHead.BYTES;
  for (const bytes of encoded) size += ReplyField.BYTES + bytes.length;
  const p = core._malloc(size);
  if (p === 0) return 0;
  const dv = new DataView(core.HEAPU8.buffer, p, size);
  dv.setUint32(ReplyHead.bytes, size, true);
  dv.setUint32(ReplyHead.status, status, true);
  dv.setUint32(ReplyHead.count, encoded.length, true);
  let o = ReplyHead.BYTES;
  for (const bytes of encoded) {
    dv.setUint32(o + ReplyField.len, bytes.length, true);
    core.HEAPU8.set(bytes, p + o + ReplyField.BYTES);
    o += ReplyField.BYTES + bytes.length;
  }
  return p;
}

function text(core, ptr, len) {
  return decoder.decode(core.HEAPU8.subarray(ptr, ptr + len));
}

// A call that answered with a promise: the promise is kept on the session's entry until the Interpreter's
// AwaitEngine step has the shim await it (awaitSession); the core then reads what it settled to (hostSessionSettled).
function keepPromise(entry, kind, value) {
  const promise = Promise.resolve(value);
  promise.catch(() => {}); // awaited by awaitSession; never an unhandled rejection meanwhile
  entry.waiting = { kind, promise, settled: null };
}

// What boot/restore answered: the entry holds the instance, or the reply says why not.
function opened(core, session, entry, value) {
  if (value === null || typeof value !== "object" || typeof value.execute !== "function") {
    entry.open = false;
    core.jsSessions.delete(session);
    return reply(core, SESSION_FAILED, ["sessions.boot/restore did not return a SessionInstance"]);
  }
  entry.instance = value;
  return reply(core, SESSION_OK);
}

function openFailed(core, session, entry, error) {
  entry.open = false;
  core.jsSessions.delete(session);
  return reply(core, SESSION_FAILED, [messageOf(error) || String(error)]);
}

// What execute answered.
function executed(core, entry, outcome) {
  let json;
  try {
    json = JSON.stringify(outcome ?? null) ?? "null";
  } catch (error) {
    return reply(core, SESSION_UNSERIALIZABLE, [messageOf(error) || String(error)]);
  }
  let cwd = "";
  try {
    if (typeof entry.instance.cwd === "string") cwd = entry.instance.cwd;
  } catch {
    // a throwing getter reports nothing
  }
  return reply(core, SESSION_OK, [json, cwd]);
}

function executeThrew(core, error) {
  return reply(core, isLimit(error) ? SESSION_THREW_LIMIT : SESSION_THREW, [messageOf(error)]);
}

/**
 * Awaits the promise the session `session` answered with (the Interpreter's AwaitEngine step), keeping what it
 * settled to for hostSessionSettled. Resolves true once it settled, false when it had not after `waitMs` (the core
 * then abandons the call); never rejects.
 */
export async function awaitSession(core, session, waitMs) {
  const waiting = core.jsSessions.get(session)?.waiting;
  if (!waiting) return true; // nothing to wait for: the core's settled call reports it
  let timer;
  const expired = new Promise((resolve) => {
    timer = setTimeout(() => resolve(false), waitMs);
  });
  const settled = waiting.promise.then(
    (value) => {
      waiting.settled = { value };
      return true;
    },
    (error) => {
      waiting.settled = { error };
      return true;
    },
  );
  try {
    return await Promise.race([settled, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** The Module members cpp/core/host_imports.js calls; `this` is the core module. */
export const sessionHostImports = {
  jsSessions: new Map(), // the core's JsSession id -> { instance, open, memoryBound, waiting, endRestore }
  hostSessionOpen(server, session, workspace, cwdPtr, cwdLen, restorePtr, restoreLen, source) {
    const core = this;
    const entry = { instance: null, open: true, memoryBound: false, waiting: null, endRestore: null };
    this.jsSessions.set(session, entry);
    const handle = Object.freeze(new SessionWorkspace());
    workspaces.set(handle, { core, id: workspace });
    const options = {
      workspace: handle,
      cwd: text(core, cwdPtr, cwdLen),
      instances: core.instancesFor(server),
      onCwdChange(cwd) {
        if (!entry.open || typeof cwd !== "string") return;
        const bytes = encoder.encode(cwd);
        const p = core._malloc(Math.max(1, bytes.length));
        if (p === 0) return;
        core.HEAPU8.set(bytes, p);
        core._sw_session_cwd_changed(session, p, bytes.length);
        core._free(p);
      },
    };
    let value;
    try {
      const sessions = core.enginesByServer.get(server)?.sessions;
      if (restoreLen === 0) {
        value = sessions.boot(options);
      } else {
        const { handle: decimal, extra } = JSON.parse(text(core, restorePtr, restoreLen));
        let restoring = true;
        const live = () => restoring && entry.open;
        // The image lives in the core until restore answered: an async restore may read pages until it settles.
        entry.endRestore = () => {
          restoring = false;
        };
        const snapshot = {
          handle: BigInt(decimal),
          extra,
          memoryPages: core._sw_page_image_pages(source),
          readPage: pageReader(core, source, live),
        };
        registerImage(snapshot, core, source, live);
        value = sessions.restore(options, snapshot);
      }
    } catch (error) {
      entry.endRestore?.();
      return openFailed(core, session, entry, error);
    }
    if (isThenable(value)) {
      keepPromise(entry, "open", value);
      return reply(core, SESSION_PROMISE);
    }
    entry.endRestore?.();
    return opened(core, session, entry, value);
  },
  hostSessionExecute(session, codePtr, codeLen, envPtr, envLen) {
    const entry = this.jsSessions.get(session);
    let outcome;
    const depth = this._sw_wasi_call_depth();
    try {
      const code = text(this, codePtr, codeLen);
      const envVars = envLen === 0 ? {} : JSON.parse(text(this, envPtr, envLen));
      outcome = entry.instance.execute({ code, envVars });
    } catch (error) {
      // Thrown inside core code the guest re-entered (a WASI call that never returned): unless the core says it is
      // consistent (V8's stack ran out there), its C++ state is half unwound and the shim drops it (wasmify_bridge.js).
      if (!this._sw_wasi_unwound(depth, this.isHostStackOverflow(error) ? 1 : 0)) this.coreCorrupted = error;
      return executeThrew(this, error);
    }
    if (isThenable(outcome)) {
      keepPromise(entry, "execute", outcome);
      return reply(this, SESSION_PROMISE);
    }
    return executed(this, entry, outcome);
  },
  // The settled answer of the call that returned a promise, replied as that call would have replied.
  hostSessionSettled(session) {
    const entry = this.jsSessions.get(session);
    const waiting = entry?.waiting;
    if (!waiting) return reply(this, SESSION_FAILED, ["no engine promise is pending for this session"]);
    entry.waiting = null;
    const settled = waiting.settled ?? { error: new Error("the engine's promise had not settled") };
    if (waiting.kind === "open") {
      entry.endRestore?.();
      if ("error" in settled) return openFailed(this, session, entry, settled.error);
      return opened(this, session, entry, settled.value);
    }
    if ("error" in settled) return executeThrew(this, settled.error);
    return executed(this, entry, settled.value);
  },
  // SESSION_INVALID when instance.invalid is truthy, or reading it threw.
  hostSessionFlags(session) {
    try {
      return this.jsSessions.get(session)?.instance?.invalid ? SESSION_INVALID : 0;
    } catch {
      return SESSION_INVALID;
    }
  },
  // 1 only when canSnapshot() returned true (a throw is 0).
  hostSessionCanSnapshot(session) {
    try {
      return this.jsSessions.get(session)?.instance?.canSnapshot() === true ? 1 : 0;
    } catch (error) {
      console.error("[sandbox-workers] SessionInstance.canSnapshot threw:", error);
      return 0;
    }
  },
  // snapshot(): the handle as decimal text, the extra as JSON; the memory registered under the session's id.
  hostSessionSnapshot(session) {
    const entry = this.jsSessions.get(session);
    let snap;
    try {
      snap = entry.instance.snapshot();
    } catch (error) {
      return reply(this, SESSION_FAILED, [messageOf(error) || String(error)]);
    }
    if (isThenable(snap)) {
      snap.then(undefined, () => {});
      return reply(this, SESSION_PROMISE);
    }
    if (!(snap?.memory instanceof WebAssembly.Memory)) {
      return reply(this, SESSION_FAILED, ["snapshot().memory is not a WebAssembly.Memory"]);
    }
    let extra;
    try {
      extra = JSON.stringify(snap.extra ?? {}) ?? "{}";
    } catch (error) {
      return reply(this, SESSION_UNSERIALIZABLE, [messageOf(error) || String(error)]);
    }
    bindGuestMemory(this, session, snap.memory);
    entry.memoryBound = true;
    return reply(this, SESSION_OK, [String(snap.handle), extra]);
  },
  hostSessionClose(session) {
    const entry = this.jsSessions.get(session);
    this.jsSessions.delete(session);
    if (!entry) return;
    entry.open = false;
    entry.endRestore?.();
    // Closed while its boot/restore promise was pending (the call was abandoned): the instance it brings is closed.
    if (entry.waiting?.kind === "open") {
      entry.waiting.promise.then((instance) => {
        try {
          instance?.close?.();
        } catch (error) {
          console.error("[sandbox-workers] SessionInstance.close threw:", error);
        }
      }, () => {});
    }
    if (entry.memoryBound) unbindGuestMemory(this, session);
    try {
      entry.instance?.close?.();
    } catch (error) {
      console.error("[sandbox-workers] SessionInstance.close threw:", error);
    }
  },
};
