// The public API of `posenc`: validated arguments in, plain { rows, cols, data }
// copies out. The variants (RoPE, ALiBi, ...) are `posenc/variants` (variants/).
import { withFrame, statusCall, matrix, memoryStats, TYPES, asDtype, dtypeCode } from './heap.js';
import { PE_ANCHOR, PE_MAX_ROTATION_DIM } from '../../dist/constants.js';
import { Checker, DTYPES, MAX_BYTES, MAX_POSITION, bytesPer } from './validate.js';
import { PRESETS, encodingArgs } from './presets.js';

const ENCODING_KEYS = ['preset', 'layout', 'frequencies', 'base'];
const TABLE_KEYS = [...ENCODING_KEYS, 'offset', 'paddingIdx', 'dtype'];

function tableArgs(check, maxLen, dModel, opts) {
  check.size('maxLen', maxLen);
  check.size('dModel', dModel);
  const enc = encodingArgs(check, dModel, opts);
  const offset = check.finite('offset', opts.offset ?? 0, { min: -MAX_POSITION, max: MAX_POSITION - (maxLen - 1) });
  const padding = opts.paddingIdx !== undefined ? opts.paddingIdx : Object.hasOwn(enc.preset, 'paddingIdx') ? enc.preset.paddingIdx : undefined;
  const zeroRow = padding === undefined || padding === null ? -1 : check.integer('paddingIdx', padding, 0, MAX_POSITION - 1);
  const dtype = check.oneOf('dtype', opts.dtype ?? 'float32', DTYPES);
  return { ...enc, offset, zeroRow: zeroRow < maxLen ? zeroRow : -1, dtype };
}

const isF32 = (m) => m.data instanceof Float32Array;

export function createApi(wasm) {
  const call = statusCall(wasm);

  // Tables are made a chunk of rows at a time into the caller's array: each
  // chunk is copied out while it is still in cache, and wasm memory holds one
  // chunk, not the table. A chunk is a whole number of the core's anchor
  // periods (PE_ANCHOR in c/oscillator.h), so every chunk starts on an exact
  // anchor, as the rows of one long call would: the result is bit-identical.
  // Chunks of about 2 MiB: each call forms the frequencies and their sines
  // and cosines again, which 256 rows of a 1024-wide table paid for 32 times.
  const ANCHOR_ROWS = PE_ANCHOR;
  const CHUNK_BYTES = 2 ** 21;
  const chunkRows = (dModel, dtype) =>
    ANCHOR_ROWS * Math.max(1, Math.floor(CHUNK_BYTES / (ANCHOR_ROWS * dModel * bytesPer(dtype))));

  function table(maxLen, dModel, options) {
    const check = new Checker('table');
    const a = tableArgs(check, maxLen, dModel, check.options(options, TABLE_KEYS));
    const chunk = Math.min(maxLen, chunkRows(dModel, a.dtype));
    check.bytes(maxLen * dModel * bytesPer(a.dtype)); // the result, though wasm holds one chunk
    const data = new TYPES[a.dtype](maxLen * dModel);
    return withFrame(wasm, 'table', (f) => {
      const out = f.output(a.dtype, chunk * dModel);
      for (let r0 = 0; r0 < maxLen; r0 += chunk) {
        const rows = Math.min(chunk, maxLen - r0);
        const zeroRow = a.zeroRow >= r0 && a.zeroRow < r0 + rows ? a.zeroRow - r0 : -1;
        call(check, wasm.pe_table(out, dtypeCode(a.dtype), rows, dModel,
          a.layout, a.freq, a.base, a.offset + r0, zeroRow));
        f.readInto(data, r0 * dModel, a.dtype, out, rows * dModel);
      }
      return matrix(maxLen, dModel, data);
    });
  }

  function frequencies(dModel, options) {
    const check = new Checker('frequencies');
    check.size('dModel', dModel);
    const a = encodingArgs(check, dModel, check.options(options, ENCODING_KEYS));
    const count = wasm.pe_pair_count(dModel, a.layout);
    if (count === 0) return new Float64Array(0);
    return withFrame(wasm, 'frequencies', (f) => {
      const out = f.output('float64', count);
      call(check, wasm.pe_frequencies(out, dModel, a.layout, a.freq, a.base));
      return f.read('float64', out, count);
    });
  }

  function tableGram(maxLen, dModel, options) {
    const check = new Checker('tableGram');
    const opts = check.options(options, [...TABLE_KEYS, 'cosine']);
    const a = tableArgs(check, maxLen, dModel, opts);
    const cosine = check.boolean('cosine', opts.cosine ?? false);
    const count = maxLen * maxLen;
    // Output, plus (when the table has to be formed) the table and a float64 Gram.
    check.bytes(count * bytesPer(a.dtype) + maxLen * dModel * 8 + count * 8);
    return withFrame(wasm, 'tableGram', (f) => {
      const out = f.output(a.dtype, count);
      call(check, wasm.pe_table_gram(out, dtypeCode(a.dtype), maxLen, dModel,
        a.layout, a.freq, a.base, a.offset, a.zeroRow, cosine ? 1 : 0));
      return matrix(maxLen, maxLen, f.read(a.dtype, out, count));
    });
  }

  function dot(a, b) {
    const check = new Checker('dot');
    const va = check.vector('a', a);
    const n = va.length;
    const vb = check.vector('b', b, n);
    return withFrame(wasm, 'dot', (f) => {
      const out = f.output('float64', 1);
      call(check, wasm.pe_dot(out, f.float64(va, n), f.float64(vb, n), n));
      return f.read('float64', out, 1)[0];
    });
  }

  function norms(matrixArg) {
    const check = new Checker('norms');
    const m = check.matrix('matrix', matrixArg);
    return withFrame(wasm, 'norms', (f) => {
      const out = f.output('float64', m.rows);
      call(check, wasm.pe_norms(out, f.float64(m.data, m.rows * m.cols), m.rows, m.cols));
      return f.read('float64', out, m.rows);
    });
  }

  function gram(matrixArg, options) {
    const check = new Checker('gram');
    const opts = check.options(options, ['cosine', 'dtype']);
    const m = check.matrix('matrix', matrixArg);
    const cosine = check.boolean('cosine', opts.cosine ?? false);
    const dtype = check.oneOf('dtype', opts.dtype ?? (isF32(m) ? 'float32' : 'float64'), DTYPES);
    const count = m.rows * m.rows;
    // A Float32Array goes in as float32 and takes the float32 kernel (c/gram.c).
    const f32 = isF32(m);
    check.bytes(m.rows * m.cols * (f32 ? 4 : 8) + count * bytesPer(dtype) + count * 8);
    return withFrame(wasm, 'gram', (f) => {
      const out = f.output(dtype, count);
      const n = m.rows * m.cols;
      const code = dtypeCode(dtype);
      call(check, f32
        ? wasm.pe_gram_f32(out, code, f.float32(m.data, n), m.rows, m.cols, cosine ? 1 : 0)
        : wasm.pe_gram(out, code, f.float64(m.data, n), m.rows, m.cols, cosine ? 1 : 0));
      return matrix(m.rows, m.rows, f.read(dtype, out, count));
    });
  }

  function rotation(k, dModel, options) {
    const check = new Checker('rotation');
    const opts = check.options(options, [...ENCODING_KEYS, 'dtype']);
    check.finite('k', k, { min: -MAX_POSITION, max: MAX_POSITION });
    check.size('dModel', dModel, PE_MAX_ROTATION_DIM);
    if (dModel % 2) throw check.fail(RangeError, 'dModel must be even: the lone sine column of an odd width has no cosine to rotate with', dModel);
    const a = encodingArgs(check, dModel, opts);
    const dtype = check.oneOf('dtype', opts.dtype ?? 'float64', DTYPES);
    const count = dModel * dModel;
    check.bytes(count * 8);
    return withFrame(wasm, 'rotation', (f) => {
      const out = f.output('float64', count);
      call(check, wasm.pe_rotation(out, dModel, a.layout, a.freq, a.base, k));
      const data = f.read('float64', out, count);
      return matrix(dModel, dModel, asDtype(check, data, dtype));
    });
  }

  function toyAttention(codes, positionCodes, options) {
    const check = new Checker('toyAttention');
    const opts = check.options(options, ['threshold', 'weights']);
    const vcodes = check.vector('codes', codes);
    const n = vcodes.length;
    const hasPos = positionCodes !== undefined && positionCodes !== null;
    const vpos = hasPos ? check.vector('positionCodes', positionCodes, n) : null;
    const threshold = check.finite('threshold', opts.threshold ?? 30);
    const vweights = opts.weights !== undefined ? check.vector('weights', opts.weights, n) : null;
    check.bytes(n * 8 * 5);
    return withFrame(wasm, 'toyAttention', (f) => {
      const x = f.output('float64', n);
      const y = f.output('float64', n);
      const scalars = f.output('float64', 3); // sum, label (as int32), weighted
      call(check, wasm.pe_toy_attention(x, y, scalars, scalars + 8, scalars + 16,
        f.float64(vcodes, n), vpos ? f.float64(vpos, n) : 0,
        vweights ? f.float64(vweights, n) : 0, n, threshold));
      const [sum, , weighted] = f.read('float64', scalars, 3);
      const label = new Int32Array(wasm.memory.buffer, scalars + 8, 1)[0];
      return {
        x: Array.from(f.read('float64', x, n)),
        y: Array.from(f.read('float64', y, n)),
        sum,
        label: label ? 'happy' : 'unhappy',
        weighted,
      };
    });
  }

  function attention(qArg, kArg, vArg, options) {
    const check = new Checker('attention');
    const opts = check.options(options, ['causal', 'scale', 'dtype']);
    const q = check.matrix('q', qArg);
    const k = check.matrix('k', kArg);
    const v = check.matrix('v', vArg);
    if (k.cols !== q.cols) throw check.fail(RangeError, `k.cols must equal q.cols (${q.cols})`, k.cols);
    if (v.rows !== k.rows) throw check.fail(RangeError, `v.rows must equal k.rows (${k.rows})`, v.rows);
    const causal = check.boolean('causal', opts.causal ?? false);
    const scale = check.finite('scale', opts.scale ?? 1 / Math.sqrt(q.cols), { above: 0 });
    const dtype = check.oneOf('dtype', opts.dtype ?? ([q, k, v].every(isF32) ? 'float32' : 'float64'), DTYPES);
    const [n, m, dk, dv] = [q.rows, k.rows, q.cols, v.cols];
    check.bytes((n * dk + m * dk + m * dv + n * m + n * dv) * 8);
    return withFrame(wasm, 'attention', (f) => {
      const weights = f.output('float64', n * m);
      const out = f.output('float64', n * dv);
      call(check, wasm.pe_attention(weights, out, f.float64(q.data, n * dk), f.float64(k.data, m * dk), f.float64(v.data, m * dv),
        n, m, dk, dv, causal ? 1 : 0, scale));
      const cast = (data) => asDtype(check, data, dtype);
      return {
        weights: matrix(n, m, cast(f.read('float64', weights, n * m))),
        output: matrix(n, dv, cast(f.read('float64', out, n * dv))),
      };
    });
  }

  return Object.freeze({
    table, frequencies, tableGram, dot, norms, gram, rotation, toyAttention, attention,
    memoryStats: () => memoryStats(wasm),
    presets: PRESETS,
    maxBytes: MAX_BYTES,
  });
}
