// Times every API family at (or near) its largest accepted size, one call
// each, for docs/limits.md's list of calls that take more than a second. Not a
// test: the numbers depend on the machine and its load (printed before and
// after). Each family runs in a fresh process. Run after bash build.sh:
//
//   node bench/slow-calls.mjs [name...]     (all families when none is named)
//
// A family lists candidate calls from the largest down, each as
// [label, setup]: setup() makes the inputs (untimed) and returns the call.
// The first call the limits accept is timed (refusals are checks before any
// work, so they cost nothing). Wall time and the process's user CPU time are
// both printed: on a shared machine the CPU time is the steadier of the two.
import { loadavg } from 'node:os';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { init } from '../web/lib/index.js';
import { init as initVariants } from '../web/lib/variants/index.js';
import { init as initFields } from '../web/lib/fields/index.js';

const pe = await init();
const pv = await initVariants();
const pf = await initFields();

const f32 = (rows, cols, fill = 0.5) => ({ rows, cols, data: new Float32Array(rows * cols).fill(fill) });
const f64 = (n, fill = 0.5) => new Float64Array(n).fill(fill);
const ramp = (n, scale = 1) => Float64Array.from({ length: n }, (_, i) => i * scale);
/** Candidates for each of `sizes`, largest first: setup(s) returns the call. */
const each = (sizes, label, setup) => sizes.map((s) => [label(s), () => setup(s)]);
const DOWN = [1, 0.875, 0.75, 0.625, 0.5, 0.375, 0.25];

const FAMILIES = {
  // posenc
  tableWide: each([10, 9, 8], (r) => `table(${r}, 2^24) float32`, (r) => () => pe.table(r, 2 ** 24)),
  tableLong: each([16, 14, 12], (d) => `table(2^24, ${d}) float32`, (d) => () => pe.table(2 ** 24, d)),
  tableSquare: each([2 ** 14, 2 ** 13 + 2 ** 12], (n) => `table(${n}, 2^14) float32`, (n) => () => pe.table(n, 2 ** 14)),
  frequencies: [['frequencies(2^24)', () => () => pe.frequencies(2 ** 24)]],
  tableGram: [['tableGram(9216, 64) float32', () => () => pe.tableGram(9216, 64)]],
  tableGramPadded: [['tableGram(8192, 64, { paddingIdx: 0 }) (forms the table)', () => () => pe.tableGram(8192, 64, { paddingIdx: 0 })]],
  gram: [['gram(8192 x 512) float32', () => { const m = f32(8192, 512); return () => pe.gram(m); }]],
  norms: each(DOWN, (k) => `norms(${k * 2 ** 13} x 2^14) float32`, (k) => { const m = f32(k * 2 ** 13, 2 ** 14); return () => pe.norms(m); }),
  columns: [['columns(2^24)', () => () => pe.columns(2 ** 24)]],
  dot: [['dot of two 2^24-vectors', () => { const v = f64(2 ** 24); return () => pe.dot(v, v); }]],
  toyAttention: each(DOWN, (k) => `toyAttention of ${k * 2 ** 24} codes`, (k) => { const c = f64(k * 2 ** 24, 1); return () => pe.toyAttention(c); }),
  rotation: [['rotation(1, 11584)', () => () => pe.rotation(1, 11584)]],
  attention: [['attention(2048 x 64, 2048 x 64, 2048 x 64)', () => {
    const m = { rows: 2048, cols: 64, data: new Float64Array(2048 * 64).fill(0.1) };
    return () => pe.attention(m, m, m);
  }]],
  // posenc/variants
  ropeFrequencies: [['ropeFrequencies(2^24)', () => () => pv.ropeFrequencies(2 ** 24)]],
  ropeCache: each([8, 6, 4], (d) => `ropeCache(2^24, ${d}) float32`, (d) => () => pv.ropeCache(2 ** 24, d)),
  ropeApply: each(DOWN, (k) => `ropeApply(${k * 2 ** 13} x 2^14) float32`, (k) => { const x = f32(k * 2 ** 13, 2 ** 14); return () => pv.ropeApply(x); }),
  ropePermute: each(DOWN, (k) => `ropePermute(${k * 2 ** 13} x 2^14) float32`, (k) => { const x = f32(k * 2 ** 13, 2 ** 14); return () => pv.ropePermute(x); }),
  ropePermutation: [['ropePermutation(2^24)', () => () => pv.ropePermutation(2 ** 24)]],
  alibiSlopes: [['alibiSlopes(65536)', () => () => pv.alibiSlopes(65536)]],
  alibiBias: [['alibiBias(16, 4096, { kLen: 4095 }) float32', () => () => pv.alibiBias(16, 4096, { kLen: 4095 })]],
  t5Bucket: [['t5Bucket(2^24 relative positions)', () => { const r = ramp(2 ** 24).map((x) => x - 2 ** 23); return () => pv.t5Bucket(r); }]],
  t5BucketMatrix: [['t5BucketMatrix(16384) (kLen = qLen)', () => () => pv.t5BucketMatrix(16384)]],
  shawClip: [['shawClip(16384) (kLen = qLen)', () => () => pv.shawClip(16384)]],
  learnedTable: [['learnedTable(4, 2^24) float32 (2^26 normal numbers)', () => () => pv.learnedTable(4, 2 ** 24)]],
  learnedRows: [['learnedRows(1024 positions, 1024, 2^16) float32', () => { const p = ramp(1024); return () => pv.learnedRows(p, 1024, 2 ** 16); }]],
  binaryTable: [['binaryTable(2^22, 64) float32', () => () => pv.binaryTable(2 ** 22, 64)]],
  roundTo: [['roundTo(2^24 values, float16)', () => { const v = f64(2 ** 24, 0.1); return () => pv.roundTo(v, 'float16'); }]],
  formatBits: [['formatBits(2^24 values, bfloat16)', () => { const v = f64(2 ** 24, 0.1); return () => pv.formatBits(v, 'bfloat16'); }]],
  precisionError: [['precisionError(512, { format: float16, count: 65536 })', () => () => pv.precisionError(512, { format: 'float16', count: 65536 })]],
  precisionErrorWide: [['precisionError(2^24, { count: 2 })', () => () => pv.precisionError(2 ** 24, { count: 2 })]],
  // posenc/fields
  timestepEmbedding: each(DOWN, (k) => `timestepEmbedding(${k * 2 ** 24} timesteps, 16)`, (k) => { const t = ramp(k * 2 ** 24, 1e-3); return () => pf.timestepEmbedding(t, 16); }),
  sincos1d: each(DOWN, (k) => `sincos1d(${k * 2 ** 24} positions, 16)`, (k) => { const p = ramp(k * 2 ** 24); return () => pf.sincos1d(p, 16); }),
  sincos2d: each(DOWN, (k) => `sincos2d(${k * 2 ** 12}, 4096, 16)`, (k) => () => pf.sincos2d(k * 2 ** 12, 4096, 16)),
  fourierFeatures: each(DOWN, (k) => `fourierFeatures(${k * 2 ** 24} points of 1, { levels: 8 })`,
    (k) => { const p = ramp(k * 2 ** 24, 2 ** -24); return () => pf.fourierFeatures(p, { levels: 8 }); }),
  randomFourierFeatures: each(DOWN, (k) => `randomFourierFeatures(${k * 2 ** 11} points of 1, { features: 65536 })`,
    (k) => { const p = ramp(k * 2 ** 11, 2 ** -11); return () => pf.randomFourierFeatures(p, { features: 65536 }); }),
  randomFourierB: each([1024, 512], (d) => `randomFourierFeatures(1 point of ${d}, { features: 65536 }) (B: 2^16 x ${d} normal numbers)`,
    (d) => () => pf.randomFourierFeatures({ rows: 1, cols: d, data: f64(d, 1e-3) }, { features: 65536, sigma: 1 })),
};

const REFUSED = /would need|must be at most|status 2\)|memory is exhausted/;
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const want = process.argv.slice(2);

/** Times the first accepted candidate of `name` in this process. */
function measure(name, candidates) {
  for (const [i, [what, setup]] of candidates.entries()) {
    const call = setup();
    const c0 = process.cpuUsage().user;
    const t0 = performance.now();
    let outcome;
    try {
      const r = call();
      outcome = `ok (${(r.data ?? r.cos?.data ?? r.output?.data ?? r.invFreq ?? r).length} values)`;
    } catch (e) {
      if (REFUSED.test(e.message) && i < candidates.length - 1) continue; // the next size down
      outcome = `${e.name}: ${e.message}`;
    }
    const wall = (performance.now() - t0) / 1000, cpu = (process.cpuUsage().user - c0) / 1e6;
    console.log(`${name}\t${wall.toFixed(1)} s\t${cpu.toFixed(1)} s cpu\t${what}\t${outcome}`);
    return;
  }
}

// Each family in a fresh process, as a page's first large call: wasm memory
// starts small and grows during the call (in one process, later calls would
// find it grown already and take up to half as long).
if (process.env.SLOW_CALLS_CHILD) {
  measure(process.env.SLOW_CALLS_CHILD, FAMILIES[process.env.SLOW_CALLS_CHILD]);
} else {
  console.log(`load average before: ${load()}`);
  for (const name of Object.keys(FAMILIES)) {
    if (want.length && !want.includes(name)) continue;
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], {
      env: { ...process.env, SLOW_CALLS_CHILD: name }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'],
    });
    process.stdout.write(r.stdout);
  }
  console.log(`load average after: ${load()}`);
}
