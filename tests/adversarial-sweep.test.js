// The eighth adversarial pass's sweep (bench/adversarial-sweep.mjs), seeded and sampled down to about
// 1 600 calls so that it runs with the suite: every function of every entry, its base call mutated one
// edge value at a time (5% of them, drawn from seed 22; each option's throwing getter always), then in
// float16, bfloat16 and float64, then two seeded pairs or triples, each call on a fresh instance whose
// free heap is filled but for 96 KiB, so that a refusal after any sizeable allocation moves memory.
// Nothing may fall outside the classes docs/limits.md documents: no error but a posenc TypeError or
// RangeError, no memory or allocation kept by a refusal, no instance answering differently after one,
// no leak, no non-finite value or wrong shape in a result. On the code before the pass it found four
// refusals after allocating (a float16 cache's attention factor, an implied yarn factor, ropePermute's
// range, the mscale ratio). The whole sweep (28 127 calls, minutes) is `node bench/adversarial-sweep.mjs`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sweep } from '../bench/adversarial-sweep.mjs';

test('a seeded 5% of the adversarial sweep of every function finds nothing outside the documented classes', () => {
  const r = sweep({ seed: 22, pairs: 2, sample: 0.05, quiet: true });
  assert.deepEqual(r.findings.map((f) => `${f.kind}: ${f.what.slice(0, 300)}: ${f.detail}`), []);
  assert.ok(r.calls > 1000 && Object.keys(r.perFunction).length === 44, `${r.calls} calls of ${Object.keys(r.perFunction).length} functions`);
});
