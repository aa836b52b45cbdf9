// Issue 23 point 1: every function that takes base and scaling also takes a
// model's config (and layerType). The rope() handle, ropeApply's multi-axis
// form (Qwen-VL's [3, S] positions, FLUX's [S, 3] ids) and ropeAxialCache
// take it as ropeCache does.
//
// The expected rotations are formed here, in float64, from the golden inv_freq
// and attention factor of tests/golden/golden_rope_config.json (the
// independent Python generator; it never runs posenc): y = x·cos(mθ_i)·af +
// rotate(x)·sin(mθ_i)·af, in the pairing the config implies.
// Tolerance: 1e-12 absolute for |x| ≤ 1 and positions ≤ 15 (the caches are
// within 1e-12 + 16ε|m| of the exact angle's sin and cos, docs/variants.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import init from '../web/lib/variants/index.js';

const json = (p) => JSON.parse(readFileSync(new URL(`../${p}`, import.meta.url), 'utf8'));
const gallery = (name) => json(`tests/fixtures/configs/${name}.json`);
const golden = json('tests/golden/golden_rope_config.json').cases;
const pv = await init();
const TOL = 1e-12;

/** x ([S, heads·headDim]) rotated at positions by the golden frequencies, HF's way (rotary dims first, the rest copied). */
function expected(x, positions, { invFreq, attentionFactor }, { headDim, rotaryDim, pairing }) {
  const [s, cols] = x.shape;
  const out = Float64Array.from(x.data);
  const h = rotaryDim / 2;
  for (let r = 0; r < s; r++) {
    for (let head = 0; head < cols / headDim; head++) {
      const at = r * cols + head * headDim;
      for (let i = 0; i < h; i++) {
        const [a, b] = pairing === 'half' ? [at + i, at + i + h] : [at + 2 * i, at + 2 * i + 1];
        const c = Math.cos(positions[r] * invFreq[i]) * attentionFactor;
        const n = Math.sin(positions[r] * invFreq[i]) * attentionFactor;
        out[a] = x.data[a] * c - x.data[b] * n;
        out[b] = x.data[b] * c + x.data[a] * n;
      }
    }
  }
  return out;
}

function near(actual, want, what) {
  assert.equal(actual.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) assert.ok(Math.abs(actual[i] - want[i]) <= TOL, `${what}[${i}]: ${actual[i]} vs ${want[i]}`);
}

/** The golden cases of a gallery config at one layer type (or the default layer). */
const cases = golden.filter((c) => c.fixture && !['axial', 'none'].includes(c.type) && Object.keys(c.options).every((k) => k === 'layerType'));

test('rope({ config, layerType }) rotates as ropeApply({ config }) and as the golden inv_freq, for every gallery config and layer type', () => {
  assert.ok(cases.length >= 9, `${cases.length} golden cases`);
  const positions = [0, 7, 15];
  for (const c of cases) {
    const config = gallery(c.fixture);
    const layer = c.options.layerType === undefined ? {} : { layerType: c.options.layerType };
    const r = pv.ropeFromConfig(config, layer);
    const x = { shape: [3, 2 * r.headDim], data: Float64Array.from({ length: 6 * r.headDim }, (_, i) => Math.sin(0.7 * i + 0.3)) };
    const handle = pv.rope({ config, ...layer, maxLen: 16, dtype: 'float64' });
    try {
      // the config's rotary dim, head_dim and pairing are the handle's
      assert.deepEqual([handle.dim, handle.headDim, handle.pairing], [r.rotaryDim, r.headDim, r.pairing], c.name);
      assert.ok(Math.abs(handle.attentionFactor - c.attentionFactor) <= 8 * Number.EPSILON * c.attentionFactor, `${c.name}: attention factor`);
      const viaHandle = handle.apply(x, positions).data;
      near(viaHandle, expected(x, positions, c, r), `${c.name}: rope().apply`);
      const viaApply = pv.ropeApply(x, { config, ...layer, positions, headDim: r.headDim, dtype: 'float64' }).data;
      near(viaApply, viaHandle, `${c.name}: ropeApply({ config })`);
      // consecutive positions from an offset read the same rows
      near(handle.apply({ shape: [2, x.shape[1]], data: x.data.slice(0, 2 * x.shape[1]) }, 14).data,
        expected({ shape: [2, x.shape[1]], data: x.data.slice(0, 2 * x.shape[1]) }, [14, 15], c, r), `${c.name}: offset 14`);
    } finally {
      handle.free();
    }
  }
  assert.equal(pv.memoryStats().liveAllocations, 0);
});

test('rope() with config refuses what ropeCache with config refuses, by name', () => {
  const llama = gallery('llama-3.1-8b');
  assert.throws(() => pv.rope({ config: llama, maxLen: 4, dim: 64 }), (e) => e instanceof RangeError && /128, the config's rotary dim/.test(e.message));
  assert.throws(() => pv.rope({ config: llama, maxLen: 4, base: 10000 }), (e) => e instanceof TypeError && /give config or base, not both/.test(e.message));
  assert.throws(() => pv.rope({ dim: 8, maxLen: 4, layerType: 'full_attention' }), (e) => e instanceof TypeError && /layerType needs config/.test(e.message));
  assert.throws(() => pv.rope({ config: gallery('gemma-3-4b'), maxLen: 4, layerType: 'chunked_attention' }), (e) => e instanceof RangeError && /layerType/.test(e.message));
  assert.throws(() => pv.rope({ config: gallery('flux.1-dev'), maxLen: 4 }), (e) => e instanceof RangeError && /axial RoPE/.test(e.message));
  assert.throws(() => pv.rope({ config: llama }), (e) => e instanceof TypeError && /maxLen/.test(e.message));
  // a Gemma 3 handle per layer type: the sliding layers' θ 1e4 unscaled, the global ones' θ 1e6 with linear 8
  const gemma = gallery('gemma-3-4b');
  const local = pv.rope({ config: gemma, layerType: 'sliding_attention', maxLen: 2, dtype: 'float64' });
  const global = pv.rope({ config: gemma, maxLen: 2, dtype: 'float64' });
  const x = { shape: [2, 256], data: new Float64Array(512).fill(1) };
  const [a, b] = [local.apply(x, 0).data, global.apply(x, 0).data];
  local.free();
  global.free();
  const theta = (base, div) => 1 / (base ** (2 / 256)) / div; // pair 1 at position 1
  assert.ok(Math.abs(a[256 + 1] - (Math.cos(theta(1e4, 1)) - Math.sin(theta(1e4, 1)))) < TOL);
  assert.ok(Math.abs(b[256 + 1] - (Math.cos(theta(1e6, 8)) - Math.sin(theta(1e6, 8)))) < TOL);
  assert.equal(pv.memoryStats().liveAllocations, 0);
});

test('ropeApply({ positions, config }) uses an M-RoPE config\'s section for [3, S] positions and FLUX\'s axes for [S, 3] ids', () => {
  const qwen = gallery('qwen2-vl-7b');
  const p = pv.mropePositions([{ text: 3 }, { image: [1, 4, 6] }, { text: 2 }], { spatialMergeSize: 2 });
  const s = p.shape[1];
  const x = { shape: [s, 256], data: Float64Array.from({ length: s * 256 }, (_, i) => Math.cos(0.37 * i)) };
  const given = pv.ropeApply(x, { positions: p, section: [16, 24, 24], base: 1e6, headDim: 128, dtype: 'float64' }).data;
  assert.deepEqual(pv.ropeApply(x, { positions: p, config: qwen, dtype: 'float64' }).data, given);
  // the rows as nested arrays are [3, S] too
  const nested = [0, 1, 2].map((k) => Array.from(p.data.subarray(k * s, (k + 1) * s)));
  assert.deepEqual(pv.ropeApply(x, { positions: nested, config: qwen, dtype: 'float64' }).data, given);
  // 1-D positions of an M-RoPE model are text: the 1-D RoPE of its θ
  const line = Array.from({ length: s }, (_, i) => i);
  const text = pv.ropeApply(x, { positions: line, config: qwen, dtype: 'float64' }).data;
  assert.deepEqual(text, pv.ropeApply(x, { positions: line, base: 1e6, headDim: 128, dtype: 'float64' }).data);
  assert.throws(() => pv.ropeApply(x, { positions: p, config: qwen, interleaved: true }), (e) => e instanceof TypeError && /config or section and interleaved/.test(e.message));
  const hostile = { get shape() { throw new Error('no'); }, data: p.data };
  assert.throws(() => pv.ropeApply(x, { positions: hostile, config: qwen }), (e) => e instanceof TypeError && /^posenc\.ropeApply: could not read positions/.test(e.message));
  // hole the twenty-third pass found: any tensor form of [3, S] is M-RoPE's, as mropeCache's and ropeApply's with a
  // section (a { rows, cols, data } was read as text: "positions must be an array, typed array or array-like of numbers")
  for (const positions of [{ rows: 3, cols: s, data: p.data }, { dims: [3, s], shape: [3 * s], data: p.data }]) {
    assert.deepEqual(pv.ropeApply(x, { positions, config: qwen, dtype: 'float64' }).data, given);
  }
  assert.throws(() => pv.ropeApply(x, { positions: { shape: [s], data: line }, config: qwen }), { name: 'TypeError', message: `posenc.ropeApply: positions must have 2 dimensions (got "shape [${s}]")` });
  // FLUX: ids [S, 3], axes_dim [16, 56, 56], θ 10000, adjacent pairs, heads of attention_head_dim 128
  const flux = gallery('flux.1-dev');
  const ids = pv.ropeGridIds(3, 4, { axes: 3 });
  const y = { shape: [12, 256], data: Float64Array.from({ length: 12 * 256 }, (_, i) => Math.sin(0.11 * i)) };
  assert.deepEqual(pv.ropeApply(y, { positions: ids, config: flux, dtype: 'float64' }).data,
    pv.ropeApply(y, { positions: ids, axesDim: [16, 56, 56], pairing: 'interleaved', headDim: 128, dtype: 'float64' }).data);
  assert.throws(() => pv.ropeApply(y, { positions: ids, config: flux, base: 10 }), (e) => e instanceof TypeError && /config or base/.test(e.message));
  assert.equal(pv.memoryStats().liveAllocations, 0);
});

test('ropeAxialCache takes layerType as the other config readers do, and refuses it for a config without layer types', () => {
  const ids = pv.ropeGridIds(2, 2, { axes: 3 });
  assert.throws(() => pv.ropeAxialCache(ids, { config: gallery('flux.1-dev'), layerType: 'full_attention' }),
    (e) => e instanceof RangeError && /layerType needs a config with layer types/.test(e.message));
  assert.equal(pv.ropeAxialCache(ids, { config: gallery('flux.1-dev'), layerType: undefined }).cos.rows, 4);
});
