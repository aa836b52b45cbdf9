#!/usr/bin/env bash
# Fuzzes the C API of posenc with libFuzzer for a bounded time.
#
#   bash fuzz/run.sh                  60 s (FUZZ_SECONDS overrides: FUZZ_SECONDS=300 bash fuzz/run.sh)
#   FUZZ_RUNS=N bash fuzz/run.sh      N seeded mutations (seed FUZZ_SEED, default 1) of the
#                                     committed inputs, without coverage feedback: the same
#                                     inputs on every run and machine (what `npm test` runs,
#                                     so it cannot fail by chance). libFuzzer's own runs are
#                                     not repeatable, even with -seed: a timed run explores.
#   bash fuzz/run.sh FILE...          replays FILEs (a crash found earlier) and stops
#
# Builds fuzz/fuzz_api.c with the same c/*.c as the wasm, under clang's
# -fsanitize=fuzzer,address,undefined, into dist/native/fuzz_api. It starts from
# the committed seeds (fuzz/corpus/) and regression inputs (fuzz/regressions/);
# what it learns goes to dist/native/fuzz-work/, never into the committed
# corpus. A crash, sanitizer report or broken invariant is saved under
# dist/native/fuzz-artifacts/ and fails the run: turn it into a regression
# (fuzz/README.md says how). Prints execs, coverage and time, then
# "fuzz: N passed, M failed". Installs clang and its libFuzzer/sanitizer
# runtime from Debian when missing and running as root.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/install.sh
have clang || install_package clang

out=dist/native
mkdir -p "$out"
probe=$out/fuzz-probe.c
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' >"$probe"
if ! clang -fsanitize=fuzzer,address,undefined "$probe" -o "$out/fuzz-probe" >/dev/null 2>&1; then
  install_package "libclang-rt-$(clang -dumpversion | cut -d. -f1)-dev"
fi

[ -f /usr/include/simde/wasm/simd128.h ] || install_package libsimde-dev "SIMDe (wasm_simd128 emulation)"

# The code that ships: the SIMD kernels through SIMDe (-DPE_SIMDE), the own
# allocator over a static arena (-DPE_ARENA), no fused multiply-adds (as in
# wasm); the same sources as build.sh.
mapfile -t sources < <(find c -name '*.c' | sort)
# $1: the sanitizers (with or without libFuzzer); the rest: more flags.
build_harness() {
  local sanitizers=$1
  shift
  clang -std=c99 -Wall -Wextra -Werror -g -O1 -fno-omit-frame-pointer -ffp-contract=off \
    -fsanitize="$sanitizers" -fno-sanitize-recover=all -DPE_SIMDE -DPE_ARENA \
    -Ic "${sources[@]}" fuzz/fuzz_api.c -Wl,--wrap=malloc -lm "$@"
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

if [ "$#" -gt 0 ] || [ -z "${FUZZ_RUNS:-}" ]; then
  build_harness fuzzer,address,undefined -o "$out/fuzz_api"
fi
if [ "$#" -gt 0 ]; then
  exec "$out/fuzz_api" "$@"
fi

seconds=${FUZZ_SECONDS:-60}
runs=${FUZZ_RUNS:-}
# libFuzzer reads -max_total_time=0 as "forever": insist on a bound.
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 1 ]; then
  echo "fuzz/run.sh: FUZZ_SECONDS must be a whole number of seconds >= 1 (got '$seconds')" >&2
  exit 2
fi
if [ -n "$runs" ] && { ! [[ "$runs" =~ ^[0-9]+$ ]] || [ "$runs" -lt 1 ]; }; then
  echo "fuzz/run.sh: FUZZ_RUNS must be a whole number of inputs >= 1 (got '$runs')" >&2
  exit 2
fi
work=$out/fuzz-work
artifacts=$out/fuzz-artifacts
mkdir -p "$artifacts" fuzz/regressions
if [ -n "$runs" ]; then
  # fuzz_api.c's --mutate driver: ASan and UBSan without libFuzzer, whose coverage
  # feedback made two runs of one seed part ways (CI found what we did not).
  build_harness address,undefined -DPE_FUZZ_REPLAY_MAIN -o "$out/fuzz_mutate"
  seed=${FUZZ_SEED:-1}
  saved=$artifacts/mutant-seed-$seed
  echo "fuzz/run.sh: $runs mutations of the committed inputs from seed $seed (log: $out/fuzz.log)"
  set +e
  "$out/fuzz_mutate" --mutate "$runs" "$seed" "$saved" fuzz/corpus fuzz/regressions >"$out/fuzz.log" 2>&1
  status=$?
  set -e
  if [ "$status" = 0 ] && grep -q '^ok - ran' "$out/fuzz.log"; then
    grep '^ok - ran' "$out/fuzz.log"
    echo "fuzz: 1 passed, 0 failed"
    exit 0
  fi
  grep -aE 'invariant failed|an input ran|  call:|ERROR: |SUMMARY: |runtime error' "$out/fuzz.log" | head -n 20 || true
  echo "not ok - a mutation failed (exit $status); reproduce with: bash fuzz/run.sh $saved"
  echo "fuzz: 0 passed, 1 failed"
  exit 1
fi
mkdir -p "$work"
bound=(-max_total_time="$seconds")
what="${seconds} s"
log=$out/fuzz.log
echo "fuzz/run.sh: fuzzing the C API, $what (log: $log)"
set +e
# -timeout: one input may take 10 s at most (a hang is a failure too);
# -rss_limit_mb: a runaway allocation is a failure, not a swapping machine.
"$out/fuzz_api" "$work" fuzz/corpus fuzz/regressions \
  "${bound[@]}" -max_len=512 -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix="$artifacts/" -print_final_stats=1 >"$log" 2>&1
status=$?
set -e

# The last status line and the final statistics.
grep -aE '^#[0-9]+' "$log" | tail -n 1 || true
grep -aE '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log" || true
execs=$(grep -aE '^stat::number_of_executed_units' "$log" | awk '{print $2}')
cov=$(grep -aoE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1)
# The log holds raw input bytes, hence grep -a. No statistics means libFuzzer
# never got going, which is a failure too.
if [ "$status" = 0 ] && [ -z "$execs" ]; then
  echo "not ok - libFuzzer exited without its final statistics (log: $log)"
  echo "fuzz: 0 passed, 1 failed"
  exit 1
elif [ "$status" = 0 ]; then
  echo "ok - libFuzzer ran ${execs:-?} inputs ($what; ${cov:-no coverage line}) with no crash, sanitizer report or broken invariant"
  echo "fuzz: 1 passed, 0 failed"
else
  grep -aE 'invariant failed|  call:|ERROR: |SUMMARY: |runtime error|Test unit written' "$log" | head -n 20 || true
  echo "not ok - libFuzzer found a failure (exit $status); reproduce with: bash fuzz/run.sh $artifacts/<file>"
  echo "fuzz: 0 passed, 1 failed"
  exit 1
fi
