// ./snapshot (protocol §5.7, unstable): the linear-memory helpers an engine author's own session code needs, over the
// core's page images (cpp/core/js_sessions.cpp PageImage; the stored format itself is cpp/snapshot's). Marshalling
// only. See docs/engine-authors.md.
import { getCore } from "./core.js";
import { bindGuestMemory, unbindGuestMemory } from "./generated/wasi_imports.mjs";
import { imageOf, registerImage, pageReader, copyPages } from "./js_sessions.js";

/** A Wasm page: the unit of SessionSnapshotSource.readPage. */
export const PAGE_BYTES = 65536;

function currentCore() {
  const core = getCore.instance;
  if (!core) throw new Error("./snapshot: the core is not loaded (call this from Engine.run or sessions)");
  return core;
}

// Registers `memory` with the core's guest bridge under a fresh id for the duration of fn(id).
function withMemory(core, memory, fn) {
  if (!(memory instanceof WebAssembly.Memory)) throw new TypeError("expected a WebAssembly.Memory");
  const id = core._malloc(1); // a live allocation's address: an id no guest, host or session can hold meanwhile
  if (id === 0) throw new Error("./snapshot: out of core memory");
  bindGuestMemory(core, id, memory);
  try {
    return fn(id);
  } finally {
    unbindGuestMemory(core, id);
    core._free(id);
  }
}

const images = new FinalizationRegistry(({ core, image }) => {
  if (getCore.instance === core) core._sw_page_image_free(image);
});

/**
 * Restores a snapshot into `memory` (protocol §4.5 "Restore contract"): grows it to `source.memoryPages`, writes every
 * stored page, zeroes the pages the snapshot holds as zero. `source` is the SessionSnapshotSource sessions.restore
 * received, or captureMemory's; any other object with memoryPages and readPage(page) is copied page by page.
 */
export function restoreMemory(memory, source) {
  const served = imageOf(source);
  if (served) {
    if (!served.live()) throw new Error("restoreMemory: this snapshot source is no longer available");
    const ok = withMemory(served.core, memory, (id) => served.core._sw_page_image_restore(served.image, id));
    if (!ok) throw new Error("restoreMemory: the memory cannot hold the snapshot");
    return;
  }
  copyPages(memory, source);
}

/**
 * Captures `memory` into the core: a SessionSnapshotSource ({ handle, extra, memoryPages, readPage, close }) that
 * restoreMemory or an engine's sessions.restore accepts -- e.g. to test an engine's restore without an Interpreter.
 * close() frees it (it is freed when collected otherwise).
 */
export function captureMemory(memory, { handle = 0n, extra = {} } = {}) {
  const core = currentCore();
  const image = withMemory(core, memory, (id) => core._sw_page_image_capture(id));
  if (image === 0) throw new Error("captureMemory: out of core memory");
  let open = true;
  const live = () => open && getCore.instance === core;
  const source = {
    handle: BigInt(handle),
    extra,
    memoryPages: core._sw_page_image_pages(image),
    readPage: pageReader(core, image, live),
    close() {
      if (!open) return;
      open = false;
      images.unregister(source);
      if (getCore.instance === core) core._sw_page_image_free(image);
    },
  };
  registerImage(source, core, image, live);
  images.register(source, { core, image }, source);
  return source;
}
