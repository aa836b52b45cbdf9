// Everything posenc is compared with: plain JavaScript written two ways,
// TensorFlow.js on its cpu and wasm backends, the memory floor, and the float64
// references the errors are measured against. All tables use the paper's
// convention (interleaved sin/cos, w_i = 10000^(-2i/d)), as posenc's default.

const LN_BASE = Math.log(10000);

// ---- float64 references ------------------------------------------------------

/** The table in float64, angles formed in double: the reference for every table. */
export function referenceTable(maxLen, dModel, offset = 0) {
  const h = dModel >> 1;
  const w = new Float64Array(h);
  for (let i = 0; i < h; i++) w[i] = Math.pow(10000, (-2 * i) / dModel);
  const out = new Float64Array(maxLen * dModel);
  for (let r = 0; r < maxLen; r++) {
    const p = offset + r;
    for (let i = 0; i < h; i++) {
      const a = p * w[i];
      out[r * dModel + 2 * i] = Math.sin(a);
      out[r * dModel + 2 * i + 1] = Math.cos(a);
    }
  }
  return out;
}

/**
 * The table's Gram matrix in float64 from the identity
 * sin a sin b + cos a cos b = cos(a - b): entry (i, j) is sum_f cos((i - j) w_f).
 */
export function referenceTableGram(maxLen, dModel) {
  const h = dModel >> 1;
  const w = new Float64Array(h);
  for (let i = 0; i < h; i++) w[i] = Math.pow(10000, (-2 * i) / dModel);
  const g = new Float64Array(maxLen);
  for (let k = 0; k < maxLen; k++) {
    let s = 0;
    for (let f = 0; f < h; f++) s += Math.cos(k * w[f]);
    g[k] = s;
  }
  const out = new Float64Array(maxLen * maxLen);
  for (let i = 0; i < maxLen; i++) {
    for (let j = 0; j < maxLen; j++) out[i * maxLen + j] = g[Math.abs(i - j)];
  }
  return out;
}

/** X X^T in float64 (the reference for the arbitrary Gram). */
export function referenceGram({ rows, cols, data }) {
  const x = Float64Array.from(data);
  const out = new Float64Array(rows * rows);
  for (let i = 0; i < rows; i++) {
    for (let j = i; j < rows; j++) {
      let s = 0;
      for (let k = 0, a = i * cols, b = j * cols; k < cols; k++) s += x[a + k] * x[b + k];
      out[i * rows + j] = s;
      out[j * rows + i] = s;
    }
  }
  return out;
}

// ---- the memory floor -----------------------------------------------------------

/** Allocating and filling a Float32Array of `count` elements: no computation at all. */
export function floor(count) {
  return new Float32Array(count).fill(1);
}

// ---- plain JavaScript -----------------------------------------------------------

/** As the seed articles write it: pow inside the inner loop (with the paper's exponent). */
export function jsSeedsTable(maxLen, dModel) {
  const out = new Float32Array(maxLen * dModel);
  for (let pos = 0; pos < maxLen; pos++) {
    for (let i = 0; i < dModel; i += 2) {
      const div = Math.pow(10000, i / dModel);
      out[pos * dModel + i] = Math.sin(pos / div);
      out[pos * dModel + i + 1] = Math.cos(pos / div);
    }
  }
  return out;
}

/** The same with the frequencies computed once, outside the loops. */
export function jsHoistedTable(maxLen, dModel, positions = null) {
  const h = dModel >> 1;
  const w = new Float64Array(h);
  for (let i = 0; i < h; i++) w[i] = Math.exp((-2 * i * LN_BASE) / dModel);
  const out = new Float32Array(maxLen * dModel);
  for (let r = 0, o = 0; r < maxLen; r++) {
    const pos = positions ? positions[r] : r;
    for (let i = 0; i < h; i++, o += 2) {
      const a = pos * w[i];
      out[o] = Math.sin(a);
      out[o + 1] = Math.cos(a);
    }
  }
  return out;
}

/** The textbook triple loop over a row-major Float32Array (every entry computed). */
function naiveGram(x, rows, cols) {
  const out = new Float32Array(rows * rows);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < rows; j++) {
      let s = 0;
      for (let k = 0; k < cols; k++) s += x[i * cols + k] * x[j * cols + k];
      out[i * rows + j] = s;
    }
  }
  return out;
}

/** A careful JS Gram: float64 copy, upper triangle only, four partial sums, mirrored. */
function tunedGram(data, rows, cols) {
  const x = data instanceof Float64Array ? data : Float64Array.from(data);
  const out = new Float32Array(rows * rows);
  for (let i = 0; i < rows; i++) {
    const a = i * cols;
    for (let j = i; j < rows; j++) {
      const b = j * cols;
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0, k = 0;
      for (; k + 4 <= cols; k += 4) {
        s0 += x[a + k] * x[b + k];
        s1 += x[a + k + 1] * x[b + k + 1];
        s2 += x[a + k + 2] * x[b + k + 2];
        s3 += x[a + k + 3] * x[b + k + 3];
      }
      for (; k < cols; k++) s0 += x[a + k] * x[b + k];
      const s = s0 + s1 + (s2 + s3);
      out[i * rows + j] = s;
      out[j * rows + i] = s;
    }
  }
  return out;
}

export const jsSeedsGram = (m) => naiveGram(m.data, m.rows, m.cols);
export const jsTunedGram = (m) => tunedGram(m.data, m.rows, m.cols);
export const jsSeedsTableGram = (maxLen, dModel) => naiveGram(jsSeedsTable(maxLen, dModel), maxLen, dModel);
export const jsTunedTableGram = (maxLen, dModel) => tunedGram(jsHoistedTable(maxLen, dModel), maxLen, dModel);

/** posenc's algorithm in plain JS: one profile row sum_f cos(k w_f), then one copy per row. */
export function jsToeplitzTableGram(maxLen, dModel) {
  const h = dModel >> 1;
  const w = new Float64Array(h);
  for (let i = 0; i < h; i++) w[i] = Math.exp((-2 * i * LN_BASE) / dModel);
  const sym = new Float32Array(2 * maxLen - 1);
  for (let k = 0; k < maxLen; k++) {
    let s = 0;
    for (let f = 0; f < h; f++) s += Math.cos(k * w[f]);
    sym[maxLen - 1 + k] = s;
    sym[maxLen - 1 - k] = s;
  }
  const out = new Float32Array(maxLen * maxLen);
  for (let i = 0; i < maxLen; i++) out.set(sym.subarray(maxLen - 1 - i, 2 * maxLen - 1 - i), i * maxLen);
  return out;
}

// ---- TensorFlow.js ----------------------------------------------------------------

/**
 * Loads tfjs-core with the cpu and wasm backends from node_modules (no network:
 * the wasm backend is pointed at its own .wasm files). Resolves to
 * { tf, backends: { cpu: true | reason, wasm: true | reason } }.
 */
export async function loadTf() {
  const { createRequire } = await import('node:module');
  const { dirname } = await import('node:path');
  const require = createRequire(import.meta.url);
  const backends = {};
  let tf;
  try {
    tf = await import('@tensorflow/tfjs-core');
    await import('@tensorflow/tfjs-backend-cpu');
  } catch (error) {
    return { tf: null, backends: { cpu: `tfjs-core or tfjs-backend-cpu did not load: ${error.message}`, wasm: 'tfjs-core did not load' } };
  }
  // Production mode, as tfjs recommends for speed (it also silences the
  // "install tfjs-node" hint, which would download native binaries).
  tf.enableProdMode();
  backends.cpu = (await tf.setBackend('cpu')) ? true : 'setBackend("cpu") failed';
  try {
    const wasm = await import('@tensorflow/tfjs-backend-wasm');
    const dir = dirname(require.resolve('@tensorflow/tfjs-backend-wasm/wasm-out/tfjs-backend-wasm.wasm'));
    wasm.setWasmPaths(`${dir}/`);
    backends.wasm = (await tf.setBackend('wasm')) ? true : 'setBackend("wasm") failed';
  } catch (error) {
    backends.wasm = `tfjs-backend-wasm did not load: ${error.message}`;
  }
  await tf.setBackend('cpu');
  return { tf, backends };
}

/** maxLen x dModel/2 angles pos * w_i, as tfjs computes them (float32). */
function tfAngles(tf, maxLen, dModel) {
  const h = dModel >> 1;
  const pos = tf.reshape(tf.range(0, maxLen, 1, 'float32'), [maxLen, 1]);
  const w = tf.reshape(tf.exp(tf.mul(tf.range(0, h, 1, 'float32'), (-2 * LN_BASE) / dModel)), [1, h]);
  return tf.mul(pos, w);
}

/** The table with tfjs ops: outer product of positions and frequencies, sin, cos, interleave. */
export function tfTable(tf, maxLen, dModel) {
  const t = tf.tidy(() => {
    const angle = tfAngles(tf, maxLen, dModel);
    return tf.reshape(tf.stack([tf.sin(angle), tf.cos(angle)], 2), [maxLen, dModel]);
  });
  const data = t.dataSync();
  t.dispose();
  return data;
}

/**
 * X X^T with tf.matMul, upload and download included, written the obvious way
 * (transposeB = true) or with the transpose formed first. The second is the
 * fast one on the wasm backend: there, transposeB takes a path over ten times
 * slower (2048x512: ~2.3 s against ~0.19 s on the machine of docs/performance.md).
 */
export function tfGram(tf, { rows, cols, data }, transposeFirst = false) {
  const x = tf.tensor2d(data, [rows, cols], 'float32');
  const xt = transposeFirst ? tf.transpose(x) : null;
  const g = transposeFirst ? tf.matMul(x, xt) : tf.matMul(x, x, false, true);
  const out = g.dataSync();
  x.dispose();
  xt?.dispose();
  g.dispose();
  return out;
}

/** The table's Gram matrix with tfjs: build the table, then matMul. */
export function tfTableGram(tf, maxLen, dModel) {
  const g = tf.tidy(() => {
    const angle = tfAngles(tf, maxLen, dModel);
    const table = tf.reshape(tf.stack([tf.sin(angle), tf.cos(angle)], 2), [maxLen, dModel]);
    return tf.matMul(table, tf.transpose(table)); // the fast form; see tfGram
  });
  const out = g.dataSync();
  g.dispose();
  return out;
}

// ---- batched attention -------------------------------------------------------------
// q [B, H, S, D]; k, v [B, Hkv, S, D] with Hkv dividing H (grouped-query: head h
// of q reads head floor(h / (H / Hkv)) of k and v); causal; scale 1/sqrt(D).

/** Random q, k, v for batched attention of `[B, H, Hkv, S, D]`, entries in [-1, 1). */
export function attentionInputs([B, H, Hkv, S, D], randomMatrix) {
  const make = (heads, seed) => ({ data: randomMatrix(B * heads * S, D, seed).data, shape: [B, heads, S, D] });
  return { q: make(H, 1), k: make(Hkv, 2), v: make(Hkv, 3) };
}

/** The attention output in float64, straight from the definition (the reference). */
export function referenceAttention({ q, k, v }) {
  const [B, H, S, D] = q.shape;
  const Hkv = k.shape[1];
  const out = new Float64Array(B * H * S * D);
  const p = new Float64Array(S);
  const scale = 1 / Math.sqrt(D);
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      const qo = (b * H + h) * S * D;
      const kvo = (b * Hkv + Math.floor(h / (H / Hkv))) * S * D;
      for (let i = 0; i < S; i++) {
        let max = -Infinity;
        for (let j = 0; j <= i; j++) {
          let s = 0;
          for (let d = 0; d < D; d++) s += q.data[qo + i * D + d] * k.data[kvo + j * D + d];
          p[j] = s * scale;
          if (p[j] > max) max = p[j];
        }
        let sum = 0;
        for (let j = 0; j <= i; j++) sum += (p[j] = Math.exp(p[j] - max));
        for (let j = 0; j <= i; j++) {
          const w = p[j] / sum;
          for (let d = 0; d < D; d++) out[qo + i * D + d] += w * v.data[kvo + j * D + d];
        }
      }
    }
  }
  return out;
}

/** posenc's 2-D attention called once per (batch, head): the baseline of the batched kernel. */
export function posencAttentionPerHead(pe, { q, k, v }) {
  const [B, H, S, D] = q.shape;
  const Hkv = k.shape[1];
  const out = new Float32Array(B * H * S * D);
  const head = (t, heads, b, h) => ({ data: t.data.subarray((b * heads + h) * S * D, (b * heads + h + 1) * S * D), shape: [S, D] });
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      const g = Math.floor(h / (H / Hkv));
      out.set(pe.attention(head(q, H, b, h), head(k, Hkv, b, g), head(v, Hkv, b, g), { causal: true }).output.data, (b * H + h) * S * D);
    }
  }
  return out;
}

/**
 * The same batched causal grouped-query attention with tfjs ops, upload and
 * download included: k and v heads repeated to H, Kᵀ formed first (the fast
 * form on the wasm backend; see tfGram), -1e9 on the future keys, softmax, ·V.
 */
export function tfAttention(tf, { q, k, v }) {
  const [B, H, S, D] = q.shape;
  const group = H / k.shape[1];
  const out = tf.tidy(() => {
    const repeat = (t) => (group === 1 ? t : tf.reshape(tf.tile(tf.expandDims(t, 2), [1, 1, group, 1, 1]), [B, H, S, D]));
    const Q = tf.tensor4d(q.data, q.shape);
    const K = repeat(tf.tensor4d(k.data, k.shape));
    const V = repeat(tf.tensor4d(v.data, v.shape));
    const scores = tf.mul(tf.matMul(Q, tf.transpose(K, [0, 1, 3, 2])), 1 / Math.sqrt(D));
    const future = tf.mul(tf.sub(1, tf.linalg.bandPart(tf.ones([S, S]), -1, 0)), -1e9);
    return tf.matMul(tf.softmax(tf.add(scores, future)), V);
  });
  const data = out.dataSync();
  out.dispose();
  return data;
}
