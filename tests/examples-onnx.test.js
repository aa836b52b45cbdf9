// examples/onnx/attention.mjs, as its readers run it: posenc's causal attention
// on transformers.js tensors, checked against ONNX Runtime Web running the same
// attention from an ONNX graph the example writes itself (nothing downloaded).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { run } from '../examples/onnx/attention.mjs';

const ROOT = join(import.meta.dirname, '..');

test('examples/onnx: posenc attention on transformers.js tensors matches ONNX Runtime, within float32 rounding', async () => {
  const { dims, weights, weightsDiff, outputDiff } = await run();
  assert.deepEqual(dims, [6, 16]);
  assert.ok(weightsDiff <= 1e-6, `weights differ by ${weightsDiff}`);
  assert.ok(outputDiff <= 1e-6, `outputs differ by ${outputDiff}`);
  // Causal: every row sums to 1 and puts nothing on later tokens.
  for (let row = 0; row < 6; row++) {
    const w = weights.data.subarray(row * 6, row * 6 + 6);
    assert.ok(Math.abs(w.reduce((a, b) => a + b, 0) - 1) < 1e-6);
    w.forEach((x, j) => { if (j > row) assert.equal(x, 0); });
  }
  // Other tokens give other weights, and still agree: the check is not of a constant.
  const other = await run([1, 1, 2, 3, 5, 8]);
  assert.ok(other.weightsDiff <= 1e-6 && other.outputDiff <= 1e-6);
  assert.notDeepEqual(other.weights.data, weights.data);
});

test('examples/onnx/attention.mjs runs from the command line and prints its check', () => {
  const r = spawnSync(process.execPath, [join(ROOT, 'examples/onnx/attention.mjs')], { encoding: 'utf8', cwd: ROOT });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /weights differ by \d\.\de-\d+, outputs by \d\.\de-\d+/);
});
