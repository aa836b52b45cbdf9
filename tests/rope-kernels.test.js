// RoPE's fast paths (issue 24): caches formed by the oscillator straight into
// float32, rotation in float32 from HF-style { cos, sin } caches, and the
// reusable rope() handle. Checked against references that do not use the
// code under test (Math.cos / Math.sin of the double angle; the golden-tested
// float64 paths), plus their errors, never timed.
// Run: node --test tests/rope-kernels.test.js
//
// Tolerances:
//   float32 caches and rotations ... 1e-6 absolute against float64 (the goldens'
//       float32 tolerance); values are at most 1 × the attention factor
//   float64 caches ................. 1e-12 + 16·ε·|position| absolute (the angle
//       position·θ is a double; variants.test.js's cache tolerance)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadVariants } from './helpers/load.js';

const pv = await loadVariants();
const EPS = 2 ** -52;
const F32 = 1e-6;

/** Largest |a[i] − want(i)| and where. */
function worst(a, want) {
  let err = 0;
  let at = -1;
  for (let i = 0; i < a.length; i++) {
    const e = Math.abs(a[i] - want(i));
    if (!(e <= err)) {
      err = e;
      at = i;
    }
  }
  return { err, at };
}

const random = (n, seed = 1) => Float32Array.from({ length: n }, (_, i) => Math.sin((i + seed) * 12.9898) * 2);

// ---- the cache's accuracy up to 2^24 -----------------------------------------------

test('ropeCache float32: every position 0 .. 2^24 within 1e-6 of cos/sin of the exact angle (θ = 1, the fastest)', () => {
  // dim 2 has the one frequency θ = base^0 = 1, so the angle of position p is p
  // exactly and Math.cos(p) is an independent reference for every row.
  const chunk = 2 ** 22;
  for (let offset = 0; offset <= 2 ** 24; offset += chunk) {
    const rows = Math.min(chunk, 2 ** 24 + 1 - offset);
    const c = pv.ropeCache(rows, 2, { layout: 'pairs', offset });
    const cw = worst(c.cos.data, (i) => Math.cos(offset + i));
    const sw = worst(c.sin.data, (i) => Math.sin(offset + i));
    assert.ok(cw.err <= F32, `cos at position ${offset + cw.at}: error ${cw.err}`);
    assert.ok(sw.err <= F32, `sin at position ${offset + sw.at}: error ${sw.err}`);
  }
});

test('ropeCache: every frequency of a llama3 dim-128 cache near 2^24, float32 and float64, each row checked', () => {
  const scaling = 'llama3';
  const { invFreq } = pv.ropeFrequencies(128, { base: 5e5, scaling, dtype: 'float64' });
  const offset = 2 ** 24 - 1023; // four anchors of the oscillator, the last row at 2^24
  for (const layout of ['half', 'interleaved', 'pairs']) {
    for (const dtype of ['float32', 'float64']) {
      const c = pv.ropeCache(1024, 128, { base: 5e5, scaling, offset, layout, dtype });
      const cols = c.cos.cols;
      const freq = (col) => (layout === 'pairs' ? col : layout === 'half' ? col % 64 : col >> 1);
      const angle = (i) => (offset + Math.floor(i / cols)) * invFreq[freq(i % cols)];
      const tol = dtype === 'float32' ? F32 : 1e-12 + 16 * EPS * 2 ** 24;
      const cw = worst(c.cos.data, (i) => Math.cos(angle(i)));
      const sw = worst(c.sin.data, (i) => Math.sin(angle(i)));
      assert.ok(cw.err <= tol && sw.err <= tol, `${layout} ${dtype}: cos error ${cw.err}, sin error ${sw.err} (tolerance ${tol})`);
    }
  }
});

test('ropeCache: a cache formed in blocks equals the same rows formed alone (block and anchor seams)', () => {
  // The API copies blocks of rows out of wasm; 70000 rows of 128 cross many blocks.
  const whole = pv.ropeCache(70000, 128, { base: 5e5, dtype: 'float64' });
  for (const start of [0, 255, 256, 8191, 8192, 69999]) {
    const one = pv.ropeCache(1, 128, { base: 5e5, offset: start, dtype: 'float64' });
    const row = whole.cos.data.subarray(start * 128, (start + 1) * 128);
    const w = worst(one.cos.data, (i) => row[i]);
    assert.ok(w.err <= 1e-12 + 16 * EPS * start, `row ${start}: ${w.err}`);
  }
});

// ---- rotation from caches ---------------------------------------------------------------

test('ropeApply with { cos, sin }: equals the frequency path, in float32 (every pairing, layout, partial rotary)', () => {
  const x = { shape: [2, 3, 5, 16], data: random(2 * 3 * 5 * 16) };
  for (const pairing of ['half', 'interleaved']) {
    for (const rotaryDim of [16, 8, 6]) {
      const want = pv.ropeApply(x, { pairing, headDim: 16, rotaryDim, positions: [7, 3, 40, 0, 41], base: 500, dtype: 'float64' });
      for (const layout of [pairing, 'pairs']) {
        const c = pv.ropeCache(64, rotaryDim, { base: 500, layout });
        const got = pv.ropeApply(x, { pairing, headDim: 16, rotaryDim, cos: c.cos, sin: c.sin, layout, positions: [7, 3, 40, 0, 41] });
        assert.ok(got.data instanceof Float32Array);
        assert.deepEqual(got.shape, x.shape);
        const w = worst(got.data, (i) => want.data[i]);
        assert.ok(w.err <= 4 * F32, `${pairing} rd ${rotaryDim} ${layout}: ${w.err} at ${w.at}`);
      }
    }
  }
});

test('ropeApply float32 without caches agrees with float64 within 1e-6 of the scale; offsets and positions alike', () => {
  const x = { shape: [4, 64], data: random(256, 3) };
  for (const scaling of [undefined, { type: 'dynamic', factor: 2, maxPosition: 16 }, { type: 'yarn', factor: 4, originalMaxPosition: 32 }]) {
    const want = pv.ropeApply(x, { offset: 30, scaling, dtype: 'float64' });
    const got = pv.ropeApply(x, { offset: 30, scaling });
    const byPositions = pv.ropeApply(x, { positions: [30, 31, 32, 33], scaling });
    assert.ok(worst(got.data, (i) => want.data[i]).err <= 4 * F32, `${JSON.stringify(scaling)} offset`);
    assert.ok(worst(byPositions.data, (i) => want.data[i]).err <= 4 * F32, `${JSON.stringify(scaling)} positions`);
  }
});

test('ropeApply: a float32 `out` may be x itself (in place), and x is left alone otherwise', () => {
  const data = random(64, 5);
  const copy = data.slice();
  const c = pv.ropeCache(8, 16);
  const fresh = pv.ropeApply({ shape: [4, 16], data }, { cos: c.cos, sin: c.sin, offset: 2 });
  assert.deepEqual(data, copy);
  const inPlace = pv.ropeApply({ shape: [4, 16], data }, { cos: c.cos, sin: c.sin, offset: 2, out: data });
  assert.equal(inPlace.data, data);
  assert.deepEqual(data, fresh.data);
});

test('cache input validation: shapes, lengths, rows, conflicts -> posenc errors naming the parameter', () => {
  const x = { shape: [2, 8], data: random(16) };
  const c = pv.ropeCache(4, 8);
  const bad = [
    [{ cos: c.cos }, TypeError, /sin is required with cos/],
    [{ sin: c.sin }, TypeError, /cos is required with sin/],
    [{ cos: c.cos, sin: c.sin, base: 500 }, TypeError, /give cos and sin, or base and scaling/],
    [{ cos: { rows: 4, cols: 6, data: new Float32Array(24) }, sin: c.sin }, RangeError, /cos must have rotaryDim \(8\)/],
    [{ cos: c.cos, sin: { rows: 3, cols: 8, data: new Float32Array(24) } }, RangeError, /sin must have cos's shape \[4, 8\]/],
    [{ cos: { rows: 4, cols: 8, data: new Float32Array(31) }, sin: c.sin }, RangeError, /cos\.data must have 32 elements/],
    [{ cos: c.cos, sin: c.sin, offset: 3 }, RangeError, /offset \+ 1 \(the last row of x\) must be a row of cos and sin/],
    [{ cos: c.cos, sin: c.sin, positions: [0, 4] }, RangeError, /positions\[1\] must be a row of cos and sin, a whole number from 0 to 3/],
    [{ cos: c.cos, sin: c.sin, positions: [0, 1.5] }, RangeError, /positions\[1\]/],
    [{ cos: c.cos, sin: c.sin, layout: 'interleaved' }, RangeError, /layout "interleaved" does not fit pairing "half"/],
    [{ cos: c.cos, sin: { rows: 4, cols: 8, data: new Float32Array(32).fill(NaN) } }, RangeError, /sin: the row of x's row 0 holds a value that is not a finite/],
    [{ cos: 'cos', sin: c.sin }, TypeError, /posenc\.ropeApply: cos must be a tensor/],
  ];
  for (const [opts, Type, message] of bad) {
    assert.throws(() => pv.ropeApply(x, opts), (e) => e instanceof Type && /^posenc\.ropeApply: /.test(e.message) && message.test(e.message),
      `${Object.keys(opts)}: ${message}`);
  }
  assert.equal(pv.memoryStats().liveAllocations, 0);
  // a float32 overflow is refused, not returned as Infinity
  const big = { shape: [1, 8], data: new Float32Array(8).fill(3e38) };
  const c1 = pv.ropeCache(2, 8, { offset: 0 });
  assert.throws(() => pv.ropeApply(big, { cos: c1.cos, sin: c1.sin, offset: 1 }), /a rotated value overflows float32/);
  assert.throws(() => pv.ropeApply({ shape: [1, 8], data: new Float32Array(8).fill(Infinity) }, { cos: c1.cos, sin: c1.sin }),
    /posenc\.ropeApply: x\.data\[0\] must be a finite number/);
});

test('ropeApply with { cos, sin }: a non-finite input the kernel meets is named as the scan before it names it', () => {
  // A small call's buffers fit without growing memory, so its inputs are not scanned first: the kernel's refusal names them.
  const c = pv.ropeCache(8, 8, { dtype: 'float64' });
  const cos = Float64Array.from(c.cos.data);
  cos[5 * 8 + 2] = -4e38; // finite in float64, not in float32: row 5, x's row 1 at offset 4
  const before = pv.memoryStats();
  const x = { shape: [2, 8], data: random(16, 9) };
  assert.throws(() => pv.ropeApply(x, { cos: { shape: [8, 8], data: cos }, sin: c.sin, offset: 4 }),
    { name: 'RangeError', message: /^posenc\.ropeApply: cos: the row of x's row 1 holds a value that is not a finite number \(in float32\)/ });
  const nan = Float32Array.from(x.data);
  nan[11] = NaN;
  assert.throws(() => pv.ropeApply({ shape: [2, 8], data: nan }, { cos: c.cos, sin: c.sin, positions: [3, 0] }),
    { name: 'RangeError', message: /^posenc\.ropeApply: x\.data\[11\] must be a finite number/ });
  assert.deepEqual(pv.memoryStats(), before);
  // and the module is usable after
  const ok = pv.ropeApply(x, { cos: { shape: [8, 8], data: cos }, sin: c.sin, offset: 2 });
  assert.deepEqual(ok.data, pv.ropeApply(x, { cos: c.cos, sin: c.sin, offset: 2 }).data);
});

// ---- the handle ----------------------------------------------------------------------------

test('rope(): apply equals ropeApply with the same caches, for consecutive and gathered positions, any rank', () => {
  const opts = { dim: 32, maxLen: 300, base: 5e5, scaling: { type: 'llama3', originalMaxPosition: 64 } };
  for (const pairing of ['half', 'interleaved']) {
    const r = pv.rope({ ...opts, pairing });
    const c = pv.ropeCache(300, 32, { base: opts.base, scaling: opts.scaling, layout: pairing });
    assert.equal(r.attentionFactor, c.attentionFactor);
    for (const shape of [[3, 32], [4, 3, 32], [2, 4, 3, 64]]) {
      const x = { shape, data: random(shape.reduce((a, b) => a * b), shape.length) };
      const headDim = shape.at(-1) === 64 ? 32 : undefined;
      const want = pv.ropeApply(x, { pairing, cos: c.cos, sin: c.sin, offset: 297, headDim });
      const handle = headDim ? pv.rope({ ...opts, pairing, headDim: 32 }) : r;
      // headDim 32 of a 64-wide row: two heads a row
      assert.deepEqual(handle.apply(x, 297).data, want.data, `${pairing} [${shape}]`);
      const gathered = pv.ropeApply(x, { pairing, cos: c.cos, sin: c.sin, positions: [5, 299, 0], headDim });
      assert.deepEqual(handle.apply(x, [5, 299, 0]).data, gathered.data, `${pairing} [${shape}] positions`);
      if (handle !== r) handle.free();
    }
    r.free();
  }
  assert.equal(pv.memoryStats().liveAllocations, 0);
});

test('rope(): out and in place; partial rotary (dim < headDim); float64 handles', () => {
  const r = pv.rope({ dim: 8, headDim: 16, maxLen: 10 });
  const data = random(32, 9);
  const want = pv.ropeApply({ shape: [2, 16], data }, { rotaryDim: 8, offset: 4, dtype: 'float64' });
  const out = new Float32Array(32);
  assert.equal(r.apply({ shape: [2, 16], data }, 4, out).data, out);
  assert.ok(worst(out, (i) => want.data[i]).err <= 4 * F32);
  assert.deepEqual(out.subarray(8, 16), data.subarray(8, 16), 'coordinates past dim pass through');
  r.apply({ shape: [2, 16], data }, 4, data);
  assert.deepEqual(data, out);
  r.free();
  const r64 = pv.rope({ dim: 16, maxLen: 10, dtype: 'float64' });
  const x64 = { shape: [2, 16], data: Float64Array.from(random(32, 2)) };
  const got = r64.apply(x64, 4);
  assert.ok(got.data instanceof Float64Array);
  assert.ok(worst(got.data, (i) => pv.ropeApply(x64, { offset: 4, dtype: 'float64' }).data[i]).err <= 1e-12);
  r64.free();
});

test('rope(): bad options and bad calls give posenc errors; the handle stays usable; free() is final', () => {
  for (const [opts, re] of [
    [{ dim: 7, maxLen: 4 }, /posenc\.rope: dim must be even/],
    [{ dim: 8 }, /posenc\.rope: maxLen must be a number/],
    [{ dim: 8, maxLen: 4, headDim: 6 }, /posenc\.rope: headDim must be an integer from 8 to 16777216 \(got 6\)/], // (from dim: thirtieth pass)
    [{ dim: 8, maxLen: 4, pairing: 'pairs' }, /posenc\.rope: pairing must be one of interleaved, half/],
    [{ dim: 8, maxLen: 4, scaling: { type: 'yarn' } }, /posenc\.rope: scaling\.\w+ is required/],
    [{ dim: 8, maxLen: 4, cos: [] }, /posenc\.rope: unknown option "cos"/],
  ]) assert.throws(() => pv.rope(opts), re);
  const r = pv.rope({ dim: 8, maxLen: 4 });
  const x = { shape: [2, 8], data: random(16) };
  for (const [args, re] of [
    [[x, 3], /posenc\.rope\.apply: positions must be an integer from 0 to 2/],
    // more rows than the cache from one position: x's rows, not "positions must be an integer from 0 to -4" whatever it was
    // (twenty-second adversarial pass)
    [[{ shape: [8, 8], data: random(64) }], /^RangeError: posenc\.rope\.apply: x's rows \(at most maxLen\) must be an integer from 1 to 4 \(got 8\)$/],
    [[{ shape: [2, 8, 8], data: random(128) }, 0], /x's rows \(at most maxLen\) must be an integer from 1 to 4 \(got 8\)/],
    [[x, [0, 4]], /positions\[1\] must be a row of cos and sin, a whole number from 0 to 3/],
    [[x, [0]], /positions must have 2 elements/],
    [[{ shape: [2, 6], data: random(12) }], /x's last dimension must be a multiple of headDim \(8\)/],
    [[{ shape: [2, 8], data: random(15) }], /x\.data must have 16 elements/],
    [[x, 0, new Float64Array(16)], /out must be a Float32Array/],
    [[x, 0, new Float32Array(15)], /out must be a Float32Array of 16 elements/],
    [[{ shape: [2, 8], data: new Float32Array(16).fill(NaN) }], /x\.data\[0\] must be a finite number/],
  ]) assert.throws(() => r.apply(...args), re);
  const c = pv.ropeCache(4, 8);
  assert.deepEqual(r.apply(x, 1).data, pv.ropeApply(x, { cos: c.cos, sin: c.sin, offset: 1 }).data);
  // a value past float32's range is named on every call, not only while the handle's scratch grows (issue 22's
  // eighteenth pass: a grown handle called 1e39 in a Float64Array "a rotated value overflows float32")
  for (let i = 0; i < 2; i++) {
    assert.throws(() => r.apply({ shape: [2, 8], data: Float64Array.from(random(16), (v, j) => (j === 5 ? 1e39 : v)) }),
      /^RangeError: posenc\.rope\.apply: x\.data\[5\] must be a finite number \(in float32\) \(got 1e\+39\)$/);
  }
  r.free();
  r.free();
  assert.throws(() => r.apply(x), /posenc\.rope\.apply: this RoPE handle was freed/);
  assert.equal(pv.memoryStats().liveAllocations, 0);
});

test('ropeApply: x is snapshotted when read; a call made from a later argument\'s getter sees its own x', () => {
  const c = pv.ropeCache(8, 8);
  const x = { shape: [2, 8], data: random(16, 21) };
  const y = { shape: [2, 8], data: random(16, 22) };
  const want = pv.ropeApply({ shape: [2, 8], data: x.data.slice() }, { cos: c.cos, sin: c.sin, positions: [0, 1] });
  const wantInner = pv.ropeApply({ shape: [2, 8], data: y.data.slice() }, { cos: c.cos, sin: c.sin, offset: 3 });
  let inner;
  const positions = [0, 1];
  Object.defineProperty(positions, 0, {
    get() {
      inner = pv.ropeApply(y, { cos: c.cos, sin: c.sin, offset: 3 }); // while the outer call holds its snapshot
      x.data.fill(7); // and x changes after it was read
      return 0;
    },
  });
  const got = pv.ropeApply(x, { cos: c.cos, sin: c.sin, positions });
  assert.deepEqual(got.data, want.data);
  assert.deepEqual(inner.data, wantInner.data);
  assert.deepEqual(pv.ropeApply(y, { cos: c.cos, sin: c.sin, offset: 3 }).data, wantInner.data, 'the snapshot buffer is free again');
});
