// examples/ run as their readers would run them (issue 13, point 10).
// examples/tfjs/attention.mjs: posenc's grouped-query causal attention on
// TensorFlow.js tensors agrees with the same attention written in tfjs ops.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { run } from '../examples/tfjs/attention.mjs';

const ROOT = join(import.meta.dirname, '..');

test('examples/tfjs: posenc attention on tfjs tensors matches tfjs\'s own, within float32 rounding', async () => {
  const { shape, weightsDiff, outputDiff, weights } = await run();
  assert.deepEqual(shape, [4, 6, 8]);
  assert.ok(weightsDiff <= 1e-6, `weights differ by ${weightsDiff}`);
  assert.ok(outputDiff <= 1e-6, `outputs differ by ${outputDiff}`);
  // Causal: every row sums to 1 and puts nothing on later tokens.
  for (let row = 0; row < 4 * 6; row++) {
    const w = weights.data.subarray(row * 6, row * 6 + 6);
    assert.ok(Math.abs(w.reduce((a, b) => a + b, 0) - 1) < 1e-6);
    w.forEach((x, j) => { if (j > row % 6) assert.equal(x, 0); });
  }
  // Another sentence gives other weights: the check is not of a constant.
  const other = await run([7, 7, 7, 7, 7, 7]);
  assert.ok(other.weightsDiff <= 1e-6 && other.outputDiff <= 1e-6);
  assert.notDeepEqual(other.weights.data, weights.data);
});

test('examples/tfjs/attention.mjs runs from the command line and prints its check', () => {
  const r = spawnSync(process.execPath, [join(ROOT, 'examples/tfjs/attention.mjs')], { encoding: 'utf8', cwd: ROOT });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^output shape \[4,6,8\]/);
  const [, w, o] = r.stdout.match(/largest difference from tfjs: weights (\S+), output (\S+)/);
  assert.ok(Number(w) <= 1e-6 && Number(o) <= 1e-6, r.stdout);
  assert.doesNotMatch(r.stdout + r.stderr, /tfjs-node/, 'no hint to install a native backend');
});
