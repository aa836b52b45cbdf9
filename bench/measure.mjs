// Timing and error helpers shared by bench/run.mjs and tests/bench-accuracy.test.js.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// Each measurement starts from a collected heap, so that no contender pays
// for the garbage of the one before (outputs here are up to 64 MB each):
// without it, the same posenc call read 24 ms or 37 ms depending on what ran
// before it. The flag must be set before the first context is made.
setFlagsFromString('--expose-gc');
export const collect = runInNewContext('gc');

/** Median of a list of numbers. */
export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Runs `fn` once to warm up (JIT, first-call compilation, wasm memory growth),
 * then `reps` more times, and returns the median time in ms with the last
 * result. `reps` shrinks for slow contenders so that one contender spends about
 * `budgetMs` (but never fewer than `minReps` repetitions after the warm-up).
 * Contenders that take seconds warm up with `warmup` instead: the same code on
 * a smaller input, which compiles the same functions at a fraction of the cost.
 */
export async function measure(fn, { minReps = 3, maxReps = 7, budgetMs = 3000, warmup: warm = fn } = {}) {
  collect();
  let t = performance.now();
  let result = await warm();
  const warmup = performance.now() - t;
  const times = [];
  for (let i = 0; i < maxReps; i++) {
    if (i >= minReps && times.reduce((a, b) => a + b, 0) + (times.at(-1) ?? warmup) > budgetMs) break;
    result = undefined; // let the previous output be collected before the next run
    t = performance.now();
    result = await fn();
    times.push(performance.now() - t);
  }
  return { ms: median(times), times, warmupMs: warmup, result };
}

/** Largest |a[i] - b[i]|; NaN anywhere makes the result NaN. */
export function maxAbsError(a, b) {
  if (a.length !== b.length) throw new Error(`length mismatch: ${a.length} vs ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const e = Math.abs(a[i] - b[i]);
    if (!(e <= m)) m = e; // also catches NaN
  }
  return m;
}

/** Largest |a[i] - b[i]| / max(|b|) over the whole matrix (a relative error on the matrix scale). */
export function maxRelError(a, b) {
  let scale = 0;
  for (let i = 0; i < b.length; i++) scale = Math.max(scale, Math.abs(b[i]));
  return maxAbsError(a, b) / (scale || 1);
}

/** A deterministic matrix with entries uniform in [-1, 1) (xorshift32). */
export function randomMatrix(rows, cols, seed = 12345) {
  const data = new Float32Array(rows * cols);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < data.length; i++) {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    data[i] = x / 2 ** 31 - 1;
  }
  return { rows, cols, data };
}

/**
 * Times `a` and `b` alternately (after one warm-up of each) and returns the
 * median of the per-pair ratios time(a) / time(b). Load that comes and goes
 * on a shared machine hits both halves of a pair alike, so the ratio is far
 * steadier than a ratio of two separately taken medians.
 */
export async function measureRatio(a, b, pairs = 9) {
  collect();
  await a();
  await b();
  const ratios = [], ta = [], tb = [];
  for (let i = 0; i < pairs; i++) {
    let t = performance.now();
    await a();
    const x = performance.now() - t;
    t = performance.now();
    await b();
    const y = performance.now() - t;
    ta.push(x);
    tb.push(y);
    ratios.push(x / y);
  }
  return { ratio: median(ratios), aMs: median(ta), bMs: median(tb), pairs };
}
