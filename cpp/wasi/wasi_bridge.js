// The imports the WASI host needs from JavaScript (linked into the core with --js-library). The shim registers each
// guest's WebAssembly.Memory in Module.wasiMemories (see the generated wasi_imports.mjs); these copy between that
// memory and the core's heap. No WASI logic lives here.
mergeInto(LibraryManager.library, {
  sw_guest_read: function (host, guestPtr, corePtr, len) {
    var mem = Module['wasiMemories'].get(host);
    HEAPU8.set(new Uint8Array(mem.buffer, guestPtr >>> 0, len >>> 0), corePtr >>> 0);
  },
  sw_guest_write: function (host, guestPtr, corePtr, len) {
    var mem = Module['wasiMemories'].get(host);
    new Uint8Array(mem.buffer, guestPtr >>> 0, len >>> 0).set(HEAPU8.subarray(corePtr >>> 0, (corePtr >>> 0) + (len >>> 0)));
  },
  sw_guest_size: function (host) {
    var mem = Module['wasiMemories'] && Module['wasiMemories'].get(host);
    return mem ? mem.buffer.byteLength : 0;
  },
  sw_wasi_stdio_sink: function (host, fd, ptr, len) {
    var sink = Module['wasiStdio'];
    if (sink) sink(host, fd, HEAPU8.subarray(ptr >>> 0, (ptr >>> 0) + (len >>> 0)));
  },
  sw_wasi_random_fill: function (ptr, len) {
    crypto.getRandomValues(HEAPU8.subarray(ptr >>> 0, (ptr >>> 0) + (len >>> 0)));
  },
});
