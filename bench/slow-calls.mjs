// Times each API call at (or near) its largest allowed size, one call each,
// for docs/limits.md's list of calls that take more than a second. Not a test:
// the numbers depend on the machine. Run after bash build.sh:
//
//   node bench/slow-calls.mjs [name...]     (all calls when none is named)
import { init } from '../web/lib/index.js';
import { init as initVariants } from '../web/lib/variants/index.js';

const pe = await init();
const pv = await initVariants();

// [name, what, () => call]: each at the byte limit or the call's own limit.
const CALLS = [
  ['table', 'table(2^18, 1024) float32', () => pe.table(2 ** 18, 1024)],
  ['tableGram', 'tableGram(9216, 64) float32', () => pe.tableGram(9216, 64)],
  ['tableGramPadded', 'tableGram(8192, 64, { paddingIdx: 0 }) (forms the table)', () => pe.tableGram(8192, 64, { paddingIdx: 0 })],
  ['gram', 'gram(8192 x 512) float32', () => pe.gram({ rows: 8192, cols: 512, data: new Float32Array(8192 * 512).fill(0.5) })],
  ['rotation', 'rotation(1, 11584)', () => pe.rotation(1, 11584)],
  ['attention', 'attention(2048 x 64, 2048 x 64, 2048 x 64)', () => {
    const m = { rows: 2048, cols: 64, data: new Float64Array(2048 * 64).fill(0.1) };
    return pe.attention(m, m, m);
  }],
  ['ropeCache', 'ropeCache(2^24, 8) float32', () => pv.ropeCache(2 ** 24, 8)],
  ['alibiBias', 'alibiBias(16, 4096, { kLen: 4095 }) float32', () => pv.alibiBias(16, 4096, { kLen: 4095 })],
  ['t5BucketMatrix', 't5BucketMatrix(16384) (kLen = qLen)', () => pv.t5BucketMatrix(16384)],
  ['shawClip', 'shawClip(16384) (kLen = qLen)', () => pv.shawClip(16384)],
  ['learnedTable', 'learnedTable(16, 2^24) float32', () => pv.learnedTable(16, 2 ** 24)],
  ['binaryTable', 'binaryTable(2^22, 64) float32', () => pv.binaryTable(2 ** 22, 64)],
  ['precisionError', 'precisionError(512, { format: float16, count: 65536 })', () => pv.precisionError(512, { format: 'float16', count: 65536 })],
];

const want = process.argv.slice(2);
for (const [name, what, call] of CALLS) {
  if (want.length && !want.includes(name)) continue;
  const t0 = performance.now();
  let outcome;
  try {
    const r = call();
    outcome = `ok (${(r.data ?? r.cos ?? r).length} values)`;
  } catch (e) {
    outcome = `${e.name}: ${e.message}`;
  }
  console.log(`${name}\t${((performance.now() - t0) / 1000).toFixed(1)} s\t${what}\t${outcome}`);
}
