// One call may hold at most PE_MAX_BYTES (1 GiB) of WebAssembly memory: its
// inputs, its outputs and the C core's scratch together (docs/limits.md). Each
// family of calls runs in a child Node at sizes climbing through the limit,
// with wasm memory able to grow to twice the limit (V8's --wasm-max-mem-pages),
// so that a call breaking the limit shows as memory past baseline + limit
// rather than as a failure to grow. Every call must either succeed within
// baseline + limit or be refused with a RangeError, never leave allocations,
// and the largest accepted call must come near the limit (else the test
// proves nothing). Refusals: JS's count of inputs and outputs, the core's
// scratch check (status 2, also for the RoPE frequencies, which until issue
// 16 reached pe_malloc's own limit and were reported as out of memory, status
// 6), and pe_malloc's limit seen from JS as exhausted memory. Status 6 is left
// for memory that cannot grow, never for the limit.
// The debug build lowers the limit to 8 MiB through pe_set_byte_limit (the same
// allocator and checks, a thousandth of the work); the release build runs the
// issue's two calls at the shipped 1 GiB: table(16, 2^24), whose oscillator
// needed 320 MiB beside its 1 GiB chunk, and a Gram of 2^27 float32 values
// outside float32's safe range, whose float64 copy needed 1 GiB beside them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./helpers/limit-child.mjs', import.meta.url));
const PAGE = 65536;
const MiB = 2 ** 20;
// The refusals of a call past the limit. Not "out of memory (status 6)": that
// means wasm memory could not grow, and names no limit.
const REFUSED = /^RangeError: posenc\.\w+: (a size is below 1, above 2\^24, or needs more than 1 GiB \(status 2\)|WebAssembly memory is exhausted \(could not allocate \d+ bytes\)|this call would need [\d.]+ MiB)/;

/** Runs a family at `sizes` with wasm memory capped at `pages`; returns { limit, baseline, calls }. */
function runChild(build, limit, family, sizes, pages) {
  const r = spawnSync(process.execPath, [`--wasm-max-mem-pages=${pages}`, '--max-old-space-size=6144', CHILD, build, String(limit), family, JSON.stringify(sizes)],
    { encoding: 'utf8', timeout: 300_000 });
  assert.equal(r.status, 0, `child for ${family} failed: ${r.stderr}`);
  const [head, ...calls] = r.stdout.trim().split('\n').map((line) => JSON.parse(line));
  return { ...head, calls };
}

/** Sizes from `from` up by factors of 1.25 to `to` (whole numbers, even when asked). */
function ladder(from, to, even = false) {
  const out = [];
  for (let s = from; s <= to; s *= 1.25) out.push(even ? 2 * Math.round(s / 2) : Math.round(s));
  return out;
}

function checkFamily(build, limit, family, sizes) {
  const baselinePages = 16; // -sINITIAL_MEMORY=1MB (build.sh)
  const cap = Math.min(2 ** 15, baselinePages + 2 * Math.ceil(limit / PAGE)); // 2 GiB at most (build.sh)
  const { baseline, calls, limit: inForce } = runChild(build, limit, family, sizes, cap);
  assert.equal(inForce, limit);
  assert.equal(baseline, baselinePages * PAGE);
  let largest = null;
  for (const c of calls) {
    assert.equal(c.live, 0, `${family}(${c.size}) left allocations`);
    assert.ok(c.bytes <= baseline + limit, `${family}(${c.size}): wasm memory ${c.bytes} passed baseline ${baseline} + limit ${limit}`);
    if (c.error === null) largest = c;
    else assert.match(c.error, REFUSED, `${family}(${c.size})`);
  }
  assert.ok(largest, `${family}: no size was accepted`);
  assert.ok(calls.at(-1).error, `${family}: even ${sizes.at(-1)} was accepted; the ladder does not reach the limit`);
  return { largest, baseline, calls };
}

const DEBUG_FAMILIES = {
  tableWide: ladder(2 ** 16, 2 ** 19, true),
  gramTiny: ladder(2 ** 14, 2 ** 17),
  gramCosineTiny: ladder(2 ** 14, 2 ** 17),
  tableGramPadded: ladder(2 ** 12, 2 ** 16, true),
  tableGram: ladder(256, 2048),
  ropeCache: ladder(2 ** 16, 2 ** 20, true),
  timestep: ladder(2 ** 18, 2 ** 21, true),
};

const LIMIT = 8 * MiB;
for (const [family, sizes] of Object.entries(DEBUG_FAMILIES)) {
  test(`${family}: inputs, outputs and scratch stay within the per-call limit (debug build, limit lowered to 8 MiB)`, () => {
    const { largest, baseline, calls } = checkFamily('debug', LIMIT, family, sizes);
    assert.ok(largest.bytes - baseline >= LIMIT / 2, `${family}: the largest accepted call (${largest.size}) grew memory by only ${largest.bytes - baseline} bytes`);
    if (family === 'ropeCache') {
      // the first refusal is the frequencies' scratch check, not pe_malloc failing (status 6 before issue 16)
      const first = calls.find((c) => c.error);
      assert.match(first.error, /needs more than 1 GiB \(status 2\)$/, `ropeCache(1, ${first.size})`);
    }
  });
}

test('the shipped limit is PE_MAX_BYTES, and memory that cannot grow fails cleanly (status 6 or exhausted), module usable', () => {
  // pe_set_byte_limit(0) changes nothing and answers the limit in force.
  const r = runChild('debug', 0, 'tableWide', [2 ** 18, 64], 16 + 64);
  assert.equal(r.limit, 2 ** 30);
  // Memory capped at 4 MiB above the baseline under a 1 GiB limit: the call
  // needs 6 MiB of scratch, so the failure is memory's, not the limit's.
  const [call, after] = r.calls;
  assert.match(call.error, /^RangeError: posenc\.table: (out of memory \(status 6\)|WebAssembly memory is exhausted)/);
  assert.equal(call.live, 0);
  assert.equal(after.error, null, 'a small call after the failure');
});

test('the issue\'s two calls at the shipped 1 GiB: refused before memory passes baseline + 1 GiB', () => {
  for (const [family, size] of [['table16', 2 ** 24], ['gram27', 2 ** 27]]) {
    const { calls, baseline } = runChild('release', 2 ** 30, family, [size], 2 ** 15);
    const [c] = calls;
    assert.match(c.error ?? '', REFUSED, family);
    assert.ok(c.bytes <= baseline + 2 ** 30, `${family}: ${c.bytes}`);
    assert.equal(c.live, 0);
  }
});
