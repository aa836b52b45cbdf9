// A tiny self-attention layer with TensorFlow.js and posenc, side by side.
//
//   node examples/tfjs/attention.mjs        (needs @tensorflow/tfjs-core and -backend-cpu)
//
// Six tokens are embedded (a seeded random embedding table), their positions
// added from posenc's sinusoidal table, and projected to queries, keys and
// values with 4 query heads sharing 2 key/value heads (grouped-query
// attention, as Llama 2 70B and Mistral do). posenc.attention computes the
// causal attention straight from the tfjs tensors; the same attention written
// with tfjs's own ops is the check. The glue is one line each way: a tfjs
// tensor goes in as it is (posenc reads its shape and dataSync()), and
// tf.tensor(r.data, r.shape) brings a result back.
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { init } from 'posenc';

const VOCAB = 50;
const D_MODEL = 32;
const HEADS = 4;
const KV_HEADS = 2;
const HEAD_DIM = D_MODEL / HEADS;

/** [S, HEADS·HEAD_DIM] → [HEADS, S, HEAD_DIM]: the layout attention takes. */
const splitHeads = (x, heads) => tf.transpose(tf.reshape(x, [x.shape[0], heads, HEAD_DIM]), [1, 0, 2]);

/** Causal grouped-query attention with tfjs ops only: softmax(QKᵀ/√d + mask)·V. */
function tfAttention(q, k, v) {
  const [heads, seq] = q.shape;
  const group = heads / k.shape[0];
  // Head h of q uses key/value head floor(h / group): repeat each kv head `group` times.
  const repeat = (t) => tf.reshape(tf.tile(tf.expandDims(t, 1), [1, group, 1, 1]), [heads, seq, HEAD_DIM]);
  const scores = tf.div(tf.matMul(q, repeat(k), false, true), Math.sqrt(HEAD_DIM));
  const future = tf.sub(1, tf.linalg.bandPart(tf.ones([seq, seq]), -1, 0)); // 1 above the diagonal
  const weights = tf.softmax(tf.add(scores, tf.mul(future, -1e9)));
  return { weights, output: tf.matMul(weights, repeat(v)) };
}

/** Runs the layer on `tokens`; returns both results and their largest difference. */
export async function run(tokens = [3, 14, 15, 9, 26, 5]) {
  tf.enableProdMode(); // also silences tfjs's hint to install its native Node backend
  await tf.setBackend('cpu');
  const pe = await init();
  return tf.tidy(() => {
    const seq = tokens.length;
    const embedding = tf.randomNormal([VOCAB, D_MODEL], 0, 1, 'float32', 1);
    const positions = pe.table(seq, D_MODEL); // { data: Float32Array, shape: [seq, D_MODEL] }
    const x = tf.add(tf.gather(embedding, tf.tensor1d(tokens, 'int32')), tf.tensor(positions.data, positions.shape));
    const wq = tf.randomNormal([D_MODEL, HEADS * HEAD_DIM], 0, D_MODEL ** -0.5, 'float32', 2);
    const wk = tf.randomNormal([D_MODEL, KV_HEADS * HEAD_DIM], 0, D_MODEL ** -0.5, 'float32', 3);
    const wv = tf.randomNormal([D_MODEL, KV_HEADS * HEAD_DIM], 0, D_MODEL ** -0.5, 'float32', 4);
    const q = splitHeads(tf.matMul(x, wq), HEADS);
    const k = splitHeads(tf.matMul(x, wk), KV_HEADS);
    const v = splitHeads(tf.matMul(x, wv), KV_HEADS);

    const ours = pe.attention(q, k, v, { causal: true }); // tfjs tensors in, { data, shape } out
    const theirs = tfAttention(q, k, v);
    const output = tf.tensor(ours.output.data, ours.output.shape); // back into tfjs
    const maxDiff = (a, b) => tf.max(tf.abs(tf.sub(a, b))).dataSync()[0];
    return {
      shape: ours.output.shape,
      weightsDiff: maxDiff(tf.tensor(ours.weights.data, ours.weights.shape), theirs.weights),
      outputDiff: maxDiff(output, theirs.output),
      weights: ours.weights,
    };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { shape, weightsDiff, outputDiff, weights } = await run();
  console.log(`output shape ${JSON.stringify(shape)} ([heads, tokens, head dim])`);
  console.log(`largest difference from tfjs: weights ${weightsDiff.toExponential(2)}, output ${outputDiff.toExponential(2)}`);
  console.log('head 0, token 2 attends to tokens 0..2:', Array.from(weights.data.slice(12, 18), (w) => w.toFixed(3)).join(' '));
}
