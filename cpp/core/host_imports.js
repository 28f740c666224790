// The core's imports from the shim (see core.h): run a JavaScript Engine's run(payload) for an exchange, or create
// and drop an instance of a built-in Wasm engine.
mergeInto(LibraryManager.library, {
  sw_host_engine_run: function (server, exchange, payloadPtr, payloadLen) {
    Module['hostEngineRun'](server, exchange, payloadPtr, payloadLen);
  },
  // A built-in Wasm engine: instantiate its compiled module under WASI host `host` (1 = ok, 0 = failed), and drop it.
  sw_host_instantiate_guest: function (server, host) {
    return Module['hostInstantiateGuest'](server, host);
  },
  sw_host_release_guest: function (host) {
    Module['hostReleaseGuest'](host);
  },
});
