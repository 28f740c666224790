// The imports the WASI host needs from JavaScript (linked into the core with --js-library). The shim registers each
// guest's WebAssembly.Memory in Module.wasiMemories (see the generated wasi_imports.mjs); these copy between that
// memory and the core's heap. No WASI logic lives here.
//
// Every guest memory access of a syscall is one call here, so they are kept cheap: the Uint8Array over the guest's
// memory is cached (one entry: the last host) and rebuilt when bindGuestMemory/unbindGuestMemory bump
// Module.wasiMemoriesEpoch or when the range does not fit the view (the buffer was detached by memory.grow); short
// copies are a byte loop instead of allocating a subarray.
mergeInto(LibraryManager.library, {
  $swGuestCache: '{ host: 0, epoch: -1, view: null }',
  $swGuestView__deps: ['$swGuestCache'],
  $swGuestView: function (host, end) {
    var c = swGuestCache;
    var epoch = Module['wasiMemoriesEpoch'] | 0;
    if (c.host !== host || c.epoch !== epoch || end > c.view.length) {
      var mem = Module['wasiMemories'].get(host);
      c.host = host;
      c.epoch = epoch;
      c.view = new Uint8Array(mem.buffer);
    }
    return c.view;
  },
  sw_guest_read__deps: ['$swGuestView'],
  sw_guest_read: function (host, guestPtr, corePtr, len) {
    guestPtr >>>= 0; corePtr >>>= 0; len >>>= 0;
    var g = swGuestView(host, guestPtr + len);
    if (len <= 32) {
      for (var i = 0; i < len; i++) HEAPU8[corePtr + i] = g[guestPtr + i];
    } else {
      HEAPU8.set(g.subarray(guestPtr, guestPtr + len), corePtr);
    }
  },
  sw_guest_write__deps: ['$swGuestView'],
  sw_guest_write: function (host, guestPtr, corePtr, len) {
    guestPtr >>>= 0; corePtr >>>= 0; len >>>= 0;
    var g = swGuestView(host, guestPtr + len);
    if (len <= 32) {
      for (var i = 0; i < len; i++) g[guestPtr + i] = HEAPU8[corePtr + i];
    } else {
      g.set(HEAPU8.subarray(corePtr, corePtr + len), guestPtr);
    }
  },
  // The memory scanner (cpp/tools/scanner.h; worker-shim/core.js hands its compiled module over as swScanner),
  // instantiated once per guest memory over that memory and the core's. 0 (the core then copies and hashes itself)
  // when there is no scanner or it fails; a scanner that cannot be instantiated is not tried again.
  sw_guest_scan: function (host, first, count, refs, hashes, flags) {
    var scanner = Module['swScanner'];
    var mem = Module['wasiMemories'] && Module['wasiMemories'].get(host);
    if (!scanner || !mem) return 0;
    var cache = Module['swScanners'] || (Module['swScanners'] = new WeakMap());
    var scan = cache.get(mem);
    if (!scan) {
      try {
        scan = new WebAssembly.Instance(scanner, { guest: { memory: mem }, core: { memory: wasmMemory } }).exports.scan;
      } catch (e) {
        Module['swScanner'] = null;
        return 0;
      }
      cache.set(mem, scan);
    }
    try {
      var done = scan(first >>> 0, count >>> 0, refs >>> 0, hashes >>> 0, flags >>> 0);
      Module['swScanCalls'] = (Module['swScanCalls'] || 0) + 1; // tests check the scanner is in use
      return done;
    } catch (e) {
      return 0;
    }
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
