#!/usr/bin/env bash
# ICU4C 72.1's collator for the JavaScript engine (docs/intl.md, "Intl.Collator"): a wasm32-wasi static library with
# only the collation code, and its data filtered to the collation of the 10 locales. scripts/engines/javascript.sh
# runs this first and links the result into engine.wasm.
#
#   bash scripts/engines/icu.sh            fetch (pinned, sha256-verified) + build, cached by source hash
#   bash scripts/engines/icu.sh --out-dirs  print the library and data output directories
#
# Source: Debian bookworm's `icu` 72.1-3+deb12u1 (CLDR 42), fetched with a private apt state (common.sh
# fetch_debsrc); never committed. Only the ICU_SOURCES below are extracted and compiled: the object files a reactor
# calling ucol_open/ucol_setAttribute/ucol_strcoll/ucol_getLocaleByType pulls out of an archive of all of ICU's
# common + i18n (found with `wasm-ld --trace` against bench/intl-icu-code.sh's objects). WASI portability: no mmap,
# tzset, dlopen or legacy converters (defines below), and engines/javascript/icu/nothreads.h for the missing threads.
#
# Data: Debian's tarball carries only the prebuilt source/data/in/icudt72l.dat, so the filter works on it with
# icu-devtools 72.1 (same version): `icupkg` extracts the collation items of the 10 locales (ICU_DATA_ITEMS), coll/zh.res
# is rebuilt without the tailorings nobody asks for (big5han, gb2312han, unihan) and without its rule strings
# (derb, then genrb -R, which compiles each tailoring from its rules, as ICU's own build does). The items go into
# stdlib.tar, which the Worker mounts read-only at /stdlib: ICU reads each item from there on first use, so a program
# that never collates has none of it in its memory or snapshots. ICU's built-in common data is an empty package.
#
# Output: $SW_CACHE/engines/icu/lib-<hash>/libicu-coll.a (+ library-seconds: its build time) and
# $SW_CACHE/engines/icu/data-<hash>/{stdlib.tar, icudata.o (the empty common data), icudt72l-coll.dat (the same items
# as one package, measured only), icu-locales.h (the collation tree's locales of the 10 languages: the collator's
# available locales)}.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ICU_SPEC="icu=72.1-3+deb12u1"
ICU_TARBALL="icu_72.1.orig.tar.gz"
ICU_SHA256="a2d2d38217092a7ed56635e34467f92f976b370e20182ad325edea6681a71d68"
ICU_VERSION="72.1"
ICU_HEADER_DIR="$SW_ROOT/engines/javascript/icu"

ICU_SOURCES=(
  common/appendable common/bmpset common/bytesinkutil common/bytestream common/bytestrie common/charstr
  common/cmemory common/cstring common/edits common/localebuilder common/locdispnames common/locid common/loclikely
  common/locmap common/locresdata common/locutil common/normalizer2 common/normalizer2impl common/patternprops
  common/propname common/putil common/resbund common/resource common/serv common/servlk common/servlkf common/servls
  common/servnotf common/servrbf common/servslkf common/sharedobject common/stringpiece common/uarrsort
  common/ucharstrie common/ucharstrieiterator common/ucln_cmn common/ucmndata common/ucptrie common/udata
  common/udatamem common/udataswp common/uenum common/uhash common/uhash_us common/uinvchar common/uiter common/ulist
  common/uloc common/uloc_keytype common/uloc_tag common/umapfile common/umath common/umutablecptrie common/umutex
  common/unifiedcache common/unifilt common/unifunct common/uniset common/unisetspan common/unistr common/uobject
  common/uresbund common/uresdata common/uscript_props common/uset common/usetiter common/ustrenum common/ustrfmt
  common/ucol_swp common/ustring common/ustrtrns common/utf_impl common/util common/utrace common/utrie2 common/utrie_swap
  common/uvector common/uvectr32 common/uvectr64
  i18n/bocsu i18n/coleitr i18n/coll i18n/collation i18n/collationcompare i18n/collationdata i18n/collationdatareader
  i18n/collationdatawriter i18n/collationfastlatin i18n/collationfcd i18n/collationiterator i18n/collationkeys
  i18n/collationroot i18n/collationsets i18n/collationsettings i18n/collationtailoring i18n/rulebasedcollator
  i18n/sortkey i18n/ucln_in i18n/ucol i18n/ucol_res i18n/uitercollationiterator
  i18n/utf16collationiterator i18n/utf8collationiterator
)

# The 10 languages (issue 14) and the collation items they need. Every coll/ item of these languages is kept (their
# regional variants are tiny aliases), plus root, the UCA data and the tree's index; keyTypeData maps -u-co values and
# likelySubtags serves the resource fallback (zh-TW -> zh_Hant).
ICU_LANGS=(en de fr es ja zh ar hi ru pt)
# Tailorings dropped from coll/zh.res (kept: pinyin, the default; stroke, zh-Hant's default; zhuyin).
ICU_ZH_DROP="big5han,gb2312han,unihan"

ICU_CXXFLAGS=(--target=wasm32-wasi -Oz -std=c++17 -fno-exceptions -nostdinc++
  -isystem /usr/lib/llvm-16/include/wasm32-wasi/c++/v1 -include "$ICU_HEADER_DIR/nothreads.h"
  -DU_STATIC_IMPLEMENTATION -DU_COMMON_IMPLEMENTATION -DU_I18N_IMPLEMENTATION -DU_HAVE_ATOMIC=1 -DU_HAVE_MMAP=0
  -DU_HAVE_TZSET=0 -DU_HAVE_TIMEZONE=0 -DU_HAVE_TZNAME=0 -DUCONFIG_NO_LEGACY_CONVERSION=1 -DHAVE_DLOPEN=0
  -DU_ENABLE_DYLOAD=0 -ffunction-sections -fdata-sections -w)

# Cache keys: the library's covers the tarball, the sources and flags, nothreads.h and the compiler; the data's covers
# the tarball, the data steps and icu-devtools: sha256 over those lines of this script and those versions.
ICU_SCRIPT="${BASH_SOURCE[0]}"
ICU_LIB_OUT="$SW_CACHE/engines/icu/lib-$( {
  echo "icu $ICU_SHA256"; clang-16 --version | head -1; sha256sum <"$ICU_HEADER_DIR/nothreads.h"
  sed -n '/^ICU_SOURCES=(/,/^)/p;/^ICU_CXXFLAGS=(/,/)$/p;/^build_icu_library()/,/^}/p' "$ICU_SCRIPT"
} | sha256sum | cut -c1-16)"
ICU_DATA_OUT="$SW_CACHE/engines/icu/data-$( {
  echo "icu $ICU_SHA256"; dpkg-query -W -f '${Version}' icu-devtools 2>/dev/null
  sed -n '/^ICU_LANGS=/p;/^ICU_ZH_DROP=/p;/^ICU_FILTER_PY=/,/^open(dst/p;/^build_icu_data()/,/^}/p' "$ICU_SCRIPT"
} | sha256sum | cut -c1-16)"
ICU_SRC="$SW_DEPS/icu-$ICU_VERSION-coll"

fetch_icu() {
  if [ -f "$ICU_SRC/.verified" ]; then echo "    cached in $ICU_SRC"; return 0; fi
  fetch_debsrc "$SW_CACHE" bookworm "$ICU_SPEC" "$ICU_TARBALL" "$ICU_SHA256" || return 1
  local tmp="$ICU_SRC.tmp.$$"
  rm -rf "$tmp" && mkdir -p "$tmp"
  # Only what the build reads: the headers and sources of common/ and i18n/, and the prebuilt data package.
  tar -xzf "$SW_CACHE/apt-bookworm/$ICU_TARBALL" -C "$tmp" --strip-components=2 \
    icu/source/common icu/source/i18n icu/source/data/in/icudt72l.dat || { rm -rf "$tmp"; return 1; }
  rm -rf "$ICU_SRC" && mv "$tmp" "$ICU_SRC" && touch "$ICU_SRC/.verified"
  echo "    $ICU_SPEC -> $ICU_SRC"
}

build_icu_library() {
  if [ -f "$ICU_LIB_OUT/libicu-coll.a" ]; then echo "    cached $ICU_LIB_OUT/libicu-coll.a"; return 0; fi
  # Objects stay in $ICU_LIB_OUT.obj until the archive is made, so an interrupted build resumes (clang writes each
  # object atomically).
  local obj="$ICU_LIB_OUT.obj" t0; t0=$(sw_now_ms)
  mkdir -p "$obj"
  export ICU_CXX_STR="clang++-16 ${ICU_CXXFLAGS[*]} -I$ICU_SRC/common -I$ICU_SRC/i18n -ffile-prefix-map=$ICU_SRC=icu-$ICU_VERSION -ffile-prefix-map=$ICU_HEADER_DIR=engines/javascript/icu"
  local s objs=()
  for s in "${ICU_SOURCES[@]}"; do objs+=("$obj/$(basename "$s").o"); done
  for s in "${ICU_SOURCES[@]}"; do echo "$ICU_SRC/$s.cpp $obj/$(basename "$s").o"; done |
    xargs -P "${ICU_JOBS:-2}" -n 2 bash -c '[ -f "$2" ] || $ICU_CXX_STR -c "$1" -o "$2"' _ || return 1
  mkdir -p "$ICU_LIB_OUT"
  llvm-ar rcs "$ICU_LIB_OUT/libicu-coll.a.tmp" "${objs[@]}" && mv "$ICU_LIB_OUT/libicu-coll.a.tmp" "$ICU_LIB_OUT/libicu-coll.a" ||
    return 1
  rm -rf "$obj"
  echo $(( ($(sw_now_ms) - t0) / 1000 )) >"$ICU_LIB_OUT/library-seconds"
  echo "    built $ICU_LIB_OUT/libicu-coll.a (${#ICU_SOURCES[@]} sources, $(cat "$ICU_LIB_OUT/library-seconds") s)"
}

# Rewrites a derb dump: drops the named collation tailorings and every precompiled %%CollationBin (genrb -R
# compiles each kept tailoring again from its Sequence and then leaves the rule strings out).
ICU_FILTER_PY='
import re, sys
src, drop, dst = sys.argv[1], set(filter(None, sys.argv[2].split(","))), sys.argv[3]
lines = open(src, encoding="utf-8").read().split("\n")
out, i, dropped = [], 0, set()
while i < len(lines):
    m = re.match(r"^        ([a-z0-9-]+)\{$", lines[i])
    if m and m.group(1) in drop:
        dropped.add(m.group(1))
        i += 1
        while lines[i] != "        }":
            i += 1
        i += 1
        continue
    if "%%CollationBin" not in lines[i]:
        out.append(lines[i])
    i += 1
if dropped != drop:
    sys.exit("tailorings not found: %s" % sorted(drop - dropped))
open(dst, "w", encoding="utf-8").write("\n".join(out))
'

build_icu_data() {
  if [ -f "$ICU_DATA_OUT/icudata.o" ] && [ -f "$ICU_DATA_OUT/stdlib.tar" ]; then echo "    cached $ICU_DATA_OUT/icudata.o"; return 0; fi
  command -v icupkg >/dev/null && command -v genrb >/dev/null && command -v derb >/dev/null && command -v genccode >/dev/null ||
    { echo "icu-devtools missing: run bash scripts/bootstrap.sh"; return 1; }
  case "$(genrb --version 2>&1)" in *"$ICU_VERSION"*) ;; *) echo "genrb is not ICU $ICU_VERSION"; return 1 ;; esac
  local work="$ICU_DATA_OUT.data.$$" dat="$ICU_SRC/data/in/icudt72l.dat"
  rm -rf "$work" && mkdir -p "$work/items" "$work/zh/out"
  local re; re="^coll/(root\\.res|ucadata\\.icu|res_index\\.res|($(IFS='|'; echo "${ICU_LANGS[*]}"))(_[A-Za-z0-9_]*)?\\.res)$"
  icupkg -l "$dat" | grep -E "$re" | grep -v '^coll/en_US_POSIX\.res$' >"$work/items.txt"
  printf '%s\n' keyTypeData.res likelySubtags.res >>"$work/items.txt"
  icupkg -x "$work/items.txt" -d "$work/items" "$dat" || { rm -rf "$work"; return 1; }
  # coll/zh.res: 897 KiB, of which the rule strings and big5han/gb2312han/unihan are most.
  (cd "$work/items/coll" && derb -c -s "$PWD" zh.res) >"$work/zh/zh.dump.txt" &&
    python3 -c "$ICU_FILTER_PY" "$work/zh/zh.dump.txt" "$ICU_ZH_DROP" "$work/zh/zh.txt" &&
    (cd "$work/zh" && genrb -q -R -e UTF-8 -d out zh.txt) &&
    cp "$work/zh/out/zh.res" "$work/items/coll/zh.res" || { echo "rebuilding coll/zh.res failed"; rm -rf "$work"; return 1; }
  # The same items as one package, for the record (docs/intl.md measures it); the engine reads the files one by one.
  icupkg -tl -s "$work/items" -a "$work/items.txt" new "$work/icudt72l-coll.dat" >/dev/null || { rm -rf "$work"; return 1; }
  # stdlib.tar: the items as files, /stdlib/icu/icudt72l/<item> in the engine (ICU's per-file data layout,
  # udata.cpp: <u_getDataDirectory()>/<package>/<tree>/<name>), read on first use (intl_collator.c icu_ready).
  mkdir -p "$work/tar/icu" && mv "$work/items" "$work/tar/icu/icudt72l" &&
    (cd "$work/tar" && find icu -type f | LC_ALL=C sort >../files &&
      tar --no-recursion --format=ustar --owner=0 --group=0 --numeric-owner --mtime=@0 --mode=a=r \
        -cf ../stdlib.tar -T ../files) || { rm -rf "$work"; return 1; }
  # ICU's common data (U_ICUDATA_ENTRY_POINT, icudt72_dat) is an empty package: every item comes from the files.
  # genccode names the array after the file (icudt72l_dat).
  icupkg -tl new "$work/icudt72l.dat" >/dev/null &&
    genccode -q -d "$work" "$work/icudt72l.dat" && sed -i 's/\bicudt72l_dat\b/icudt72_dat/' "$work/icudt72l_dat.c" &&
    grep -q 'icudt72_dat=' "$work/icudt72l_dat.c" &&
    clang-16 --target=wasm32-wasi -O2 -I "$ICU_SRC/common" -c "$work/icudt72l_dat.c" -o "$work/icudata.o" ||
    { echo "genccode/compile of the data failed"; rm -rf "$work"; return 1; }
  # The available locales (ECMA-402 [[AvailableLocales]]): the collation tree's locales of the 10 languages, as BCP 47
  # (ICU's ucol_getAvailable, what V8 reports: en-US and zh-TW have entries, en-GB falls back to en).
  {
    echo "/* Generated by scripts/engines/icu.sh from ICU $ICU_VERSION's coll/ tree: the locales of ${ICU_LANGS[*]}. */"
    echo "static const char *const sw_icu_locales[] = {"
    sed -n 's|^coll/\(.*\)\.res$|\1|p' "$work/items.txt" | grep -v -E '^(root|res_index)$|__|_$' | tr _ - | LC_ALL=C sort |
      sed 's/.*/  "&",/'
    echo "};"
  } >"$work/icu-locales.h"
  mkdir -p "$ICU_DATA_OUT"
  mv "$work/icudt72l-coll.dat" "$ICU_DATA_OUT/icudt72l-coll.dat" && mv "$work/stdlib.tar" "$ICU_DATA_OUT/stdlib.tar" &&
    mv "$work/icu-locales.h" "$ICU_DATA_OUT/icu-locales.h" &&
    mv "$work/icudata.o" "$ICU_DATA_OUT/icudata.o" && rm -rf "$work"
  echo "    data: $(grep -c '^  "' "$ICU_DATA_OUT/icu-locales.h") locales, $(stat -c %s "$ICU_DATA_OUT/icudt72l-coll.dat") bytes as a package ($(gzip -9c "$ICU_DATA_OUT/icudt72l-coll.dat" | wc -c) gzip -9), stdlib.tar $(stat -c %s "$ICU_DATA_OUT/stdlib.tar") bytes ($(gzip -9c "$ICU_DATA_OUT/stdlib.tar" | wc -c) gzip -9)"
}

if [ "${1:-}" = "--out-dirs" ]; then echo "$ICU_LIB_OUT $ICU_DATA_OUT"; exit 0; fi

# What this script runs (also in scripts/bootstrap.sh): clang++ and libc++ for wasm32, llvm-ar, icu-devtools 72.1.
ICU_APT_PACKAGES=(clang-16 lld-16 wasi-libc libc++-16-dev-wasm32 libc++abi-16-dev-wasm32 llvm icu-devtools python3)
install_packages() { sw_apt_install "${ICU_APT_PACKAGES[@]}"; }

step "ICU build tools (apt, only the missing ones)" install_packages
step "ICU source ($ICU_SPEC, sha256-pinned)" fetch_icu
step "ICU collator library (wasm32-wasi)" build_icu_library
step "ICU collation data (10 locales)" build_icu_data
