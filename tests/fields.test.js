// posenc/fields (diffusion timesteps, 1-D and patch-grid sin-cos tables, NeRF
// and random Fourier features) against tests/golden/golden_fields.json, which
// tests/golden/gen_fields.py computes independently of the C core (70-digit
// decimal, exact fractions), plus properties that need no golden values, and
// bad input. Run: node --test tests/fields.test.js
//
// Tolerance: the golden values are the exact values rounded once to double;
// the core forms each angle a = position × frequency in double, so its sine may
// be off by a few ulps of a. Every value must lie within 1e-14 + 16·ε·A of the
// golden one, A the largest |angle| of the case (1e-14 alone for angles < 1).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadFields } from './helpers/load.js';
import { elementReads, lazyReads } from './helpers/element-reads.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const generator = path.join(here, 'golden', 'gen_fields.py');
const golden = JSON.parse(readFileSync(path.join(here, 'golden', 'golden_fields.json'), 'utf8'));
const pe = await loadFields();
const EPS = 2 ** -52;

function assertTable(label, m, table, maxAngle) {
  assert.equal(m.rows, table.length, `${label}: rows`);
  assert.equal(m.cols, table[0].length, `${label}: cols`);
  const want = table.flat();
  const tol = 1e-14 + 16 * EPS * maxAngle;
  let worst = { err: 0 };
  for (let i = 0; i < want.length; i++) {
    const err = Math.abs(m.data[i] - want[i]);
    if (!(err <= worst.err)) worst = { err, i, got: m.data[i], want: want[i] };
  }
  assert.ok(worst.err <= tol, `${label}: [${worst.i}] got ${worst.got} want ${worst.want}, |err| ${worst.err} > ${tol}`);
}

const maxAbs = (xs) => xs.reduce((a, x) => Math.max(a, Math.abs(x)), 0);
const flatPoints = (pts) => ({ rows: pts.length, cols: pts[0].length, data: pts.flat() });

test('golden_fields.json is exactly what gen_fields.py writes (--check)', () => {
  const r = spawnSync('python3', [generator, '--check'], { encoding: 'utf8', timeout: 300_000 });
  assert.equal(r.status, 0, r.stderr || r.stdout);
});

// ---- goldens -------------------------------------------------------------------------------

test('timestepEmbedding matches diffusers / DDPM / Stable Diffusion / DiT to float64 rounding', () => {
  assert.ok(golden.timestep.cases.length >= 20);
  for (const c of golden.timestep.cases) {
    const m = pe.timestepEmbedding(c.timesteps, c.dim, c.options);
    assertTable(`timestep ${JSON.stringify(c.options)} dim ${c.dim}`, m, c.table, maxAbs(c.timesteps) * (c.options.scale ?? 1));
  }
});

test('sincos1d matches MAE get_1d_sincos_pos_embed_from_grid (and the spaced rule) over arbitrary positions', () => {
  for (const c of golden.sincos1d.cases) {
    assertTable(`sincos1d dim ${c.dim} ${JSON.stringify(c.options)}`, pe.sincos1d(c.positions, c.dim, c.options), c.table, maxAbs(c.positions));
  }
});

test('sincos2d matches MAE / DiT / diffusers / big_vision patch grids, class-token rows and axis order', () => {
  for (const c of golden.sincos2d.cases) {
    const m = pe.sincos2d(c.gridH, c.gridW, c.dim, c.options);
    assertTable(`sincos2d ${c.gridH}x${c.gridW} ${JSON.stringify(c.options)}`, m, c.table, Math.max(c.gridH, c.gridW));
    assert.equal(m.gridH, c.gridH);
    assert.equal(m.extraTokens, m.rows - c.gridH * c.gridW);
  }
});

test('fourierFeatures matches the NeRF paper\'s gamma(p) and the nerf-pytorch embedder', () => {
  for (const c of golden.fourier.cases) {
    const levels = c.options.levels ?? 10;
    const top = 2 ** Math.max(0, c.options.maxFreqLog2 ?? levels - 1) * Math.PI;
    const pts = c.points[0].length === 1 ? c.points.flat() : flatPoints(c.points); // 1-D points as a plain array
    assertTable(`fourier ${JSON.stringify(c.options)}`, pe.fourierFeatures(pts, c.options), c.table, maxAbs(c.points.flat()) * top);
  }
});

test('randomFourierFeatures: the seeded Gaussian B and [sin 2πBx | cos 2πBx] (Tancik et al. 2020)', () => {
  for (const c of golden.random.cases) {
    const r = pe.randomFourierFeatures(flatPoints(c.points), c.options);
    assertTable(`random B ${JSON.stringify(c.options)}`, r.B, c.B, 1);
    const rowSum = Math.max(...c.B.map((row) => row.reduce((s, b) => s + Math.abs(b), 0)));
    assertTable(`random ${JSON.stringify(c.options)}`, r, c.table, 2 * Math.PI * rowSum * maxAbs(c.points.flat()));
  }
});

// ---- properties ------------------------------------------------------------------------------

const f64 = { dtype: 'float64' };

test('presets that are the same function give the same bits; flipSinToCos swaps the halves exactly', () => {
  const t = [0, 3.5, 500, 999];
  const same = (a, b) => assert.deepEqual(pe.timestepEmbedding(t, 10, { ...a, ...f64 }), pe.timestepEmbedding(t, 10, { ...b, ...f64 }));
  same({ preset: 'dit' }, { preset: 'stable-diffusion' });
  same({ preset: 'ddpm' }, {});
  same({ preset: 'dit' }, { flipSinToCos: true, downscaleFreqShift: 0 });
  const a = pe.timestepEmbedding(t, 10, { flipSinToCos: false, downscaleFreqShift: 0, ...f64 });
  const b = pe.timestepEmbedding(t, 10, { preset: 'dit', ...f64 });
  for (let r = 0; r < t.length; r++) {
    const row = (m) => Array.from(m.data.subarray(r * 10, r * 10 + 10));
    assert.deepEqual(row(b), [...row(a).slice(5), ...row(a).slice(0, 5)]);
  }
  // shift 1 and shift 0 differ wherever a frequency below 1 is used
  assert.notDeepEqual(pe.timestepEmbedding([7], 8, f64).data, pe.timestepEmbedding([7], 8, { downscaleFreqShift: 0, ...f64 }).data);
});

test('timesteps may be fractional, a single number, and float32 output is the float64 table rounded', () => {
  const one = pe.timestepEmbedding(0.5, 9, f64);
  assert.equal(one.rows, 1);
  assert.equal(one.data[8], 0); // odd dim: the zero column
  assert.equal(one.data[0], Math.sin(0.5));
  const t32 = pe.timestepEmbedding([0.5, 17.25], 9);
  assert.ok(t32.data instanceof Float32Array);
  assert.deepEqual(t32.data, Float32Array.from(pe.timestepEmbedding([0.5, 17.25], 9, f64).data));
});

test('sincos2d is two 1-D tables side by side, w first (MAE\'s meshgrid), h first on request', () => {
  const [gh, gw, dim] = [3, 4, 16];
  const m = pe.sincos2d(gh, gw, dim, f64);
  const hFirst = pe.sincos2d(gh, gw, dim, { firstAxis: 'h', ...f64 });
  const code = (p) => Array.from(pe.sincos1d([p], dim / 2, f64).data);
  for (let r = 0; r < gh; r++) {
    for (let c = 0; c < gw; c++) {
      const row = Array.from(m.data.subarray((r * gw + c) * dim, (r * gw + c + 1) * dim));
      assert.deepEqual(row, [...code(c), ...code(r)], `patch (${r}, ${c})`);
      const swapped = Array.from(hFirst.data.subarray((r * gw + c) * dim, (r * gw + c + 1) * dim));
      assert.deepEqual(swapped, [...code(r), ...code(c)]);
    }
  }
});

test('class tokens: MAE prepends one zero row, DiT and diffusers only with extraTokens', () => {
  const plain = pe.sincos2d(2, 2, 8, f64);
  const mae = pe.sincos2d(2, 2, 8, { clsToken: true, ...f64 });
  assert.equal(mae.rows, 5);
  assert.deepEqual(Array.from(mae.data.subarray(0, 8)), new Array(8).fill(0));
  assert.deepEqual(mae.data.subarray(8), plain.data);
  assert.equal(pe.sincos2d(2, 2, 8, { preset: 'dit', clsToken: true }).rows, 4);
  assert.equal(pe.sincos2d(2, 2, 8, { preset: 'dit', clsToken: true, extraTokens: 3 }).rows, 7);
  // diffusers with baseSize equal to the grid is MAE's table
  assert.deepEqual(pe.sincos2d(4, 4, 8, { preset: 'diffusers', baseSize: 4, ...f64 }).data, pe.sincos2d(4, 4, 8, f64).data);
});

test('nerf-paper and nerf-pytorch differ only by π, the input copy and the column order', () => {
  const x = [0.3, -0.8];
  const torch = pe.fourierFeatures(x, { levels: 4, ...f64 });
  assert.equal(torch.cols, 1 + 8);
  assert.deepEqual(Array.from(torch.data.subarray(0, 1)), [0.3]);
  const paper = pe.fourierFeatures(x.map((v) => v / Math.PI), { preset: 'nerf-paper', levels: 4, ...f64 });
  // d = 1: both layouts put sin and cos of each band side by side
  for (let r = 0; r < 2; r++) {
    for (let k = 0; k < 8; k++) {
      assert.ok(Math.abs(paper.data[r * 8 + k] - torch.data[r * 9 + 1 + k]) < 1e-13, `row ${r} col ${k}`);
    }
  }
  // d = 3: band-major vs coordinate-major are permutations of the same numbers
  const p3 = { rows: 1, cols: 3, data: [0.1, 0.2, 0.3] };
  const byF = pe.fourierFeatures(p3, { levels: 3, includeInput: false, ...f64 });
  const byC = pe.fourierFeatures(p3, { levels: 3, includeInput: false, layout: 'coordinate', ...f64 });
  assert.deepEqual([...byF.data].sort(), [...byC.data].sort());
  assert.equal(byC.data[1], byF.data[3]); // cos(f0 x0): right after its sine / after the d sines
});

test('a given B is used as is; a seed gives the same B every time, another seed another B', () => {
  const pts = { rows: 2, cols: 2, data: [0.1, 0.2, 0.3, 0.4] };
  const a = pe.randomFourierFeatures(pts, { features: 5, sigma: 2, seed: 9, ...f64 });
  const b = pe.randomFourierFeatures(pts, { features: 5, sigma: 2, seed: 9, ...f64 });
  const c = pe.randomFourierFeatures(pts, { features: 5, sigma: 2, seed: 10, ...f64 });
  assert.deepEqual(a, b);
  assert.notDeepEqual(a.B.data, c.B.data);
  assert.deepEqual(pe.randomFourierFeatures(pts, { B: a.B, ...f64 }).data, a.data);
});

// ---- bad input -------------------------------------------------------------------------------

function throwsNaming(fn, Type, name) {
  assert.throws(fn, (e) => e instanceof Type && e.message.includes(name), `expected a ${Type.name} naming ${name}`);
}

test('bad input: a clear error naming the parameter; nothing leaks; the module stays usable', () => {
  const cases = [
    [() => pe.timestepEmbedding([1], 0), RangeError, 'dim'],
    [() => pe.timestepEmbedding([1], 2.5), RangeError, 'dim'],
    [() => pe.timestepEmbedding([NaN], 4), RangeError, 'timesteps[0]'],
    [() => pe.timestepEmbedding('1', 4), TypeError, 'timesteps'],
    [() => pe.timestepEmbedding([], 4), RangeError, 'timesteps.length'],
    [() => pe.timestepEmbedding([1], 2), RangeError, 'downscaleFreqShift'],
    [() => pe.timestepEmbedding([1], 8, { downscaleFreqShift: 4 }), RangeError, 'downscaleFreqShift'],
    [() => pe.timestepEmbedding([1], 8, { maxPeriod: 0.5 }), RangeError, 'maxPeriod'],
    [() => pe.timestepEmbedding([1], 8, { scale: Infinity }), RangeError, 'scale'],
    [() => pe.timestepEmbedding([2 ** 31], 8, { scale: 2 }), RangeError, 'timesteps[0]'],
    [() => pe.timestepEmbedding([1], 8, { preset: 'sd' }), RangeError, 'preset'],
    [() => pe.timestepEmbedding([1], 8, { flipSinToCos: 1 }), TypeError, 'flipSinToCos'],
    [() => pe.timestepEmbedding([1], 8, { flip: true }), TypeError, 'unknown option'],
    [() => pe.timestepEmbedding(new Float64Array(100), 2 ** 24, { dtype: 'float64' }), RangeError, 'MiB'],
    [() => pe.sincos1d([1], 3), RangeError, 'dim'],
    [() => pe.sincos1d([1], 2, { frequencies: 'spaced' }), RangeError, 'dim'],
    [() => pe.sincos1d([Infinity], 4), RangeError, 'positions[0]'],
    [() => pe.sincos1d([2 ** 32], 4), RangeError, 'positions[0]'],
    [() => pe.sincos1d([1], 4, { base: 1 }), RangeError, 'base'],
    [() => pe.sincos2d(0, 2, 8), RangeError, 'gridH'],
    [() => pe.sincos2d(2, 1.5, 8), RangeError, 'gridW'],
    [() => pe.sincos2d(2, 2, 6), RangeError, 'dim'],
    [() => pe.sincos2d(2, 2, 4, { preset: 'big-vision' }), RangeError, 'dim'],
    [() => pe.sincos2d(2, 2, 8, { clsToken: 'yes' }), TypeError, 'clsToken'],
    [() => pe.sincos2d(2, 2, 8, { extraTokens: -1 }), RangeError, 'extraTokens'],
    [() => pe.sincos2d(2, 2, 8, { clsToken: false, extraTokens: 2 }), TypeError, 'extraTokens'],
    [() => pe.sincos2d(2, 2, 8, { baseSize: 0 }), RangeError, 'baseSize'],
    [() => pe.sincos2d(2, 2, 8, { interpolationScale: -1 }), RangeError, 'interpolationScale'],
    [() => pe.sincos2d(4, 4, 8, { interpolationScale: 1e-12 }), RangeError, 'gridH'],
    [() => pe.sincos2d(2, 2, 8, { firstAxis: 'x' }), RangeError, 'firstAxis'],
    [() => pe.sincos2d(65537, 2, 8), RangeError, 'gridH'],
    [() => pe.fourierFeatures([], {}), RangeError, 'points.length'],
    [() => pe.fourierFeatures([0.5], { levels: 0 }), RangeError, 'levels'],
    [() => pe.fourierFeatures([0.5], { levels: 100 }), RangeError, 'levels'],
    [() => pe.fourierFeatures([0.5], { maxFreqLog2: 65 }), RangeError, 'maxFreqLog2'],
    [() => pe.fourierFeatures([2 ** 40], { levels: 10 }), RangeError, 'points.data[0]'],
    [() => pe.fourierFeatures({ rows: 1, cols: 2, data: [1] }), RangeError, 'points.data'],
    [() => pe.fourierFeatures([0.5], { layout: 'rows' }), RangeError, 'layout'],
    [() => pe.fourierFeatures([0.5], { pi: 'yes' }), TypeError, 'pi'],
    [() => pe.randomFourierFeatures([0.5], { features: 0 }), RangeError, 'features'],
    [() => pe.randomFourierFeatures([0.5], { sigma: -1 }), RangeError, 'sigma'],
    [() => pe.randomFourierFeatures([0.5], { seed: 1.5 }), RangeError, 'seed'],
    [() => pe.randomFourierFeatures([0.5], { B: { rows: 2, cols: 2, data: [1, 2, 3, 4] } }), RangeError, 'B.cols'],
    [() => pe.randomFourierFeatures([0.5], { B: { rows: 1, cols: 1, data: [1] }, seed: 3 }), TypeError, 'not both'],
    [() => pe.randomFourierFeatures([1e9], { B: { rows: 1, cols: 1, data: [1e6] } }), RangeError, '2^42'],
  ];
  for (const [fn, Type, name] of cases) throwsNaming(fn, Type, name);
  assert.equal(pe.memoryStats().liveAllocations, 0);
  assert.equal(pe.timestepEmbedding([1], 4, f64).data[0], Math.sin(1));
});

test('a call refused by a size its counts and shapes decide reads no element first (issue 22, eighteenth pass)', () => {
  // Each input's elements are a proxy counting their reads: timestepEmbedding, sincos1d, fourierFeatures and
  // randomFourierFeatures refused for their size read every element first (2 s for 2^24 through a proxy).
  let reads = 0;
  const counted = (n) => new Proxy([], { get: (t, k) => (k === 'length' ? n : (reads++, 0.5)) });
  const refused = (call) => {
    reads = 0;
    const before = pe.memoryStats();
    assert.throws(call, /this call would need \d+\.\d MiB/);
    assert.equal(reads, 0, `${call}: ${reads} elements read`);
    assert.deepEqual(pe.memoryStats(), before);
  };
  const big = 2 ** 24;
  refused(() => pe.timestepEmbedding(counted(big), 1024));
  refused(() => pe.sincos1d(counted(big), 1024));
  refused(() => pe.fourierFeatures(counted(big), { levels: 64, maxFreqLog2: 0 }));
  refused(() => pe.fourierFeatures({ rows: big, cols: 1, data: counted(big) }, { levels: 64, maxFreqLog2: 0 }));
  refused(() => pe.fourierFeatures({ shape: [big / 2, 2], data: counted(big) }, { levels: 1024, maxFreqLog2: 0 }));
  refused(() => pe.randomFourierFeatures(counted(big), { features: 4096 }));
  refused(() => pe.randomFourierFeatures({ rows: 2 ** 12, cols: 2 ** 12, data: counted(big) }, { features: 65536 }));
  // a given B: its shape and the points' decide the size, before either's elements are read
  refused(() => pe.randomFourierFeatures({ rows: 2 ** 20, cols: 1, data: counted(2 ** 20) }, { B: { rows: 65536, cols: 1, data: counted(65536) } }));
  refused(() => pe.randomFourierFeatures(counted(2 ** 20), { B: { rows: 65536, cols: 1, data: counted(65536) } }));
  // accepted calls still read each element once, and a B's columns must still match the points'
  reads = 0;
  pe.timestepEmbedding(counted(4), 8);
  pe.randomFourierFeatures({ rows: 2, cols: 2, data: counted(4) }, { B: { rows: 3, cols: 2, data: counted(6) } });
  assert.equal(reads, 14);
  assert.throws(() => pe.randomFourierFeatures(counted(2), { B: { rows: 3, cols: 2, data: counted(6) } }), /B\.cols must equal the points' coordinates \(1\) \(got 2\)/);
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('randomFourierFeatures: B\'s getters run before the points are read, B\'s elements before the points\': a detach or resize either way is a posenc error', () => {
  // B's shape is read first and its elements once the size both decide is checked (above), before the points' elements
  // (a TensorFlow.js B's dataSync() with them: thirty-sixth pass); a length changed before its copy is refused by name.
  const cases = [];
  const pbuf = new ArrayBuffer(32);
  cases.push([() => pf(new Float64Array(pbuf).fill(0.5), { B: { rows: 2, cols: 1, get data() { structuredClone(pbuf, { transfer: [pbuf] }); return [1, 2]; } } }),
    /points\.length must be an integer from 1 to 16777216 \(got 0\)/]);
  const bbuf = new ArrayBuffer(16);
  cases.push([() => pf({ rows: 2, cols: 1, get data() { structuredClone(bbuf, { transfer: [bbuf] }); return [0.5, 0.25]; } }, { B: { rows: 2, cols: 1, data: new Float64Array(bbuf) } }),
    /B\.data must have 2 elements to match \(got 0\)/]);
  const rbuf = new ArrayBuffer(32, { maxByteLength: 64 });
  cases.push([() => pf({ rows: 2, cols: 2, data: new Float64Array(rbuf).fill(0.5) }, { B: { shape: [2, 2], dtype: 'float64', dataSync: () => (rbuf.resize(64), [1, 2, 3, 4]) } }),
    /points\.data must have 4 elements to match \(got 8\)/]);
  const before = pe.memoryStats();
  for (const [call, message] of cases) assert.throws(call, (e) => e instanceof RangeError && message.test(e.message));
  assert.deepEqual(pe.memoryStats(), before);
  // B copied before the points are read: a points' getter that resizes B's buffer then changes nothing
  const gbuf = new ArrayBuffer(16, { maxByteLength: 64 });
  const g = pf(new Proxy([0.5, 0.25], { get: (t, k) => (k === '1' && gbuf.resize(64), t[k]) }), { B: { rows: 2, cols: 1, data: new Float64Array(gbuf).fill(1) } });
  assert.deepEqual([...g.B.data], [1, 1]);
  // points shrunk by B's getter are read as they are then: one row
  const sbuf = new ArrayBuffer(32, { maxByteLength: 64 });
  const r = pf(new Float64Array(sbuf).fill(0.5), { B: { rows: 2, cols: 1, get data() { sbuf.resize(8); return [1, 2]; } }, dtype: 'float64' });
  assert.deepEqual([r.rows, r.cols], [1, 4]);
  assert.deepEqual(r.data, pf([0.5], { B: { rows: 2, cols: 1, data: [1, 2] }, dtype: 'float64' }).data);
  function pf(...args) {
    return pe.randomFourierFeatures(...args);
  }
});

test("timestepEmbedding's refusals show the value they are about (twenty-eighth pass)", () => {
  // The angle's refusal showed timesteps[i] alone ("scale × timesteps[1] must lie within ±2^31 (got 1)", read as a
  // product of 1); the shift's named an option the caller had not given (dim 2 with the diffusers preset's shift of 1).
  assert.throws(() => pe.timestepEmbedding([0, 1], 4, { scale: 1e300 }),
    { name: 'RangeError', message: 'posenc.timestepEmbedding: scale × timesteps[1] must lie within ±2^31 (got 1e+300)' });
  assert.throws(() => pe.timestepEmbedding([3], 4, { scale: 2 ** 30 }),
    { name: 'RangeError', message: 'posenc.timestepEmbedding: scale × timesteps[0] must lie within ±2^31 (got 3221225472)' });
  assert.throws(() => pe.timestepEmbedding([1], 2), { name: 'RangeError', message: /^posenc\.timestepEmbedding: downscaleFreqShift \(the preset's\) must be less than dim \/ 2 \(1\)/ });
  assert.throws(() => pe.timestepEmbedding([1], 2, { downscaleFreqShift: 1 }), { name: 'RangeError', message: /^posenc\.timestepEmbedding: downscaleFreqShift must be less than dim \/ 2 \(1\)/ });
  assert.equal(pe.timestepEmbedding([2 ** 31], 4).rows, 1, 'the limit itself is allowed');
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test("sincos1d's and sincos2d's dim refusals name the range they allow, and an absent shift of null is the preset's (twenty-ninth pass)", () => {
  // dim 0 was "must be an integer from 1 to 16777216", though 1 (to 3, for sincos2d) is refused too, by a second rule: the
  // family the twenty-eighth pass closed in posenc and posenc/variants (rotation's dModel, RoPE's even widths)
  for (const [call, first, rule] of [[(d) => pe.sincos1d([1], d), 2, 'even'], [(d) => pe.sincos2d(2, 2, d), 4, 'a multiple of 4']]) {
    for (const d of [0, -1, 1.5]) assert.throws(() => call(d), { name: 'RangeError', message: new RegExp(`dim must be an integer from ${first} to 16777216 \\(got ${d}\\)$`) });
    for (let d = first; d < first * 2; d++) {
      if (d % first) assert.throws(() => call(d), { name: 'RangeError', message: new RegExp(`dim must be ${rule}`) });
      else assert.equal(call(d).cols, d, 'the least allowed dim is allowed');
    }
  }
  // a shift of null is read as absent (the preset's, by ??), so its refusal says so, as for one not given
  assert.throws(() => pe.timestepEmbedding([1], 2, { downscaleFreqShift: null }), { name: 'RangeError', message: /^posenc\.timestepEmbedding: downscaleFreqShift \(the preset's\) must be less than dim \/ 2 \(1\)/ });
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test("thirty-third pass: randomFourierFeatures checks a given B's data (type and count, or a nested B's rows) before it reads a point", () => {
  // B's shape was checked first, but its data's count, type or presence only once every point had been read (2^22
  // reads of a proxy's points, 1 s, for B.data of 3 values where 8 were due); the values stay after the points
  let reads = 0;
  const points = { rows: 500, cols: 2, data: new Proxy(new Array(1000).fill(0.1), {
    get: (t, k, r) => ((typeof k === 'string' && /^\d+$/.test(k) && reads++), Reflect.get(t, k, r)),
  }) };
  for (const [data, message] of [[[1, 2, 3], /B\.data must have 4 elements to match \(got 3\)/], [[1, 2, 3, 4, 5], /B\.data must have 4 elements/],
    ['abcd', /B\.data must be an array, typed array or array-like/], [undefined, /B\.data must be an array/], [new BigInt64Array(4), /B\.data must hold numbers, not BigInts/]]) {
    reads = 0;
    assert.throws(() => pe.randomFourierFeatures(points, { B: { rows: 2, cols: 2, data } }), message);
    assert.equal(reads, 0, String(message));
    reads = 0;
    assert.throws(() => pe.randomFourierFeatures(points, { B: { shape: [2, 2], data } }), message);
    assert.equal(reads, 0, String(message));
  }
  // a B of nested arrays: each row's length before the points too (its values, with the rows again, after them)
  for (const B of [[[1, 2], [3]], [[1, 2], 3], [[1, 2], , ]]) { // eslint-disable-line no-sparse-arrays
    reads = 0;
    assert.throws(() => pe.randomFourierFeatures(points, { B }), /B is ragged/);
    assert.equal(reads, 0, JSON.stringify(B));
  }
  // its values, as before, once the points are read (a NaN is data), and a good B gives the result of a plain one
  assert.throws(() => pe.randomFourierFeatures(points, { B: { rows: 2, cols: 2, data: [1, 2, 3, NaN] } }), /B\.data\[3\] must be a finite number/);
  const plain = { rows: 500, cols: 2, data: new Array(1000).fill(0.1) };
  for (const data of [[1, 2, 3, 4], new Float32Array([1, 2, 3, 4])]) {
    assert.deepEqual(pe.randomFourierFeatures(points, { B: { rows: 2, cols: 2, data } }), pe.randomFourierFeatures(plain, { B: [[1, 2], [3, 4]] }));
  }
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('a string, boolean or shape refused is refused before any element of the points, timesteps, positions or B is read (thirty-fourth pass)', () => {
  // the family test of tests/ranges.test.js takes numeric parameters; these are the other kinds, beside data that throws
  const counted = elementReads(), boom = counted.list;
  const points = () => ({ rows: 2, cols: 2, data: boom([0.1, 0.2, 0.3, 0.4]) });
  const calls = [
    ...[['preset', 'x'], ['flipSinToCos', 'yes'], ['dtype', 'int8'], ['scale', true], ['bogus', 1]].map(([k, v]) => [k, () => pe.timestepEmbedding(boom([1, 2, 3]), 8, { [k]: v })]),
    ...[['frequencies', 'x'], ['dtype', 'x'], ['base', 'x']].map(([k, v]) => [k, () => pe.sincos1d(boom([1, 2]), 8, { [k]: v })]),
    ['dim', () => pe.sincos1d(boom([1, 2]), 7)],
    ...[['preset', 'x'], ['includeInput', 1], ['logSampling', 'y'], ['pi', 0], ['layout', 'z'], ['dtype', 'q']].map(([k, v]) => [k, () => pe.fourierFeatures(points(), { [k]: v })]),
    ['points', () => pe.fourierFeatures({ shape: [1, 2, 2], data: boom([1, 2, 3, 4]) })],
    ['points.data', () => pe.fourierFeatures({ shape: [2, 3], data: boom([1, 2, 3, 4]) })],
    ['points', () => pe.randomFourierFeatures({ shape: [2, 2], data: boom([1, 2, 3, 4]), type: 'int8' })],
    ['points.data', () => pe.randomFourierFeatures({ shape: [2, 2], data: boom([1, 2, 3, 4]), type: 'float16' })],
    ['dtype', () => pe.randomFourierFeatures(points(), { dtype: 'x' })],
    ['B.cols', () => pe.randomFourierFeatures(points(), { B: { shape: [3, 3], data: boom(new Array(9).fill(1)) } })],
    ['B.data', () => pe.randomFourierFeatures(points(), { B: { shape: [3, 2], data: boom(new Array(5).fill(1)) } })],
    ['B', () => pe.randomFourierFeatures(points(), { B: { shape: [1, 2], data: boom([1, 2]), type: 'int8' } })],
    ['B', () => pe.randomFourierFeatures(points(), { B: [[1, 2], [3]] })],
  ];
  for (const [name, call] of calls) {
    counted.reads = 0;
    assert.throws(call, (e) => (e instanceof RangeError || e instanceof TypeError) && e.message.includes(name) && !/could not read/.test(e.message), name);
    assert.equal(counted.reads, 0, `${name}: ${counted.reads} element reads`);
  }
});

test("sincos2d: a preset's \"spaced\" frequencies refused for a small dim say whose rule it is (the preset's, not a frequencies given)", async () => {
  const pf = await loadFields();
  assert.throws(() => pf.sincos2d(2, 2, 4, { preset: 'big-vision' }),
    { name: 'RangeError', message: 'posenc.sincos2d: preset "big-vision"\'s frequencies "spaced" divides by (frequencies per axis − 1), so dim must be at least 8 (got 4)' });
  assert.throws(() => pf.sincos2d(2, 2, 4, { frequencies: 'spaced' }), { message: /^posenc\.sincos2d: frequencies "spaced" divides by/ });
});

test("randomFourierFeatures: a TensorFlow.js B's data is fetched and counted before any point is read (thirty-sixth pass)", () => {
  // B's dataSync() ran once every point had been read: one giving 7 values for a [4, 2] B, a BigInt64Array or the wrong
  // storage for float16 was refused after the points' 2^22 reads of a proxy's. Now B's data comes once the call's size is
  // counted, before a point is read; a dataSync() that shrinks, grows or detaches the points' buffer is refused by name.
  const counter = lazyReads(), { lazy } = counter;
  const tf = (dtype, data) => ({ shape: [4, 2], dtype, dataSync: () => data });
  for (const [B, message] of [
    [tf('float32', new Float32Array(7)), /B\.data must have 8 elements to match \(got 7\)/],
    [tf('float32', new BigInt64Array(8)), /B\.data must hold numbers, not BigInts/],
    [tf('float16', new Float32Array(8)), /B\.data must be a Uint16Array of float16 bit patterns/],
    [tf('float32', [1, 2, 3, 4, 5, 6, 7, NaN]), /B\.data\[7\] must be a finite number/],
  ]) {
    for (const points of [{ rows: 1000, cols: 2, data: lazy(2000) }, { shape: [1000, 2], data: lazy(2000) }]) {
      counter.reads = 0;
      assert.throws(() => pe.randomFourierFeatures(points, { B }), message);
      assert.equal(counter.reads, 0);
    }
  }
  const one = { shape: [4, 1], dtype: 'float32', dataSync: () => new Float32Array(3) };
  counter.reads = 0;
  const list = new Proxy(new Array(1000).fill(0.5), { get: (t, k) => (typeof k === 'string' && /^\d+$/.test(k) && counter.reads++, t[k]) });
  assert.throws(() => pe.randomFourierFeatures(list, { B: one }), /B\.data must have 4 elements to match \(got 3\)/);
  assert.equal(counter.reads, 0);
  for (const act of [(b) => b.resize(16), (b) => b.resize(256), (b) => structuredClone(b, { transfer: [b] })]) {
    const buffer = new ArrayBuffer(64, { maxByteLength: 512 });
    const points = { rows: 4, cols: 2, data: new Float64Array(buffer).fill(0.25) };
    const B = { shape: [4, 2], dtype: 'float32', dataSync: () => (act(buffer), new Float32Array(8).fill(1)) };
    assert.throws(() => pe.randomFourierFeatures(points, { B }), { name: 'RangeError', message: /^posenc\.randomFourierFeatures: points\.data must have 8 elements to match/ });
  }
  const B = { shape: [4, 2], dtype: 'float32', dataSync: () => new Float32Array(8).fill(1) };
  counter.reads = 0;
  assert.deepEqual([...pe.randomFourierFeatures({ rows: 3, cols: 2, data: lazy(6) }, { B }).B.data], new Array(8).fill(1));
  assert.equal(counter.reads, 6);
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test("randomFourierFeatures: the points' TensorFlow.js data is fetched and counted before a given B's elements are read (thirty-seventh pass)", () => {
  // B's elements were read (2^21 reads of a proxy's) in the points' before(), then the points' dataSync() of 7 values
  // for 8, a BigInt64Array or the wrong storage for float16 was refused.
  const counter = lazyReads(), { lazy } = counter;
  const B = { shape: [1 << 12, 2], data: lazy(1 << 13) };
  const tf = (dtype, data) => ({ shape: [4, 2], dtype, dataSync: () => data });
  for (const [points, message] of [
    [tf('float32', new Float32Array(7)), /points\.data must have 8 elements to match \(got 7\)/],
    [tf('float32', new BigInt64Array(8)), /points\.data must hold numbers, not BigInts/],
    [tf('float16', new Float32Array(8)), /points\.data must be a Uint16Array of float16 bit patterns/],
  ]) {
    counter.reads = 0;
    assert.throws(() => pe.randomFourierFeatures(points, { B }), message);
    assert.equal(counter.reads, 0);
  }
  counter.reads = 0;
  const r = pe.randomFourierFeatures(tf('float32', new Float32Array(8).fill(0.25)), { B: { shape: [3, 2], data: lazy(6) } });
  assert.equal(r.cols, 6);
  assert.equal(counter.reads, 6);
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test("randomFourierFeatures: a nested B's rows are walked once the points are counted (thirty-seventh pass)", () => {
  // each row's length was read first: 2^20 rows of a proxy's were walked before points "x", of the wrong count or
  // of another width were refused. Now only its first row (its rank) is read before them; a ragged B is still
  // refused before any point is read.
  const guard = elementReads(1);
  const B = guard.list(Array.from({ length: 1 << 12 }, () => [0.5]));
  for (const [points, message] of [
    ['x', /points must be an array, typed array or array-like of numbers/],
    [{ rows: 2, cols: 1, data: [1] }, /points\.data must have 2 elements to match \(got 1\)/],
    [{ rows: 2, cols: 2, data: [1, 2, 3, 4] }, /B\.cols must equal the points' coordinates \(2\) \(got 1\)/],
    [{ shape: [2, 1], dtype: 'float32', dataSync: () => new Float32Array(1) }, /points\.data must have 2 elements to match \(got 1\)/],
  ]) {
    assert.throws(() => pe.randomFourierFeatures(points, { B }), message);
    assert.equal(guard.reads, 0);
  }
  let reads = 0;
  const list = new Proxy([0.5, 0.25], { get: (t, k) => (typeof k === 'string' && /^\d+$/.test(k) && reads++, t[k]) });
  assert.throws(() => pe.randomFourierFeatures(list, { B: [[1], [2, 3]] }), /B is ragged/);
  assert.equal(reads, 0);
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('randomFourierFeatures: points of BigInts by their storage are refused before a given B is read (thirty-seventh pass)', () => {
  // Checker.later called the points' size callback, which reads B, before it looked at the points' storage: a
  // BigInt64Array of points was refused after B's 2^20 elements of a proxy's were read.
  const counter = lazyReads(), { lazy } = counter;
  const B = { shape: [1 << 12, 1], data: lazy(1 << 12) };
  for (const points of [new BigInt64Array(4), new BigUint64Array(4)]) {
    counter.reads = 0;
    assert.throws(() => pe.randomFourierFeatures(points, { B }), { name: 'TypeError', message: 'posenc.randomFourierFeatures: points must hold numbers, not BigInts' });
    assert.equal(counter.reads, 0);
  }
  assert.equal(pe.memoryStats().liveAllocations, 0);
});
