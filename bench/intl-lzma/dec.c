/* Benchmark reactor (bench/intl-lzma-decoder.sh): liblzma's raw LZMA2 decoder alone, as an engine would link it to
 * read /stdlib chunks stored compressed (docs/intl.md, "Every CLDR locale: the measured design"). */
#include <lzma.h>
#include <stdint.h>
#include <stdlib.h>

__attribute__((export_name("buf"))) void *buf(size_t n) { return malloc(n); }

/* dec(in, in_len, out, out_len, dict_size): the first out_len bytes of a raw LZMA2 stream; out_len, or -1. */
__attribute__((export_name("dec"))) int dec(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len, uint32_t dict) {
  lzma_options_lzma o = {.dict_size = dict};
  lzma_filter f[2] = {{LZMA_FILTER_LZMA2, &o}, {LZMA_VLI_UNKNOWN, NULL}};
  size_t ip = 0, op = 0;
  lzma_ret r = lzma_raw_buffer_decode(f, NULL, in, &ip, in_len, out, &op, out_len);
  return (r == LZMA_OK || (r == LZMA_BUF_ERROR && op == out_len)) && op == out_len ? (int)op : -1;
}
