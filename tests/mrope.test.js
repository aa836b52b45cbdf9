// Multi-axis RoPE (issue 23, points 2, 3 and 7): mropePositions against
// Qwen2-VL's get_rope_index, mropeCache, ropeAxialCache and ropeApply's
// multi-axis form against tests/golden/golden_mrope.json (gen_mrope.py,
// independent, following HF's and FLUX's code paths), and mropePositions
// against transformers.js's own port of get_rope_index.
// Run: node --test tests/mrope.test.js
//
// Tolerances (golden values are exact values rounded once to double):
//   position ids, ropeDelta ............ exact (integers)
//   float64 cos/sin, rotated vectors ... 1e-12 + 16·ε·|angle| absolute: the angle
//       position·θ is itself a double, so a few ulps of it are inherent
//   float32 cos/sin .................... 1e-6 absolute (the project's float32 rule)
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Qwen2VLForConditionalGeneration, Tensor } from '@huggingface/transformers';
import { loadVariants } from './helpers/load.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const generator = path.join(here, 'golden', 'gen_mrope.py');
const golden = JSON.parse(readFileSync(path.join(here, 'golden', 'golden_mrope.json'), 'utf8'));
const pe = await loadVariants();
const EPS = 2 ** -52;

function assertClose(label, got, want, tol) {
  assert.equal(got.length, want.length, `${label}: length`);
  let worst = { err: 0 };
  for (let i = 0; i < want.length; i++) {
    const err = Math.abs(got[i] - want[i]);
    if (!(err <= tol(i))) worst = err > worst.err ? { i, err, got: got[i], want: want[i] } : worst;
  }
  assert.equal(worst.err, 0, `${label}: [${worst.i}] got ${worst.got}, want ${worst.want}`);
}

/** The largest |angle| a row of a golden case reaches: positions × θ_0 (θ_0 = 1). */
function refuses(fn, Type, name, label) {
  assert.throws(fn, (e) => e instanceof Type && e.message.includes(name) && /^posenc\./.test(e.message), label);
}

const angleTol = (maxPos) => () => 1e-12 + 16 * EPS * maxPos;
const maxAbs = (rows) => Math.max(...rows.flat().map(Math.abs));

test('golden_mrope.json is exactly what gen_mrope.py writes (--check)', () => {
  const r = spawnSync('python3', [generator, '--check'], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr || r.stdout);
});

test('mropePositions gives get_rope_index\'s position ids and rope delta (HF Python code path)', () => {
  for (const c of golden.positions) {
    const got = pe.mropePositions(c.segments, { spatialMergeSize: 2, ...c.options });
    assert.deepEqual(got.shape, [3, c.inputIds.length], c.name);
    assert.deepEqual(Array.from(got.data), c.positions.flat(), `${c.name}: positions`);
    assert.equal(got.ropeDelta, c.ropeDelta, `${c.name}: ropeDelta`);
    assert.deepEqual(Array.from(got.attentionMask), c.attentionMask, `${c.name}: attentionMask`);
    const types = c.inputIds.map((id, i) => (!c.attentionMask[i] ? 0 : id === 151655 ? 1 : id === 151656 ? 2 : 0));
    assert.deepEqual(Array.from(got.tokenTypes), types, `${c.name}: tokenTypes`);
  }
});

test('Qwen2.5-VL video time: tokensPerSecond × secondsPerGrid in float32, truncated after the product', () => {
  // 25 tok/s × float32(0.3) ≈ 7.5 per grid, truncated after × grid index: 0, 7, 15, 22 after the
  // text token (truncating the step first would give 0, 7, 14, 21; transformers < 5.x's
  // int(second_per_grid) gave 0, 0, 0, 0)
  const c = golden.positions.find((x) => x.name.includes('25 tok/s'));
  const got = pe.mropePositions(c.segments, c.options);
  const time = new Set(Array.from(got.data.subarray(1, 1 + 4)));
  assert.deepEqual([...time], [1, 8, 16, 23]);
});

test('mropeCache: sectioned (Qwen2/2.5-VL) and interleaved (Qwen3-VL) against the golden values', () => {
  for (const c of golden.mropeCache) {
    const positions = { shape: [3, c.positions[0].length], data: c.positions.flat() };
    for (const dtype of ['float64', 'float32']) {
      const got = pe.mropeCache(positions, c.headDim, { section: c.section, interleaved: c.interleaved, base: c.base, dtype });
      assert.deepEqual(got.cos.shape, [c.positions[0].length, c.headDim]);
      const tol = dtype === 'float32' ? () => 1e-6 : angleTol(maxAbs(c.positions));
      assertClose(`${c.name} cos ${dtype}`, got.cos.data, c.cos.flat(), tol);
      assertClose(`${c.name} sin ${dtype}`, got.sin.data, c.sin.flat(), tol);
      assert.equal(got.attentionFactor, 1);
    }
  }
});

test('mropeCache of a text-only prompt is the 1-D RoPE cache, for either assignment', () => {
  const p = pe.mropePositions([{ text: 40 }]);
  const oneD = pe.ropeCache(40, 128, { base: 1e6, dtype: 'float64' });
  // ropeCache forms its rows by the oscillator's recurrence (issue 24), mropeCache by one
  // sincos per angle: both within float64 rounding of the true value, not equal to the bit.
  for (const interleaved of [false, true]) {
    const got = pe.mropeCache(p, 128, { section: interleaved ? [24, 20, 20] : [16, 24, 24], interleaved, base: 1e6, dtype: 'float64' });
    assertClose(`text-only cos, interleaved ${interleaved}`, got.cos.data, oneD.cos.data, () => 1e-14);
    assertClose(`text-only sin, interleaved ${interleaved}`, got.sin.data, oneD.sin.data, () => 1e-14);
  }
});

test('mropeCache passes the scaling through: attention factor and frequencies of ropeFrequencies', () => {
  const scaling = { type: 'yarn', factor: 4, originalMaxPosition: 32768 };
  const p = pe.mropePositions([{ text: 2 }, { image: [1, 4, 4] }]);
  const got = pe.mropeCache(p, 128, { section: [16, 24, 24], base: 1e6, scaling, dtype: 'float64' });
  const f = pe.ropeFrequencies(128, { base: 1e6, scaling, dtype: 'float64' });
  assert.equal(got.attentionFactor, f.attentionFactor);
  assert.ok(got.attentionFactor > 1);
  assert.deepEqual(Array.from(got.frequencies), Array.from(f.invFreq));
  // the last token (row 5, an image token at t = 2, h = 3, w = 3) reads row 2 for the width frequencies
  assert.equal(got.axis[63], 2);
  assertClose('yarn cos', [got.cos.data[5 * 128 + 63]], [Math.cos(3 * f.invFreq[63]) * f.attentionFactor], () => 1e-15);
});

test('ropeAxialCache: FLUX EmbedND, diffusers half layout, Pixtral 2-D, Qwen2-VL vision against the golden values', () => {
  for (const c of golden.axialCache) {
    const ids = { shape: [c.ids.length, c.ids[0].length], data: c.ids.flat() };
    for (const dtype of ['float64', 'float32']) {
      const got = pe.ropeAxialCache(ids, { ...c.options, dtype });
      const tol = dtype === 'float32' ? () => 1e-6 : angleTol(maxAbs(c.ids));
      assertClose(`${c.name} cos ${dtype}`, got.cos.data, c.cos.flat(), tol);
      assertClose(`${c.name} sin ${dtype}`, got.sin.data, c.sin.flat(), tol);
    }
  }
});

test('ropeGridIds makes the patch-grid ids FLUX and Pixtral index', () => {
  const flux = golden.axialCache.find((c) => c.name === 'flux');
  assert.deepEqual(Array.from(pe.ropeGridIds(2, 3, { axes: 3 }).data), flux.ids.slice(2).flat());
  const pix = golden.axialCache.find((c) => c.name === 'pixtral');
  const g = pe.ropeGridIds(3, 4);
  assert.deepEqual(g.shape, [12, 2]);
  assert.deepEqual(Array.from(g.data), pix.ids.flat());
});

test('position ids as HF hands them: an int64 transformers.js Tensor and an int32 tfjs-style tensor give the golden caches', () => {
  // position_ids are int64 in HF and transformers.js; the golden positions are whole numbers
  const c = golden.mropeCache.find((g) => g.positions.flat().every(Number.isInteger));
  const [rows, s] = [3, c.positions[0].length];
  const flat = c.positions.flat();
  const given = [
    new Tensor('int64', BigInt64Array.from(flat, BigInt), [rows, s]),
    { dtype: 'int32', shape: [rows, s], dataSync: () => Int32Array.from(flat) },
    { type: 'int32', data: Int32Array.from(flat), dims: [rows, s] },
  ];
  for (const positions of given) {
    const got = pe.mropeCache(positions, c.headDim, { section: c.section, interleaved: c.interleaved, base: c.base, dtype: 'float64' });
    assertClose(`${c.name} cos from ${positions.type ?? positions.dtype}`, got.cos.data, c.cos.flat(), angleTol(maxAbs(c.positions)));
  }
  const a = golden.apply.find((g) => g.options.section && g.options.positions.flat().every(Number.isInteger));
  const x = { shape: [a.x.length, a.x[0].length], data: a.x.flat() };
  const p = a.options.positions;
  const positions = new Tensor('int64', BigInt64Array.from(p.flat(), BigInt), [p.length, p[0].length]);
  assertClose(`${a.name} from int64`, pe.ropeApply(x, { ...a.options, positions, dtype: 'float64' }).data, a.out.flat(), angleTol(maxAbs(p) * 2));
  const ids = golden.axialCache.find((g) => g.ids.flat().every(Number.isInteger));
  const got = pe.ropeAxialCache({ type: 'int32', data: Int32Array.from(ids.ids.flat()), dims: [ids.ids.length, ids.ids[0].length] }, ids.options);
  assertClose(`${ids.name} from int32 ids`, got.cos.data, ids.cos.flat(), () => 1e-6);
  // quantized activations stay refused where values are not whole numbers: x as int8
  refuses(() => pe.ropeApply({ type: 'int8', data: new Int8Array(x.data.length), dims: x.shape }, { ...a.options, positions }), TypeError, 'element type', 'int8 x');
});

test('ropeApply with [3, S] positions and a section, and with [S, A] ids and axesDim', () => {
  for (const c of golden.apply) {
    const x = { shape: [c.x.length, c.x[0].length], data: c.x.flat() };
    const p = c.options.positions;
    const positions = { shape: [p.length, p[0].length], data: p.flat() };
    const got = pe.ropeApply(x, { ...c.options, positions, dtype: 'float64' });
    assertClose(c.name, got.data, c.out.flat(), angleTol(maxAbs(p) * 2));
    // heads: [H, S, D] rotates each head alike
    const two = pe.ropeApply({ shape: [2, ...x.shape], data: [...x.data, ...x.data] }, { ...c.options, positions, dtype: 'float64' });
    assertClose(`${c.name}, two heads`, two.data, [...c.out.flat(), ...c.out.flat()], angleTol(maxAbs(p) * 2));
  }
});

test('config: Qwen2-VL\'s and Qwen3-VL\'s config.json give their section, assignment and theta; FLUX\'s its axes', () => {
  const qwen2 = JSON.parse(readFileSync(path.join(here, 'fixtures', 'configs', 'qwen2-vl-7b.json'), 'utf8'));
  const p = pe.mropePositions([{ text: 3 }, { image: [1, 4, 6] }, { text: 2 }]);
  const same = (a, b) => assert.deepEqual(Array.from(a.cos.data), Array.from(b.cos.data));
  same(pe.mropeCache(p, 128, { config: qwen2 }), pe.mropeCache(p, 128, { section: [16, 24, 24], base: 1e6 }));
  // Qwen3-VL: text_config.rope_scaling with mrope_interleaved (numbers of Qwen3-VL-8B-Instruct's config.json)
  const qwen3 = { model_type: 'qwen3_vl', text_config: { model_type: 'qwen3_vl_text', head_dim: 128, hidden_size: 4096, num_attention_heads: 32,
    rope_theta: 5000000, rope_scaling: { rope_type: 'default', mrope_section: [24, 20, 20], mrope_interleaved: true } } };
  same(pe.mropeCache(p, 128, { config: qwen3 }), pe.mropeCache(p, 128, { section: [24, 20, 20], interleaved: true, base: 5e6 }));
  const flux = JSON.parse(readFileSync(path.join(here, 'fixtures', 'configs', 'flux.1-dev.json'), 'utf8'));
  const ids = pe.ropeGridIds(3, 2, { axes: 3 });
  assert.deepEqual(Array.from(pe.ropeAxialCache(ids, { config: flux }).sin.data),
    Array.from(pe.ropeAxialCache(ids, { axesDim: [16, 56, 56], base: 10000 }).sin.data));
  refuses(() => pe.mropeCache(p, 128, { config: qwen2, section: [16, 24, 24] }), TypeError, 'config', 'config and section');
  refuses(() => pe.mropeCache(p, 128, { config: flux }), RangeError, 'mrope_section', 'not an M-RoPE config');
  refuses(() => pe.mropeCache(p, 64, { config: qwen2 }), RangeError, "headDim must be 128, the config's rotary dim", 'head of another width');
  refuses(() => pe.ropeAxialCache(ids, { config: qwen2 }), RangeError, 'axes_dims_rope', 'not an axial config');
  refuses(() => pe.ropeAxialCache(ids, { config: flux, base: 10 }), TypeError, 'base', 'config and base');
});

// ---- transformers.js ------------------------------------------------------------------

const CONFIG = { vision_config: { spatial_merge_size: 2 }, image_token_id: 151655, video_token_id: 151656, vision_start_token_id: 151652 };
const int64 = (values, dims) => new Tensor('int64', BigInt64Array.from(values, BigInt), dims);

/** transformers.js's get_rope_index, called on the model class's prototype with a config (no weights). */
function transformersJs(c) {
  const model = Object.assign(Object.create(Qwen2VLForConditionalGeneration.prototype), { config: CONFIG });
  const grids = (kind) => c.segments.filter((s) => s[kind]).map((s) => s[kind]);
  const images = grids('image');
  const videos = grids('video');
  const s = c.inputIds.length;
  const hasPad = c.attentionMask.includes(0);
  const [pos, delta] = model.get_rope_index(int64(c.inputIds, [1, s]), images.length ? int64(images.flat(), [images.length, 3]) : null,
    videos.length ? int64(videos.flat(), [videos.length, 3]) : null, hasPad ? int64(c.attentionMask, [1, s]) : null);
  return { positions: Array.from(pos.data, Number), delta: Number(delta.data[0]) };
}

test('transformers.js get_rope_index agrees with mropePositions on image, video and text-only prompts, except where documented', () => {
  // docs/variants.md, "M-RoPE: transformers.js": each disagreement, and which side matches HF Python
  const compared = [];
  for (const c of golden.positions) {
    const ours = pe.mropePositions(c.segments, c.options);
    const js = transformersJs(c);
    const pad = c.options.leftPadding ?? 0;
    const valid = (arr) => arr.filter((_, k) => c.attentionMask[k % c.inputIds.length] === 1);
    const timeScaled = c.options.tokensPerSecond && c.segments.some((s) => s.video && s.secondsPerGrid !== 0.5);
    if (timeScaled) {
      // 1. transformers.js has no tokens_per_second (Qwen2.5-VL): its video time rows count grids 0, 1, 2, ...
      assert.notDeepEqual(valid(js.positions), valid(Array.from(ours.data)), `${c.name}: expected the documented time-step difference`);
      compared.push(`${c.name}: time step differs (documented)`);
      continue;
    }
    assert.deepEqual(valid(js.positions), valid(Array.from(ours.data)), `${c.name}: positions of the attended tokens`);
    const textOnly = c.segments.every((s) => s.text !== undefined);
    if (pad && textOnly) {
      // 2. text-only with padding: transformers.js returns max + 1 + S where HF Python returns max + 1 - S
      assert.equal(js.delta, ours.ropeDelta + 2 * c.inputIds.length, `${c.name}: the documented delta sign`);
      assert.equal(ours.ropeDelta, c.ropeDelta);
    } else {
      assert.equal(js.delta, ours.ropeDelta, `${c.name}: ropeDelta`);
    }
    if (pad && !textOnly) {
      // 3. padded slots: 0 in transformers.js (and HF 5), 1 in HF Python 4.x (ours); never attended
      const padded = js.positions.filter((_, k) => c.attentionMask[k % c.inputIds.length] === 0);
      assert.ok(padded.length > 0 && padded.every((v) => v === 0), `${c.name}: transformers.js pads with 0`);
      assert.ok(Array.from(ours.data).filter((_, k) => c.attentionMask[k % c.inputIds.length] === 0).every((v) => v === 1));
      compared.push(`${c.name}: padding values differ (documented)`);
    }
    compared.push(c.name);
  }
  assert.ok(compared.length >= 8 && compared.some((s) => s.includes('padding values')) && compared.some((s) => s.includes('time step')), compared.join('; '));
});

test('transformers.js text-only ids for a batch of 2 without a mask: floor((i mod S) / B), documented', () => {
  const model = Object.assign(Object.create(Qwen2VLForConditionalGeneration.prototype), { config: CONFIG });
  const [pos] = model.get_rope_index(int64(new Array(8).fill(100), [2, 4]), null, null, null);
  const row0 = Array.from(pos.data.subarray(0, 4), Number);
  assert.deepEqual(row0, [0, 0, 1, 1]); // HF Python: 0, 1, 2, 3 (as mropePositions for one sequence)
  assert.deepEqual(Array.from(pe.mropePositions([{ text: 4 }]).data.subarray(0, 4)), [0, 1, 2, 3]);
});

// ---- bad input --------------------------------------------------------------------------

test('bad input: a posenc error naming the parameter, and the module stays usable', () => {
  const ok = [{ text: 2 }, { image: [1, 4, 4] }];
  const P = (s, o) => () => pe.mropePositions(s, o);
  refuses(P(undefined), TypeError, 'segments', 'no segments');
  refuses(P([]), TypeError, 'segments', 'empty segments');
  // a Proxy of an Array answering NaN (or undefined) for its length passed 'n < 1' and was read as no segments:
  // 'segments must hold at least one token', without the value (issue 22, sixteenth pass, class 8)
  for (const length of [NaN, undefined]) {
    const answering = new Proxy([{ text: 2 }], { get: (t, k, r) => (k === 'length' ? length : Reflect.get(t, k, r)) });
    assert.throws(P(answering), (e) => e instanceof TypeError && /^posenc\.mropePositions: segments must be a non-empty array .*\(got /.test(e.message), String(length));
  }
  refuses(P([{ text: 1, image: [1, 2, 2] }]), TypeError, 'segments[0]', 'two kinds');
  refuses(P([{ audio: 3 }]), TypeError, 'audio', 'unknown kind');
  refuses(P([{ image: [1, 3, 4] }]), RangeError, 'spatialMergeSize', 'odd grid');
  refuses(P([{ image: [1, 2] }]), RangeError, 'segments[0].image', 'short grid');
  refuses(P([{ image: [0, 2, 2] }]), RangeError, 'segments[0].image[0]', 'zero grid');
  refuses(P([{ text: -1 }]), RangeError, 'segments[0].text', 'negative text');
  refuses(P([{ text: 0 }]), RangeError, 'segments', 'no tokens');
  refuses(P([{ image: [1, 2, 2], secondsPerGrid: 1 }]), TypeError, 'secondsPerGrid', 'seconds on an image');
  refuses(P([{ video: [2, 2, 2], secondsPerGrid: 0 }]), RangeError, 'secondsPerGrid', 'zero seconds');
  refuses(P(ok, { tokensPerSecond: NaN }), RangeError, 'tokensPerSecond', 'NaN tokens per second');
  refuses(P(ok, { leftPadding: 1.5 }), RangeError, 'leftPadding', 'fractional padding');
  refuses(P(ok, { spatialMergeSize: 0 }), RangeError, 'spatialMergeSize', 'zero merge');
  refuses(P(ok, { merge: 2 }), TypeError, 'merge', 'unknown option');
  refuses(P([{ video: [2 ** 23, 2, 2] }], { tokensPerSecond: 1e6 }), RangeError, 'segments[0] makes positions past 2147483647 (got 2148000000)', 'time past 2^31');
  // the segment that passes 2^31 is named with how far it gets ("positions must stay below 2147483648" before)
  refuses(P([{ text: 4 }, { video: [4, 2, 2], secondsPerGrid: 2 }], { tokensPerSecond: 2 ** 30 }), RangeError, 'segments[1] makes positions past 2147483647 (got 2147483652)', 'named segment');

  const p = pe.mropePositions(ok);
  const C = (pos, d, o) => () => pe.mropeCache(pos, d, o);
  refuses(C(p, 16), TypeError, 'section', 'no section');
  refuses(C(p, 16, { section: [2, 3, 2] }), RangeError, 'section', 'section sum');
  refuses(C(p, 16, { section: [4, 4] }), RangeError, 'section', 'section rows');
  refuses(C(p, 16, { section: [2, 3, 3.5] }), RangeError, 'section[2]', 'fractional section');
  refuses(C(p, 15, { section: [2, 3, 3] }), RangeError, 'headDim', 'odd headDim');
  refuses(C(p, 16, { section: [2, 3, 3], base: 1 }), RangeError, 'base', 'base 1');
  refuses(C(p, 16, { section: [2, 3, 3], interleaved: 1 }), TypeError, 'interleaved', 'interleaved not boolean');
  refuses(C(p, 16, { section: [2, 3, 3], layout: 'x' }), RangeError, 'layout', 'unknown layout');
  refuses(C({ shape: [3, 1], data: [0, 0, 2 ** 32] }, 16, { section: [2, 3, 3] }), RangeError, 'positions.data[2] must be a finite number from -2147483648 to 2147483648 (got 4294967296)', 'position past 2^31: named, before allocating');
  refuses(C({ shape: [3, 1], data: [0, 0, NaN] }, 16, { section: [2, 3, 3] }), RangeError, 'positions', 'NaN position');

  const ids = pe.ropeGridIds(2, 2, { axes: 3 });
  const A = (i, o) => () => pe.ropeAxialCache(i, o);
  refuses(A(ids), TypeError, 'axesDim', 'no axesDim');
  refuses(A(ids, { axesDim: [16, 56] }), RangeError, 'axesDim', 'axesDim length');
  refuses(A(ids, { axesDim: [16, 55, 56] }), RangeError, 'axesDim[1]', 'odd axis');
  refuses(A(ids, { axesDim: [16, 56, 56], frequencies: 'alternate' }), RangeError, 'alternate', 'unequal alternate');
  refuses(A(ids, { axesDim: [16, 56, 56], frequencies: 'x' }), RangeError, 'frequencies', 'unknown rule');
  refuses(A(ids, { axesDim: [16, 56, 56], pairing: 'half', layout: 'interleaved' }), TypeError, 'pairing', 'contradiction');
  refuses(A(ids, { axesDim: [16, 56, 56], scaling: 'linear' }), TypeError, 'scaling', 'scaling on axial');
  refuses(() => pe.ropeGridIds(0, 2), RangeError, 'height', 'zero height');
  refuses(() => pe.ropeGridIds(2, 2, { time: 1 }), TypeError, 'time', 'time without axes 3');
  refuses(() => pe.ropeGridIds(2, 2, { axes: 4 }), RangeError, 'axes', 'axes 4');

  const x = { shape: [4, 16], data: new Float64Array(64).fill(1) };
  const R = (o) => () => pe.ropeApply(x, o);
  const pos4 = pe.mropePositions([{ text: 4 }]);
  refuses(R({ section: [2, 3, 3] }), TypeError, 'positions', 'no positions');
  refuses(R({ section: [2, 3, 3], positions: p }), RangeError, 'positions', 'positions of another length');
  refuses(R({ section: [2, 3, 3], positions: pos4, offset: 1 }), TypeError, 'offset', 'offset with section');
  refuses(R({ section: [4, 4, 4], positions: pos4 }), RangeError, 'headDim', 'section wider than the head');
  refuses(R({ section: [2, 3, 3], axesDim: [8, 8], positions: pos4 }), TypeError, 'section or axesDim', 'both');
  refuses(R({ axesDim: [8, 8], positions: pe.ropeGridIds(2, 2, { axes: 3 }) }), RangeError, 'axesDim', 'ids with three axes, two widths');

  // still usable, and nothing left allocated
  const before = pe.memoryStats();
  assert.deepEqual(Array.from(pe.mropePositions(ok).data), Array.from(p.data));
  pe.mropeCache(p, 16, { section: [2, 3, 3] });
  pe.ropeAxialCache(ids, { axesDim: [4, 6, 6] });
  pe.ropeApply(x, { section: [2, 3, 3], positions: pos4 });
  assert.deepEqual(pe.memoryStats(), before);
});

test('twenty-eighth pass: a video\'s time is HF\'s (arange × second_per_grid_t) × tokens_per_second, left to right in float32 (the rate times the seconds first gave frame 95 time 29, HF 30)', () => {
  const f = Math.fround;
  for (const [seconds, rate, frames] of [[2 / 19, 3, 96], [1.998001998001998, 25, 1903], [0.3, 25, 40], [2 / 29.97, 2, 300]]) {
    const got = pe.mropePositions([{ video: [frames, 2, 2], secondsPerGrid: seconds }], { tokensPerSecond: rate });
    for (let k = 0; k < frames; k++) assert.equal(got.data[k], Math.trunc(f(f(k * f(seconds)) * f(rate))), `${seconds} s × ${rate}/s, frame ${k}`);
  }
  assert.equal(pe.mropePositions([{ video: [96, 2, 2], secondsPerGrid: 2 / 19 }], { tokensPerSecond: 3 }).data[95], 30);
});

test('thirtieth pass: an image\'s height and width from spatialMergeSize, and leftPadding to what the segments leave', () => {
  const refuse = (f, message) => assert.throws(f, { name: 'RangeError', message });
  // "from 1 to 16777216" for 0, then "must be multiples of spatialMergeSize (2)" for 1: a least refused too
  for (const h of [0, 1]) refuse(() => pe.mropePositions([{ image: [1, h, 4] }]), `posenc.mropePositions: segments[0].image[1] must be an integer from 2 to 16777216 (got ${h})`);
  refuse(() => pe.mropePositions([{ video: [1, 8, 3] }], { spatialMergeSize: 4 }), 'posenc.mropePositions: segments[0].video[2] must be an integer from 4 to 16777216 (got 3)');
  refuse(() => pe.mropePositions([{ image: [0, 2, 2] }]), 'posenc.mropePositions: segments[0].image[0] must be an integer from 1 to 16777216 (got 0)');
  assert.deepEqual(pe.mropePositions([{ image: [1, 2, 2] }]).shape, [3, 1]);
  assert.deepEqual(pe.mropePositions([{ image: [1, 1, 1] }], { spatialMergeSize: 1 }).shape, [3, 1]);
  // leftPadding up to 2^24 less the segments' tokens: "from 0 to 16777216", then "the prompt must have at most
  // 16777216 tokens", which named no parameter
  refuse(() => pe.mropePositions([{ text: 3 }], { leftPadding: 2 ** 24 }), 'posenc.mropePositions: leftPadding must be an integer from 0 to 16777215 (got 16777216)');
  refuse(() => pe.mropePositions([{ text: 3 }], { leftPadding: 2 ** 24 - 2 }), 'posenc.mropePositions: leftPadding must be an integer from 0 to 16777213 (got 16777214)');
  refuse(() => pe.mropePositions([{ text: 2 ** 24 }, { text: 1 }]), 'posenc.mropePositions: segments must hold at most 16777216 tokens (got 16777217)');
  assert.equal(pe.memoryStats().liveAllocations, 0);
});
