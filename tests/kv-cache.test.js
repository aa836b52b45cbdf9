// pe.kvCache (issue 24, point 2): a decode loop's keys and values kept in
// WebAssembly memory. Its attention is checked against pe.attention over the
// same keys (bit for bit: the same float32 kernel) and, for a causal chunk,
// against the float64 path with an explicit mask; its refusals name their
// parameter; and a step's copies into wasm memory are counted, not timed: the
// new rows and the queries, never the cached keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';

// The copies into wasm memory are counted by the typed arrays' set, which posenc takes when it loads (validate.js's
// copyTyped: one planted on a typed array prototype is not called, twenty-second adversarial pass), so it is wrapped
// before the import and counts only while `counting` is set.
// Only copies into wasm memory count (not the snapshots of the new rows): its buffers are known by its getter.
const TypedArray = Object.getPrototypeOf(Float32Array.prototype);
const set = TypedArray.set;
const memoryBuffer = Object.getOwnPropertyDescriptor(WebAssembly.Memory.prototype, 'buffer');
const wasmBuffers = new WeakSet();
Object.defineProperty(WebAssembly.Memory.prototype, 'buffer', { ...memoryBuffer, get() {
  const buffer = memoryBuffer.get.call(this);
  wasmBuffers.add(buffer);
  return buffer;
} });
let counting = false, copied = 0;
TypedArray.set = function (source, at) {
  if (counting && this instanceof Float32Array && wasmBuffers.has(this.buffer)) copied += source.length; // (not the 7 sizes the kernel reads)
  return set.call(this, source, at);
};
const { init } = await import('../web/lib/index.js');
TypedArray.set = set;

const pe = await init();

/** Seeded numbers in [-1, 1). */
function numbers(n, seed) {
  let s = seed;
  return Float32Array.from({ length: n }, () => ((s = (s * 16807) % 2147483647) / 2147483647) * 2 - 1);
}

/** Rows [a, b) of each head of x [B * heads, L, d], as [B, heads, b - a, d] data. */
function rows(x, slots, L, d, a, b) {
  const out = new Float32Array(slots * (b - a) * d);
  for (let s = 0; s < slots; s++) out.set(x.subarray((s * L + a) * d, (s * L + b) * d), s * (b - a) * d);
  return out;
}

const near = (a, b, tol, what) => {
  assert.equal(a.length, b.length, what);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  assert.ok(worst <= tol, `${what}: largest difference ${worst}`);
};

test('decode steps: attend equals attention over the keys so far, bit for bit (GQA, batch 2, a prefill then single rows)', () => {
  const B = 2, H = 8, KV = 2, d = 16, L = 150;
  const K = numbers(B * KV * L * d, 1), V = numbers(B * KV * L * d, 2);
  const cache = pe.kvCache({ heads: KV, headDim: d, maxLength: 200, batch: B });
  try {
    const part = (x, a, b) => ({ data: rows(x, B * KV, L, d, a, b), shape: [B, KV, b - a, d] });
    assert.equal(cache.append(part(K, 0, 100), part(V, 0, 100)), 100);
    for (let t = 100; t < L; t++) {
      assert.equal(cache.append(part(K, t, t + 1), part(V, t, t + 1)), t + 1);
      const q = { data: numbers(B * H * d, t), shape: [B, H, 1, d] };
      const got = cache.attend(q);
      assert.deepEqual(got.shape, [B, H, 1, d]);
      const want = pe.attention(q, part(K, 0, t + 1), part(V, 0, t + 1), { weights: false }).output;
      assert.deepEqual(got.data, want.data, `step ${t}`);
    }
    assert.equal(cache.length, L);
  } finally {
    cache.free();
  }
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('a causal chunk of queries at the end of the cache sees keys up to its own position (float64 reference with a mask)', () => {
  const H = 4, KV = 2, d = 8, L = 70, n = 9;
  const K = numbers(KV * L * d, 3), V = numbers(KV * L * d, 4);
  const cache = pe.kvCache({ heads: KV, headDim: d, maxLength: L });
  try {
    cache.append({ data: K, shape: [KV, L, d] }, { data: V, shape: [KV, L, d] });
    const q = { data: numbers(H * n * d, 5), shape: [H, n, d] };
    const mask = { data: Uint8Array.from({ length: n * L }, (_, x) => (x % L <= L - n + Math.floor(x / L) ? 1 : 0)), shape: [n, L] };
    const want = pe.attention(q, { data: K, shape: [KV, L, d] }, { data: V, shape: [KV, L, d] }, { mask, weights: false, dtype: 'float64' }).output;
    near(cache.attend(q, { causal: true }).data, want.data, 1e-6, 'causal chunk');
    // Without causal every query sees all L keys; a scale is honoured; out receives the result.
    const all = pe.attention(q, { data: K, shape: [KV, L, d] }, { data: V, shape: [KV, L, d] }, { weights: false, scale: 0.5 }).output;
    const out = new Float32Array(H * n * d);
    const got = cache.attend(q, { scale: 0.5, out });
    assert.equal(got.data, out);
    assert.deepEqual(out, all.data);
    // truncate keeps the first positions, as HF's crop
    assert.equal(cache.truncate(20), 20);
    const short = pe.attention(q, { data: rows(K, KV, L, d, 0, 20), shape: [KV, 20, d] }, { data: rows(V, KV, L, d, 0, 20), shape: [KV, 20, d] }, { weights: false }).output;
    assert.deepEqual(cache.attend(q).data, short.data);
  } finally {
    cache.free();
  }
});

test('a step copies into wasm memory its new rows and its queries, never the cached keys (counted)', () => {
  const H = 32, KV = 8, d = 128, L = 1024;
  const cache = pe.kvCache({ heads: KV, headDim: d, maxLength: L });
  try {
    const row = () => ({ data: numbers(KV * d, 6), shape: [1, KV, 1, d] });
    for (let t = 0; t < L - 1; t++) cache.append(row(), row());
    const q = { data: numbers(H * d, 7), shape: [1, H, 1, d] };
    counting = true;
    cache.append(row(), row());
    cache.attend(q);
    counting = false;
    // 2 new rows of KV heads and H query rows; the cache holds 2 * KV * L * d = 2^21 values.
    assert.equal(copied, 2 * KV * d + H * d);
  } finally {
    counting = false;
    cache.free();
  }
});

test('refusals name the parameter; the cache stays usable; a freed cache says so', () => {
  const bad = (fn, Type, text) => assert.throws(fn, (e) => e instanceof Type && e.message.startsWith('posenc.kvCache') && e.message.includes(text), text);
  bad(() => pe.kvCache({ heads: 2, headDim: 8 }), TypeError, 'maxLength');
  bad(() => pe.kvCache({ heads: 0, headDim: 8, maxLength: 4 }), RangeError, 'heads');
  bad(() => pe.kvCache({ heads: 1, headDim: 8, valueDim: 12, maxLength: 4 }), RangeError, 'valueDim');
  bad(() => pe.kvCache({ heads: 1, headDim: 8, maxLength: 4, size: 3 }), TypeError, 'unknown option "size"');
  bad(() => pe.kvCache({ heads: 1024, headDim: 4096, maxLength: 1 << 20 }), RangeError, 'MiB');
  const cache = pe.kvCache({ heads: 2, headDim: 8, maxLength: 4 });
  const kv = (n, value = 0.5) => ({ data: new Float32Array(2 * n * 8).fill(value), shape: [2, n, 8] });
  bad(() => cache.attend({ data: new Float32Array(16), shape: [2, 1, 8] }), RangeError, 'append');
  bad(() => cache.append(kv(5), kv(5)), RangeError, 'room for 4');
  bad(() => cache.append({ data: new Float32Array(24), shape: [3, 1, 8] }, { data: new Float32Array(24), shape: [3, 1, 8] }), RangeError, 'k and v must be [1, 2, t, 8] and [1, 2, t, 8] to fit the cache (got "shapes [3,1,8], [3,1,8]")');
  bad(() => cache.append(kv(1), { data: new Float32Array(16), shape: [1, 2, 8] }), RangeError, 'k and v must be [1, 2, t, 8] and [1, 2, t, 8] to fit the cache (got "shapes [2,1,8], [1,2,8]")');
  bad(() => cache.append({ data: new Float32Array(8), shape: [1, 1, 8] }, { data: new Float32Array(8), shape: [1, 1, 8] }), RangeError, 'k and v must be [1, 2, t, 8] and [1, 2, t, 8] to fit the cache (got "shapes [1,1,8], [1,1,8]")');
  bad(() => cache.append(kv(1, NaN), kv(1)), RangeError, 'k.data[0] must be a finite number');
  assert.equal(cache.length, 0, 'nothing was added by a refused call');
  cache.append(kv(2), kv(2));
  // q named, with the cache's shape (twenty-eighth pass: "k's last dimension must equal 16" blamed the cache for q's 16)
  bad(() => cache.attend({ data: new Float32Array(24), shape: [3, 1, 8] }), RangeError, 'q must be [1, a multiple of 2, n, 8] to fit the cache (got "shape [3,1,8]")');
  bad(() => cache.attend({ data: new Float32Array(32), shape: [2, 1, 16] }), RangeError, 'q must be [1, a multiple of 2, n, 8] to fit the cache (got "shape [2,1,16]")');
  bad(() => cache.attend({ data: new Float32Array(48), shape: [2, 3, 8] }), RangeError, 'q holds 3 queries');
  bad(() => cache.attend({ data: new Float32Array(16).fill(Infinity), shape: [2, 1, 8] }), RangeError, 'q.data[0]');
  bad(() => cache.attend({ data: new Float32Array(16), shape: [2, 1, 8] }, { out: new Float64Array(16) }), TypeError, 'out');
  bad(() => cache.attend({ data: new Float32Array(16), shape: [2, 1, 8] }, { scale: 0 }), RangeError, 'scale');
  bad(() => cache.truncate(3), RangeError, 'length');
  assert.deepEqual(cache.attend({ data: new Float32Array(16), shape: [2, 1, 8] }).data, new Float32Array(16).fill(0.5));
  cache.free();
  bad(() => cache.append(kv(1), kv(1)), TypeError, 'freed');
  bad(() => cache.attend({ data: new Float32Array(16), shape: [2, 1, 8] }), TypeError, 'freed');
  cache.free(); // twice is harmless
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

// Fifth adversarial pass (issue 22): 10,200 seeded append / truncate / attend
// operations, a third of them refused (past maxLength, truncation below 0 or
// past length, more queries than positions, empty chunks), over three shapes
// (batch > 1, valueDim != headDim, GQA ratios 1 to 3, odd headDim), each attend
// checked against a float64 JS attention over the same rows, the length after
// every operation, and memoryStats() unmoved by every refusal.
test('10,200 random interleavings of append, truncate and attend agree with a float64 reference; refusals move no memory', () => {
  let seed = 12345;
  const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const int = (a, b) => a + Math.floor(rnd() * (b - a + 1));
  const vals = (n) => Float32Array.from({ length: n }, () => rnd() * 2 - 1);
  const counts = { append: 0, truncate: 0, attend: 0, refused: 0 };
  let worst = 0;
  for (const { batch, heads, dk, dv, maxLength, group } of [
    { batch: 2, heads: 2, dk: 4, dv: 8, maxLength: 12, group: 3 },
    { batch: 1, heads: 1, dk: 16, dv: 8, maxLength: 5, group: 1 },
    { batch: 3, heads: 2, dk: 3, dv: 16, maxLength: 20, group: 2 },
  ]) {
    const cache = pe.kvCache({ batch, heads, headDim: dk, valueDim: dv, maxLength });
    const slots = batch * heads;
    let K = Array.from({ length: slots }, () => []), V = Array.from({ length: slots }, () => []);
    let length = 0;
    for (let step = 0; step < 3400; step++) {
      const before = pe.memoryStats(), op = int(0, 2);
      try {
        if (op === 0) {
          const t = int(0, maxLength - length + 2), k = vals(slots * t * dk), v = vals(slots * t * dv);
          cache.append({ data: k, dims: [batch, heads, t, dk] }, { data: v, dims: [batch, heads, t, dv] });
          for (let s = 0; s < slots; s++) {
            for (let i = 0; i < t; i++) {
              K[s].push(k.subarray((s * t + i) * dk, (s * t + i + 1) * dk));
              V[s].push(v.subarray((s * t + i) * dv, (s * t + i + 1) * dv));
            }
          }
          length += t;
        } else if (op === 1) {
          const n = int(-1, length + 1);
          cache.truncate(n);
          [length, K, V] = [n, K.map((x) => x.slice(0, n)), V.map((x) => x.slice(0, n))];
        } else {
          const n = int(0, length + 1), H = heads * group, causal = rnd() < 0.5;
          const scale = rnd() < 0.5 ? undefined : 0.1 + rnd();
          const q = vals(batch * H * n * dk);
          const got = cache.attend({ data: q, dims: [batch, H, n, dk] }, { causal, scale });
          assert.deepEqual(got.shape, [batch, H, n, dv]);
          for (let b = 0; b < batch; b++) {
            for (let h = 0; h < H; h++) {
              const s = b * heads + Math.floor(h / group);
              for (let i = 0; i < n; i++) {
                const row = ((b * H + h) * n + i), last = causal ? length - n + i : length - 1;
                const scores = K[s].slice(0, last + 1).map((key) => key.reduce((a, x, j) => a + x * q[row * dk + j], 0) * (scale ?? 1 / Math.sqrt(dk)));
                const top = Math.max(...scores), e = scores.map((z) => Math.exp(z - top)), sum = e.reduce((a, z) => a + z, 0);
                for (let x = 0; x < dv; x++) {
                  const want = e.reduce((a, w, j) => a + (w / sum) * V[s][j][x], 0);
                  worst = Math.max(worst, Math.abs(want - got.data[row * dv + x]));
                }
              }
            }
          }
        }
        counts[['append', 'truncate', 'attend'][op]]++;
      } catch (e) {
        assert.ok(e instanceof RangeError && e.message.startsWith('posenc.kvCache.'), `step ${step}: ${e}`);
        assert.deepEqual(pe.memoryStats(), before, `step ${step}: ${e.message}`);
        counts.refused++;
      }
      assert.equal(cache.length, length, `step ${step}`);
      assert.ok(pe.memoryStats().liveAllocations <= before.liveAllocations + 2, `step ${step}`);
    }
    cache.free();
  }
  assert.ok(worst <= 1e-5, `largest difference ${worst}`);
  assert.ok(Object.values(counts).every((n) => n > 1000), JSON.stringify(counts));
});
