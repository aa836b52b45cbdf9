// One-node ONNX models, written as protobuf bytes here so that the ml bench
// (bench/ml.mjs) can run onnxruntime-web's contrib ops without a Python
// toolchain or a fixture file. Only what a ModelProto with one node needs:
// varints, length-delimited fields, and the messages of onnx.proto3
// (field numbers as there: ModelProto.ir_version 1, graph 7, opset_import 8;
// GraphProto.node 1, name 2, input 11, output 12; NodeProto.input 1,
// output 2, op_type 4, attribute 5, domain 7; AttributeProto.name 1, f 2,
// i 3, type 20; ValueInfoProto.name 1, type 2; TypeProto.tensor_type 1;
// Tensor.elem_type 1, shape 2; TensorShapeProto.dim 1; Dimension.dim_value 1;
// GraphProto.initializer 5 and TensorProto.dims 1, data_type 2, name 8, raw_data 9).

const ELEM = { float32: 1, int32: 6, int64: 7 };
const ATTR_FLOAT = 1;
const ATTR_INT = 2;

function varint(n) {
  const out = [];
  let v = BigInt(n);
  if (v < 0n) v += 1n << 64n; // negative int64: ten bytes, two's complement
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
  return out;
}

const key = (field, wire) => varint((field << 3) | wire);
const int = (field, n) => [...key(field, 0), ...varint(n)];
const bytes = (field, body) => [...key(field, 2), ...varint(body.length), ...body];
const str = (field, s) => bytes(field, [...new TextEncoder().encode(s)]);
function float(field, x) {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setFloat32(0, x, true);
  return [...key(field, 5), ...b];
}

/** A graph input or output: name, element type, shape (numbers, or strings for symbolic dims). */
function valueInfo(field, { name, type = 'float32', shape }) {
  const dims = shape.map((d) => bytes(1, typeof d === 'number' ? int(1, d) : str(2, d)));
  const tensorType = [...int(1, ELEM[type]), ...bytes(2, dims.flat())];
  return bytes(field, [...str(1, name), ...bytes(2, bytes(1, tensorType))]);
}

function attribute([name, value]) {
  const isInt = typeof value === 'number';
  return bytes(5, [...str(1, name), ...(isInt ? [...int(3, value), ...int(20, ATTR_INT)] : [...float(2, value.float), ...int(20, ATTR_FLOAT)])]);
}

/** A float32 constant of the graph (a TensorProto), its bytes little-endian as raw_data. */
function initializer({ name, shape, data }) {
  const raw = new Uint8Array(Float32Array.from(data).buffer);
  return bytes(5, [...shape.flatMap((d) => int(1, d)), ...int(2, ELEM.float32), ...str(8, name), ...bytes(9, [...raw])]);
}

/**
 * The bytes of a model holding one node:
 * { op, domain, inputs: [{ name, type, shape }], outputs: [...], attributes: { name: int | { float } },
 *   constants: [{ name, shape, data }] }. An input named '' is an omitted
 * optional input of the node; a constant is an input the graph holds.
 */
export function oneNodeModel({ op, domain = '', inputs, outputs, attributes = {}, constants = [] }) {
  const node = [
    ...[...inputs, ...constants].flatMap((i) => str(1, i.name)),
    ...outputs.flatMap((o) => str(2, o.name)),
    ...str(4, op),
    ...Object.entries(attributes).flatMap(attribute),
    ...str(7, domain),
  ];
  const graph = [
    ...bytes(1, node),
    ...str(2, op),
    ...constants.flatMap(initializer),
    ...inputs.filter((i) => i.name).flatMap((i) => valueInfo(11, i)),
    ...outputs.flatMap((o) => valueInfo(12, o)),
  ];
  const opset = (domain, version) => bytes(8, [...str(1, domain), ...int(2, version)]);
  return Uint8Array.from([...int(1, 8), ...bytes(7, graph), ...opset('', 17), ...opset('com.microsoft', 1)]);
}
