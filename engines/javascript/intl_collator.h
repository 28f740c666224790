/* engines/javascript/intl_collator.h: Intl.Collator, String.prototype.localeCompare and the locale case mappings
 * (toLocaleUpperCase/toLocaleLowerCase), over ICU4C 72.1's collator (scripts/engines/icu.sh, docs/intl.md).
 * Compiled only when the build links ICU (SW_JS_HAVE_ICU_COLLATOR). */
#ifndef SW_JS_INTL_COLLATOR_H
#define SW_JS_INTL_COLLATOR_H

#include "quickjs.h"

/* Defines `Collator` (ECMA-402 §10) on the given Intl object. 0, or -1 with an exception pending. Called when the
 * Intl namespace is built. ICU itself is opened only on the first collator. */
int sw_js_intl_install_native(JSContext *ctx, JSValueConst intl);

/* Replaces String.prototype.localeCompare, toLocaleUpperCase and toLocaleLowerCase (ECMA-402 §19.1) on the
 * context's String.prototype. 0, or -1 with an exception pending. Costs nothing until one is called. */
int sw_js_intl_install_string_methods(JSContext *ctx);

#endif
