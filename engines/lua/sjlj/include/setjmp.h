/* setjmp/longjmp for wasm32-wasi through LLVM's Wasm exception-handling SjLj lowering (engines/lua/sjlj/README.md).
 * Debian's wasi-libc has no setjmp.h. Compile every file that calls setjmp or longjmp with
 * -mexception-handling -mllvm -wasm-enable-sjlj: the compiler rewrites those calls into the runtime in sjlj_rt.c. */
#ifndef SW_SJLJ_SETJMP_H
#define SW_SJLJ_SETJMP_H

#ifdef __cplusplus
extern "C" {
#endif

/* The lowering stores one word (the setjmp id) in the buffer; the rest is headroom. */
typedef unsigned long jmp_buf[4];

int setjmp(jmp_buf env) __attribute__((returns_twice));
_Noreturn void longjmp(jmp_buf env, int val);

#ifdef __cplusplus
}
#endif

#endif
