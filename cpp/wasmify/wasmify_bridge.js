// The import the wasmify host needs from JavaScript (linked into the core with --js-library): a re-entrant call
// from the core into a guest instance's export. The shim (or a test) registers each guest instance once with
// core.wasmifyBind(host, instance) after instantiating it (and bindGuestMemory for its memory), and
// core.wasmifyUnbind(host) when it is dropped. No wasmify logic lives here: cpp/wasmify does the ABI.
//
// sw_guest_call(host, id, namePtr, nameLen, argc, a0, a1, a2, a3, status) -> i64 (BigInt)
//   id      the core's interned number for the export name; the function is looked up once per instance and id
//   argc    0 to 4 i32 arguments (a0..a3)
//   status  core address of a sw_guest_call_status (cpp/abi/abi.def, here swAbi): threw = 1 when the guest threw (a
//           trap, or a WasiTrap from one of its WASI imports, which re-entered the core); the message is the error's
//           text, cut to GUEST_CALL_MESSAGE_BYTES.
// A result that is not a BigInt (an i32 export, or undefined from a void one) is returned zero-extended.
mergeInto(LibraryManager.library, {
  $swWasmify: '{}',
  $swWasmify__postset:
    // The looked-up functions are kept per instance (a pooled instance is bound again for every request).
    "Module['wasmifyBind'] = function (host, instance) {" +
    "  if (!Module['wasmifyInstances']) Module['wasmifyInstances'] = new Map();" +
    "  if (!Module['wasmifyFns']) Module['wasmifyFns'] = new WeakMap();" +
    "  var fns = Module['wasmifyFns'].get(instance.exports);" +
    "  if (!fns) Module['wasmifyFns'].set(instance.exports, fns = []);" +
    "  Module['wasmifyInstances'].set(host, { exports: instance.exports, fns: fns });" +
    "};" +
    "Module['wasmifyUnbind'] = function (host) {" +
    "  if (Module['wasmifyInstances']) Module['wasmifyInstances'].delete(host);" +
    "};" +
    // V8's stack overflow, the one JavaScript exception inside core code that sw_wasi_unwound may call consistent
    // (the shim's session and hook calls ask the same). Any other RangeError (an import's) is not classified so.
    "Module['isHostStackOverflow'] = function (e) {" +
    "  return e instanceof RangeError && e.message === 'Maximum call stack size exceeded';" +
    "};",
  // An exported numeric global of the guest under `host` (the fuel tool's sw_fuel_left / sw_fuel_batch): its value,
  // NaN when there is no such global; and setting a mutable one (1 = ok).
  sw_guest_get_global__deps: ['$swWasmify'],
  sw_guest_get_global: function (host, namePtr, nameLen) {
    var inst = Module['wasmifyInstances'] && Module['wasmifyInstances'].get(host);
    if (!inst) return NaN;
    var g = inst.exports[new TextDecoder().decode(HEAPU8.subarray(namePtr >>> 0, (namePtr >>> 0) + (nameLen >>> 0)))];
    return g instanceof WebAssembly.Global ? Number(g.value) : NaN;
  },
  sw_guest_set_global__deps: ['$swWasmify'],
  sw_guest_set_global: function (host, namePtr, nameLen, value) {
    var inst = Module['wasmifyInstances'] && Module['wasmifyInstances'].get(host);
    if (!inst) return 0;
    var g = inst.exports[new TextDecoder().decode(HEAPU8.subarray(namePtr >>> 0, (namePtr >>> 0) + (nameLen >>> 0)))];
    if (!(g instanceof WebAssembly.Global)) return 0;
    try {
      g.value = typeof g.value === 'bigint' ? BigInt(value) : value;
      return 1;
    } catch (e) {
      return 0;
    }
  },
  // A hook of a WasmifyDriver written in JavaScript (worker-shim/wasmify.js installs Module.hostWasmifyHook when it
  // registers one): returns the reply buffer it allocated in core memory, 0 when there is none.
  sw_host_wasmify_hook: function (driver, hook, call, handle, argPtr, argLen) {
    if (!Module['hostWasmifyHook']) return 0;
    return Module['hostWasmifyHook'](driver, hook, call >>> 0, handle, argPtr >>> 0, argLen >>> 0);
  },
  sw_guest_call__deps: ['$swWasmify', '$swAbi'],
  sw_guest_call: function (host, id, namePtr, nameLen, argc, a0, a1, a2, a3, status) {
    status >>>= 0;
    var layout = swAbi.GuestCallStatus;
    function fail(message) {
      var bytes = new TextEncoder().encode(String(message));
      var n = Math.min(bytes.length, swAbi.GUEST_CALL_MESSAGE_BYTES);
      HEAPU8.set(bytes.subarray(0, n), status + layout.message);
      HEAPU32[(status + layout.message_len) >>> 2] = n;
      HEAPU32[(status + layout.threw) >>> 2] = 1;
      return BigInt(0);
    }
    var all = Module['wasmifyInstances'];
    var inst = all && all.get(host);
    if (!inst) return fail('no guest instance bound to host ' + host);
    var fn = inst.fns[id];
    if (fn === undefined) {
      var name = new TextDecoder().decode(HEAPU8.subarray(namePtr >>> 0, (namePtr >>> 0) + (nameLen >>> 0)));
      fn = inst.fns[id] = typeof inst.exports[name] === 'function' ? inst.exports[name] : null;
      if (!fn) return fail('guest export missing: ' + name);
    }
    if (!fn) return fail('guest export missing');
    var r;
    var depth = Module['_sw_wasi_call_depth'] ? Module['_sw_wasi_call_depth']() : 0;
    try {
      r = argc === 0 ? fn() : argc === 1 ? fn(a0) : argc === 2 ? fn(a0, a1) : argc === 3 ? fn(a0, a1, a2) : fn(a0, a1, a2, a3);
    } catch (e) {
      Module['wasmifyLastError'] = e;
      // Thrown inside core code the guest re-entered (a syscall that never returned): V8's stack running out there
      // leaves the core consistent and the call is a guest trap; anything else (a core trap) half unwound its C++
      // state, so it is marked for the shim, which drops this core instance, and the exception continues up. The core
      // decides which (sw_wasi_unwound); this only says whether it is V8's stack overflow.
      if (Module['_sw_wasi_unwound'] && !Module['_sw_wasi_unwound'](depth, Module['isHostStackOverflow'](e) ? 1 : 0)) {
        Module['coreCorrupted'] = e;
        throw e;
      }
      return fail(e && e.message !== undefined ? (e.name ? e.name + ': ' : '') + e.message : e);
    }
    HEAPU32[(status + layout.threw) >>> 2] = 0;
    if (typeof r === 'bigint') return r;
    return BigInt(r === undefined ? 0 : (r >>> 0));
  },
});
