/* engines/python/driver.c: the Python engine's C driver over CPython 3.13 (engines/common/engine.h, protocol §6.3).
 *
 * The C side only embeds the interpreter: it configures and starts CPython once per instance, runs the Python half of
 * the driver (engines/python/sandbox_driver.py, compiled by scripts/engines/python.sh into a marshalled code object,
 * sw_py_driver_code below) and moves bytes between the wasmify glue and its `run` / `after_restore` functions.
 *
 * One interpreter per Wasm instance (CPython has process-wide state); a handle is a small struct over it. Stateless
 * calls get a fresh namespace each time; session calls run in the persistent __main__ module.
 *
 * Fuel: hard mode (sw_engine_interrupt_address() = 0). The whole module is metered at the Wasm level by our fuel tool
 * (docs/fuel.md); the host traps the charge that overdraws the budget and the instance is discarded, so nothing here
 * ever unwinds from fuel exhaustion.
 */
#include <Python.h>
#include <marshal.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

/* Generated at build time from sandbox_driver.py (scripts/engines/python.sh). */
extern const unsigned char sw_py_driver_code[];
extern const unsigned int sw_py_driver_code_size;

/* Recursion (engines/python/README.md "Recursion"): Python frames allowed. CPython 3.13 runs Python-to-Python calls
 * without C recursion; what re-enters the C eval loop (slots, builtins calling back) is bounded separately by the
 * patched Py_C_RECURSION_LIMIT, so that V8's native stack never overflows first. */
#define SW_PY_RECURSION_LIMIT 1000
#define SW_PY_HEAP_HEADROOM (6u << 20) /* bytes; see sw_engine_new */

struct SwEngine {
  int session; /* 1 once a SessionEval ran on this handle */
  char *cwd;   /* the session's working directory after the last call (malloc'd) */
};

static PyObject *g_run;           /* sandbox_driver.run */
static PyObject *g_after_restore; /* sandbox_driver.after_restore */
static int g_started;             /* 1: the interpreter is up; -1: it failed to start (never retried) */

static const char kWorkspace[] = "/workspace";

static int config_status_ok(PyStatus status) { return !PyStatus_Exception(status); }

/* Starts CPython: isolated, no site, UTF-8 mode, the stdlib archive at /stdlib, fixed hash seed (deterministic, and the
 * same for every instance booted from the same image), no bytecode writing. */
static int start_python(void) {
  PyPreConfig preconfig;
  PyPreConfig_InitIsolatedConfig(&preconfig);
  preconfig.utf8_mode = 1;
  preconfig.configure_locale = 0;
  if (!config_status_ok(Py_PreInitialize(&preconfig))) return -1;

  PyConfig config;
  PyConfig_InitIsolatedConfig(&config);
  config.site_import = 0;
  config.user_site_directory = 0;
  config.write_bytecode = 0;
  config.use_hash_seed = 1;
  config.hash_seed = 0;
  config.install_signal_handlers = 0;
  config.parse_argv = 0;
  config.pathconfig_warnings = 0;
  config.buffered_stdio = 0;
  config.safe_path = 1;
  config.module_search_paths_set = 1;
  wchar_t *argv[] = {L"sandbox"};
  int ok = config_status_ok(PyConfig_SetString(&config, &config.program_name, L"sandbox")) &&
           config_status_ok(PyConfig_SetString(&config, &config.home, L"/stdlib")) &&
           config_status_ok(PyConfig_SetString(&config, &config.stdio_encoding, L"utf-8")) &&
           config_status_ok(PyConfig_SetString(&config, &config.stdio_errors, L"backslashreplace")) &&
           config_status_ok(PyConfig_SetArgv(&config, 1, argv)) &&
           config_status_ok(PyWideStringList_Append(&config.module_search_paths, L"/stdlib/lib/python3.13")) &&
           config_status_ok(Py_InitializeFromConfig(&config));
  PyConfig_Clear(&config);
  if (!ok) return -1;

  Py_SetRecursionLimit(SW_PY_RECURSION_LIMIT);
  PyObject *code = PyMarshal_ReadObjectFromString((const char *)sw_py_driver_code, sw_py_driver_code_size);
  if (!code) goto fail;
  PyObject *globals = PyDict_New();
  PyObject *name = PyUnicode_FromString("_sandbox_driver");
  int bad = !globals || !name || PyDict_SetItemString(globals, "__name__", name) < 0 ||
            PyDict_SetItemString(globals, "__builtins__", PyEval_GetBuiltins()) < 0;
  Py_XDECREF(name);
  if (bad) {
    Py_XDECREF(globals);
    Py_DECREF(code);
    goto fail;
  }
  PyObject *result = PyEval_EvalCode(code, globals, globals);
  Py_DECREF(code);
  if (!result) {
    Py_DECREF(globals);
    goto fail;
  }
  Py_DECREF(result);
  g_run = PyDict_GetItemString(globals, "run");
  g_after_restore = PyDict_GetItemString(globals, "after_restore");
  Py_XINCREF(g_run);
  Py_XINCREF(g_after_restore);
  Py_DECREF(globals); /* the functions keep their globals alive */
  if (!g_run || !g_after_restore) goto fail;
  return 0;

fail:
  PyErr_Print(); /* to the instance's stderr: only a broken build gets here */
  return -1;
}

SwEngine *sw_engine_new(uint32_t heap_limit, uint32_t stack_limit) {
  (void)heap_limit; /* linear memory is capped at link time (64 MiB); CPython has no separate heap limit */
  (void)stack_limit;
  if (g_started == 0) g_started = start_python() == 0 ? 1 : -1;
  if (g_started != 1) return NULL;
  SwEngine *engine = (SwEngine *)calloc(1, sizeof(SwEngine));
  if (!engine) return NULL;
  engine->cwd = strdup(kWorkspace);
  if (!engine->cwd) {
    free(engine);
    return NULL;
  }
  /* Heap headroom, reserved at boot and so part of the boot image as free space: the allocator keeps the freed block
   * as its top chunk (linear memory never shrinks), so a typical program (a few pymalloc arenas) runs without growing
   * memory, and an instance whose memory did not grow is reset and reused by the core's instance pool
   * (cpp/core/builtin.cpp) instead of instantiating the module again. */
  void *volatile headroom = malloc(SW_PY_HEAP_HEADROOM);
  free(headroom);
  return engine;
}

/* Copies `len` bytes into a fresh sw_alloc buffer. */
static int hand_out(const char *data, size_t len, char **out_ptr, uint32_t *out_len) {
  char *buf = (char *)malloc(len ? len : 1);
  if (!buf) return -1;
  memcpy(buf, data, len);
  *out_ptr = buf;
  *out_len = (uint32_t)len;
  return 0;
}

/* The Python half failed (out of memory while building the outcome, most likely): report the exception's type as a
 * guest error so the handle stays usable; -1 only if even that cannot be done. */
static int fallback_outcome(int session, char **out_ptr, uint32_t *out_len) {
  PyObject *type = NULL, *value = NULL, *tb = NULL;
  PyErr_Fetch(&type, &value, &tb);
  const char *name = "EngineError";
  if (type && PyType_Check(type)) {
    const char *full = ((PyTypeObject *)type)->tp_name;
    const char *dot = strrchr(full, '.');
    name = dot ? dot + 1 : full;
  }
  char buf[512];
  int n = snprintf(buf, sizeof buf,
                   "{\"logs\":{\"stdout\":[],\"stderr\":[]},\"results\":[],\"error\":{\"name\":\"%.64s\","
                   "\"message\":\"the Python driver failed while reporting the outcome\",\"traceback\":[]}%s}",
                   name, session ? ",\"cwd\":\"/workspace\"" : "");
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  if (n < 0 || (size_t)n >= sizeof buf) return -1;
  return hand_out(buf, (size_t)n, out_ptr, out_len);
}

static int run(SwEngine *engine, int session, const char *code, uint32_t code_len, const char *env_json,
               uint32_t env_len, const char *cwd, uint32_t cwd_len, char **out_ptr, uint32_t *out_len) {
  if (!engine || g_started != 1 || !out_ptr || !out_len) return -1;
  *out_ptr = NULL;
  *out_len = 0;
  /* A session without a cwd from the host continues in the handle's own (the process starts in "/"). */
  if (session && (!cwd || !cwd_len)) {
    cwd = engine->cwd;
    cwd_len = (uint32_t)strlen(engine->cwd);
  }
  PyObject *result = PyObject_CallFunction(g_run, "y#y#iy#", code ? code : "", (Py_ssize_t)code_len,
                                           env_json ? env_json : "", (Py_ssize_t)(env_json ? env_len : 0), session,
                                           cwd ? cwd : "", (Py_ssize_t)(cwd ? cwd_len : 0));
  int rc;
  if (!result) {
    rc = fallback_outcome(session, out_ptr, out_len);
    if (session) {
      free(engine->cwd);
      engine->cwd = strdup(kWorkspace);
    }
  } else {
    PyObject *outcome = PyTuple_Check(result) && PyTuple_GET_SIZE(result) == 2 ? PyTuple_GET_ITEM(result, 0) : NULL;
    PyObject *new_cwd = outcome ? PyTuple_GET_ITEM(result, 1) : NULL;
    rc = -1;
    if (outcome && PyBytes_Check(outcome)) {
      rc = hand_out(PyBytes_AS_STRING(outcome), (size_t)PyBytes_GET_SIZE(outcome), out_ptr, out_len);
    }
    if (rc == 0 && session) {
      const char *text = new_cwd && PyUnicode_Check(new_cwd) ? PyUnicode_AsUTF8(new_cwd) : NULL;
      char *copy = strdup(text && *text ? text : kWorkspace);
      if (copy) {
        free(engine->cwd);
        engine->cwd = copy;
      }
      PyErr_Clear();
    }
    Py_DECREF(result);
  }
  if (session) engine->session = 1;
  return rc;
}

int32_t sw_engine_eval(SwEngine *engine, const char *code, uint32_t code_len, const char *env_json, uint32_t env_len,
                       char **out_ptr, uint32_t *out_len) {
  return run(engine, 0, code, code_len, env_json, env_len, NULL, 0, out_ptr, out_len);
}

int32_t sw_engine_session_eval(SwEngine *engine, const char *code, uint32_t code_len, const char *env_json,
                               uint32_t env_len, const char *cwd, uint32_t cwd_len, char **out_ptr, uint32_t *out_len) {
  return run(engine, 1, code, code_len, env_json, env_len, cwd, cwd_len, out_ptr, out_len);
}

const char *sw_engine_cwd(SwEngine *engine) { return engine && engine->cwd ? engine->cwd : kWorkspace; }

int32_t sw_engine_after_restore(SwEngine *engine, int boot_image) {
  (void)boot_image; /* Python re-seeds after every restore (protocol §6.3) */
  if (!engine || g_started != 1) return -1;
  PyObject *result = PyObject_CallNoArgs(g_after_restore);
  if (!result) {
    PyErr_Clear();
    return -1;
  }
  Py_DECREF(result);
  return 0;
}

void sw_engine_free(SwEngine *engine) {
  if (!engine) return;
  free(engine->cwd);
  free(engine);
}

uint32_t sw_engine_interrupt_address(void) { return 0; }

void *sw_alloc(uint32_t size) { return malloc(size ? size : 1); }

void sw_free(void *ptr) { free(ptr); }
