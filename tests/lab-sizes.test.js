// Every size the lab refuses is refused by name (issue 22's classes): a model
// too big for one call names the options that make it big and the limit, a
// length below a task's shortest names `length` and its range, a call's own
// buffers count with the model's. Before, each said "a size is below 1,
// above 2^24, or needs more than 1 GiB (status 2)". Each refusal leaves the
// module's memory as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLab } from './helpers/load.js';

const lab = await loadLab();
const R = lab.precision === 'float32' ? 4 : 8;

/** Runs f, which must throw a RangeError matching `message`, and checks memory did not move. */
function refused(f, message, Type = RangeError) {
  const before = lab.memoryStats();
  assert.throws(f, (e) => e instanceof Type && message.test(e.message) && !/status \d/.test(e.message), String(message));
  assert.deepEqual(lab.memoryStats(), before);
}

test('a model too big for one call names batch, maxLength, heads, layers and the 1 GiB limit, before any allocation', () => {
  refused(() => lab.train({ task: 'recency', maxLength: 1024, batch: 256, steps: 1 }),
    /^posenc\.lab\.train: this call would need \d+\.\d MiB of WebAssembly memory; one call may use at most 1024 MiB: .*\(here 256 × 4 × 1024² × 2\).*lower batch or maxLength$/);
  refused(() => lab.train({ steps: 3, encoding: 'none', dModel: 16, layers: 1, mlp: 0, batch: 256, heads: 4, trainLengths: [3, 6], maxLength: 1024 }),
    /this call would need .* MiB.*256 × 4 × 1024² × 1/);
});

test('a length below the task\'s shortest names length and its range (evaluate, examples)', () => {
  const { model } = lab.train({ steps: 1, dModel: 8, heads: 2, layers: 1, mlp: 8, batch: 2 });
  // (to 63: the longest example of 64 tokens, the model's maxLength; thirtieth pass)
  refused(() => lab.evaluate(model, { length: 1 }), /^posenc\.lab\.evaluate: length must be an integer from 3 to 63 \(got 1\)$/);
  refused(() => lab.evaluate(model, { length: 2, probe: 'reversed' }), /^posenc\.lab\.evaluate: length must be an integer from 3 to 63 \(got 2\)$/);
  refused(() => lab.examples({ length: 1 }), /^posenc\.lab\.examples: length must be an integer from 3 to 1024 \(got 1\)$/);
  refused(() => lab.examples({ task: 'recency', length: 1 }), /^posenc\.lab\.examples: length must be an integer from 2 to 1024 \(got 1\)$/);
  refused(() => lab.examples({ task: 'copy', length: 1024, count: 65536 }), /^posenc\.lab\.examples: this call would need .* MiB.*: count \(65536\) examples of \d+ tokens/);
  assert.equal(lab.examples({ task: 'recency', length: 2 }).shape[0], 1);
});

test('attentionMaps counts its maps with the model: refused before the model is made', () => {
  // No parameter depends on maxLength (encoding none): a small model's params serve a long one.
  const config = { task: 'copy', encoding: 'none', dModel: 64, heads: 64, layers: 4, mlp: 0, batch: 1, trainLengths: [2, 3], maxLength: 16 };
  const { model } = lab.train({ ...config, steps: 1 });
  // The model's attention weights and the maps are each layers × heads × n² reals: together just past 1 GiB.
  const n = Math.ceil(Math.sqrt((2 ** 30 / 2 + 2 ** 24) / (4 * 64 * R)));
  const long = { config: { ...model.config, maxLength: n }, params: model.params };
  refused(() => lab.attentionMaps(long, new Array(n).fill(1)), /^posenc\.lab\.attentionMaps: this call would need 10\d\d\.\d MiB/);
  assert.deepEqual(lab.attentionMaps(model, [1, 2, 3]).shape, [4, 64, 3, 3]);
});

test('params that do not fit a model are refused before the model is made (a 700 MiB model was made first)', () => {
  const { model } = lab.train({ steps: 1, dModel: 8, heads: 2, layers: 1, mlp: 8, batch: 2 });
  const big = { ...model.config, batch: 1024, maxLength: 256 };
  const wrong = lab.precision === 'float32' ? Float64Array : Float32Array;
  for (const params of [new (lab.precision === 'float32' ? Float32Array : Float64Array)(3), new wrong(model.params.length), model.params.subarray(1)]) {
    refused(() => lab.evaluate({ config: big, params }, { length: 3, samples: 1 }), /^posenc\.lab\.evaluate: model\.params must be a Float(32|64)Array of \d+ numbers/, TypeError);
  }
  assert.ok(lab.evaluate(model, { length: 3, samples: 2 }).scored >= 0);
});
