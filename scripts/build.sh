#!/usr/bin/env bash
# Builds one or more flavours: native (unit tests, ASan+UBSan), wasm (the core module + unit tests for Node),
# fuzz (libFuzzer targets), asan (the core with ASan + UBSan in build/wasm-asan, for scripts/asan-core.sh). Default:
# native and wasm. After the core module: the boot image of every engine built so far (scripts/boot-images.mjs; build
# the engines first, scripts/build-engines.sh).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SW_ROOT"
mkdir -p build/tmp
export TMPDIR="$SW_ROOT/build/tmp"   # keep emcc's temporary files inside the project

# ccache (SW_CC_LAUNCHER, scripts/lib.sh) compiles each object once per content, whatever the clone.
if [ -n "$SW_CC_LAUNCHER" ]; then
  LAUNCHER=(-DCMAKE_C_COMPILER_LAUNCHER="$SW_CC_LAUNCHER" -DCMAKE_CXX_COMPILER_LAUNCHER="$SW_CC_LAUNCHER")
else
  LAUNCHER=(-UCMAKE_C_COMPILER_LAUNCHER -UCMAKE_CXX_COMPILER_LAUNCHER)
fi

build_preset() {
  local preset="$1"; shift
  cmake --preset "$preset" "${LAUNCHER[@]}" >"build/configure-$preset.log" 2>&1 ||
    { cat "build/configure-$preset.log"; return 1; }
  cmake --build --preset "$preset" "$@"
}

# What lists languages outside C++ (the gateway's config, the .d.ts unions) is generated from the manifests first.
step "languages: build/gateway/wrangler.jsonc, worker-shim/generated/languages.d.ts" "$SW_NODE" scripts/languages.mjs write

flavours=("$@")
[ ${#flavours[@]} -gt 0 ] || flavours=(native wasm)
for f in "${flavours[@]}"; do
  case "$f" in
    native) step "build: native (unit tests, ASan+UBSan)" build_preset native ;;
    wasm) step "build: wasm (core module for the Worker, unit tests for Node)" build_preset wasm &&
          step "boot images" "$SW_NODE" scripts/boot-images.mjs ;;
    # The two halves of wasm: npm test compiles while the engines build, then makes the boot images.
    wasm-only) step "build: wasm (core module for the Worker, unit tests for Node)" build_preset wasm ;;
    boot-images) step "boot images" "$SW_NODE" scripts/boot-images.mjs ;;
    core) step "build: wasm core module" build_preset wasm --target sw_core &&
          step "boot images" "$SW_NODE" scripts/boot-images.mjs ;;
    fuzz) step "build: fuzz targets (clang-16, libFuzzer)" build_preset fuzz ;;
    asan) step "build: wasm core with ASan + UBSan (build/wasm-asan; never shipped)" build_preset wasm-asan --target sw_core ;;
    *) echo "unknown flavour: $f (native, wasm, wasm-only, boot-images, core, fuzz, asan)"; exit 2 ;;
  esac
done
