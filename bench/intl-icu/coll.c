// Measurement only: what a collator-only engine would link from ICU (ucol + normalization + locale/data loading).
#include <unicode/ucol.h>
#include <unicode/ustring.h>
__attribute__((export_name("sw_coll"))) int sw_coll(const char *loc, const UChar *a, int na, const UChar *b, int nb) {
  UErrorCode e = U_ZERO_ERROR;
  UCollator *c = ucol_open(loc, &e);
  if (U_FAILURE(e)) return -2;
  ucol_setAttribute(c, UCOL_STRENGTH, UCOL_TERTIARY, &e);
  int r = ucol_strcoll(c, a, na, b, nb);
  ucol_close(c);
  return r;
}
