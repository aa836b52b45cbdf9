// The benchmark's CI mode (bench/ci.mjs): the performance and
// accuracy targets at reduced sizes, with margins for a shared 2-core CI
// machine. Timing checks compare two things measured in alternation (median
// of per-pair ratios); they belong to the optimised build only, so the
// POSENC_BUILD=debug run (-O0 is not what ships) does not define them.
// Accuracy checks run against both builds. Full-size numbers: `npm run bench`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadApi, build } from './helpers/load.js';
import { ciChecks } from '../bench/ci.mjs';
import { loadTf } from '../bench/contenders.mjs';

const pe = await loadApi();
let tf;
const checks = ciChecks(pe, { loadTfState: () => (tf ??= loadTf()) });

for (const check of checks.filter((c) => !(c.timing && build === 'debug'))) {
  test(check.name, { timeout: 60_000 }, async (t) => {
    const before = pe.memoryStats().liveAllocations;
    const r = await check.run();
    t.diagnostic(`measured ${r.detail}`); // the ratios and errors, also when they pass
    assert.ok(r.ok, `${check.name}: measured ${r.detail}`);
    assert.equal(pe.memoryStats().liveAllocations, before, 'the checks leave nothing allocated');
  });
}
