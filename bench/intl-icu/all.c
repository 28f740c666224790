// Measurement only: the ICU C APIs an ECMA-402 implementation would call (V8's set, roughly).
#include <unicode/ucol.h>
#include <unicode/unumberformatter.h>
#include <unicode/unumberrangeformatter.h>
#include <unicode/udat.h>
#include <unicode/udatpg.h>
#include <unicode/upluralrules.h>
#include <unicode/ureldatefmt.h>
#include <unicode/ulistformatter.h>
#include <unicode/ubrk.h>
#include <unicode/uloc.h>
#include <unicode/uldnames.h>
#include <unicode/ucal.h>
#include <unicode/ustring.h>
__attribute__((export_name("sw_all"))) int sw_all(const char *loc, const UChar *s, int n, double d) {
  UErrorCode e = U_ZERO_ERROR; UChar buf[256]; int r = 0;
  UCollator *c = ucol_open(loc, &e); r += ucol_strcoll(c, s, n, s, n); ucol_close(c);
  UNumberFormatter *nf = unumf_openForSkeletonAndLocale(s, n, loc, &e); UFormattedNumber *fn = unumf_openResult(&e);
  unumf_formatDouble(nf, d, fn, &e); r += unumf_resultToString(fn, buf, 256, &e); unumf_closeResult(fn); unumf_close(nf);
  UNumberRangeFormatter *nrf = unumrf_openForSkeletonWithCollapseAndIdentityFallback(s, n, UNUM_RANGE_COLLAPSE_AUTO, UNUM_IDENTITY_FALLBACK_APPROXIMATELY, loc, 0, &e); unumrf_close(nrf);
  UDateTimePatternGenerator *g = udatpg_open(loc, &e); r += udatpg_getBestPattern(g, s, n, buf, 256, &e); udatpg_close(g);
  UDateFormat *df = udat_open(UDAT_PATTERN, UDAT_PATTERN, loc, s, n, buf, r, &e); r += udat_format(df, d, buf, 256, 0, &e); udat_close(df);
  UPluralRules *pr = uplrules_openForType(loc, UPLURAL_TYPE_ORDINAL, &e); r += uplrules_select(pr, d, buf, 256, &e); uplrules_close(pr);
  URelativeDateTimeFormatter *rf = ureldatefmt_open(loc, 0, UDAT_STYLE_LONG, UDISPCTX_CAPITALIZATION_NONE, &e);
  r += ureldatefmt_format(rf, d, UDAT_REL_UNIT_DAY, buf, 256, &e); ureldatefmt_close(rf);
  UListFormatter *lf = ulistfmt_openForType(loc, ULISTFMT_TYPE_AND, ULISTFMT_WIDTH_WIDE, &e); const UChar *items[1] = { s }; int32_t lens[1] = { n };
  r += ulistfmt_format(lf, items, lens, 1, buf, 256, &e); ulistfmt_close(lf);
  UBreakIterator *bi = ubrk_open(UBRK_WORD, loc, s, n, &e); r += ubrk_next(bi); ubrk_close(bi);
  char out[64]; r += uloc_addLikelySubtags(loc, out, 64, &e); r += uloc_toLanguageTag(loc, out, 64, 1, &e);
  ULocaleDisplayNames *ld = uldn_open(loc, ULDN_STANDARD_NAMES, &e); r += uldn_localeDisplayName(ld, loc, buf, 256, &e); uldn_close(ld);
  UCalendar *cal = ucal_open(s, n, loc, UCAL_GREGORIAN, &e); r += ucal_get(cal, UCAL_YEAR, &e); ucal_close(cal);
  r += u_strToUpper(buf, 256, s, n, loc, &e);
  return r;
}
