// The loader under jsdom (issue 13, point 7): runs the Vitest files of
// tests/jsdom/ (Vitest's jsdom environment, as a demo's own unit tests would
// load posenc; then without DecompressionStream and Response, as in Jest's
// jsdom environment and older embedders; then without WebAssembly) against
// the built entries, and reports each Vitest test as a test here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const run = spawnSync(process.execPath, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'tests/jsdom/vitest.config.mjs', '--reporter=json'],
  { cwd: ROOT, encoding: 'utf8', timeout: 300_000, env: { ...process.env, NO_COLOR: '1' } });
const report = (() => {
  try {
    return JSON.parse(run.stdout.slice(run.stdout.indexOf('{')));
  } catch {
    return null;
  }
})();

test('Vitest ran every file of tests/jsdom and exited 0', () => {
  assert.ok(report, `no JSON report from Vitest (status ${run.status}):\n${run.stdout}\n${run.stderr}`);
  assert.deepEqual(report.testResults.map((f) => f.name.replace(/.*\//, '')).sort(), ['jsdom.vitest.js', 'no-streams.vitest.js', 'no-wasm.vitest.js']);
  assert.equal(report.numFailedTests, 0);
  assert.equal(report.numTotalTests, 5);
  assert.equal(run.status, 0, run.stderr);
});

for (const file of report?.testResults ?? []) {
  for (const t of file.assertionResults) {
    test(`${file.name.replace(/.*\//, '')}: ${t.title}`, () => {
      assert.equal(t.status, 'passed', (t.failureMessages ?? []).join('\n'));
    });
  }
}
