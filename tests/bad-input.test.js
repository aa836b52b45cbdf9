// The bad-input matrix: every public function × every parameter × {0,
// negative, NaN, ±Infinity, non-integer, huge, wrong type, null/undefined,
// shape mismatch, odd d where a convention forbids it}. Each bad call must
// throw the documented error (RangeError for a bad value, TypeError for a bad
// type) whose message names the function and the parameter, must leave no
// allocation behind, and the valid call made right after it must still return
// the golden values of tests/golden/golden.json / golden_variants.json (computed
// independently of the C core). Sizes whose buffers would not fit in a call's
// 1 GiB are refused before any allocation, with a message that states the limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadApi, loadVariants } from './helpers/load.js';

const pe = await loadApi();
const pv = await loadVariants();
/** The API that has `fn`: posenc's or posenc/variants'. */
const apiOf = (fn) => (fn in pe ? pe : pv);
const G = JSON.parse(readFileSync(new URL('./golden/golden.json', import.meta.url), 'utf8'));
const V = JSON.parse(readFileSync(new URL('./golden/golden_variants.json', import.meta.url), 'utf8'));
const M = JSON.parse(readFileSync(new URL('./golden/golden_mrope.json', import.meta.url), 'utf8'));
const gColumns = JSON.parse(readFileSync(new URL('./golden/golden_columns.json', import.meta.url), 'utf8'))
  .cases.find((c) => c.layout === 'interleaved' && c.dModel === 7);

// ---- comparing with golden values --------------------------------------------------

/** |got - want| <= abs + rel |want| for every element (integers: exactly). */
function close(label, got, want, { abs = 1e-12, rel = 1e-12 } = {}) {
  assert.equal(got.length, want.length, `${label}: length`);
  for (let i = 0; i < want.length; i++) {
    const ok = got[i] === want[i] || Math.abs(got[i] - want[i]) <= abs + rel * Math.abs(want[i]);
    if (!ok) assert.fail(`${label}[${i}]: got ${got[i]}, golden ${want[i]}`);
  }
}

function matrixClose(label, m, rows, tol) {
  assert.equal(m.rows, rows.length, `${label}: rows`);
  assert.equal(m.cols, rows[0].length, `${label}: cols`);
  close(label, m.data, rows.flat(), tol);
}

const byName = (list, name) => {
  const found = list.find((x) => x.name === name);
  assert.ok(found, `golden case ${name}`);
  return found;
};
const matrixOf = (rows) => ({ rows: rows.length, cols: rows[0].length, data: rows.flat() });

// ---- one valid call per function, with its golden values -----------------------------
// `args` makes fresh arguments; `opt` is the index of the options argument.

const gTable = G.tables[0]; // vaswani d=6 len=5
const gGram = byName(G.gram, 'gram small 3x2');
const gRot = G.rotation[0]; // vaswani d=4 k=1
const gToy = G.toy[0]; // 我打你 with PE [10, 20, 30]
const gAtt = G.attention[0];
const gKv = G.attentionHeads.find((c) => c.name.startsWith('flash: decode')); // dv 8: the kernel kvCache runs
const gRopeF = V.rope.frequencies[0];
const gRopeC = V.rope.cache[0];
const gRopeA = V.rope.apply[0];
const gRopeH = V.rope.apply.find((c) => c.options.scaling?.type === 'llama3'); // offset 10
const gPerm = V.rope.permutation.find((p) => p.headDim === 8 && p.heads === 1);
const gSlopes = V.alibi.slopes.find((s) => s.heads === 4 && s.options.variant === 'press');
const gBias = V.alibi.bias[0];
const gT5 = V.t5.buckets[0];
const gT5M = V.t5.matrix[0];
const gShaw = V.shaw.matrix[0];
const gLearned = V.learned.table[0];
const gBinary = V.binary.table[0];
const gRound = V.precision.formats.find((f) => f.format === 'float32');
const roundIdx = gRound.rounded.map((r, i) => (r === null ? -1 : i)).filter((i) => i >= 0);
const gPrec = V.precision.error[0];
const RC = JSON.parse(readFileSync(new URL('./golden/golden_rope_config.json', import.meta.url), 'utf8'));
const gConfig = RC.cases.find((c) => c.name === 'transformers 5 rope_parameters keyed by layer type');

const gMpos = M.positions[0];
const gMcache = M.mropeCache[0];
const gAxial = M.axialCache.find((c) => c.name === 'pixtral');
const mpos = () => ({ shape: [3, gMcache.positions[0].length], data: gMcache.positions.flat() });

const VALID = {
  mropePositions: {
    opt: 1,
    args: () => [structuredClone(gMpos.segments), {}],
    check: (r) => assert.deepEqual(Array.from(r.data), gMpos.positions.flat()),
  },
  mropeCache: {
    opt: 2,
    args: () => [mpos(), gMcache.headDim, { section: gMcache.section, base: gMcache.base, dtype: 'float64' }],
    check: (r) => matrixClose('mropeCache', r.cos, gMcache.cos, { abs: 1e-12 }),
  },
  ropeAxialCache: {
    opt: 1,
    args: () => [matrixOf(gAxial.ids), { ...gAxial.options, dtype: 'float64' }],
    check: (r) => matrixClose('ropeAxialCache', r.sin, gAxial.sin, { abs: 1e-12 }),
  },
  ropeGridIds: {
    opt: 2,
    args: () => [3, 4],
    check: (r) => assert.deepEqual(Array.from(r.data), gAxial.ids.flat()),
  },
  table: {
    opt: 2,
    args: () => [gTable.maxLen, gTable.dModel, { dtype: 'float64' }],
    check: (r) => matrixClose('table', r, gTable.data, { abs: 1e-15 }),
  },
  frequencies: {
    opt: 1,
    args: () => [G.frequencies[0].dModel, { dtype: 'float64' }],
    check: (r) => close('frequencies', r, G.frequencies[0].values, { abs: 0, rel: 1e-15 }),
  },
  columns: {
    opt: 1,
    args: () => [gColumns.dModel, {}],
    check: (r) => assert.deepEqual(r, { sin: Int32Array.from(gColumns.sin), cos: Int32Array.from(gColumns.cos) }),
  },
  tableGram: {
    opt: 2,
    args: () => [20, 64, { dtype: 'float64' }],
    check: (r) => matrixClose('tableGram', r, G.gram[0].data, { abs: 1e-12 }),
  },
  dot: {
    args: () => [G.dot[0].a, G.dot[0].b],
    check: (r) => assert.equal(r, G.dot[0].value),
  },
  norms: {
    opt: 1,
    args: () => [matrixOf(G.norms[0].matrix), { dtype: 'float64' }],
    check: (r) => close('norms', r, G.norms[0].values, { abs: 0, rel: 1e-15 }),
  },
  gram: {
    opt: 1,
    args: () => [matrixOf(gGram.matrix), { dtype: 'float64' }],
    check: (r) => matrixClose('gram', r, gGram.data, { abs: 0, rel: 0 }),
  },
  rotation: {
    opt: 2,
    args: () => [gRot.k, gRot.dModel, { dtype: 'float64' }],
    check: (r) => matrixClose('rotation', r, gRot.data, { abs: 1e-16 }),
  },
  toyAttention: {
    opt: 2,
    args: () => [gToy.codes, gToy.positionCodes],
    check: (r) => assert.deepEqual(r, { x: gToy.x, y: gToy.y, sum: gToy.sum, label: gToy.label, weighted: gToy.weighted }),
  },
  attention: {
    opt: 3,
    args: () => [matrixOf(gAtt.q), matrixOf(gAtt.k), matrixOf(gAtt.v), { dtype: 'float64' }],
    check: (r) => {
      matrixClose('attention weights', r.weights, gAtt.weights, { abs: 1e-15 });
      matrixClose('attention output', r.output, gAtt.output, { abs: 1e-14 });
    },
  },
  kvCache: {
    opt: 0,
    args: () => [{ heads: gKv.k[0].length, headDim: gKv.q[0][0][0].length, valueDim: gKv.v[0][0][0].length, maxLength: gKv.k[0][0].length }],
    check: (cache) => {
      try {
        cache.append(gKv.k, gKv.v);
        // float32 against the float64 golden
        close('kvCache.attend', cache.attend(gKv.q).data, gKv.output.flat(3), { abs: 1e-6 });
      } finally {
        cache.free();
      }
    },
  },
  ropeFrequencies: {
    opt: 1,
    args: () => [gRopeF.dim, { ...gRopeF.options, dtype: 'float64' }],
    check: (r) => {
      close('invFreq', r.invFreq, gRopeF.invFreq, { abs: 0, rel: 1e-13 });
      assert.equal(r.attentionFactor, gRopeF.attentionFactor);
    },
  },
  ropeCache: {
    opt: 2,
    args: () => [gRopeC.maxLen, gRopeC.dim, { ...gRopeC.options }],
    check: (r) => {
      matrixClose('cos', r.cos, gRopeC.cos, { abs: 1e-12 });
      matrixClose('sin', r.sin, gRopeC.sin, { abs: 1e-12 });
    },
  },
  ropeApply: {
    opt: 1,
    args: () => [matrixOf(gRopeA.x), { ...gRopeA.options, dtype: 'float64' }],
    check: (r) => matrixClose('ropeApply', r, gRopeA.out, { abs: 1e-12 }),
  },
  ropeFromConfig: {
    opt: 1,
    args: () => [structuredClone(gConfig.config), { ...gConfig.options }],
    check: (r) => assert.deepEqual(Array.from(r.invFreq), gConfig.invFreq),
  },
  rope: {
    opt: 0,
    args: () => [{ dim: gRopeH.x[0].length, maxLen: 10 + gRopeH.x.length, base: gRopeH.options.base, scaling: gRopeH.options.scaling, dtype: 'float64' }],
    check: (r) => {
      try {
        matrixClose('rope().apply', r.apply(matrixOf(gRopeH.x), gRopeH.options.offset), gRopeH.out, { abs: 1e-12 });
      } finally {
        r.free();
      }
    },
  },
  ropePermutation: {
    opt: 1,
    args: () => [gPerm.headDim],
    check: (r) => assert.deepEqual(Array.from(r), gPerm.forward),
  },
  ropePermute: {
    opt: 1,
    // rows r of a column of labels: out row j = in row forward[j]
    args: () => [{ rows: 8, cols: 1, data: [10, 11, 12, 13, 14, 15, 16, 17] }, { headDim: 8 }],
    check: (r) => assert.deepEqual(Array.from(r.data), gPerm.forward.map((j) => 10 + j)),
  },
  alibiSlopes: {
    opt: 1,
    args: () => [gSlopes.heads, { ...gSlopes.options, dtype: 'float64' }],
    check: (r) => assert.deepEqual(Array.from(r), gSlopes.slopes),
  },
  alibiBias: {
    opt: 2,
    args: () => [gBias.heads, gBias.qLen, { ...gBias.options }],
    check: (r) => close('alibiBias', r.data, gBias.bias.flat(2).map((x) => (x === null ? -Infinity : x)), { abs: 0, rel: 1e-13 }),
  },
  t5Bucket: {
    opt: 1,
    args: () => [gT5.relative, { ...gT5.options }],
    check: (r) => assert.deepEqual(Array.from(r), gT5.buckets),
  },
  t5BucketMatrix: {
    opt: 1,
    args: () => [gT5M.qLen, { ...gT5M.options }],
    check: (r) => assert.deepEqual(Array.from(r.data), gT5M.buckets.flat()),
  },
  shawClip: {
    opt: 1,
    args: () => [gShaw.qLen, { ...gShaw.options }],
    check: (r) => assert.deepEqual(Array.from(r.data), gShaw.matrix.flat()),
  },
  learnedTable: {
    opt: 2,
    args: () => [gLearned.trainedLen, gLearned.dModel, { ...gLearned.options }],
    check: (r) => matrixClose('learnedTable', r, gLearned.table, { abs: 1e-14 * 0.02, rel: 0 }),
  },
  learnedRows: {
    opt: 3,
    args: () => [[3, 1], gLearned.trainedLen, gLearned.dModel, { ...gLearned.options }],
    check: (r) => matrixClose('learnedRows', r, [gLearned.table[3], gLearned.table[1]], { abs: 1e-14 * 0.02, rel: 0 }),
  },
  binaryTable: {
    opt: 2,
    args: () => [gBinary.maxLen, gBinary.bits, { ...gBinary.options }],
    check: (r) => assert.deepEqual(Array.from(r.data), gBinary.table.flat()),
  },
  roundTo: {
    args: () => [roundIdx.map((i) => gRound.values[i]), 'float32'],
    check: (r) => assert.deepEqual(Array.from(r), roundIdx.map((i) => gRound.rounded[i])),
  },
  formatBits: {
    args: () => [gRound.values, 'float32'],
    check: (r) => assert.deepEqual(Array.from(r), gRound.bits),
  },
  precisionError: {
    opt: 1,
    args: () => [gPrec.dModel, { ...gPrec.options }],
    // null in the golden file: the rounded angle is infinite, the API gives Infinity
    check: (r) => close('precisionError', r, gPrec.error.map((v) => (v === null ? Infinity : v)), { abs: 1e-12, rel: 1e-9 }),
  },
};

// ---- the bad values -------------------------------------------------------------------

const show = (v) => {
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'symbol' || typeof v === 'function') return String(v);
  if (Number.isNaN(v) || v === Infinity || v === -Infinity) return String(v);
  if (Object.is(v, -0)) return '-0';
  try {
    const s = JSON.stringify(v);
    return s === undefined ? String(v) : s.length > 40 ? `${s.slice(0, 40)}…` : s;
  } catch {
    return String(v);
  }
};

// Not a number at all: TypeError wherever a number is expected.
const WRONG_TYPES = ['4', null, undefined, {}, [4], 4n, true, Symbol('s'), () => 4];
// Numbers that are no size (integer from 1 to the maximum): RangeError.
const sizeNumbers = (max) => [0, -0, -1, -7, 0.5, 2.5, NaN, Infinity, -Infinity, max + 1, 2 ** 53, -(2 ** 31)];
const NON_FINITE = [NaN, Infinity, -Infinity];
const BAD_ENUM = [['bogus', RangeError], ['', RangeError], ['VASWANI', RangeError], [1, TypeError], [{}, TypeError], [true, TypeError]];
const BAD_BOOL = [[1, TypeError], [0, TypeError], ['true', TypeError], [{}, TypeError]];
const BAD_NUMBER_TYPE = [['1', TypeError], [true, TypeError], [{}, TypeError], [1n, TypeError], [[1], TypeError]];
const BAD_OPTIONS = ['x', 5, [], true, 1n];

const cases = []; // { fn, param, label, args, type, name }

function add(fn, param, value, args, type, name = param) {
  cases.push({ fn, param, label: `${param} = ${show(value)}`, args, type, name });
}

/** A positional argument replaced by `value`. */
function withArg(fn, i, value) {
  const args = VALID[fn].args();
  args[i] = value;
  return args;
}

/** The options argument with `key` set to `value`. */
function withOption(fn, key, value) {
  const spec = VALID[fn];
  const args = spec.args();
  args[spec.opt] = { ...(args[spec.opt] ?? {}), [key]: value };
  return args;
}

function sizeArg(fn, i, name, max = 2 ** 24) {
  for (const v of sizeNumbers(max)) add(fn, name, v, withArg(fn, i, v), RangeError);
  for (const v of WRONG_TYPES) add(fn, name, v, withArg(fn, i, v), TypeError);
}

function finiteArg(fn, i, name, extra = []) {
  for (const v of [...NON_FINITE, ...extra]) add(fn, name, v, withArg(fn, i, v), RangeError);
  for (const v of WRONG_TYPES) add(fn, name, v, withArg(fn, i, v), TypeError);
}

function option(fn, key, bad, name = key) {
  for (const [v, type] of bad) add(fn, name, v, withOption(fn, key, v), type, name);
}

const numberOption = (fn, key, extraRange = [], name = key) =>
  option(fn, key, [...NON_FINITE.map((v) => [v, RangeError]), ...extraRange.map((v) => [v, RangeError]), ...BAD_NUMBER_TYPE], name);
const sizeOption = (fn, key, max = 2 ** 24) =>
  option(fn, key, [...sizeNumbers(max).map((v) => [v, RangeError]), ...BAD_NUMBER_TYPE]);

function optionsArg(fn) {
  const { opt } = VALID[fn];
  for (const v of BAD_OPTIONS) add(fn, 'options', v, withArg(fn, opt, v), TypeError);
  add(fn, 'bogus', 'unknown option', withOption(fn, 'bogus', 1), TypeError);
}

/**
 * An array-like argument: wrong containers, empty, non-finite and wrong
 * element types. Arrays with a bad element keep the valid `length`, so that
 * a function that needs a matching length fails on the element itself.
 */
function vectorArg(fn, i, name, { length = 3, finiteOnly = true, nullable = false } = {}) {
  const ones = () => new Array(length).fill(1);
  const withElement = (v) => { const a = ones(); a[1] = v; return a; };
  const hole = ones();
  delete hole[1];
  const bad = [
    ['abc', TypeError, name], [{}, TypeError, name], [5, TypeError, name],
    [{ length: '3', 0: 1, 1: 1, 2: 1 }, TypeError, name], // array-likes are accepted, with a numeric length
    [new DataView(new ArrayBuffer(8 * length)), TypeError, name], [new BigInt64Array(length), TypeError, name],
    [withElement(1n), TypeError, name], [withElement('2'), TypeError, `${name}[1]`],
    [withElement(null), TypeError, `${name}[1]`], [hole, TypeError, `${name}[1]`], [withElement({}), TypeError, `${name}[1]`],
    [[], RangeError, name], [new Float64Array(0), RangeError, name],
  ];
  if (!nullable) bad.push([null, TypeError, name]);
  if (finiteOnly) {
    bad.push([withElement(NaN), RangeError, `${name}[1]`], [withElement(Infinity), RangeError, `${name}[1]`],
      [Float32Array.from(withElement(-Infinity)), RangeError, `${name}[1]`]);
  }
  for (const [v, type, n] of bad) add(fn, name, v, withArg(fn, i, v), type, n);
}

/**
 * A { rows, cols, data } argument. `fit`: the other arguments made to fit a 2 × 2 matrix, where the function
 * checks them before reading the matrix's elements.
 */
function matrixArg(fn, i, name, fit = (args) => args) {
  const bad = [
    [null, TypeError, name], [undefined, TypeError, name], [5, TypeError, name], ['m', TypeError, name],
    [{ rows: 0, cols: 2, data: [] }, RangeError, `${name}.rows`],
    [{ rows: -2, cols: 2, data: [1, 2, 3, 4] }, RangeError, `${name}.rows`],
    [{ rows: 2.5, cols: 2, data: [1, 2, 3, 4] }, RangeError, `${name}.rows`],
    [{ rows: NaN, cols: 2, data: [1, 2, 3, 4] }, RangeError, `${name}.rows`],
    [{ rows: '2', cols: 2, data: [1, 2, 3, 4] }, TypeError, `${name}.rows`],
    [{ cols: 2, data: [1, 2, 3, 4] }, TypeError, `${name}.rows`],
    [{ rows: 2, cols: Infinity, data: [1, 2, 3, 4] }, RangeError, `${name}.cols`],
    [{ rows: 2, cols: 2 ** 24 + 1, data: [1, 2, 3, 4] }, RangeError, `${name}.cols`],
    [{ rows: 2, cols: 2, data: [1, 2, 3] }, RangeError, `${name}.data`], // shape mismatch
    [{ rows: 2, cols: 2, data: [1, 2, 3, 4, 5] }, RangeError, `${name}.data`],
    [{ rows: 2, cols: 2, data: [1, 2, 3, NaN] }, RangeError, `${name}.data[3]`],
    [{ rows: 2, cols: 2, data: new Float64Array([1, Infinity, 3, 4]) }, RangeError, `${name}.data[1]`],
    [{ rows: 2, cols: 2, data: 'abcd' }, TypeError, `${name}.data`],
    [{ rows: 2, cols: 2 }, TypeError, `${name}.data`],
    [{ rows: 2, cols: 2, data: [1, 2, '3', 4] }, TypeError, `${name}.data[2]`],
    [{ rows: 2 ** 24, cols: 2 ** 24, data: [] }, RangeError, '1024 MiB'], // refused before data is read
  ];
  for (const [v, type, n] of bad) add(fn, name, v, fit(withArg(fn, i, v)), type, n);
}

// ---- the matrix, function by function ------------------------------------------------

// Encoding options shared by table, tableGram, frequencies, columns, rotation, precisionError.
function encodingOptions(fn) {
  option(fn, 'preset', BAD_ENUM);
  option(fn, 'layout', BAD_ENUM);
  option(fn, 'frequencies', BAD_ENUM);
  numberOption(fn, 'base', [1, 0.5, 0, -0, -2, -10000]);
}

sizeArg('table', 0, 'maxLen');
sizeArg('table', 1, 'dModel');
optionsArg('table');
encodingOptions('table');
numberOption('table', 'offset', [2 ** 31 + 1, -(2 ** 31) - 1, 2 ** 31 - 3]); // row 4 would pass 2^31
option('table', 'paddingIdx', [[-1, RangeError], [1.5, RangeError], [NaN, RangeError], [Infinity, RangeError], [2 ** 31, RangeError], ['1', TypeError]]);
option('table', 'dtype', BAD_ENUM);
add('table', 'dModel', 7, [5, 7, { preset: 'tf-tutorial' }], RangeError); // odd d under an even-only convention

sizeArg('frequencies', 0, 'dModel');
optionsArg('frequencies');
encodingOptions('frequencies');
add('frequencies', 'dModel', 5, [5, { preset: 'tf-tutorial' }], RangeError);

sizeArg('columns', 0, 'dModel');
optionsArg('columns');
encodingOptions('columns');
add('columns', 'dModel', 7, [7, { preset: 'tf-tutorial' }], RangeError);

sizeArg('tableGram', 0, 'maxLen');
sizeArg('tableGram', 1, 'dModel');
optionsArg('tableGram');
encodingOptions('tableGram');
numberOption('tableGram', 'offset', [2 ** 31 + 1, -(2 ** 31) - 1]);
option('tableGram', 'cosine', BAD_BOOL);
option('tableGram', 'dtype', BAD_ENUM);

vectorArg('dot', 0, 'a');
vectorArg('dot', 1, 'b');
add('dot', 'b', [1, 2], [[1, 2, 3], [1, 2]], RangeError); // shape mismatch
add('dot', 'b', [1, 2, 3, 4], [[1, 2, 3], [1, 2, 3, 4]], RangeError);

matrixArg('norms', 0, 'matrix');

matrixArg('gram', 0, 'matrix');
optionsArg('gram');
option('gram', 'cosine', BAD_BOOL);
option('gram', 'dtype', BAD_ENUM);

finiteArg('rotation', 0, 'k', [2 ** 31 + 1, -(2 ** 31) - 1, 1e300]);
sizeArg('rotation', 1, 'dModel', 16384);
for (const d of [1, 3, 7, 511]) add('rotation', 'dModel', d, [1, d], RangeError); // odd d
optionsArg('rotation');
encodingOptions('rotation');
option('rotation', 'dtype', BAD_ENUM);

vectorArg('toyAttention', 0, 'codes');
vectorArg('toyAttention', 1, 'positionCodes', { nullable: true }); // null: no position codes
add('toyAttention', 'positionCodes', [10, 20], [[1, 2, 3], [10, 20]], RangeError); // shape mismatch
optionsArg('toyAttention');
numberOption('toyAttention', 'threshold');
option('toyAttention', 'weights', [[[1, 2], RangeError], [[1, NaN, 3], RangeError], ['123', TypeError], [5, TypeError]]);

matrixArg('attention', 0, 'q');
// 2 keys: k and v of 2 rows each (their shapes are checked against each other before any element is read)
const twoKeys = { rows: 2, cols: gAtt.k[0].length, data: gAtt.k.slice(0, 2).flat() };
matrixArg('attention', 1, 'k', ([q, k, , o]) => [q, k, { ...twoKeys, cols: gAtt.v[0].length, data: gAtt.v.slice(0, 2).flat() }, o]);
matrixArg('attention', 2, 'v', ([q, , v, o]) => [q, twoKeys, v, o]);
{
  const q = matrixOf(gAtt.q);
  const k3 = { rows: 3, cols: 3, data: new Array(9).fill(1) };
  const v2 = { rows: 2, cols: 2, data: [1, 2, 3, 4] };
  add('attention', "k's last dimension", 'k.cols != q.cols', [q, k3, matrixOf(gAtt.v)], RangeError);
  add('attention', "v's keys", 'v.rows != k.rows', [q, matrixOf(gAtt.k), v2], RangeError);
}
optionsArg('attention');
option('attention', 'causal', BAD_BOOL);
numberOption('attention', 'scale', [0, -0, -1, -1e-300]);
option('attention', 'dtype', BAD_ENUM);

// Multi-axis RoPE (tests/mrope.test.js has the rest)
optionsArg('mropePositions');
add('mropePositions', 'segments', 'not an array', ['segments'], TypeError);
add('mropePositions', 'segments[1]', 'two kinds', [[{ text: 1 }, { text: 1, image: [1, 2, 2] }]], TypeError);
add('mropePositions', 'segments[0].image[1]', 'zero height', [[{ image: [1, 0, 2] }]], RangeError);
add('mropePositions', 'spatialMergeSize', 'odd width', [[{ image: [1, 2, 3] }]], RangeError);
option('mropePositions', 'spatialMergeSize', [[0, RangeError], [1.5, RangeError], ['2', TypeError]]);
numberOption('mropePositions', 'tokensPerSecond', [0, -1]);
option('mropePositions', 'leftPadding', [[-1, RangeError], [0.5, RangeError], ['1', TypeError]]);
matrixArg('mropeCache', 0, 'positions', ([p]) => [p, 4, { section: [1, 1] }]); // 2 rows: a section of 2 entries
sizeArg('mropeCache', 1, 'headDim');
optionsArg('mropeCache');
option('mropeCache', 'section', [[[2, 3, 2], RangeError], [[8], RangeError], [[2, 3, NaN], RangeError], ['233', TypeError]]);
option('mropeCache', 'interleaved', BAD_BOOL);
option('mropeCache', 'layout', BAD_ENUM);
option('mropeCache', 'dtype', BAD_ENUM);
numberOption('mropeCache', 'base', [1, 0.5, 0, -2]);
matrixArg('ropeAxialCache', 0, 'ids');
optionsArg('ropeAxialCache');
option('ropeAxialCache', 'axesDim', [[[32], RangeError], [[31, 32], RangeError], [[0, 32], RangeError], ['3232', TypeError]]);
option('ropeAxialCache', 'frequencies', BAD_ENUM);
option('ropeAxialCache', 'pairing', BAD_ENUM);
option('ropeAxialCache', 'dtype', BAD_ENUM);
sizeArg('ropeGridIds', 0, 'height');
sizeArg('ropeGridIds', 1, 'width');
optionsArg('ropeGridIds');
option('ropeGridIds', 'axes', [[1, RangeError], [4, RangeError], ['3', TypeError]]);

// RoPE
for (const fn of ['ropeFrequencies', 'ropeCache']) {
  const i = fn === 'ropeFrequencies' ? 0 : 1;
  sizeArg(fn, i, 'dim');
  for (const d of [1, 3, 7]) add(fn, 'dim', d, withArg(fn, i, d), RangeError); // odd: RoPE rotates pairs
  optionsArg(fn);
  numberOption(fn, 'base', [1, 0.5, 0, -3]);
  option(fn, 'scaling', [
    ['bogus', RangeError], [5, TypeError], [[1], TypeError], [true, TypeError],
  ]);
  add(fn, 'scaling.type', 'missing', withOption(fn, 'scaling', { factor: 2 }), TypeError);
  add(fn, 'scaling.factor', 'missing', withOption(fn, 'scaling', { type: 'linear' }), TypeError);
  for (const factor of [0, -1, NaN, Infinity, 1e-300, 1e7]) {
    add(fn, 'scaling.factor', factor, withOption(fn, 'scaling', { type: 'linear', factor }), RangeError);
  }
  add(fn, 'scaling.factor', '2', withOption(fn, 'scaling', { type: 'linear', factor: '2' }), TypeError);
  add(fn, 'unknownKey', 'unknown scaling key', withOption(fn, 'scaling', { type: 'linear', factor: 2, unknownKey: 1 }), TypeError);
  add(fn, 'scaling.originalMaxPosition', 'missing', withOption(fn, 'scaling', { type: 'yarn', factor: 2 }), TypeError);
  for (const betaFast of [0, -1, NaN]) {
    add(fn, 'scaling.betaFast', betaFast, withOption(fn, 'scaling', { type: 'yarn', factor: 2, originalMaxPosition: 64, betaFast }), RangeError);
  }
  // highFreqFactor <= lowFreqFactor is HF's warning only (Llama 4 Scout has both 1): accepted since issue 23
  for (const partialRotaryFactor of [0, 1.5, NaN]) {
    add(fn, 'scaling.partialRotaryFactor', partialRotaryFactor, withOption(fn, 'scaling', { type: 'proportional', partialRotaryFactor }), RangeError);
  }
  add(fn, 'dim', 'NTK with dim 2', fn === 'ropeFrequencies' ? [2, { scaling: { type: 'ntk', factor: 2 } }] : [4, 2, { scaling: { type: 'ntk', factor: 2 } }], RangeError);
}
sizeArg('ropeCache', 0, 'maxLen');
numberOption('ropeCache', 'offset', [2 ** 31 + 1, -(2 ** 31) - 1]);
option('ropeCache', 'layout', BAD_ENUM);
option('ropeCache', 'dtype', BAD_ENUM);

matrixArg('ropeApply', 0, 'x');
optionsArg('ropeApply');
option('ropeApply', 'headDim', [[0, RangeError], [-2, RangeError], [3, RangeError], [2.5, RangeError], [NaN, RangeError], ['8', TypeError]]);
add('ropeApply', "x's last dimension", 'not a multiple of headDim', withOption('ropeApply', 'headDim', 6), RangeError);
option('ropeApply', 'pairing', BAD_ENUM);
numberOption('ropeApply', 'base', [1, 0.5]);
numberOption('ropeApply', 'offset', [2 ** 31 + 1]);
option('ropeApply', 'positions', [[[1, 2], RangeError], ['12', TypeError], [5, TypeError]]);
{
  const rows = gRopeA.x.length;
  const pos = (bad) => Array.from({ length: rows }, (_, i) => (i === 1 ? bad : i));
  for (const v of [NaN, Infinity, 2 ** 31 + 1]) add('ropeApply', 'positions[1]', v, withOption('ropeApply', 'positions', pos(v)), RangeError);
  const both = withOption('ropeApply', 'positions', pos(1));
  both[1].offset = 3;
  add('ropeApply', 'positions or offset', 'both', both, TypeError, 'offset');
}
option('ropeApply', 'dtype', BAD_ENUM);

// ropeFromConfig (issue 23): the config itself, its keys (named as HF names them), the options
for (const v of ['config.json', 5, null, undefined, [], new Float32Array(2), true]) add('ropeFromConfig', 'config', v, withArg('ropeFromConfig', 0, v), TypeError);
{
  const withConfig = (edit) => { const args = VALID.ropeFromConfig.args(); edit(args[0]); return args; };
  add('ropeFromConfig', 'rope_theta', 'a string', withConfig((c) => { c.rope_parameters.sliding_attention.rope_theta = '1e4'; }), TypeError);
  add('ropeFromConfig', 'rope_theta', '1', withConfig((c) => { c.rope_parameters.sliding_attention.rope_theta = 1; }), RangeError);
  add('ropeFromConfig', 'rope_type', 'unknown', withConfig((c) => { c.rope_parameters.full_attention.rope_type = 'bogus'; }), RangeError);
  add('ropeFromConfig', 'factor', 'missing', withConfig((c) => { delete c.rope_parameters.full_attention.factor; }), TypeError);
  const full = withConfig((c) => { c.rope_parameters.full_attention.factor = '4'; });
  full[1].layerType = 'full_attention';
  add('ropeFromConfig', 'factor', 'a string', full, TypeError);
  add('ropeFromConfig', 'head_dim', 'missing', withConfig((c) => { delete c.hidden_size; }), TypeError);
  add('ropeFromConfig', 'config.head_dim', 'odd', withConfig((c) => { c.head_dim = 63; }), RangeError, 'even');
  add('ropeFromConfig', 'config.num_hidden_layers', '1e9 (a list that long would exhaust memory)', withConfig((c) => { delete c.layer_types; c.num_hidden_layers = 1e9; c.rope_local_base_freq = 1e4; c.sliding_window_pattern = 6; }), RangeError);
  add('ropeFromConfig', 'layer_types', 'a number', withConfig((c) => { c.layer_types = ['full_attention', 5]; }), TypeError);
  add('ropeFromConfig', 'config.text_config', 'a throwing getter', withConfig((c) => { Object.defineProperty(c, 'text_config', { get() { throw new Error('boom'); } }); }), TypeError);
}
optionsArg('ropeFromConfig');
option('ropeFromConfig', 'layerType', [['bogus', RangeError], [5, TypeError]]);
option('ropeFromConfig', 'layerIndex', [[-1, RangeError], [2, RangeError], [0.5, RangeError], ['0', TypeError]]);
option('ropeFromConfig', 'seqLen', [[0, RangeError], [2 ** 40, RangeError], ['9', TypeError]]);
option('ropeFromConfig', 'dtype', BAD_ENUM);
optionsArg('kvCache');
add('kvCache', 'options', 'missing', [], TypeError, 'heads');
for (const key of ['heads', 'headDim', 'maxLength', 'valueDim', 'batch']) sizeOption('kvCache', key);
option('kvCache', 'valueDim', [[12, RangeError]]); // the kernel reads V in rows of 8
optionsArg('rope');
add('rope', 'options', 'missing', [], TypeError, 'dim');
sizeOption('rope', 'dim');
for (const d of [1, 3, 7]) add('rope', 'dim', d, withOption('rope', 'dim', d), RangeError); // odd: RoPE rotates pairs
sizeOption('rope', 'maxLen');
option('rope', 'headDim', [[0, RangeError], [3, RangeError], [2, RangeError], [NaN, RangeError], ['8', TypeError]]);
option('rope', 'pairing', BAD_ENUM);
option('rope', 'dtype', BAD_ENUM);
numberOption('rope', 'base', [1, 0.5]);
option('rope', 'scaling', [['bogus', RangeError], [{ type: 'yarn' }, TypeError], [5, TypeError]], 'scaling');

sizeArg('ropePermutation', 0, 'headDim');
for (const d of [1, 5]) add('ropePermutation', 'headDim', d, [d], RangeError);
optionsArg('ropePermutation');
sizeOption('ropePermutation', 'heads');
option('ropePermutation', 'inverse', BAD_BOOL);

matrixArg('ropePermute', 0, 'weights', ([w]) => [w]); // 2 rows: one head of 2
optionsArg('ropePermute');
option('ropePermute', 'headDim', [[0, RangeError], [3, RangeError], [NaN, RangeError], ['8', TypeError]]);
add('ropePermute', 'weights.rows', 'not a multiple of headDim', withOption('ropePermute', 'headDim', 6), RangeError);
option('ropePermute', 'axis', [['diagonal', RangeError], [0, TypeError]]);
option('ropePermute', 'inverse', BAD_BOOL);
option('ropePermute', 'dtype', BAD_ENUM);

// ALiBi
sizeArg('alibiSlopes', 0, 'heads', 65536);
optionsArg('alibiSlopes');
option('alibiSlopes', 'variant', BAD_ENUM);
numberOption('alibiSlopes', 'maxBias', [0, -1]);

sizeArg('alibiBias', 0, 'heads', 65536);
sizeArg('alibiBias', 1, 'qLen');
optionsArg('alibiBias');
sizeOption('alibiBias', 'kLen');
option('alibiBias', 'variant', BAD_ENUM);
numberOption('alibiBias', 'maxBias', [0, -1]);
option('alibiBias', 'mode', BAD_ENUM);
option('alibiBias', 'maskValue', [[NaN, RangeError], ['-inf', TypeError], [{}, TypeError]]);
option('alibiBias', 'queryOffset', [[1.5, RangeError], [NaN, RangeError], [2 ** 31, RangeError], [-(2 ** 31), RangeError], ['0', TypeError]]);
option('alibiBias', 'dtype', BAD_ENUM);

// T5 buckets and Shaw clipping
vectorArg('t5Bucket', 0, 'relativePositions');
for (const v of [1.5, 2 ** 31, -(2 ** 31)]) add('t5Bucket', 'relativePositions[1]', v, withArg('t5Bucket', 0, [0, v, 2]), RangeError);
for (const fn of ['t5Bucket', 't5BucketMatrix']) {
  optionsArg(fn);
  option(fn, 'bidirectional', BAD_BOOL);
  option(fn, 'numBuckets', [[0, RangeError], [3, RangeError], [1.5, RangeError], [65537, RangeError], [NaN, RangeError], ['32', TypeError]]);
  option(fn, 'maxDistance', [[8, RangeError], [0, RangeError], [1.5, RangeError], [2 ** 31, RangeError], [Infinity, RangeError], ['128', TypeError]]);
  option(fn, 'precision', BAD_ENUM);
}
sizeArg('t5BucketMatrix', 0, 'qLen');
sizeOption('t5BucketMatrix', 'kLen');
option('t5BucketMatrix', 'queryOffset', [[1.5, RangeError], [2 ** 31, RangeError], [-(2 ** 31), RangeError], [NaN, RangeError], ['0', TypeError]]);

sizeArg('shawClip', 0, 'qLen');
optionsArg('shawClip');
sizeOption('shawClip', 'kLen');
option('shawClip', 'maxRelativePosition', [[-1, RangeError], [1.5, RangeError], [2 ** 24 + 1, RangeError], [NaN, RangeError], ['2', TypeError]]);
option('shawClip', 'shift', BAD_BOOL);

// learned table
for (const fn of ['learnedTable', 'learnedRows']) {
  const at = fn === 'learnedTable' ? 0 : 1;
  sizeArg(fn, at, 'trainedLen');
  sizeArg(fn, at + 1, 'dModel');
  optionsArg(fn);
  option(fn, 'seed', [[-1, RangeError], [1.5, RangeError], [2 ** 53, RangeError], [NaN, RangeError], ['1', TypeError], [1n, TypeError]]);
  option(fn, 'distribution', BAD_ENUM);
  numberOption(fn, 'scale', [-0.5, -1e-300, 1e308]);
  option(fn, 'dtype', BAD_ENUM);
}
vectorArg('learnedRows', 0, 'positions', { length: 2 });
for (const v of [4, 100, -1, 1.5]) add('learnedRows', 'positions[1]', v, withArg('learnedRows', 0, [0, v]), RangeError);
// PE_LEARNED_MAX_ELEMENTS = 2^26 numbers per call (256 MiB in float32, within the byte limit)
add('learnedTable', 'trainedLen × dModel', 2 ** 26 + 2 ** 13, [2 ** 13 + 1, 2 ** 13], RangeError, 'trainedLen × dModel must be at most 67108864');
add('learnedRows', 'positions × dModel', 2 ** 26 + 2 ** 13, [new Int32Array(2 ** 13 + 1), 4, 2 ** 13], RangeError,
  'positions × dModel must be at most 67108864');

// binary
sizeArg('binaryTable', 0, 'maxLen');
sizeArg('binaryTable', 1, 'bits', 64);
optionsArg('binaryTable');
option('binaryTable', 'offset', [[-1, RangeError], [1.5, RangeError], [2 ** 31, RangeError], [NaN, RangeError], ['0', TypeError]]);
option('binaryTable', 'signed', BAD_BOOL);
option('binaryTable', 'dtype', BAD_ENUM);

// precision
vectorArg('roundTo', 0, 'values', { finiteOnly: false });
for (const [v, t] of [['float8', RangeError], ['', RangeError], [16, TypeError], [null, TypeError], [undefined, TypeError]]) add('roundTo', 'format', v, withArg('roundTo', 1, v), t);
vectorArg('formatBits', 0, 'values', { finiteOnly: false });
for (const [v, t] of [['float64', RangeError], ['float8', RangeError], [32, TypeError], [null, TypeError]]) add('formatBits', 'format', v, withArg('formatBits', 1, v), t);

sizeArg('precisionError', 0, 'dModel');
optionsArg('precisionError');
encodingOptions('precisionError');
option('precisionError', 'format', BAD_ENUM);
option('precisionError', 'mode', BAD_ENUM);
option('precisionError', 'positions', [[[], RangeError], [[0, NaN], RangeError], [[0, 2 ** 31 + 1], RangeError], ['01', TypeError]]);
{
  const both = withOption('precisionError', 'count', 4);
  add('precisionError', 'positions or count', 'both', both, TypeError, 'count');
  add('precisionError', 'count', 0, [16, { count: 0 }], RangeError);
  add('precisionError', 'count', 1.5, [16, { count: 1.5 }], RangeError);
  add('precisionError', 'count', 2 ** 24 + 1, [16, { count: 2 ** 24 + 1 }], RangeError);
  // Work, not bytes: 2^24 columns at the default 65536 positions would run for days.
  add('precisionError', 'positions × dModel', 2 ** 26, [2 ** 24], RangeError);
  add('precisionError', 'positions × dModel', 2 ** 26, [1024, { count: 65536 }], RangeError);
}

// ---- sizes past the 1 GiB a call may use: every dimension valid, the product not ---------

const HUGE = [
  ['table', [2 ** 24, 64]],
  ['table', [2 ** 15, 2 ** 15, { dtype: 'float64' }]],
  ['tableGram', [2 ** 16, 2]],
  ['tableGram', [12000, 2, { dtype: 'float32' }]],
  ['norms', [{ rows: 2 ** 24, cols: 2 ** 24, data: [] }]],
  // exactly 1 GiB of float64 input passes alone; its 64 KiB of norms do not (read before the data)
  ['norms', [{ rows: 8192, cols: 16384, data: { length: 2 ** 27 } }]],
  ['gram', [{ rows: 20000, cols: 1, data: new Float64Array(20000) }]],
  ['rotation', [1, 16384]],
  ['rotation', [1, 11586]],
  ['attention', [{ rows: 2 ** 15, cols: 1, data: new Float64Array(2 ** 15) },
    { rows: 2 ** 15, cols: 1, data: new Float64Array(2 ** 15) },
    { rows: 2 ** 15, cols: 1, data: new Float64Array(2 ** 15) }]],
  ['ropeCache', [2 ** 24, 1024]],
  ['rope', [{ dim: 1024, maxLen: 2 ** 24 }]],
  ['ropeApply', [{ rows: 2 ** 24, cols: 2 ** 10, data: [] }]],
  ['ropePermutation', [2 ** 24, { heads: 2 ** 24 }]],
  ['ropePermute', [{ rows: 2 ** 20, cols: 2 ** 10, data: [] }]],
  ['alibiBias', [65536, 4096]],
  ['t5BucketMatrix', [2 ** 16, { kLen: 2 ** 16 }]],
  ['shawClip', [2 ** 16, { kLen: 2 ** 16 }]],
  ['learnedTable', [2 ** 24, 2 ** 24]],
  ['binaryTable', [2 ** 24, 64]],
];

// ---- the tests -------------------------------------------------------------------------------

test('the matrix covers every public function', () => {
  const functions = [pe, pv].flatMap((api) => Object.keys(api).filter((k) => typeof api[k] === 'function' && k !== 'memoryStats')).sort();
  assert.deepEqual(Object.keys(VALID).sort(), functions,
    'a public function without a valid golden call here: add it to VALID and give it bad inputs');
  const covered = new Set(cases.map((c) => c.fn));
  for (const fn of functions) assert.ok(covered.has(fn), `no bad inputs for ${fn}`);
});

for (const fn of Object.keys(VALID)) {
  test(`${fn}: the valid call returns the golden values`, () => {
    VALID[fn].check(apiOf(fn)[fn](...VALID[fn].args()));
    assert.equal(apiOf(fn).memoryStats().liveAllocations, 0);
  });
}

const groups = new Map();
for (const c of cases) {
  const key = `${c.fn}: ${c.param}`;
  if (!groups.has(key)) groups.set(key, []);
  groups.get(key).push(c);
}

for (const [key, group] of groups) {
  test(`${key}: ${group.length} bad value${group.length > 1 ? 's' : ''} refused, then the golden call works`, () => {
    for (const c of group) {
      const api = apiOf(c.fn);
      const before = api.memoryStats();
      let error;
      try {
        api[c.fn](...c.args);
      } catch (e) {
        error = e;
      }
      const where = `${c.fn} with ${c.label}`;
      assert.ok(error, `${where}: no error thrown`);
      assert.ok(error instanceof c.type, `${where}: threw ${error?.constructor?.name} (${error?.message}), expected ${c.type.name}`);
      assert.ok(error.message.startsWith(`posenc.${c.fn}: `), `${where}: message does not name the function: ${error.message}`);
      assert.ok(error.message.includes(c.name), `${where}: message does not name ${c.name}: ${error.message}`);
      const after = api.memoryStats();
      assert.equal(after.liveAllocations, 0, `${where}: allocations left behind`);
      assert.equal(after.bytes, before.bytes, `${where}: memory grew for a refused call`);
      VALID[c.fn].check(api[c.fn](...VALID[c.fn].args()));
    }
  });
}

test('sizes past 1 GiB per call are refused before allocating, with the limit in the message', () => {
  for (const [fn, args] of HUGE) {
    const api = apiOf(fn);
    const before = api.memoryStats();
    assert.throws(() => api[fn](...args), (e) => {
      assert.ok(e instanceof RangeError, `${fn}: ${e}`);
      assert.match(e.message, new RegExp(`^posenc\\.${fn}: `));
      assert.match(e.message, /would need [\d.]+ MiB of WebAssembly memory; one call may use at most 1024 MiB/, `${fn}: ${e.message}`);
      return true;
    }, `${fn}(${args.map(show).join(', ')})`);
    assert.deepEqual(api.memoryStats(), before, `${fn}: memory changed for a refused call`);
    VALID[fn].check(api[fn](...VALID[fn].args()));
  }
});

test('arguments are read once: getters and proxies cannot make C see other sizes than were checked', () => {
  // A rows getter that answers 1 to the checks and 100000 afterwards once made
  // norms() write 800 KB past an 8-byte buffer.
  let reads = 0;
  const shifty = { get rows() { reads++; return reads === 1 ? 4 : 100000; }, cols: 2, data: matrixOf(G.norms[0].matrix).data };
  VALID.norms.check(pe.norms(shifty, { dtype: 'float64' }));
  assert.equal(reads, 1);
  let lengthReads = 0;
  const proxy = new Proxy([1, 2, 3], {
    get(target, key) {
      if (key === 'length') return ++lengthReads === 1 ? 3 : 1e6;
      return target[key];
    },
  });
  assert.equal(pe.dot(proxy, [4, 5, 6]), 32);
  assert.equal(lengthReads, 1);
  let optionReads = 0;
  const opts = { get dtype() { optionReads++; return optionReads === 1 ? 'float64' : 'bogus'; } };
  matrixClose('table', pe.table(5, 6, opts), gTable.data, { abs: 1e-15 });
  assert.equal(optionReads, 1);
  // elements that change on a second read: the checked values are the ones used
  let elementReads = 0;
  const flaky = [1, 2, 3];
  Object.defineProperty(flaky, 1, { get() { elementReads++; return elementReads === 1 ? 2 : NaN; } });
  assert.equal(pe.dot(flaky, [4, 5, 6]), 32);
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('a typed array whose buffer is detached by a later getter was already copied: the call uses the copy', () => {
  const a = new Float64Array([1, 2, 3]);
  const b = [4, 5, 6];
  Object.defineProperty(b, 0, { get() { structuredClone(a.buffer, { transfer: [a.buffer] }); return 4; } });
  assert.equal(pe.dot(a, b), 1 * 4 + 2 * 5 + 3 * 6);
  assert.equal(a.length, 0, 'the getter did detach a');
  assert.equal(pe.memoryStats().liveAllocations, 0);
  VALID.dot.check(pe.dot(...VALID.dot.args()));
});

test('finite inputs whose results overflow are refused by the C core, named as such', () => {
  for (const [fn, args] of [
    ['toyAttention', [[1e308, 1e308, -1e308]]],
    ['toyAttention', [[1e200, 1e200, 1e200]]],
    ['attention', [{ rows: 1, cols: 1, data: [1e200] }, { rows: 2, cols: 1, data: [1e200, -1e200] }, { rows: 2, cols: 1, data: [1, 2] }]],
  ]) {
    assert.throws(() => pe[fn](...args), (e) => {
      assert.ok(e instanceof RangeError, String(e));
      assert.match(e.message, new RegExp(`^posenc\\.${fn}: a value is NaN or infinite \\(an input, or a result that overflowed\\) \\(status 7\\)$`));
      return true;
    });
    assert.equal(pe.memoryStats().liveAllocations, 0);
    VALID[fn].check(pe[fn](...VALID[fn].args()));
  }
});

test('an out of the wrong length is shown with its length, not only its type', () => {
  // issue 22's twelfth pass: `out must be a Float32Array of 8 elements (dtype float32) on a
  // fixed-length buffer (got Float32Array)` named the parameter but not the mistake (7 elements).
  assert.throws(() => pe.table(2, 4, { out: new Float32Array(7) }), /out must be a Float32Array of 8 elements .*\(got Float32Array\(7\)\)$/);
  assert.throws(() => pe.table(2, 4, { dtype: 'float16', out: new Float32Array(8) }), /out must be a Uint16Array of 8 elements \(dtype float16\).*\(got Float32Array\(8\)\)$/);
  const detached = new Float32Array(8);
  structuredClone(detached.buffer, { transfer: [detached.buffer] });
  assert.throws(() => pe.table(2, 4, { out: detached }), /\(got Float32Array\(0\)\)$/);
  assert.throws(() => pv.ropeApply({ shape: [2, 4], data: new Float32Array(8) }, { out: new Float64Array(3) }), /posenc\.ropeApply: .*out.*\(got Float64Array\(3\)\)/);
  // anything else is shown as before
  assert.throws(() => pe.table(2, 4, { out: [0, 0, 0, 0, 0, 0, 0, 0] }), /\(got an array\)$/);
  assert.throws(() => pe.table(2, 4, { out: new DataView(new ArrayBuffer(32)) }), /\(got DataView\)$/);
});

test('an out is written through its internal slots, never its own or inherited set', () => {
  // issue 22's thirteenth pass: table and ropeApply wrote each chunk with out.set(...), so an out
  // whose `set` getter threw escaped with that raw error, and one whose prototype was changed
  // (still a Float32Array by its slots, as every check reads it) with "target.set is not a function".
  const plant = {
    'a set getter that throws': (o) => Object.defineProperty(o, 'set', { get() { throw new Error('planted set'); } }),
    'a plain prototype': (o) => Object.setPrototypeOf(o, Object.prototype),
    'no prototype': (o) => Object.setPrototypeOf(o, null),
  };
  const calls = [
    [(out) => pe.table(3, 4, { out }), Float32Array, 12],
    [(out) => pe.table(3, 4, { out, dtype: 'float16' }), Uint16Array, 12],
    [(out) => pe.table(3, 4, { out, positions: [0, 5, 2] }), Float32Array, 12],
    [(out) => pv.ropeApply({ shape: [2, 4], data: new Float32Array([1, 2, 3, 4, 5, 6, 7, 8]) }, { out }), Float32Array, 8],
  ];
  for (const [call, Type, n] of calls) {
    const want = Array.from(call(new Type(n)).data);
    for (const [what, f] of Object.entries(plant)) {
      const out = new Type(n);
      f(out);
      const got = call(out);
      assert.equal(got.data, out, what);
      assert.deepEqual(Array.from(Type.prototype.values.call(out)), want, `${call}: ${what}`);
    }
  }
});
