/* wasi-libc has no sigset_t; liblzma's mythread.h declares a helper over sigprocmask that the decoder never calls.
 * Force-included in the wasm32-wasi build of liblzma's files only. */
typedef unsigned char sigset_t;
int sigprocmask(int, const sigset_t *, sigset_t *);
