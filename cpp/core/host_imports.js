// The core's only import: the shim runs a JavaScript Engine's run(payload) for an exchange (see core.h).
mergeInto(LibraryManager.library, {
  sw_host_engine_run: function (server, exchange, payloadPtr, payloadLen) {
    Module['hostEngineRun'](server, exchange, payloadPtr, payloadLen);
  },
});
