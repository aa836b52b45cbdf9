// posenc with transformers.js and ONNX Runtime Web tensors, there and back.
//
//   node examples/onnx/attention.mjs   (needs @huggingface/transformers and onnxruntime-web; runs offline)
//
// Both libraries hold a tensor as { type, data, dims }. posenc reads that shape
// as it is, and a result comes back as new Tensor('float32', r.data, r.shape).
// The round trip: token embeddings as a transformers.js Tensor plus posenc's
// sinusoidal table, again a transformers.js Tensor; posenc's
// causal attention straight from that tensor; and, as the check, the same
// attention run by ONNX Runtime Web on a six-node ONNX graph (MatMul,
// Transpose, Mul, Add, Softmax, MatMul) that this file writes byte by byte,
// so no model is downloaded.
import { Tensor } from '@huggingface/transformers';
import * as ort from 'onnxruntime-web';
import { init } from 'posenc';

const SEQ = 6;
const D_MODEL = 16;

// ---- a minimal ONNX writer: protobuf varints and length-delimited fields ----
const varint = (n) => {
  const out = [];
  for (; n > 127; n = Math.floor(n / 128)) out.push((n % 128) | 128);
  return [...out, n];
};
const field = (no, bytes) => [...varint(no * 8 + 2), ...varint(bytes.length), ...bytes];
const int = (no, n) => [...varint(no * 8), ...varint(n)];
const str = (no, s) => field(no, [...new TextEncoder().encode(s)]);
const float = (no, x) => [no * 8 + 5, ...new Uint8Array(new Float32Array([x]).buffer)];

/** NodeProto: inputs, outputs, op type, attributes (AttributeProto bytes). */
const node = (op, inputs, outputs, attrs = []) =>
  [...inputs.flatMap((i) => str(1, i)), ...outputs.flatMap((o) => str(2, o)), ...str(4, op), ...attrs.flatMap((a) => field(5, a))];
/** ValueInfoProto of a float tensor with fixed dims. */
const value = (name, dims) => [...str(1, name), ...field(2, field(1, [...int(1, 1), ...field(2, dims.flatMap((d) => field(1, int(1, d))))]))];

/** softmax(Q·Kᵀ·scale + bias)·V as an ONNX model (opset 13), bias −1e9 above the diagonal. */
function attentionModel(seq, dim) {
  const perm = [...str(1, 'perm'), ...int(20, 7), ...int(8, 1), ...int(8, 0)]; // type INTS, values [1, 0]
  const axis = [...str(1, 'axis'), ...int(20, 2), ...int(3, 1)]; // type INT, value 1 (the last axis of [seq, seq])
  const scale = [...str(1, 'value_float'), ...int(20, 1), ...float(2, 1 / Math.sqrt(dim))];
  const graph = [
    ...field(1, node('Transpose', ['k'], ['kt'], [perm])),
    ...field(1, node('MatMul', ['q', 'kt'], ['s'])),
    ...field(1, node('Constant', [], ['c'], [scale])),
    ...field(1, node('Mul', ['s', 'c'], ['ss'])),
    ...field(1, node('Add', ['ss', 'bias'], ['sb'])),
    ...field(1, node('Softmax', ['sb'], ['weights'], [axis])),
    ...field(1, node('MatMul', ['weights', 'v'], ['output'])),
    ...str(2, 'attention'),
    ...[['q', [seq, dim]], ['k', [seq, dim]], ['v', [seq, dim]], ['bias', [seq, seq]]].flatMap(([n, d]) => field(11, value(n, d))),
    ...[['weights', [seq, seq]], ['output', [seq, dim]]].flatMap(([n, d]) => field(12, value(n, d))),
  ];
  return new Uint8Array([...int(1, 8), ...field(7, graph), ...field(8, int(2, 13))]);
}

/** Largest absolute difference of two arrays of one length. */
const maxDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

/** The round trip for these token ids; returns both results and their differences. */
export async function run(tokens = [3, 14, 15, 9, 26, 5]) {
  const pe = await init();
  // Stand-ins for learned embeddings: one fixed vector per token id.
  const embed = new Tensor('float32', Float32Array.from({ length: SEQ * D_MODEL }, (_, i) =>
    Math.sin(tokens[Math.floor(i / D_MODEL)] * 0.37 + (i % D_MODEL) * 1.3)), [SEQ, D_MODEL]);
  const table = pe.table(SEQ, D_MODEL); // { data: Float32Array, shape: [6, 16] }
  // Tensor.add in transformers.js adds a scalar only, so the sum is formed on the data.
  const x = new Tensor('float32', embed.data.map((e, i) => e + table.data[i]), embed.dims);

  // posenc reads the transformers.js tensor as it is ({ type, data, dims }).
  const { weights, output } = pe.attention(x, x, x, { causal: true });
  const back = new ort.Tensor('float32', output.data, output.shape); // and back out, as an ONNX Runtime tensor

  // The check: ONNX Runtime Web (WebAssembly, one thread) runs the same attention.
  ort.env.wasm.numThreads = 1;
  const session = await ort.InferenceSession.create(attentionModel(SEQ, D_MODEL));
  const bias = Float32Array.from({ length: SEQ * SEQ }, (_, i) => (i % SEQ > Math.floor(i / SEQ) ? -1e9 : 0));
  const feed = new ort.Tensor('float32', x.data, x.dims);
  const ref = await session.run({ q: feed, k: feed, v: feed, bias: new ort.Tensor('float32', bias, [SEQ, SEQ]) });
  await session.release();
  return {
    dims: back.dims,
    weights,
    weightsDiff: maxDiff(weights.data, ref.weights.data),
    outputDiff: maxDiff(back.data, ref.output.data),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await run();
  console.log(`posenc vs ONNX Runtime on transformers.js tensors [${r.dims}]: weights differ by ${r.weightsDiff.toExponential(1)}, outputs by ${r.outputDiff.toExponential(1)}`);
}
