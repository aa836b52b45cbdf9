// The public API of `posenc`: validated arguments in, plain { shape, data }
// copies out (matrices also carry rows and cols), float32 unless dtype says
// otherwise. The variants (RoPE, ALiBi, ...) are `posenc/variants` (variants/).
import { withFrame, statusCall, matrix, memoryStats, TYPES, dtypeCode, roomFor, fits, RESERVE_SLACK } from './heap.js';
import { PE_ANCHOR, PE_MAX_ROTATION_DIM, PE_ERR_VALUE } from '../../dist/constants.js';
import { Checker, DTYPES, MAX_BYTES, MAX_POSITION, SCRATCH_SLACK, bytesPer, typedLength, copyTyped, partOf, product } from './validate.js';
import { Float32Array, Float64Array, Int32Array, Uint32Array, Uint8Array, heapView } from './intrinsics.js';
import { PRESETS, encodingArgs } from './presets.js';
import { readNested, readMatrix, tensor, outputArgs } from './tensor.js';
import { attentionShape, extraArg, maskElements, biasElements, numbersOnly } from './attention-args.js';
import { createKvCache } from './kv-cache.js';

const ENCODING_KEYS = ['preset', 'layout', 'frequencies', 'base'];
const TABLE_KEYS = [...ENCODING_KEYS, 'offset', 'paddingIdx', 'dtype', 'out'];

function tableArgs(check, maxLen, dModel, opts, gram = false) {
  check.size('maxLen', maxLen);
  check.size('dModel', dModel);
  const enc = encodingArgs(check, dModel, opts);
  const offset = check.finite('offset', opts.offset ?? 0, { min: -MAX_POSITION, max: MAX_POSITION - (maxLen - 1) });
  const padding = opts.paddingIdx !== undefined ? opts.paddingIdx : Object.hasOwn(enc.preset, 'paddingIdx') ? enc.preset.paddingIdx : undefined;
  const pad = padding == null ? -1 : check.integer('paddingIdx', padding, 0, MAX_POSITION - 1);
  // The zero row is the one at position paddingIdx, as in fairseq's weights and as with `positions`: row
  // paddingIdx − offset (row paddingIdx of the result was zeroed, so an offset of 2 zeroed position 3), none
  // when a fractional offset (any fraction: paddingIdx − offset rounded 1e-20 to a whole row) or the table's
  // rows miss that position. The core zeroes no row outside its rows: a negative one, or one past them (up to
  // 2^32 - 1 here, which an int32 argument takes as negative).
  const zeroRow = pad < 0 || offset % 1 ? -1 : pad - offset;
  return { ...enc, offset, pad, zeroRow, ...outputArgs(check, opts, maxLen * (gram ? maxLen : dModel)) };
}

// What pe_table and pe_table_gram hold besides their output, as their own
// first check counts it (OSC_SCRATCH in c/pe_table.c: the oscillator state and
// the frequencies, 40 bytes a pair), counted here before anything is allocated.
const tableScratch = (dModel) => 40 * (Math.floor(dModel / 2) + 2) + SCRATCH_SLACK;

/**
 * The checked positions of table(): integers within +-MAX_POSITION. The name
 * of an element is formed only for the one refused (2^24 names cost seconds).
 */
function tablePositions(check, positions, maxLen) {
  const p = check.vector('positions', positions, maxLen);
  for (let r = 0; r < maxLen; r++) {
    if (!Number.isInteger(p[r]) || Math.abs(p[r]) > MAX_POSITION) check.integer(`positions[${r}]`, p[r], -MAX_POSITION, MAX_POSITION);
  }
  return p;
}

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
    const opts = check.options(options, [...TABLE_KEYS, 'positions']);
    const a = tableArgs(check, maxLen, dModel, opts);
    const chunk = Math.min(maxLen, chunkRows(dModel, a.dtype));
    const given = opts.positions != null;
    if (given && opts.offset !== undefined) throw check.fail(TypeError, 'give positions or offset, not both');
    // The whole result at its own type's size (a float16 value 2 bytes, not the 8 of the
    // float64 chunk it is rounded from), though wasm memory holds one chunk (and its positions) and the core's scratch;
    // before the positions are read (2^24 of them were, 1.7 s, for a table refused by its size).
    check.bytes(maxLen * dModel * TYPES[a.dtype].BYTES_PER_ELEMENT, chunk * (dModel * bytesPer(a.dtype) + (given ? 8 : 0)) + tableScratch(dModel));
    // Row r is position offset + r, or positions[r]; the rows at position paddingIdx are zero. (Beside a live
    // kvCache, the room asked first: fits(), here and below, before any element a caller gave is read.)
    const p = given ? (fits(wasm, check), tablePositions(check, opts.positions, maxLen)) : null;
    const data = a.target(); // after the last getter the call runs
    return withFrame(wasm, check, (f) => {
      const out = f.output(a.dtype, chunk * dModel), code = dtypeCode(a.dtype);
      const at = p && f.output('float64', chunk);
      for (let r0 = 0; r0 < maxLen; r0 += chunk) {
        // (compared, not Math.min: one planted to answer more at this use wrote positions past `at`, over a live kvCache)
        const rows = maxLen - r0 < chunk ? maxLen - r0 : chunk;
        if (p) {
          // by index: a subarray of p is made by its `constructor[Symbol.species]`, which a caller can plant (a view of another length)
          const v = heapView(Float64Array, wasm, at, rows);
          for (let i = 0; i < rows; i++) v[i] = p[r0 + i];
        }
        call(check, p ? wasm.pe_table_at(out, code, rows, dModel, a.layout, a.freq, a.base, at, a.pad)
          : wasm.pe_table(out, code, rows, dModel, a.layout, a.freq, a.base, a.offset + r0, a.zeroRow - r0));
        f.readInto(data, r0 * dModel, a.dtype, out, rows * dModel);
      }
      return matrix(maxLen, dModel, data);
    });
  }

  function frequencies(dModel, options) {
    const check = new Checker('frequencies');
    check.size('dModel', dModel);
    const opts = check.options(options, [...ENCODING_KEYS, 'dtype']);
    const a = encodingArgs(check, dModel, opts);
    const dtype = check.oneOf('dtype', opts.dtype ?? 'float32', DTYPES);
    const count = wasm.pe_pair_count(dModel, a.layout);
    if (count === 0) return new TYPES[dtype](0);
    return withFrame(wasm, check, (f) => {
      const out = f.output('float64', count);
      call(check, wasm.pe_frequencies(out, dModel, a.layout, a.freq, a.base));
      return f.read('float64', out, count, dtype);
    });
  }

  /**
   * Where each frequency of `frequencies()` lands in a row of `table()`: the
   * columns of its sine and its cosine (-1 for the lone sine of an odd width),
   * as c/freq.c places them. Takes the encoding options of table(); only the
   * layout moves columns.
   */
  function columns(dModel, options) {
    const check = new Checker('columns');
    check.size('dModel', dModel);
    const a = encodingArgs(check, dModel, check.options(options, ENCODING_KEYS));
    const count = wasm.pe_pair_count(dModel, a.layout);
    check.bytes(count * 8);
    return withFrame(wasm, check, (f) => {
      const sin = f.int32Output(count), cos = f.int32Output(count); // (not destructured: an iterator a caller can plant moved them)
      call(check, wasm.pe_columns(sin, cos, dModel, a.layout));
      return { sin: f.readInt32(sin, count), cos: f.readInt32(cos, count) };
    });
  }

  function tableGram(maxLen, dModel, options) {
    const check = new Checker('tableGram');
    const opts = check.options(options, [...TABLE_KEYS, 'cosine']);
    const a = tableArgs(check, maxLen, dModel, opts, true);
    const count = maxLen * maxLen;
    const cosine = check.boolean('cosine', opts.cosine ?? false);
    // No element of a Gram exceeds its largest diagonal one (|G_ij| <= sqrt(G_ii G_jj)), here a row's
    // squared norm: dModel / 2 (sin² + cos² of each pair), plus sin² of an odd width's lone sine, up to 1.
    // float16 rounds 65520 to Infinity, so from 131039 (65519 + sin², 65520 where the positions put that
    // sine at ±1) the result can overflow: refused before the work, not as an overflowing result after
    // it (132 MiB kept). A cosine Gram is at most 1; bfloat16 holds 3.4e38.
    if (a.dtype === 'float16' && !cosine) check.size('dModel of a float16 Gram (its diagonal is dModel / 2)', dModel, 131038);
    // Output, plus (when the table has to be formed) the table, a float64 Gram
    // and its norms, and the core's oscillator scratch.
    check.bytes(count * bytesPer(a.dtype) + maxLen * dModel * 8 + count * 8 + maxLen * 8 + tableScratch(dModel));
    return withFrame(wasm, check, (f) => {
      const out = f.output(a.dtype, count);
      call(check, wasm.pe_table_gram(out, dtypeCode(a.dtype), maxLen, dModel,
        a.layout, a.freq, a.base, a.offset, a.zeroRow, cosine ? 1 : 0));
      return matrix(maxLen, maxLen, a.into(f.read(a.dtype, out, count)));
    });
  }

  function dot(a, b) {
    const check = new Checker('dot');
    // both counts before an element of either (check.later)
    const la = check.later('a', a), n = la.length, lb = check.later('b', b, n);
    check.bytes(n * 16 + 8); // (a footprint: with none, each buffer grew memory in turn, and beside a handle b's was refused after a's)
    fits(wasm, check);
    const va = check.allFinite('a', la.read()), vb = check.allFinite('b', lb.read());
    return withFrame(wasm, check, (f) => {
      const out = f.output('float64', 1);
      call(check, wasm.pe_dot(out, f.float64(va, n), f.float64(vb, n), n));
      return f.read('float64', out, 1)[0];
    });
  }

  function norms(matrixArg, options) {
    const check = new Checker('norms');
    const opts = check.options(options, ['dtype']);
    const dtype = check.oneOf('dtype', opts.dtype ?? 'float32', DTYPES);
    // the norms too, before the input is read: 1 GiB of input alone would pass
    const m = readMatrix(check, 'matrix', matrixArg, (s) => s[0] * 8, () => fits(wasm, check)); // (by index: a destructuring follows an iterator a caller can plant)
    return withFrame(wasm, check, (f) => {
      const out = f.output('float64', m.rows);
      call(check, wasm.pe_norms(out, f.float64(m.data, m.rows * m.cols), m.rows, m.cols));
      return f.read('float64', out, m.rows, dtype);
    });
  }

  function gram(matrixArg, options) {
    const check = new Checker('gram');
    const opts = check.options(options, ['cosine', 'dtype', 'out']);
    const cosine = check.boolean('cosine', opts.cosine ?? false);
    // the float64 Gram too, dtype and out checked, before the input is read: 2^24 nested rows were read (10 s) to be refused for it;
    // and the least footprint below its type can give (a float64 input's, or with cosine a float32 one's, n × 12 bytes): an
    // input of 8192 × 4096 was read (4.6 s) to be refused by it (thirty-second pass)
    // (beside a live kvCache, the least room its type can take asked before it is read: the count × 8 above is no memory)
    // and, once its data is fetched (f32 given), before it is read, its own type's: the least's n × 4 more for a float32
    // input (a Float32Array, or float16 decoded) without cosine, or a float64 one with it (each holds a float64 copy in the
    // core's scratch beside its own): 1.41M float32 values, or 940 000 float64 ones with cosine, were read (copied, each
    // checked finite), then refused by it, or for a NaN where the call did not fit (fortieth pass)
    const m = readMatrix(check, 'matrix', matrixArg, (s) => s[0] * s[0] * (bytesPer(outputArgs(check, opts, s[0] * s[0]).dtype) + 8) + (cosine ? s[0] * s[1] * 4 + s[0] * 8 : 0),
      (s, f32) => ((f32 ?? cosine) !== cosine && check.bytes(check.footprint + s[0] * s[1] * 4), fits(wasm, check, check.footprint - s[0] * s[0] * 8 + RESERVE_SLACK)));
    const count = m.rows * m.rows;
    const { dtype, into } = outputArgs(check, opts, count);
    // A Float32Array goes in as float32 and takes the float32 kernel (c/gram.c).
    const f32 = m.data instanceof Float32Array;
    // The input copy, the output, the float64 Gram limit of old, and at worst
    // the core's scratch: a float64 copy of the input (rows it must rescale, or
    // float32 data outside the float32 kernel's range) and the norms of a cosine.
    const n = m.rows * m.cols, held = n * (f32 ? 4 : 8) + count * bytesPer(dtype) + (cosine || f32 ? n * 8 : 0) + (cosine ? m.rows * 8 : 0);
    check.bytes(held + count * 8, held); // (the old Gram's limit is no memory: reserved, it refused a Gram beside a handle that fitted)
    return withFrame(wasm, check, (f) => {
      const out = f.output(dtype, count);
      const code = dtypeCode(dtype);
      call(check, f32
        ? wasm.pe_gram_f32(out, code, f.copy(Float32Array, m.data, n), m.rows, m.cols, cosine ? 1 : 0)
        : wasm.pe_gram(out, code, f.float64(m.data, n), m.rows, m.cols, cosine ? 1 : 0));
      return matrix(m.rows, m.rows, into(f.read(dtype, out, count)));
    });
  }

  function rotation(k, dModel, options) {
    const check = new Checker('rotation');
    const opts = check.options(options, [...ENCODING_KEYS, 'dtype', 'out']);
    check.finite('k', k, { min: -MAX_POSITION, max: MAX_POSITION });
    check.integer('dModel', dModel, 2, PE_MAX_ROTATION_DIM); // (from 2: 1 is odd, refused below)
    if (dModel % 2) throw check.fail(RangeError, 'dModel must be even: the lone sine column of an odd width has no cosine to rotate with', dModel);
    const a = encodingArgs(check, dModel, opts);
    const count = dModel * dModel;
    const { dtype, into } = outputArgs(check, opts, count);
    check.bytes(count * 8);
    return withFrame(wasm, check, (f) => {
      const out = f.output('float64', count);
      call(check, wasm.pe_rotation(out, dModel, a.layout, a.freq, a.base, k));
      return matrix(dModel, dModel, into(f.read('float64', out, count, dtype)));
    });
  }

  function toyAttention(codes, positionCodes, options) {
    const check = new Checker('toyAttention');
    const opts = check.options(options, ['threshold', 'weights']);
    const threshold = check.finite('threshold', opts.threshold ?? 30);
    // every count before an element (check.later)
    const lc = check.later('codes', codes), n = lc.length;
    const lp = positionCodes !== undefined && positionCodes !== null ? check.later('positionCodes', positionCodes, n) : null;
    const lw = opts.weights !== undefined ? check.later('weights', opts.weights, n) : null;
    check.bytes(n * 8 * 5);
    fits(wasm, check);
    const vcodes = check.allFinite('codes', lc.read());
    const vpos = lp && check.allFinite('positionCodes', lp.read());
    const vweights = lw && check.allFinite('weights', lw.read());
    return withFrame(wasm, check, (f) => {
      const x = f.output('float64', n);
      const y = f.output('float64', n);
      const scalars = f.output('float64', 3); // sum, label (as int32), weighted
      call(check, wasm.pe_toy_attention(x, y, scalars, scalars + 8, scalars + 16,
        f.float64(vcodes, n), vpos ? f.float64(vpos, n) : 0,
        vweights ? f.float64(vweights, n) : 0, n, threshold));
      const [sum, , weighted] = f.read('float64', scalars, 3);
      const label = heapView(Int32Array, wasm, scalars + 8, 1)[0];
      return {
        x: [...f.read('float64', x, n)],
        y: [...f.read('float64', y, n)],
        sum,
        label: label ? 'happy' : 'unhappy',
        weighted,
      };
    });
  }

  // attention() reads its tensors once, unchecked for finiteness when the
  // float32 kernel may take them (it refuses a non-finite value itself, and a
  // refusal re-runs the call the checked way, which names the element).
  function attention(qArg, kArg, vArg, options) {
    const check = new Checker('attention');
    const opts = check.options(options, ['causal', 'mask', 'bias', 'scale', 'dtype', 'weights', 'out']);
    const wantWeights = check.boolean('weights', opts.weights ?? true);
    const dtype = check.oneOf('dtype', opts.dtype ?? 'float32', DTYPES);
    const causal = check.boolean('causal', opts.causal ?? false);
    check.finite('scale', opts.scale ?? 1, { above: 0 }); // before q, k and v are read, as every option
    const flash = !wantWeights && dtype === 'float32' && opts.mask == null && opts.bias == null;
    // q, k and v are read once every shape is checked, theirs and the mask's and the bias's (q of 2^24 nested rows
    // was read, 10 s, before k's shape refused it)
    const read = (name, value, ranks, also) => readNested(check, name, value, ranks, flash ? numbersOnly : undefined, also, 1);
    const q = read('q', qArg, [2, 3, 4]);
    const rank = q.shape.length;
    // the weights (and their float64 copy) too: q, k and v of 2^24 nested rows were read (29 s) to be refused for
    // 2^48 weights; q's rows times k's keys
    const k = read('k', kArg, [rank], (ks) => (wantWeights ? product(q.shape, 0, rank - 1) * ks[rank - 2] * 16 : 0));
    const v = read('v', vArg, [rank]);
    const s = attentionShape(check, q, k, v);
    const target = [s.b, s.heads, s.n, s.m];
    const nOut = s.b * s.heads * s.n * s.dv;
    const mask = extraArg(check, 'mask', opts.mask, target, maskElements);
    const bias = extraArg(check, 'bias', opts.bias, target, biasElements);
    // out: a typed array of dtype for the output, checked from the shapes before any element is read, and again below
    const o = outputArgs(check, { dtype, out: opts.out }, nOut);
    const nq = product(q.shape), nk = product(k.shape), nv = product(v.shape), nw = wantWeights ? s.b * s.heads * s.n * s.m : 0;
    // the float64 kernel's whole footprint, from the shapes: without the weights, the C core holds one row of scores instead
    // + SCRATCH_SLACK: the sizes, strides, rounding and the core's allowance (counted exactly, q [510, 131328], k and v of
    // one row came to 1 GiB: memory grew to it, kept, and the sizes' 28 bytes were refused)
    const held = (why) => check.bytes((nq + nk + nv + 2 * nw + nOut) * 8 + (wantWeights ? 0 : s.m * 8) + (mask ? mask.count : 0) + (bias ? bias.count * 8 : 0) + SCRATCH_SLACK, undefined, why);
    // the call's own: shared by every call, they were rewritten by an attention run from a function the caller planted
    // (the slice below), and this one's kernel took the other's sizes over its buffers (a debug build's allocator assertion)
    const DIMS = copyTyped(new Int32Array(7), [s.b, s.heads, s.kvHeads, s.n, s.m, s.dk, s.dv]);
    // The footprint of the call's kernel, before q, k and v are read: q, k and v of 2^25 values each (weights false and
    // float64) each fit, and were read, 12 s, to be refused by their sum; k and v of 2^27 (weights false, float32) by the
    // float32 kernel's (thirty-second pass). That kernel's f32x4 rows of V need dv % 8 == 0 (all common head sizes).
    const scale = opts.scale ?? 1 / Math.sqrt(s.dk);
    const f32 = flash && !(s.dv % 8) ? attentionF32(check, DIMS, nOut, causal, scale) : held();
    fits(wasm, check);
    // each by name, as every size and pointer below: an iterator or a method a caller planted on Array.prototype
    // answered other sizes (q's rows read as 64, and the core read past q into other memory)
    // every tensor's data fetched and counted (a TensorFlow.js tensor's dataSync()) before any tensor's elements are read
    q.ready(), k.ready(), v.ready(), mask?.ready(), bias?.ready();
    if (mask) mask.data = mask.data();
    if (bias) bias.data = bias.data();
    q.data = q.data();
    k.data = k.data();
    v.data = v.data();
    // out again once the last getter has run, before memory grows (kvCache.attend's forty-first pass)
    const given = o.out !== null ? o.target() : null;
    const lead = q.shape.slice(0, -1);
    if (flash) {
      // refused in float32: a non-finite input, or a float32 overflow (float64 below)
      const finite = () => {
        for (let i = 0, t; i < 3; i++) check.vector(`${'qkv'[i]}.data`, (t = [q, k, v][i]).data, product(t.shape));
      };
      const out = s.dv % 8 ? null : f32(q, k, v, finite, given);
      if (out) return { output: tensor([...lead, s.dv], given && out !== given ? o.into(out) : out) };
      finite(); // the kernel refused: a non-finite input, named here, or a float32 overflow (float64 below)
    }
    // (counts from the shapes: q, k and v hold them, each read by its slot to that count; past the float32 kernel, they
    // may still be the caller's arrays, whose own length 2 refused a valid call). Past a float32 overflow, said so: q, k
    // and v whose float32 call fitted were refused as "this call would need 1024.1 MiB" or "memory is exhausted", no why
    const why = flash ? ': q·kᵀ overflowed float32, so this call runs in float64' : '';
    held(why), fits(wasm, check, undefined, why);
    return withFrame(wasm, check, (f) => {
      const weights = wantWeights ? f.output('float64', nw) : 0;
      const out = f.output('float64', nOut);
      call(check, wasm.pe_attention_heads(weights, out, f.float64(q.data, nq), f.float64(k.data, nk), f.float64(v.data, nv),
        f.int32(DIMS, 7), causal ? 1 : 0, scale,
        mask ? f.copy(Uint8Array, mask.data, mask.count) : 0, mask ? f.int32(mask.strides, 4) : 0,
        bias ? f.float64(bias.data, bias.count) : 0, bias ? f.int32(bias.strides, 4) : 0));
      const result = (ptr, count, last) => tensor([...lead, last], f.read('float64', ptr, count, dtype));
      const output = result(out, nOut, s.dv);
      if (given) output.data = o.into(output.data);
      return wantWeights ? { weights: result(weights, nw, s.m), output } : { output };
    });
  }

  /**
   * The float32 output of the blocked kernel (c/flash.c), or null when it
   * refuses with PE_ERR_VALUE: attentionF32(...)(q, k, v, finite), its bytes
   * checked by the first call, before q, k and v are read. The kv heads go through it a run at a time
   * (about 256 KiB of q and k, or one head), each run copied into the same
   * buffers, the last one overlapping the one before if it must: the first
   * call of a process touches that much fresh memory, not all of q, k and v,
   * and each fresh page costs a fault (a fifth of that call at [1, 8, 512, 64]).
   */
  function attentionF32(check, dims, nOut, causal, scale) {
    const heads = dims[1], kvHeads = dims[2], n = dims[3], m = dims[4], dk = dims[5], dv = dims[6], rows = (heads / kvHeads) * n, all = dims[0] * kvHeads;
    const run = Math.min(all, Math.ceil(2 ** 16 / (m + rows) / dk)), sizes = [rows * dk, m * dk, m * dv, rows * dv]; // 2^16 floats, about 256 KiB a run (not a C limit)
    // q, k, v and the output of a run; the kernel's scratch: a block of K^T, a tile of queries and its scores, every row's accumulator, max and sum
    check.bytes((run * (sizes[0] + sizes[1] + sizes[2] + sizes[3]) + (dk + 4) * 68 + (rows + 4) * (dv + 2)) * 4 + SCRATCH_SLACK);
    // The kernel refuses a non-finite input once it is in its buffers: where they would grow memory,
    // a refusal would keep it, so the inputs are checked first (issue 22); elsewhere that is left to it.
    // out: written in place by a call of one run (the inputs are all in wasm memory before the kernel writes, so out may
    // be one of them, and a refusal leaves it untouched); a call of several runs fills a fresh array, copied to out at the end
    return (q, k, v, finite, out) => (roomFor(wasm, check) || finite(), withFrame(wasm, check, (f) => {
      // by index, not by map or forEach (methods a caller can plant on Array.prototype): a map returning its array gave the
      // sizes as the buffers, and q, k and v were written at those addresses, over the core's own memory
      const at = new Uint32Array(4), result = out && run === all ? out : new Float32Array(nOut); // (an index setter on Array.prototype left an array's at 0)
      for (let i = 4; i--; ) at[i] = f.output('float32', run * sizes[i]);
      const dp = f.int32(copyTyped(new Int32Array(7), [run, heads / kvHeads, 1, n, m, dk, dv]), 7);
      for (let h = 0, from, status; h < all; h += run) {
        from = Math.min(h, all - run);
        for (let i = 3, data, count; i--; ) {
          data = [q, k, v][i].data, count = run * sizes[i];
          if (typedLength(data) < (from + run) * sizes[i]) throw check.fail(TypeError, 'an input array changed while being read');
          // the run's part of a typed array, through a view of its buffer made from its internal slots; all of it as it is
          // (a small call's three views were a tenth of its cost)
          copyTyped(heapView(Float32Array, wasm, at[i], count), typedLength(data) === count ? data : partOf(data, from * sizes[i], count));
        }
        if ((status = wasm.pe_attention_f32(at[3], at[0], at[1], at[2], dp, causal ? 1 : 0, scale)) === PE_ERR_VALUE) return null;
        call(check, status);
        f.readInto(result, from * sizes[3], 'float32', at[3], run * sizes[3]);
      }
      return result;
    }));
  }

  return Object.freeze({
    table, frequencies, columns, tableGram, dot, norms, gram, rotation, toyAttention, attention,
    kvCache: createKvCache(wasm, call),
    memoryStats: () => memoryStats(wasm),
    presets: PRESETS,
    maxBytes: MAX_BYTES,
  });
}
