// ropeFromConfig (issue 23 points 1 and 7): published configs and HF's own
// expectations through posenc/variants.
//
// Tolerances:
// - golden_rope_config.json (tests/golden/gen_rope_config.py, float64 Python):
//   each inv_freq and attention factor within 8 ulp of the golden (relative
//   8 × 2^-52): both sides evaluate the same formulas in double, with
//   different pow/log implementations and operation orders.
// - HF's test_modeling_rope_utils.py snapshots are printed to 5 significant
//   digits: relative 5e-5 (half a unit in the last printed digit), plus the
//   float32 rounding of HF's own tensors (6e-8).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import init from '../web/lib/variants/index.js';

const root = new URL('..', import.meta.url).pathname;
const json = (p) => JSON.parse(readFileSync(join(root, p), 'utf8'));
const gallery = (name) => json(`tests/fixtures/configs/${name}.json`);
const pv = await init();

function close(actual, expected, rel, what) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < expected.length; i++) {
    const tol = rel * Math.abs(expected[i]);
    assert.ok(Math.abs(actual[i] - expected[i]) <= tol, `${what}[${i}]: ${actual[i]} vs ${expected[i]} (tolerance ${tol})`);
  }
}
const ULP8 = 8 * Number.EPSILON;

test('golden_rope_config.json is what gen_rope_config.py writes (--check: structure exact, numbers within 2 ulp)', () => {
  const r = spawnSync('python3', [join(root, 'tests/golden/gen_rope_config.py'), '--check'], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `gen_rope_config.py --check failed:\n${r.stdout}${r.stderr}`);
});

test('every gallery config and synthetic case gives the golden inv_freq and attention factor (8 ulp)', () => {
  const { cases } = json('tests/golden/golden_rope_config.json');
  assert.ok(cases.length >= 20, `only ${cases.length} golden cases`);
  for (const c of cases) {
    const config = c.fixture ? gallery(c.fixture) : c.config;
    const r = pv.ropeFromConfig(config, c.options);
    assert.equal(r.type, c.type, `${c.name}: type`);
    if (c.theta !== undefined) assert.equal(r.theta, c.theta, `${c.name}: theta`);
    assert.ok(r.invFreq instanceof Float64Array, `${c.name}: invFreq is float64 by default`);
    close(r.invFreq, c.invFreq, ULP8, `${c.name} invFreq`);
    close([r.attentionFactor], [c.attentionFactor], ULP8, `${c.name} attentionFactor`);
  }
});

test("HF's own expectations (tests/utils/test_modeling_rope_utils.py) hold through ropeFromConfig", () => {
  const { cases } = json('tests/fixtures/hf_rope_expectations.json');
  assert.ok(cases.length >= 30);
  for (const c of cases) {
    const r = pv.ropeFromConfig(c.config, c.options);
    if (c.invFreq) close(r.invFreq, c.invFreq, 5e-5 + 6e-8, c.name);
    close([r.attentionFactor], [c.attentionFactor], ULP8, `${c.name} attentionFactor`);
  }
});

test('the gallery copy the page loads (web/site/models/) is the tested gallery', () => {
  const files = (d) => readdirSync(join(root, d)).filter((f) => f.endsWith('.json')).sort();
  assert.deepEqual(files('web/site/models'), files('tests/fixtures/configs'));
  for (const f of files('tests/fixtures/configs')) {
    assert.equal(readFileSync(join(root, 'web/site/models', f), 'utf8'), readFileSync(join(root, 'tests/fixtures/configs', f), 'utf8'), f);
  }
  assert.deepEqual(Object.keys(json('tests/fixtures/configs/index.json')).map((n) => `${n}.json`).sort(),
    files('tests/fixtures/configs').filter((f) => f !== 'index.json'));
});

test('the result keeps the contract other helpers rely on', () => {
  const r = pv.ropeFromConfig(gallery('llama-3.1-8b'));
  for (const key of ['type', 'theta', 'headDim', 'rotaryDim', 'pairing', 'invFreq', 'attentionFactor', 'warnings']) {
    assert.ok(key in r, `ropeFromConfig() lacks ${key}`);
  }
  assert.deepEqual([r.type, r.theta, r.headDim, r.rotaryDim, r.pairing, r.originalMaxPosition, r.maxPosition],
    ['llama3', 500000, 128, 128, 'half', 8192, 131072]);
  assert.deepEqual(r.warnings, []);
  assert.ok(pv.ropeFromConfig(gallery('llama-3.1-8b'), { dtype: 'float32' }).invFreq instanceof Float32Array);
});

test('per-layer RoPE: Gemma 3 layer types, ModernBERT global/local θ, Llama 4 layers without RoPE', () => {
  const gemma = gallery('gemma-3-4b');
  const types = pv.ropeFromConfig(gemma).layerTypes;
  assert.equal(types.length, 34);
  assert.deepEqual(types.slice(0, 6), [...Array(5).fill('sliding_attention'), 'full_attention']);
  const local = pv.ropeFromConfig(gemma, { layerIndex: 0 });
  assert.deepEqual([local.layerType, local.type, local.theta], ['sliding_attention', 'default', 10000]);
  const global = pv.ropeFromConfig(gemma, { layerIndex: 5 });
  assert.deepEqual([global.layerType, global.type, global.theta, global.invFreq[0]], ['full_attention', 'linear', 1e6, 1 / 8]);
  const bert = gallery('modernbert-base');
  assert.deepEqual([0, 1, 2, 3].map((i) => pv.ropeFromConfig(bert, { layerIndex: i }).theta), [160000, 10000, 10000, 160000]);
  const scout = gallery('llama-4-scout');
  assert.equal(pv.ropeFromConfig(scout, { layerIndex: 3 }).type, 'none');
  assert.equal(pv.ropeFromConfig(scout, { layerIndex: 4 }).type, 'llama3');
  assert.equal(pv.ropeFromConfig(scout).pairing, 'interleaved');
  // an empty no_rope_layers means HF's default: every fourth layer without RoPE
  const empty = { ...scout, text_config: { ...scout.text_config, no_rope_layers: [] } };
  assert.equal(pv.ropeFromConfig(empty, { layerIndex: 7 }).type, 'none');
  assert.equal(pv.ropeFromConfig(empty, { layerIndex: 6 }).type, 'llama3');
});

test('Qwen2-VL: mrope_section comes back for mropeCache, its type "mrope" is HF\'s default', () => {
  const r = pv.ropeFromConfig(gallery('qwen2-vl-7b'));
  assert.deepEqual([r.type, r.mropeSection, r.mropeInterleaved, r.warnings], ['default', [16, 24, 24], false, []]);
  assert.equal(pv.ropeFromConfig(gallery('llama-3.1-8b')).mropeSection, undefined);
});

test('DeepSeek-V3 rotates qk_rope_head_dim in adjacent pairs; FLUX gives its three axes', () => {
  const ds = pv.ropeFromConfig(gallery('deepseek-v3'));
  assert.deepEqual([ds.headDim, ds.rotaryDim, ds.pairing, ds.attentionFactor], [64, 64, 'interleaved', 1]);
  const flux = pv.ropeFromConfig(gallery('flux.1-dev'));
  assert.deepEqual([flux.type, flux.axesDim, flux.invFreq.length, flux.pairing], ['axial', [16, 56, 56], 64, 'interleaved']);
});

test('HF refuses: an unknown rope_type and missing required keys, named', () => {
  const llama = { hidden_size: 64, num_attention_heads: 4, max_position_embeddings: 128 };
  assert.throws(() => pv.ropeFromConfig({ ...llama, rope_scaling: { rope_type: 'ntk-by-parts', factor: 2 } }),
    (e) => e instanceof RangeError && /rope_type/.test(e.message) && /ntk-by-parts/.test(e.message));
  // HF's test_rope_validation: every type but default and proportional needs more than rope_theta
  for (const type of ['linear', 'dynamic', 'yarn', 'longrope', 'llama3']) {
    const bare = { hidden_size: 64, num_attention_heads: 4, rope_parameters: { rope_type: type, rope_theta: 10000 } };
    assert.throws(() => pv.ropeFromConfig(bare), (e) => e instanceof TypeError && /missing required keys/.test(e.message) && e.message.includes(type), type);
  }
  assert.throws(() => pv.ropeFromConfig({ ...llama, rope_scaling: { type: 'linear' } }), /missing required keys for rope_type "linear": factor/);
  assert.throws(() => pv.ropeFromConfig({ rope_theta: 10000 }), /head_dim, or hidden_size and num_attention_heads/);
  assert.throws(() => pv.ropeFromConfig('config.json'), (e) => e instanceof TypeError && /config must be/.test(e.message));
  assert.throws(() => pv.ropeFromConfig({ ...llama, partial_rotary_factor: 0.3125 }), /even/); // int(16 × 0.3125) = 5
});

test("HF's warnings are returned, not printed: unrecognised keys, factor < 1, the implicit YaRN factor", () => {
  const llama = { hidden_size: 64, num_attention_heads: 4, max_position_embeddings: 4096 };
  const w = (rp) => pv.ropeFromConfig({ ...llama, rope_parameters: rp }).warnings.join('\n');
  assert.match(w({ rope_type: 'default', mrope_sections: [1] }), /unrecognized keys.*mrope_sections/);
  assert.equal(w({ rope_type: 'default', mrope_section: [1] }), ''); // Qwen2-VL's key, ignored as HF's model configs do
  assert.match(w({ rope_type: 'linear', factor: 0.5 }), /factor must be a number >= 1, got 0.5/);
  assert.match(w({ rope_type: 'yarn', factor: 2, original_max_position_embeddings: 1 }), /differs from max_position_embeddings/);
  assert.equal(w({ rope_type: 'yarn', factor: 2, original_max_position_embeddings: 2048 }), '');
  assert.match(w({ rope_type: 'proportional', rope_theta: 1e4, factor: 2 }), /unrecognized keys.*factor/);
});

test('ropeFrequencies, ropeCache and ropeApply take config (+ layerType) as base and scaling', () => {
  const gemma = gallery('gemma-3-4b');
  const r = pv.ropeFromConfig(gemma, { layerType: 'sliding_attention' });
  const viaConfig = pv.ropeCache(16, 256, { config: gemma, layerType: 'sliding_attention', dtype: 'float64' });
  const viaBase = pv.ropeCache(16, 256, { base: r.theta, dtype: 'float64' });
  assert.deepEqual(viaConfig.cos.data, viaBase.cos.data);
  const phi = gallery('phi-3-mini-128k');
  const f = pv.ropeFrequencies(96, { config: phi, dtype: 'float64' });
  assert.deepEqual(f.invFreq, pv.ropeFromConfig(phi).invFreq);
  assert.equal(f.attentionFactor, pv.ropeFromConfig(phi).attentionFactor);
  const x = { data: Float64Array.from({ length: 4 * 128 }, (_, i) => Math.sin(i)), shape: [4, 128] };
  const l31 = gallery('llama-3.1-8b');
  const a = pv.ropeApply(x, { config: l31, dtype: 'float64' });
  const b = pv.ropeApply(x, { base: 500000, scaling: { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPosition: 8192 }, dtype: 'float64' });
  assert.deepEqual(a.data, b.data);
  // a config's head_dim, rotary dim and pairing are ropeApply's defaults: DeepSeek-V3 rotates 64 dims in adjacent pairs
  const ds = gallery('deepseek-v3');
  const q = { data: Float64Array.from({ length: 3 * 2 * 64 }, (_, i) => Math.cos(i)), shape: [3, 128] };
  const r3 = pv.ropeFromConfig(ds);
  assert.deepEqual(pv.ropeApply(q, { config: ds, dtype: 'float64' }).data,
    pv.ropeApply(q, { headDim: 64, pairing: 'interleaved', base: r3.theta, scaling: r3.scaling, dtype: 'float64' }).data);
  assert.throws(() => pv.ropeFrequencies(64, { config: l31 }), (e) => e instanceof RangeError && /128, the config's rotary dim/.test(e.message));
  assert.throws(() => pv.ropeFrequencies(128, { config: l31, base: 10000 }), /give config or base, not both/);
  assert.throws(() => pv.ropeFrequencies(128, { layerType: 'full_attention' }), /layerType needs config/);
  assert.throws(() => pv.ropeCache(4, 256, { config: gemma, layerType: 'chunked_attention' }), (e) => e instanceof RangeError && /layerType/.test(e.message));
});

test('mutated configs (4,000, seeded) give a result or a posenc TypeError / RangeError, and leave no memory behind', () => {
  let seed = 0x2317;
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const pick = (a) => a[Math.floor(rand() * a.length)];
  const odd = [null, undefined, 0, -1, 1.5, 2 ** 40, NaN, Infinity, '', '8', [], {}, [1, 2], true, 'linear', 'yarn', 'bogus', 1e-9, 7];
  const names = Object.keys(json('tests/fixtures/configs/index.json'));
  const before = pv.memoryStats().bytes;
  let results = 0;
  for (let n = 0; n < 4000; n++) {
    const config = structuredClone(gallery(pick(names)));
    for (let m = 1 + Math.floor(rand() * 3); m > 0; m--) {
      const nested = config.text_config && typeof config.text_config === 'object' && !Array.isArray(config.text_config);
      const target = nested && rand() < 0.7 ? config.text_config : config;
      const rope = target.rope_scaling ?? target.rope_parameters;
      const into = rope && typeof rope === 'object' && !Array.isArray(rope) && rand() < 0.5 ? rope : target;
      const keys = Object.keys(into);
      const key = rand() < 0.8 && keys.length ? pick(keys) : pick(['rope_type', 'type', 'factor', 'head_dim', 'partial_rotary_factor', 'layer_types', 'no_rope_layers', 'original_max_position_embeddings']);
      if (rand() < 0.2) delete into[key];
      else into[key] = pick(odd);
    }
    const options = rand() < 0.3 ? { layerIndex: Math.floor(rand() * 60) - 5 } : rand() < 0.2 ? { layerType: pick(['full_attention', 'sliding_attention', 'x']) } : {};
    try {
      const r = pv.ropeFromConfig(config, options);
      assert.ok(r.type === 'none' || (r.invFreq.every((w) => Number.isFinite(w) && w >= 0) && Number.isFinite(r.attentionFactor)), `n=${n}`);
      results++;
    } catch (e) {
      assert.ok((e instanceof TypeError || e instanceof RangeError) && e.message.startsWith('posenc.ropeFromConfig: '), `n=${n}: ${e.name}: ${e.message}`);
    }
  }
  assert.ok(results > 400 && results < 3900, `${results} of 4000 gave a result: the mutations should do both`);
  assert.equal(pv.memoryStats().bytes, before);
});

test('a rope() handle scales dynamic and longrope as a sequence of maxLen, as docs/variants.md says (thirty-second pass: not said)', () => {
  assert.match(readFileSync(join(root, 'docs/variants.md'), 'utf8'), /so does the `rope\(\)` handle, whose caches are\n`ropeCache`'s/);
  const x = { shape: [2, 16], data: Float64Array.from({ length: 32 }, (_, i) => Math.sin(i + 1)) };
  for (const scaling of [{ type: 'dynamic', factor: 2, maxPosition: 64 },
    { type: 'longrope', shortFactor: Array(8).fill(1), longFactor: Array(8).fill(4), originalMaxPosition: 64, factor: 4 }]) {
    const handle = pv.rope({ dim: 16, maxLen: 300, scaling, dtype: 'float64' });
    const rows = handle.apply(x, Float64Array.of(5, 61)).data;
    const apart = (seqLen) => Math.max(...pv.ropeApply(x, { positions: [5, 61], scaling: { ...scaling, seqLen }, dtype: 'float64' }).data.map((v, i) => Math.abs(v - rows[i])));
    assert.ok(apart(300) < 1e-12, `${scaling.type}: ${apart(300)}`); // (the cache's generator and the direct rows: an ulp or two)
    assert.ok(apart(undefined) > 0.01, scaling.type); // ropeApply's own: its largest position + 1
    handle.free();
  }
});
