#!/usr/bin/env bash
# Builds the C core natively from the same sources as the wasm (c/*.c) and runs
# the C-level tests:
#   1. tests/native/test_api.c, linked with test_lab.c (the lab's C tests),
#      under clang's AddressSanitizer + UndefinedBehaviorSanitizer
#      (-fno-sanitize-recover: the first report aborts the run), with
#      the code that ships: the SIMD kernels through SIMDe's wasm_simd128
#      emulation and the own allocator over a static arena (c/simd.h, c/alloc.c);
#   2. the same tests built by gcc with -Wall -Wextra -Werror -pedantic -O2,
#      over the plain C paths and malloc;
#   3. c/trig.c and c/explog.c within one ulp (tests/native/test_math.c)
#      against tests/golden/math.txt and long double;
#   4. every committed fuzz input (fuzz/corpus/, fuzz/regressions/) replayed
#      through the fuzz harness's invariants under ASan + UBSan.
# Binaries go to dist/native/. Prints each case, then one closing line
# "native: N passed, M failed"; exits non-zero on any failure.
# Installs clang, gcc and clang's sanitizer runtime from Debian when missing
# and running as root (as build.sh does for Emscripten).
set -euo pipefail
cd "$(dirname "$0")/../.."

. scripts/install.sh
have clang || install_package clang
have gcc || install_package gcc

out=dist/native
mkdir -p "$out"
# clang's sanitizer runtimes come in libclang-rt-<major>-dev on Debian 12.
probe=$out/probe.c
echo 'int main(void) { return 0; }' >"$probe"
if ! clang -fsanitize=address,undefined "$probe" -o "$out/probe" >/dev/null 2>&1; then
  major=$(clang -dumpversion | cut -d. -f1)
  install_package "libclang-rt-$major-dev"
fi

# libsimde-dev: SIMDe's portable wasm_simd128.h, so the native builds can run
# the SIMD kernels that ship (c/simd.h, PE_SIMDE).
[ -f /usr/include/simde/wasm/simd128.h ] || install_package libsimde-dev "SIMDe (wasm_simd128 emulation)"

# The same sources as the wasm (build.sh). -ffp-contract=off: no fused
# multiply-adds natively either, so the arithmetic checked is the wasm's.
mapfile -t sources < <(find c -name '*.c' | sort)
cflags=(-std=c99 -Wall -Wextra -Werror -g -Ic -ffp-contract=off)
san=(-O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all)
# What ships, under the sanitizers: the SIMD kernels through SIMDe, and the own
# allocator (c/alloc.c) over a static arena standing in for linear memory.
shipped=(-DPE_SIMDE -DPE_ARENA)
# Allocation failures are injected by wrapping malloc (see test_api.c).
wrap=(-Wl,--wrap=malloc)
# gcc builds the plain C paths (no SIMD) over malloc: the fallbacks get tested too.
gcc_flags=(-std=c99 -Wall -Wextra -Werror -pedantic -O2 -Ic -ffp-contract=off)

export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

passed=0
failed=0
run() { # run NAME COMMAND...: one suite; adds its "N passed, M failed" line to the totals
  local name=$1 log status line p f
  shift
  echo "--- $name"
  log=$(mktemp)
  set +e
  "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  set -e
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1 || true)
  rm -f "$log"
  p=0
  f=0
  if [ -n "$line" ]; then
    p=${line%% passed*}
    f=${line#*, }
    f=${f%% failed*}
  fi
  # A crash (sanitizer report, signal) before the summary line is one more failure.
  if [ "$status" != 0 ] && [ "$f" = 0 ]; then f=1; fi
  passed=$((passed + p))
  failed=$((failed + f))
}

build() { # build NAME COMPILER FLAGS...: compiles or counts one failure
  local name=$1
  shift
  if ! "$@"; then
    echo "not ok - build $name"
    failed=$((failed + 1))
    return 1
  fi
}

# The C tests: test_api.c (the harness and main) and the suites it links.
native_tests=(tests/native/test_api.c tests/native/test_lab.c)

# Every exported entry point must be exercised by the C tests and the fuzzer.
coverage() {
  local missing=() name file
  while read -r name; do
    [ -z "$name" ] && continue
    # the C tests are test_api.c and the files it links (test_lab.c)
    grep -q "\b$name(" "${native_tests[@]}" || missing+=("$name in tests/native/test_*.c")
    [ ! -f fuzz/fuzz_api.c ] || grep -q "\b$name(" fuzz/fuzz_api.c || missing+=("$name in fuzz/fuzz_api.c")
  # debug.txt: the debug build's work counters.
  done < <(ls c/exports/*.txt | grep -Ev '/debug.txt$' | xargs cat)
  if [ "${#missing[@]}" = 0 ]; then
    echo "ok - every entry point in c/exports/ is called by the C tests and the fuzz harness"
    echo "1 passed, 0 failed"
  else
    printf 'not ok - not called: %s\n' "${missing[@]}"
    echo "0 passed, 1 failed"
    return 1
  fi
}
run "coverage of c/exports/" coverage

if build "test_api (clang, ASan + UBSan, SIMD kernels, own allocator)" clang "${cflags[@]}" "${san[@]}" "${shipped[@]}" \
  "${sources[@]}" "${native_tests[@]}" "${wrap[@]}" -lm -o "$out/test_api_asan"; then
  run "C API tests, clang -fsanitize=address,undefined, SIMD kernels (SIMDe) and own allocator" "$out/test_api_asan"
fi

if build "test_api (gcc -Werror)" gcc "${gcc_flags[@]}" "${sources[@]}" "${native_tests[@]}" \
  "${wrap[@]}" -lm -o "$out/test_api_gcc"; then
  run "C API tests, gcc -O2 -Wall -Wextra -Werror, plain C paths and malloc" "$out/test_api_gcc"
fi

# The elementary functions against exact values and long double (c/mathlib.h).
math_golden() {
  if python3 tests/golden/gen_math.py --check; then
    echo "1 passed, 0 failed"
  else
    echo "0 passed, 1 failed"
    return 1
  fi
}
run "tests/golden/math.txt is what gen_math.py writes" math_golden
if build "test_math (clang, ASan + UBSan)" clang "${cflags[@]}" "${san[@]}" tests/native/test_math.c \
  c/trig.c c/explog.c c/work.c -lm -o "$out/test_math"; then
  run "elementary functions within one ulp, ASan + UBSan" "$out/test_math" tests/golden/math.txt
fi

if [ -f fuzz/fuzz_api.c ]; then
  if build "fuzz replay (clang, ASan + UBSan)" clang "${cflags[@]}" "${san[@]}" "${shipped[@]}" -DPE_FUZZ_REPLAY_MAIN \
    "${sources[@]}" fuzz/fuzz_api.c "${wrap[@]}" -lm -o "$out/fuzz_replay"; then
    run "fuzz corpus and regressions replayed, ASan + UBSan" "$out/fuzz_replay" fuzz/corpus fuzz/regressions
  fi
fi

echo "native: $passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
