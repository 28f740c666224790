/* liblzma's configuration for the benchmark reactor: the LZMA1/LZMA2 decoders only, wasm32 (no threads). */
#define HAVE_DECODER_LZMA1 1
#define HAVE_DECODER_LZMA2 1
#define HAVE_STDBOOL_H 1
#define HAVE__BOOL 1
#define HAVE_INTTYPES_H 1
#define HAVE_STDINT_H 1
#define SIZEOF_SIZE_T 4
