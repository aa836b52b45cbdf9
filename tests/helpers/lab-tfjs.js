// The lab's model written independently with TensorFlow.js ops, for two uses:
// the test that the C forward pass (and gradient) agrees with it, and the bench
// that times a training step of both (tfjs differentiating it by itself).
// Position data is computed here from the formulas (Vaswani et al.'s table,
// RoPE angles, Press et al.'s ALiBi slopes, the T5 bucket rule), not read
// from the C core.

/** Vaswani et al.'s interleaved table, positions 0..n-1 (the 'vaswani' preset). */
function sinusoidal(n, d, base) {
  const out = new Float32Array(n * d);
  for (let p = 0; p < n; p++) {
    for (let c = 0; c < d; c++) {
      const angle = p * base ** (-(c - (c % 2)) / d);
      out[p * d + c] = c % 2 ? Math.cos(angle) : Math.sin(angle);
    }
  }
  return out;
}

/** Press et al.'s slopes for a power-of-two head count: 2^(-maxBias (h+1) / heads). */
const alibiSlopes = (heads, maxBias) => Array.from({ length: heads }, (_, h) => 2 ** (-maxBias * (h + 1) / heads));

/** Raffel et al. (T5) bucket of relative position rel = key - query. */
function t5Bucket(rel, bidirectional, buckets, maxDistance) {
  let n = buckets;
  let offset = 0;
  if (bidirectional) {
    n = buckets / 2;
    if (rel > 0) offset = n;
    rel = Math.abs(rel);
  } else {
    rel = -Math.min(rel, 0);
  }
  const exact = n / 2;
  if (rel < exact) return offset + rel;
  const large = exact + Math.trunc(Math.log(rel / exact) / Math.log(maxDistance / exact) * (n - exact));
  return offset + Math.min(large, n - 1);
}

/** Splits the flat parameters by the tensor list (lab.tensors()) into named tfjs tensors. */
let models = 0;
function unpack(tf, params, tensors, layers, trainable) {
  const id = models++;
  const list = tensors.map((t, n) => {
    const value = tf.tensor2d(params.subarray(t.offset, t.offset + t.shape[0] * t.shape[1]), t.shape);
    return { ...t, value: trainable ? tf.variable(value, true, `lab${id}_${n}`) : value };
  });
  let i = 0;
  const take = (kind) => (list[i]?.kind === kind ? list[i++].value : null);
  const named = { token: take('token'), position: take('position'), blocks: [] };
  for (let l = 0; l < layers; l++) {
    named.blocks.push({ g1: take('norm-gain'), b1: take('norm-bias'), wq: take('query'), wk: take('key'),
      wv: take('value'), wo: take('output'), t5: take('t5-bias'), g2: take('norm-gain'), b2: take('norm-bias'),
      w1: take('mlp-in'), c1: take('mlp-in-bias'), w2: take('mlp-out'), c2: take('mlp-out-bias') });
  }
  Object.assign(named, { gf: take('norm-gain'), bf: take('norm-bias'), head: take('head'), headBias: take('head-bias') });
  if (i !== list.length) throw new Error(`lab-tfjs: tensor ${i} (${list[i].kind}) is not where the model layout puts it`);
  return { named, variables: list.map((t) => t.value) };
}

/**
 * The model as a function of its parameter tensors: returns
 * { variables, loss(tokens, targets, batch, len), attention(tokens, len) },
 * variables (one per tensor of lab.tensors(), in its order) being tf.Variables
 * when trainable. Only the 'vaswani' sinusoidal preset is written here.
 */
export function tfjsLabModel(tf, config, params, tensors, { trainable = false } = {}) {
  const { dModel: d, heads: H, layers } = config;
  const dh = d / H;
  const causal = config.attention === 'causal';
  const { named: P, variables } = unpack(tf, params, tensors, layers, trainable);

  // tfjs-core without its chained-op registrations: every op as tf.op(x, ...).
  const { add, sub, mul, div, matMul, reshape, transpose } = tf;
  const norm = (x, g, b) => {
    const { mean, variance } = tf.moments(x, -1, true);
    return add(mul(div(sub(x, mean), tf.sqrt(add(variance, 1e-5))), reshape(g, [d])), reshape(b, [d]));
  };
  const heads = (x, B, T) => transpose(reshape(x, [B, T, H, dh]), [0, 2, 1, 3]);

  function rope(x, T) { // x: B x H x T x dh, pairs (2i, 2i+1)
    const half = dh / 2;
    const cos = new Float32Array(T * half);
    const sin = new Float32Array(T * half);
    for (let t = 0; t < T; t++) {
      for (let i = 0; i < half; i++) {
        const a = t * config.ropeBase ** (-2 * i / dh);
        cos[t * half + i] = Math.cos(a);
        sin[t * half + i] = Math.sin(a);
      }
    }
    const c = tf.tensor2d(cos, [T, half]);
    const s = tf.tensor2d(sin, [T, half]);
    const pairs = reshape(x, x.shape.slice(0, 3).concat([half, 2]));
    const [a, b] = tf.split(pairs, 2, -1).map((t) => tf.squeeze(t, [-1]));
    return reshape(tf.stack([sub(mul(a, c), mul(b, s)), add(mul(a, s), mul(b, c))], -1), x.shape);
  }

  function scoreBias(T, block) { // H x T x T additive bias, with the causal mask
    const mask = new Float32Array(H * T * T);
    const slopes = alibiSlopes(H, config.alibiMaxBias);
    const idx = new Int32Array(H * T * T);
    for (let h = 0; h < H; h++) {
      for (let i = 0; i < T; i++) {
        for (let j = 0; j < T; j++) {
          const k = (h * T + i) * T + j;
          if (causal && j > i) mask[k] = -1e9;
          else if (config.encoding === 'alibi') mask[k] = -slopes[h] * Math.abs(i - j);
          idx[k] = h * config.t5Buckets + t5Bucket(j - i, !causal, config.t5Buckets, config.t5MaxDistance);
        }
      }
    }
    const bias = tf.tensor3d(mask, [H, T, T]);
    if (!block.t5) return bias;
    const pick = tf.oneHot(tf.tensor1d(idx, 'int32'), block.t5.shape[0] * block.t5.shape[1]);
    return add(bias, reshape(matMul(pick, reshape(block.t5, [-1, 1])), [H, T, T]));
  }

  function forward(tokens, B, T, keepAttention) {
    // one-hot rows times the table, not gather: tfjs-wasm lacks gather's gradient kernel
    const onehot = tf.oneHot(tf.tensor1d(tokens, 'int32'), P.token.shape[0]);
    let x = reshape(matMul(onehot, P.token), [B, T, d]);
    if (config.encoding === 'sinusoidal') x = add(x, tf.tensor2d(sinusoidal(T, d, 10000), [T, d]));
    if (config.encoding === 'learned') x = add(x, tf.slice(P.position, [0, 0], [T, d]));
    const maps = [];
    for (const blk of P.blocks) {
      const h = reshape(norm(x, blk.g1, blk.b1), [B * T, d]);
      let q = heads(matMul(h, blk.wq), B, T);
      let k = heads(matMul(h, blk.wk), B, T);
      const v = heads(matMul(h, blk.wv), B, T);
      if (config.encoding === 'rope') {
        q = rope(q, T);
        k = rope(k, T);
      }
      const scores = add(mul(matMul(q, k, false, true), 1 / Math.sqrt(dh)), scoreBias(T, blk));
      const p = tf.softmax(scores, -1);
      if (keepAttention) maps.push(p);
      const ctx = reshape(transpose(matMul(p, v), [0, 2, 1, 3]), [B * T, d]);
      x = add(x, reshape(matMul(ctx, blk.wo), [B, T, d]));
      if (blk.w1) {
        const u = tf.relu(add(matMul(reshape(norm(x, blk.g2, blk.b2), [B * T, d]), blk.w1), reshape(blk.c1, [-1])));
        x = add(x, reshape(add(matMul(u, blk.w2), reshape(blk.c2, [-1])), [B, T, d]));
      }
    }
    const logits = add(matMul(reshape(norm(x, P.gf, P.bf), [B * T, d]), P.head), reshape(P.headBias, [-1]));
    return { logits, maps };
  }

  function loss(tokens, targets, B, T) {
    const count = targets.reduce((n, t) => n + (t >= 0), 0);
    const { logits } = forward(tokens, B, T, false);
    // a target of -1 makes an all-zero one-hot row: that position adds nothing
    const onehot = tf.oneHot(tf.tensor1d(targets, 'int32'), logits.shape[1]);
    return div(tf.neg(tf.sum(mul(tf.logSoftmax(logits, -1), onehot))), count);
  }

  const attention = (tokens, T) => tf.stack(forward(tokens, 1, T, true).maps.map((m) => tf.squeeze(m, [0])));
  return { variables, loss, attention };
}

/**
 * tfjs-core with the cpu backend (and wasm, when asked) and its gradients
 * registered. tfjs-core's Node entry registers no gradients, and the file that
 * does (dist/register_all_gradients.js) is ESM with extensionless imports that
 * Node cannot load, so esbuild bundles it here; the registry it fills is
 * tfjs's global one, shared with the Node entry.
 */
export async function loadTfjs({ wasm = false } = {}) {
  const { createRequire } = await import('node:module');
  const { dirname } = await import('node:path');
  const { build } = await import('esbuild');
  const require = createRequire(import.meta.url);
  const tf = await import('@tensorflow/tfjs-core');
  await import('@tensorflow/tfjs-backend-cpu');
  const bundle = await build({ entryPoints: [require.resolve('@tensorflow/tfjs-core/dist/register_all_gradients.js')],
    bundle: true, write: false, format: 'esm', platform: 'neutral', logLevel: 'error' });
  const warn = console.warn;
  console.warn = () => {}; // the bundled copy re-announces the platform
  try {
    await import(`data:text/javascript;base64,${Buffer.from(bundle.outputFiles[0].text).toString('base64')}`);
  } finally {
    console.warn = warn;
  }
  tf.enableProdMode();
  if (wasm) {
    const backend = await import('@tensorflow/tfjs-backend-wasm');
    backend.setWasmPaths(`${dirname(require.resolve('@tensorflow/tfjs-backend-wasm/wasm-out/tfjs-backend-wasm.wasm'))}/`);
  }
  await tf.setBackend('cpu');
  return tf;
}
