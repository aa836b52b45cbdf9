// One small valid call of every public function that takes an options object,
// for each entry (posenc, posenc/variants, posenc/fields, posenc/lab), with
// the options last: tests replace or extend them (a getter that throws, a
// size at the limit) and check what the function does with that. Values are
// not checked here; tests/bad-input.test.js compares valid calls with goldens.
import { loadApi, loadVariants, loadFields, loadLab } from './load.js';

const m2 = [[1, 2], [3, 0.5]];

/** [fn, args before the options, options] per entry. */
export const CALLS = {
  posenc: [
    ['table', [5, 6], {}], ['frequencies', [8], {}], ['columns', [8], {}], ['tableGram', [4, 6], {}],
    ['norms', [m2], {}], ['gram', [m2], {}], ['rotation', [3, 4], {}],
    ['toyAttention', [[1, 2, 3], [10, 20, 30]], {}],
    ['attention', [[[1, 0]], [[1, 0], [0, 1]], [[2, 3], [5, 7]]], {}],
  ],
  variants: [
    ['ropeFrequencies', [8], {}], ['ropeCache', [3, 8], {}], ['ropeApply', [[[1, 2, 3, 4]]], {}],
    ['ropePermutation', [4], {}], ['ropePermute', [[[1, 2], [3, 4]]], { headDim: 2 }], ['alibiSlopes', [4], {}],
    ['alibiBias', [2, 3], {}], ['t5Bucket', [[-3, 0, 4]], {}], ['t5BucketMatrix', [3], {}], ['shawClip', [3], {}],
    ['learnedTable', [3, 4], {}], ['learnedRows', [[0, 2], 3, 4], {}], ['binaryTable', [4, 3], {}],
    ['precisionError', [8], { count: 4 }],
  ],
  fields: [
    ['timestepEmbedding', [[1, 20], 8], {}], ['sincos1d', [[0, 1, 2], 8], {}], ['sincos2d', [2, 2, 8], {}],
    ['fourierFeatures', [{ rows: 1, cols: 2, data: [0.25, 0.5] }], { levels: 2 }],
    ['randomFourierFeatures', [{ rows: 1, cols: 2, data: [0.25, 0.5] }], { features: 4 }],
  ],
  lab: [
    ['train', [], { steps: 1, dModel: 8, heads: 2, layers: 1, mlp: 8, batch: 2 }],
    ['examples', [], { task: 'shift', length: 4 }],
  ],
};

export const LOADERS = { posenc: loadApi, variants: loadVariants, fields: loadFields, lab: loadLab };

/** { entry: api } for every entry. */
export async function loadAll() {
  const apis = {};
  for (const [entry, load] of Object.entries(LOADERS)) apis[entry] = await load();
  return apis;
}
