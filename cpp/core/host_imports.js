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
  // The instance pool (cpp/core/builtin.cpp decides what is pooled): park the instance under `host` (unbound from it;
  // returns its pool id, 0 = not parked, release it instead), bind a parked one under a new `host` (1 = ok), drop one.
  // A shim without a pool (a bench's own) parks nothing.
  sw_host_park_guest: function (host) {
    return Module['hostParkGuest'] ? Module['hostParkGuest'](host) : 0;
  },
  sw_host_unpark_guest: function (id, host) {
    return Module['hostUnparkGuest'] ? Module['hostUnparkGuest'](id, host) : 0;
  },
  sw_host_drop_parked: function (id) {
    if (Module['hostDropParked']) Module['hostDropParked'](id);
  },
});
// The Interpreter Durable Object's storage (cpp/core/do_sql.cpp): SQL statements, transactions and the alarm of the
// ctx.storage registered under `storage` (worker-shim/interpreter.js). Marshalling only.
mergeInto(LibraryManager.library, {
  sw_host_sql_exec: function (storage, ptr, len) {
    return Module['hostSqlExec'](storage, ptr >>> 0, len >>> 0);
  },
  sw_host_sql_transaction: function (storage, cookie) {
    return Module['hostSqlTransaction'](storage, cookie >>> 0);
  },
  sw_host_alarm_set: function (storage, epochMs) {
    Module['hostAlarmSet'](storage, epochMs);
  },
  sw_host_alarm_delete: function (storage) {
    Module['hostAlarmDelete'](storage);
  },
  // A guest's exported mutable globals as JSON in core memory (freed by the core), and setting one back (restore).
  sw_host_guest_globals: function (host) {
    return Module['hostGuestGlobals'](host);
  },
  sw_host_guest_set_global: function (host, namePtr, nameLen, valuePtr, valueLen) {
    return Module['hostGuestSetGlobal'](host, namePtr >>> 0, nameLen >>> 0, valuePtr >>> 0, valueLen >>> 0);
  },
  sw_host_guest_stack: function (host, reset, out) {
    return Module['hostGuestStack'](host, reset, out >>> 0);
  },
  // Grows a guest's memory to at least `pages` 64 KiB pages (snapshot restore); 1 = ok.
  sw_host_guest_grow: function (host, pages) {
    return Module['hostGuestGrow'](host, pages >>> 0);
  },
});
// Sessions of an Engine written in JavaScript (cpp/core/js_sessions.cpp; worker-shim/js_sessions.js runs them). Every
// call that answers returns a reply buffer in core memory (abi.def sw_reply_head); the core frees it.
mergeInto(LibraryManager.library, {
  sw_host_session_open: function (server, session, workspace, cwdPtr, cwdLen, restorePtr, restoreLen, source) {
    return Module['hostSessionOpen'](server, session, workspace, cwdPtr >>> 0, cwdLen >>> 0, restorePtr >>> 0,
                                     restoreLen >>> 0, source >>> 0);
  },
  sw_host_session_execute: function (session, codePtr, codeLen, envPtr, envLen) {
    return Module['hostSessionExecute'](session, codePtr >>> 0, codeLen >>> 0, envPtr >>> 0, envLen >>> 0);
  },
  sw_host_session_settled: function (session) {
    return Module['hostSessionSettled'](session);
  },
  sw_host_session_snapshot: function (session) {
    return Module['hostSessionSnapshot'](session);
  },
  sw_host_session_flags: function (session) {
    return Module['hostSessionFlags'](session);
  },
  sw_host_session_can_snapshot: function (session) {
    return Module['hostSessionCanSnapshot'](session);
  },
  sw_host_session_close: function (session) {
    Module['hostSessionClose'](session);
  },
});
