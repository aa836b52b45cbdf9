#!/usr/bin/env bash
# Builds posenc into dist/: the WebAssembly core (release and debug), each
# embedded in a JS module, and the static tutorial site. Installs what is
# missing first: Emscripten (and, for tests, Chromium) from Debian's packages
# when run as root, and node_modules with `npm ci` when they are absent.
#
#   bash build.sh              build everything
#   bash build.sh --for-tests  also make sure Chromium is there for the browser tests
set -euo pipefail
cd "$(dirname "$0")"

for_tests=0
for arg in "$@"; do
  case "$arg" in
    --for-tests) for_tests=1 ;;
    *) echo "build.sh: unknown argument $arg (known: --for-tests)" >&2; exit 2 ;;
  esac
done

. scripts/install.sh

have emcc || install_package emscripten emcc
have python3 || install_package python3 python3
if [ "$for_tests" = 1 ]; then
  have chromium || install_package chromium chromium
  # Without a CJK font the screenshots the browser tests save show boxes for Chinese text.
  fc-list :lang=zh 2>/dev/null | grep -q . || install_package fonts-wqy-microhei "a Chinese font"
  # tests/code-blocks.test.js runs the tutorial's NumPy code block with Debian's python3.
  /usr/bin/python3 -c 'import numpy' 2>/dev/null || install_package python3-numpy "NumPy for python3"
fi
if [ ! -d node_modules ]; then
  echo "build.sh: installing npm dev dependencies (npm ci)..."
  npm ci --no-audit --no-fund --loglevel=error
fi

# Debian's emcc runs its JS optimiser with the system Node, which finds
# Debian's acorn only through NODE_PATH.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
# Two modules, so that `import 'posenc'` does not carry the variants: the
# core (sinusoidal tables, Gram, attention) and the variants (RoPE, ALiBi,
# relative, learned, binary, precision). Each links all of c/ and keeps only
# what its export list reaches (c/exports/common.txt + core.txt or variants.txt).
# exports_of LIST...: the -sEXPORTED_FUNCTIONS value of common.txt plus LIST.txt each.
exports_of() {
  local lists=(c/exports/common.txt) list
  for list in "$@"; do lists+=("c/exports/$list.txt"); done
  cat "${lists[@]}" | sed -e '/^\s*$/d' -e 's/^/_/' | paste -sd, -
}

# No JS glue: a standalone module that imports nothing of note, so one small
# loader (web/lib/wasm.js) serves Node, browsers and bundlers alike.
# -msimd128: the table, Gram and oscillator kernels use f64x2 (c/simd.h);
# -mbulk-memory: memcpy/memset become memory.copy/fill (the Toeplitz Gram's
# row copies run ~1.5x faster). Both are in Node >= 16.4 and current browsers.
# -sMALLOC=none: the core has its own allocator (c/alloc.c), as it has its own
# sin/cos/exp/log/pow (c/trig.c, c/explog.c); musl's and emmalloc were more
# than half of each module.
common=(c/*.c -std=c99 -Wall -Wextra -Werror --no-entry -sSTANDALONE_WASM
  -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2GB -sINITIAL_MEMORY=1MB -sTOTAL_STACK=64KB
  -sMALLOC=none -msimd128 -mbulk-memory)

mkdir -p dist/debug
for module in core variants fields; do
  out=$([ "$module" = core ] && echo posenc || echo "$module")
  # -Os, not -O3: the hot loops are written with explicit SIMD, so -O3's
  # unrolling and inlining bought nothing measurable, at +27% gzipped. (-Oz
  # is no smaller now that the math and the allocator are our own.)
  emcc "${common[@]}" -sEXPORTED_FUNCTIONS="$(exports_of "$module")" -Os -DNDEBUG -o "dist/$out.wasm"
  # The debug build keeps C assertions and symbols, and exports the work
  # counters of c/work.h (c/exports/debug.txt); the test suite runs against it too.
  emcc "${common[@]}" -sEXPORTED_FUNCTIONS="$(exports_of "$module" debug)" -O0 -g -o "dist/debug/$out.wasm"
  node scripts/embed-wasm.mjs "dist/$out.wasm" "dist/$out-wasm.js"
  node scripts/embed-wasm.mjs "dist/debug/$out.wasm" "dist/debug/$out-wasm.js"
done
node scripts/bundle-lib.mjs # the package's entries: dist/lib/posenc.js, dist/lib/variants.js

if [ -f scripts/build-site.mjs ]; then node scripts/build-site.mjs; fi
node scripts/sizes.mjs
