/* liblzma's configuration for the JavaScript engine (docs/intl.md, "How they are stored"): the LZMA1/LZMA2 decoders
 * only, no threads; the same file for wasm32-wasi (engine.wasm) and the native driver tests. */
#define HAVE_DECODER_LZMA1 1
#define HAVE_DECODER_LZMA2 1
#define HAVE_STDBOOL_H 1
#define HAVE__BOOL 1
#define HAVE_INTTYPES_H 1
#define HAVE_STDINT_H 1
#define SIZEOF_SIZE_T __SIZEOF_SIZE_T__
