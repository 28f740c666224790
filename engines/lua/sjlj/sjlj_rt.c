/* The runtime that LLVM 16's Wasm-EH setjmp/longjmp lowering (-mllvm -wasm-enable-sjlj) calls into.
 *
 * The compiler turns a function that calls setjmp into one that keeps a table of (setjmp id, label) pairs: setjmp
 * becomes saveSetjmp, which gives the buffer a fresh id and records it, and every call that may longjmp is wrapped in
 * a try whose catch asks testSetjmp which label (if any) of this function the thrown buffer belongs to. longjmp
 * becomes __wasm_longjmp, which throws the tag __c_longjmp (c_longjmp.S) with a pointer to {env, val}.
 *
 * State lives in linear memory only (a snapshot of memory + __stack_pointer captures it; nothing is in Wasm globals).
 * Written for this project from the lowering's contract (LLVM WebAssemblyLowerEmscriptenEHSjLj.cpp); Emscripten's
 * emscripten_setjmp.c implements the same contract. */
#include <stdint.h>
#include <stdlib.h>

typedef struct {
  uintptr_t id;    /* 0 ends the table */
  uint32_t label;  /* the setjmp call site in the function that owns the table */
} SetjmpEntry;

static uintptr_t next_setjmp_id;
static uint32_t temp_ret0;

/* The lowering passes a second return value (the table's capacity) through this pair. */
void setTempRet0(uint32_t value) { temp_ret0 = value; }
uint32_t getTempRet0(void) { return temp_ret0; }

/* setjmp(env) at call site `label`: stamps env with a new id and records (id, label) in the function's table of
 * `size` slots (plus one terminator), growing it when full. Returns the table; the new size goes through tempRet0. */
SetjmpEntry *saveSetjmp(uintptr_t *env, uint32_t label, SetjmpEntry *table, uint32_t size) {
  uintptr_t id = ++next_setjmp_id;
  *env = id;
  uint32_t i = 0;
  while (i < size && table[i].id != 0) i++;
  if (i == size) {
    uint32_t grown = size * 2;
    SetjmpEntry *bigger = realloc(table, sizeof(SetjmpEntry) * (grown + 1));
    if (!bigger) abort();
    table = bigger;
    size = grown;
  }
  table[i].id = id;
  table[i].label = label;
  table[i + 1].id = 0;
  setTempRet0(size);
  return table;
}

/* The label of setjmp id `id` in this function's table, or 0 when the longjmp targets another function. */
uint32_t testSetjmp(uintptr_t id, const SetjmpEntry *table, uint32_t size) {
  for (uint32_t i = 0; i < size && table[i].id != 0; i++) {
    if (table[i].id == id) return table[i].label;
  }
  return 0;
}

/* What the catch reads: the lowering loads env then val from the thrown pointer. */
struct __WasmLongjmpArgs {
  void *env;
  int val;
};
static struct __WasmLongjmpArgs longjmp_args;

/* longjmp(env, val): tag 1 of __builtin_wasm_throw is __c_longjmp. */
_Noreturn void __wasm_longjmp(void *env, int val) {
  longjmp_args.env = env;
  longjmp_args.val = val;
  __builtin_wasm_throw(1, &longjmp_args);
}
