#!/usr/bin/env bash
# Builds posenc into dist/: the WebAssembly modules (release and debug), each
# embedded in a JS module, the package's bundles and the static tutorial site.
# Installs what is missing first: Emscripten (and, for tests, Chromium) from
# Debian's packages when run as root, and node_modules with `npm ci` when they
# are absent or older than package-lock.json.
#
# Incremental: each step runs only when one of its inputs is newer than its
# output, or its command changed. A C file rebuilds the wasm modules (and what
# embeds them); a file under web/ only the bundles and the site; nothing
# changed, nothing runs (a few seconds, mostly the checks above).
#
#   bash build.sh              build what is out of date
#   bash build.sh --clean      rebuild everything (removes dist/ first)
#   bash build.sh --for-tests  also make sure Chromium is there for the browser tests
set -euo pipefail
cd "$(dirname "$0")"

for_tests=0
for arg in "$@"; do
  case "$arg" in
    --for-tests) for_tests=1 ;;
    --clean) rm -rf dist ;;
    *) echo "build.sh: unknown argument $arg (known: --for-tests, --clean)" >&2; exit 2 ;;
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
# npm ci records what it installed in node_modules/.package-lock.json.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "build.sh: installing npm dev dependencies (npm ci)..."
  # The registry is the one thing here that fails by chance (an idle timeout
  # while fetching a package ended a fresh-clone npm test): retry, then give up.
  for attempt in 1 2 3; do
    npm ci --no-audit --no-fund --loglevel=error --fetch-retries=4 && break
    if [ "$attempt" = 3 ]; then echo "build.sh: npm ci failed three times" >&2; exit 1; fi
    echo "build.sh: npm ci failed (attempt $attempt of 3); retrying in $((attempt * 10)) s" >&2
    sleep $((attempt * 10))
  done
fi

# Debian's emcc runs its JS optimiser with the system Node, which finds
# Debian's acorn only through NODE_PATH.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}

# ---- what is out of date ---------------------------------------------------------
# fresh OUT RECIPE INPUT...: OUT exists, was made by RECIPE (the text of the
# command, kept in dist/.recipes/) and is newer than every file in INPUT...
# (files or directories). `made OUT RECIPE` records a success.
mkdir -p dist/.recipes
recipe_file() { echo "dist/.recipes/$(echo "$1" | tr / _)"; }
fresh() {
  local out=$1 recipe=$2
  shift 2
  [ -e "$out" ] && [ "$(cat "$(recipe_file "$out")" 2>/dev/null)" = "$recipe" ] \
    && [ -z "$(find "$@" -newer "$out" -print -quit 2>/dev/null)" ]
}
made() { echo "$2" >"$(recipe_file "$1")"; }
rebuilt=0

# ---- WebAssembly modules ----------------------------------------------------------
# One module per export list c/exports/NAME.txt (besides common.txt, which
# every module exports, debug.txt, the debug build's work counters, and
# native.txt, below), so
# that `import 'posenc'` does not carry the variants: core (sinusoidal tables,
# Gram, attention) and variants (RoPE, ALiBi, relative, learned, binary,
# precision). A new module is a new export list (and its JS entry). Each links
# sources_of MODULE and keeps only what its export list reaches.
# native.txt: C entry points of the public headers that no JS calls (pe_rope_cache,
# the begin/next/end three in one; pe_rope_apply, the float64 rotation by
# positions; pe_attention, one head of pe_attention_heads; pe_lab_train, the
# average of pe_lab_train_sum), tested natively and fuzzed, and left out of
# every wasm module (295 bytes gzipped of posenc/variants).
modules=$(ls c/exports/*.txt | sed 's|.*/||; s|\.txt$||' | grep -vx 'common\|debug\|native')
# c/lab/ (the PE lab's model, posenc/lab) is linked into the lab module only.
sources_of() {
  find c -maxdepth 1 -name '*.c' | sort
  if [ "$1" = lab ]; then find c/lab -name '*.c' | sort; fi
}
# The file name of a module's outputs: the core is dist/posenc.wasm.
out_of() { if [ "$1" = core ]; then echo posenc; else echo "$1"; fi; }
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
common=(-std=c99 -Wall -Wextra -Werror --no-entry -sSTANDALONE_WASM
  -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2GB -sINITIAL_MEMORY=1MB -sTOTAL_STACK=64KB
  -sMALLOC=none -msimd128 -mbulk-memory)
# -Os, not -O3: the hot loops are written with explicit SIMD, so -O3's
# unrolling and inlining bought nothing measurable, at +27% gzipped. (-Oz
# is no smaller now that the math and the allocator are our own.)
release=(-Os -flto -DNDEBUG)
# The release modules, after emcc: Emscripten exports its stack helpers,
# __errno_location and the function table beside our list, which no loader
# uses; wasm-metadce (binaryen, installed with emcc) drops them and what only
# they reached, and a second wasm-opt pass at the module's own level cleans up
# after it (gzipped entries: core -134 bytes, variants -69, fields -201;
# results bit-identical). Not the lab (below).
#   release_link OPT EXPORTS OUT.wasm EMCC_ARGS...
release_link() {
  local opt=$1 exports=$2 out=$3 graph
  shift 3
  emcc "$@" -sEXPORTED_FUNCTIONS="$exports" -o "$out" || return 1
  graph=$(mktemp)
  # The roots: our exports (without emcc's leading _), the memory, _initialize.
  echo "$exports" | tr , '\n' | sed 's/^_//' | { cat; echo memory; echo _initialize; } \
    | sed 's/.*/{"name":"&","export":"&","root":true}/' | paste -sd, - | sed 's/^/[/; s/$/]/' >"$graph"
  local features=(--enable-simd --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext)
  wasm-metadce "$out" --graph-file "$graph" "${features[@]}" -o "$out" >/dev/null \
    && wasm-opt "$out" "$opt" "${features[@]}" -o "$out"
  local st=$?
  rm -f "$graph"
  return $st
}
# The debug build keeps C assertions and symbols, and exports the work
# counters of c/work.h (c/exports/debug.txt); the test suite runs against it too.
debug=(-O0 -g)

mkdir -p dist/debug
# Part of every module's recipe: a new Emscripten rebuilds them. (dpkg is
# instant; emcc --version starts Python and takes a second or more.)
emcc_version=$(dpkg-query -W -f='emscripten ${Version}' emscripten 2>/dev/null || emcc --version | sed -n 1p)
pids=()
wasm_jobs=()
for module in $modules; do
  out=$(out_of "$module")
  mapfile -t sources < <(sources_of "$module")
  flags_release=("${release[@]}") flags_debug=("${debug[@]}")
  # The lab trains: -O3 for speed over size; its debug module computes in
  # float64 (PE_LAB_F64) so that the tests' finite differences can check
  # its gradients, at -O1 so that those tests train in reasonable time.
  if [ "$module" = lab ]; then flags_release=(-O3 -DNDEBUG) flags_debug=(-O1 -g -DPE_LAB_F64); fi
  # posenc/variants sits at its size target (bench/size.mjs): -Oz with link-time
  # optimisation is 70 bytes smaller gzipped than -Os; nothing in it is hot.
  if [ "$module" = variants ]; then flags_release=(-Oz -flto -DNDEBUG); fi
  for flavour in release debug; do
    if [ "$flavour" = release ]; then
      wasm=dist/$out.wasm
      cmd=(release_link "${flags_release[0]}" "$(exports_of "$module")" "$wasm" "${sources[@]}" "${common[@]}" "${flags_release[@]}")
      # The lab's bundle came out 27 bytes larger gzipped that way, though its module was smaller.
      [ "$module" = lab ] && cmd=(emcc "${sources[@]}" "${common[@]}" -sEXPORTED_FUNCTIONS="$(exports_of "$module")" "${flags_release[@]}" -o "$wasm")
    else
      wasm=dist/debug/$out.wasm
      cmd=(emcc "${sources[@]}" "${common[@]}" -sEXPORTED_FUNCTIONS="$(exports_of "$module" debug)" "${flags_debug[@]}" -o "$wasm")
    fi
    recipe="$emcc_version ${cmd[*]}"
    # Every header and export list counts: which ones a module reads is not worth tracking.
    if ! fresh "$wasm" "$recipe" c; then
      echo "build.sh: $wasm"
      rm -f "$wasm" # a failed build must not leave an old module that looks fresh
      "${cmd[@]}" &
      pids+=($!)
      wasm_jobs+=("$wasm"$'\t'"$recipe")
    fi
  done
done
# The emcc runs go in parallel (each is mostly one process); then each success is recorded.
failed=0
for i in "${!pids[@]}"; do wait "${pids[$i]}" || failed=1; done
[ "$failed" = 0 ] || { echo "build.sh: a WebAssembly build failed" >&2; exit 1; }
for job in "${wasm_jobs[@]}"; do made "${job%%$'\t'*}" "${job#*$'\t'}"; rebuilt=1; done

for module in $modules; do
  out=$(out_of "$module")
  for dir in dist dist/debug; do
    recipe="node scripts/embed-wasm.mjs $dir/$out.wasm $dir/$out-wasm.js"
    if ! fresh "$dir/$out-wasm.js" "$recipe" "$dir/$out.wasm" scripts/embed-wasm.mjs scripts/wasm-text.mjs web/lib/wasm.js; then
      $recipe
      made "$dir/$out-wasm.js" "$recipe"
      rebuilt=1
    fi
  done
done

# ---- bundles and site ---------------------------------------------------------------
# step OUT COMMAND -- INPUT...: runs COMMAND unless OUT is fresh; the stamp is
# dated from before the command, so an input edited meanwhile is seen next time.
step() {
  local out=$1 cmd=() inputs
  shift
  while [ "$1" != -- ]; do cmd+=("$1"); shift; done
  shift
  if fresh "$out" "${cmd[*]}" "$@"; then return 0; fi
  local started
  started=$(mktemp dist/.started.XXXXXX)
  "${cmd[@]}"
  touch -r "$started" "$out" 2>/dev/null || touch "$out"
  rm -f "$started"
  made "$out" "${cmd[*]}"
  rebuilt=1
}
release_js=(dist/*-wasm.js)
# The numbers the C headers define (status codes, enums, limits), for web/lib.
step dist/constants.js node scripts/gen-constants.mjs -- c scripts/gen-constants.mjs
# The package's entries: dist/lib/posenc.js, dist/lib/variants.js.
step dist/.recipes/stamp-lib node scripts/bundle-lib.mjs -- \
  "${release_js[@]}" dist/constants.js web/lib scripts/bundle-lib.mjs scripts/bundle.mjs scripts/wasm-text.mjs c/exports package-lock.json
# posenc/widgets (dist/widgets/) and the standalone dist/posenc-widgets.js.
step dist/.recipes/stamp-widgets node scripts/bundle-widgets.mjs -- \
  dist/lib web/widgets web/lib scripts/bundle-widgets.mjs scripts/bundle.mjs package-lock.json
if [ -f scripts/build-site.mjs ]; then
  step dist/.recipes/stamp-site node scripts/build-site.mjs -- \
    "${release_js[@]}" dist/constants.js dist/posenc-widgets.js web scripts/build-site.mjs scripts/bundle.mjs package-lock.json
fi
if [ "$rebuilt" = 1 ]; then node scripts/sizes.mjs; else echo "build.sh: dist/ is up to date"; fi
