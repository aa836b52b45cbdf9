// The accuracy checks of the benchmark's CI mode (bench/ci.mjs), at reduced
// sizes, against both builds: float32 table error, the Toeplitz table Gram
// against a brute-force Gram, the float32 Gram kernel against float64. The
// speed checks of that mode are not tests: a ratio of two 1-10 ms timings on
// a shared machine fails by chance. `npm run bench` (node bench/run.mjs, and
// --ci for the reduced sizes) measures and prints them; tests/work.test.js
// guards the amount of work deterministically.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadApi } from './helpers/load.js';
import { ciChecks } from '../bench/ci.mjs';

const pe = await loadApi();

for (const check of ciChecks(pe).filter((c) => !c.timing)) {
  test(check.name, async (t) => {
    const before = pe.memoryStats().liveAllocations;
    const r = await check.run();
    t.diagnostic(`measured ${r.detail}`); // the errors, also when they pass
    assert.ok(r.ok, `${check.name}: measured ${r.detail}`);
    assert.equal(pe.memoryStats().liveAllocations, before, 'the checks leave nothing allocated');
  });
}
