// A major garbage collection leaves the optimised code of a decode loop's
// calls in place. V8 keeps the map of a class's instances only through the
// instances; with no Checker or Frame alive at a major GC, their maps went,
// and every function that had checked them was deoptimised ("weak objects"):
// 21 functions across attention, rope().apply, ropeApply, kvCache and
// table, and a 1-token attention() took 20 µs, then 10, for thousands of
// calls after each such GC instead of 3.5. Five more of an axial ropeApply
// had seen the short lists byIndex made with two prototype changes.
// Counted, not timed: V8's own trace of what it deoptimises, in a child
// process of the shipped bundles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

const ROOT = new URL('..', import.meta.url);

const script = `
const pe = await (await import('./dist/lib/posenc.js')).init();
const pv = await (await import('./dist/lib/variants.js')).init();
const one = { data: Float32Array.from({ length: 64 }, (_, i) => Math.sin(i)), shape: [1, 1, 1, 64] };
const out = new Float32Array(64);
const handle = pv.rope({ dim: 64, maxLen: 16, base: 1e4 });
const caches = pv.ropeCache(16, 64);
const cache = pe.kvCache({ heads: 1, headDim: 64, maxLength: 8000 });
const axial = { data: Float32Array.from({ length: 4 * 64 }, (_, i) => i / 100), shape: [4, 64] };
const ids = { data: Float64Array.from({ length: 12 }, (_, i) => i % 4), shape: [4, 3] };
const calls = [
  () => pe.attention(one, one, one, { weights: false, out }),
  () => handle.apply(one, 3, out),
  () => pv.ropeApply(one, { cos: caches.cos, sin: caches.sin, offset: 3, out }),
  () => { cache.append(one, one); cache.attend(one); },
  () => pe.table(4, 8),
  // FLUX's axial RoPE: its axes and positions' rows read as short lists (validate.js's byIndex)
  () => pv.ropeApply(axial, { axesDim: [16, 16, 32], positions: ids }),
];
for (let r = 0; r < 3000; r++) for (const c of calls) c();
console.log('--- collect');
gc();
for (let r = 0; r < 500; r++) for (const c of calls) c();
console.log('--- end');
`;

test('a major GC deoptimises none of the calls a decode loop makes (the maps of Checker and Frame are kept, short lists are literals)', () => {
  const run = spawnSync(process.execPath, ['--expose-gc', '--trace-opt', '--trace-deopt', '--input-type=module', '-e', script],
    { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  assert.equal(run.status, 0, run.stderr);
  const [before, after] = run.stdout.split('--- collect');
  assert.ok(after?.includes('--- end'), 'the script ran to its end');
  // optimised first, or there would be nothing to lose
  assert.ok((before.match(/completed optimizing/g) ?? []).length >= 10, 'the calls were optimised before the GC');
  const lost = after.split('\n').filter((line) => line.includes('reason: weak objects'));
  assert.deepEqual(lost, [], `${lost.length} optimised functions dropped by the GC`);
});
