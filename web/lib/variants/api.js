// The API of `posenc/variants`: the encodings that followed the 2017 sinusoid,
// RoPE, ALiBi, T5 buckets and Shaw clipping, a learned table, the binary
// counter, and the precision of the sinusoidal table in float32 / float16 /
// bfloat16. Each function validates everything with a Checker before
// allocating, calls one C function of its module (dist/variants.wasm: c/rope.c,
// alibi.c, relative.c, learned.c, binary.c, precision.c) and returns fresh copies.
import { withFrame, statusCall, oneCall, matrix, memoryStats, dtypeCode, asDtype, RESERVE_SLACK, fits, roomFor } from '../heap.js';
import { Float64Array, Uint32Array, heapView, copyOf } from '../intrinsics.js';
import * as C from '../../../dist/constants.js';
import { MIN_T5_BUCKETS, t5LeastDistance } from '../minimums.js';
import { Checker, DTYPES, MAX_POSITION, SCRATCH_SLACK, bytesPer, typedLength, sum, largest, copyTyped, product } from '../validate.js';
import { encodingArgs } from '../presets.js';
import { readNested, tensor, outputArgs } from '../tensor.js';
import { ropeCommon, configArgs, configShape } from './scaling.js';
import { createAxes, AXES_APPLY_KEYS, positionElements } from './axes.js';
import { mropePositions, ropeGridIds } from './mrope.js';
import { createRotary, tensorArg, elementsOf, cacheRowsCheck, evenSize, headDimArg, PAIRING_NAMES, LAYOUT_NAMES, FREQUENCY_ORDERS, generatorBytes } from './rotary.js';

// Option names to C enum values (c/posenc_variants.h, through the generated
// dist/constants.js, C below), and the limits the C core checks too.
const ALIBI_VARIANTS = { press: C.PE_ALIBI_PRESS, mpt: C.PE_ALIBI_MPT };
const ALIBI_MODES = { causal: C.PE_ALIBI_CAUSAL, symmetric: C.PE_ALIBI_SYMMETRIC };
const DISTRIBUTIONS = { normal: C.PE_DIST_NORMAL, uniform: C.PE_DIST_UNIFORM };
const FORMATS = { float32: C.PE_F32, float64: C.PE_F64, float16: C.PE_F16, bfloat16: C.PE_BF16 };
const PRECISION_MODES = { angle: C.PE_PREC_ANGLE, result: C.PE_PREC_RESULT, both: C.PE_PREC_BOTH };
/** Largest positions × dModel one precisionError call evaluates (65536 × 512). */
const PRECISION_MAX_WORK = C.PE_PRECISION_MAX_WORK;

/**
 * The positions option (finite, within ±2^31; `length` of them, or as a function length(n) allows), or null; not with
 * opts[other]. Counted now, its elements read by the function returned: ropeApply read a longrope's factors (rotaryDim
 * of them), then refused positions by their count, storage or type, or an offset beside them (fortieth pass).
 */
function positionsArg(check, opts, length, other) {
  const given = opts.positions;
  if (given === undefined || given === null) return null;
  if (opts[other] !== undefined) throw check.fail(TypeError, `give positions or ${other}, not both`);
  const later = check.later('positions', given, length);
  return () => positionElements(check, 'positions', later.read());
}

export function createVariants(wasm) {
  const call = statusCall(wasm);
  const run = oneCall(wasm);

  // ---- shared option readers --------------------------------------------------

  const paramsPtr = (f, params) => (params ? f.float64(params, params.length) : 0);
  const rotary = createRotary(wasm, paramsPtr);

  // ---- RoPE -----------------------------------------------------------------------

  /**
   * dim/2 frequencies and the attention factor of a checked base and scaling (a: ropeCommon's), in a
   * frame that reserves no call's footprint, the scaling checked before the output is allocated.
   */
  const frequencies = (check, dim, a, dtype, cache) => {
    const attentionFactor = withFrame(wasm, check.fn, (f) => rotary.scaled(f, check, a, dim, 0)); // the factor the frequencies' own call gives too
    // a cache's factor in its dtype, before the frequencies grow memory (a float16 mropeCache at a head of 2^18 kept 1 MiB)
    cache && asDtype(check, [attentionFactor], cache);
    // then the output, a longrope's factors and the core's dim / 2 frequencies reserved at once, or refused beside a handle
    // without room for them (the output grew memory, kept, before the core's scratch was refused)
    return withFrame(wasm, { fn: check.fn, footprint: 16 * dim + 1024 }, (f) => { // (not a C limit)
      const out = f.output('float64', dim / 2);
      call(check, wasm.pe_rope_frequencies(out, f.output('float64', 1), dim, a.base, a.code, paramsPtr(f, a.params)));
      return { invFreq: f.read('float64', out, dim / 2, dtype), attentionFactor };
    });
  };

  const axes = createAxes(wasm, call, frequencies);
  // frequencies()'s room beside what is live, before a scaling's factors are read: ropeFrequencies and ropeFromConfig
  // read 2^20 of them, then were refused "memory is exhausted" (thirty-sixth pass)
  const room = (check, dim) => fits(wasm, check, 16 * dim + 1024 + RESERVE_SLACK); // (not a C limit) frequencies()'s footprint

  function ropeFrequencies(dim, options) {
    const check = new Checker('ropeFrequencies');
    const opts = check.options(options, ['base', 'scaling', 'config', 'layerType', 'dtype']);
    evenSize(check, 'dim', dim);
    const dtype = check.oneOf('dtype', opts.dtype ?? 'float32', DTYPES); // before a scaling's factors are read
    room(check, dim);
    const a = ropeCommon(check, opts, dim);
    return frequencies(check, dim, a, dtype);
  }

  /** FLUX's axial RoPE: each axis's default frequencies θ^(−2k/d_a), concatenated in axis order. */
  function axialFrequencies(check, r, dtype) {
    const rotaryDim = sum(r.axial);
    const invFreq = new Float64Array(rotaryDim / 2);
    // each axis's width by index (its own array), its frequencies copied by slot: a map planted on Array.prototype gave
    // the core widths never checked (memory grown to 256 MiB, kept), a reduce or set planted there placed them
    for (let i = 0, at = 0, d; i < r.axial.length; i++, at += d / 2) {
      copyTyped(invFreq, frequencies(check, (d = r.axial[i]), { base: r.theta, code: C.PE_ROPE_DEFAULT, params: null }, 'float64').invFreq, at);
    }
    // in the dtype asked for, as every other result: float16 and bfloat16 came as a Float64Array of values, not bit patterns
    return { type: 'axial', axesDim: r.axial, theta: r.theta, headDim: r.headDim, rotaryDim, pairing: 'interleaved', invFreq: asDtype(check, invFreq, dtype), attentionFactor: 1, warnings: r.warnings };
  }

  function ropeFromConfig(config, options) {
    const check = new Checker('ropeFromConfig');
    const opts = check.options(options, ['layerType', 'layerIndex', 'seqLen', 'dtype']);
    const dtype = check.oneOf('dtype', opts.dtype ?? 'float64', DTYPES);
    if (opts.seqLen !== undefined) check.integer('seqLen', opts.seqLen, 1, MAX_POSITION);
    const a = configArgs(check, config, opts, room);
    const r = a.resolved;
    if (r.axial) return axialFrequencies(check, r, dtype);
    const { scaling, ...described } = r;
    if (r.type === 'none') return described;
    return { ...described, scaling, ...frequencies(check, r.rotaryDim, a, dtype) };
  }

  function ropeCache(maxLen, dim, options) {
    const check = new Checker('ropeCache');
    const opts = check.options(options, ['base', 'scaling', 'config', 'layerType', 'offset', 'layout', 'dtype']);
    check.size('maxLen', maxLen);
    evenSize(check, 'dim', dim);
    const offset = check.finite('offset', opts.offset ?? 0, { min: -MAX_POSITION, max: MAX_POSITION - (maxLen - 1) });
    const layout = check.oneOf('layout', opts.layout ?? 'half', LAYOUT_NAMES);
    const dtype = check.oneOf('dtype', opts.dtype ?? 'float32', DTYPES);
    const cols = layout === 'pairs' ? dim / 2 : dim;
    const count = maxLen * cols;
    // the output (copied out of wasm in blocks), and the core's dim / 2 frequencies
    check.bytes(2 * count * bytesPer(dtype) + dim * 4 + SCRATCH_SLACK);
    const a = ropeCommon(check, opts, dim); // its factors read once the size and the other options are checked (thirty-fifth pass)
    return withFrame(wasm, 'ropeCache', (f) => {
      const t = rotary.cacheTables(f, check, a, { maxLen, dim, offset, layout, dtype });
      return { cos: matrix(maxLen, cols, t.cos), sin: matrix(maxLen, cols, t.sin), attentionFactor: t.attentionFactor, layout };
    });
  }

  const APPLY_KEYS = ['pairing', 'headDim', 'rotaryDim', 'positions', 'offset', 'base', 'scaling', 'config', 'layerType', 'cos', 'sin', 'layout', 'dtype', 'out', ...AXES_APPLY_KEYS];
  function ropeApply(x, options) {
    const check = new Checker('ropeApply');
    const opts = check.options(options, APPLY_KEYS);
    // each where it does not apply too (a bad one was taken without a word: layout 'bogus' without cos, interleaved 'x'
    // or frequencies 'bogus' without section or axesDim, thirty-fourth pass), and before x or positions is read
    const layout = opts.layout === undefined ? null : check.oneOf('layout', opts.layout, LAYOUT_NAMES);
    check.boolean('interleaved', opts.interleaved ?? !1), check.oneOf('frequencies', opts.frequencies ?? 'axis', FREQUENCY_ORDERS);
    const multi = axes.multiAxis(check, opts); // M-RoPE, axial (axes.js): given, or read from an M-RoPE or axial config
    if (multi) return axes.axesApply(check, x, multi);
    const t = rotary.xArg(check, x);
    try {
      // [S, D], [H, S, D] or [B, H, S, D]: each of the blocks of S rows is rotated by the same positions.
      const s = t.shape[t.shape.length - 2], cols = t.shape[t.shape.length - 1]; // (by index, as every size: see rotary.js)
      const count = product(t.shape);
      const model = configShape(check, opts); // a config's head_dim, rotary dim and pairing are the defaults
      const headDim = opts.headDim ?? model.headDim ?? cols;
      headDimArg(check, headDim, cols, undefined, opts.headDim == null && model.headDim);
      // one not given is the config's rotary dim, and named so ("rotaryDim must be …", an option not given)
      const rotaryDim = evenSize(check, `rotaryDim${opts.rotaryDim == null ? " (the config's)" : ''}`, opts.rotaryDim ?? model.rotaryDim ?? headDim, headDim);
      const pairing = check.oneOf('pairing', opts.pairing ?? model.pairing ?? 'half', PAIRING_NAMES);
      const caches = opts.cos !== undefined || opts.sin !== undefined ? cacheArgs(check, opts, rotaryDim, pairing, layout) : null;
      const o = outputArgs(check, opts, count);
      // Rotated in float32 for float32, else in float64 (rounded to the dtype on the way out).
      const compute = o.dtype === 'float32' ? 'float32' : 'float64';
      const bytes = bytesPer(compute);
      // x in and out as the core counts it (pe_rope_rotate: x of 5 × 2^24 doubles passed, formed its rows, grew memory to
      // 1216 MiB and was refused as "status 2", kept); at once the rows and x, or before x the generator that forms them
      check.bytes(2 * count * bytes, 2 * s * rotaryDim * bytes + s * 8 + Math.max(count * bytes, generatorBytes(rotaryDim)));
      fits(wasm, check);
      // a longrope's factors and positions read once dtype, out and the size are checked (2^22 and 2^23 were read, then
      // refused by any: thirty-fifth pass), and a TensorFlow.js tensor's dataSync() counted before either (the factors,
      // 2^20 of a proxy's, were read, then x refused for a dataSync() of one value short: thirty-seventh pass)
      t.ready?.(), caches?.ready();
      const given = positionsArg(check, opts, s, 'offset');
      const offset = check.finite('offset', opts.offset ?? 0, { min: -MAX_POSITION, max: MAX_POSITION - (s - 1) });
      const a = caches ? null : ropeCommon(check, opts, rotaryDim, 'rotaryDim');
      const positions = given?.();
      if (caches) cacheRowsCheck(check, caches, positions, offset, s);
      // x's elements and the caches' read once every size is checked (their columns, shapes and layout were refused after them)
      t.data = elementsOf(t.data);
      if (caches) caches.cos = elementsOf(caches.cos), caches.sin = elementsOf(caches.sin);
      // out again once the last getter has run (x's, positions', the caches'), before memory grows: one detaching it was
      // refused only when written, after the frame had grown memory (96 MiB for x of 2^23 values, forty-first pass)
      const target = o.out && o.target();
      // Where the call's buffers would grow memory, a refusal by the kernel would keep it: the inputs are checked first
      // (issue 22); elsewhere the kernel's refusal names them (a third of a 1-token call's cost)
      const rowsGiven = caches && [caches, positions, offset, s];
      if (!roomFor(wasm, check)) {
        rotary.finite(check, 'x.data', t.data, 0, count, undefined, compute === 'float32');
        if (rowsGiven) rotary.finiteRows(check, ...rowsGiven, compute === 'float32');
      }
      const job = { data: t.data, count, dtype: compute, blocks: count / (s * cols), rows: s, cols, headDim, rd: rotaryDim, pairing, given: rowsGiven };
      // the scaling checked first (its status 7 grew nothing), then memory grown for the call at once, or, beside a handle
      // without room for it, refused: formed rows of 512 MiB grew memory (kept) before x's buffer was refused
      if (a) withFrame(wasm, check.fn, (f) => rotary.scaled(f, check, a, rotaryDim, (positions ? largest(positions) : offset + s - 1) + 1));
      return withFrame(wasm, check, (f) => {
        const at = { rd: rotaryDim, pairing, dtype: compute, rows: s, positions, offset };
        const rows = caches ? rotary.givenRows(f, caches, at) : rotary.formedRows(f, check, a, at);
        const direct = compute === o.dtype;
        const data = rotary.rotate(f, check, job, rows, direct ? target : null);
        return tensor(t.shape, direct ? data : o.into(asDtype(check, data, o.dtype)));
      });
    } finally {
      rotary.release(t);
    }
  }

  /** The cos and sin options: matrices of rotaryDim columns (the pairing's layout) or rotaryDim / 2 (pairs), read once. */
  function cacheArgs(check, opts, rd, pairing, layout) {
    if (opts.base !== undefined || opts.scaling !== undefined || opts.config !== undefined) throw check.fail(TypeError, 'give cos and sin, or base and scaling (or config), not both');
    const read = (name) => {
      if (opts[name] === undefined) throw check.fail(TypeError, `${name} is required with ${name === 'cos' ? 'sin' : 'cos'}`);
      const m = tensorArg(check, name, opts[name], [2], false);
      const rows = m.shape[0], cols = m.shape[1];
      if (cols !== rd && cols !== rd / 2) throw check.fail(RangeError, `${name} must have rotaryDim (${rd}) or rotaryDim / 2 columns`, cols);
      return { rows, cols, data: m.data, ready: m.ready };
    };
    const cos = read('cos');
    const sin = read('sin');
    if (sin.rows !== cos.rows || sin.cols !== cos.cols) throw check.fail(RangeError, `sin must have cos's shape [${cos.rows}, ${cos.cols}]`, `shape [${sin.rows}, ${sin.cols}]`);
    const expected = cos.cols === rd / 2 && rd > 0 && cos.cols !== rd ? 'pairs' : pairing;
    if (layout && layout !== expected) {
      throw check.fail(RangeError, `layout ${JSON.stringify(layout)} does not fit pairing ${JSON.stringify(pairing)} with ${cos.cols} columns (expected ${JSON.stringify(expected)})`);
    }
    return { rows: cos.rows, cols: cos.cols, cos: cos.data, sin: sin.data, ready: () => (cos.ready?.(), sin.ready?.()) };
  }

  /**
   * A reusable RoPE: the cos/sin caches of maxLen positions are formed once,
   * and apply() does nothing but gather the rows of its positions and rotate,
   * so a decode loop evaluates no trigonometry and re-reads no option.
   */
  function rope(options) {
    const check = new Checker('rope');
    const opts = check.options(options, ['dim', 'headDim', 'pairing', 'maxLen', 'base', 'scaling', 'config', 'layerType', 'dtype']);
    const model = configShape(check, opts); // a config's rotary dim, head_dim and pairing are the defaults
    const dim = evenSize(check, 'dim', opts.dim ?? model.rotaryDim);
    const headDim = opts.headDim ?? model.headDim ?? dim;
    // from dim, as dim coordinates of each head rotate ("from 2", then "at least dim (8)" for 2: a least refused too,
    // thirtieth pass); one not given is the config's head_dim, and named so (an option the caller had not given)
    evenSize(check, opts.headDim == null ? "the config's head_dim" : 'headDim', headDim, C.PE_MAX_DIM, dim);
    const maxLen = check.size('maxLen', opts.maxLen);
    const pairing = check.oneOf('pairing', opts.pairing ?? model.pairing ?? 'half', PAIRING_NAMES);
    const dtype = check.oneOf('dtype', opts.dtype ?? 'float32', ['float32', 'float64']); // what the kernel rotates in
    check.bytes(2 * maxLen * dim * bytesPer(dtype) + RESERVE_SLACK + generatorBytes(dim)); // as the handle's reserve() of its caches and their generator
    fits(wasm, check, check.footprint); // (its slack counted: reserve()'s room, asked before the factors below are read)
    const a = ropeCommon(check, opts, dim); // as in ropeCache
    const state = rotary.handle(check, a, { maxLen, dim, headDim, pairing, dtype });
    const cache = { rows: maxLen };

    /** x ([S, D], [H, S, D] or [B, H, S, D]) rotated at positions (S rows of the cache, or the first of S consecutive; default 0). */
    function apply(x, positions, out) {
      const ac = new Checker('rope.apply');
      // positions first: once x is read, nothing a caller wrote runs before its copy into wasm (out is read by its slots).
      // their count against x's rows (x's shape read, its elements later) before an element is read: a list of 2^24
      // positions was read whole, then refused for x's 2 rows (thirty-fourth pass)
      // and out and the call's size too (2^20 positions were read, then out refused: thirty-fifth pass)
      let tx, s, cols, count, o, offset = 0;
      const sizes = (n) => {
        tx = tensorArg(ac, 'x', x, [2, 3, 4], false), s = tx.shape[tx.shape.length - 2], cols = tx.shape[tx.shape.length - 1];
        if (n !== s && n !== null) throw ac.fail(RangeError, `positions must have ${s} elements to match`, n);
        headDimArg(ac, headDim, cols);
        count = product(tx.shape);
        // x's rows first: past maxLen, positions was refused as "an integer from 0 to -4080", whatever it was
        if (n === null) offset = ac.integer('positions', positions ?? 0, 0, maxLen - ac.size('x\'s rows (at most maxLen)', s, maxLen));
        // outputArgs: by internal slots, on a fixed-length buffer (instanceof threw a raw TypeError for a revoked Proxy)
        o = outputArgs(ac, { dtype, out }, count);
        ac.bytes(2 * count * bytesPer(dtype), (count + 2 * s * dim) * bytesPer(dtype)); // x in and out, as ropeApply's
        state.room(ac, count, n === null ? 0 : 2 * s * dim);
        tx.ready?.(); // (a TensorFlow.js x's dataSync(), counted, before a position is read)
      };
      const rows = typeof positions === 'number' || positions === undefined ? sizes(null) : ac.vector('positions', positions, sizes);
      if (rows) {
        // its count by slot: a length getter planted on Float64Array.prototype let 1 position rotate 2 rows, the second by
        // whatever rows the handle's gather buffer held (another call's freed memory)
        const n = typedLength(rows);
        if (n !== s) throw ac.fail(RangeError, `positions must have ${s} elements to match`, n);
        cacheRowsCheck(ac, cache, rows, 0, s);
      }
      // x's elements read once every size is checked: a nested x of 2^23 rows was read, then refused by maxLen (thirty-second pass)
      const job = { data: elementsOf(tx.data), count, blocks: count / (s * cols), rows: s, cols };
      return tensor(tx.shape, state.rotateAt(ac, job, rows, offset, o.out && o.target()));
    }

    const free = () => {
      rotary.unregister(handle);
      state.free();
    };
    const handle = Object.freeze({ dim, headDim, pairing, maxLen, dtype, attentionFactor: state.attentionFactor, apply, free });
    rotary.register(handle, state.free);
    return handle;
  }

  function ropePermutation(headDim, options) {
    const check = new Checker('ropePermutation');
    const opts = check.options(options, ['heads', 'inverse']);
    evenSize(check, 'headDim', headDim);
    const heads = check.size('heads', opts.heads ?? 1);
    const inverse = check.boolean('inverse', opts.inverse ?? false);
    const count = headDim * heads;
    check.bytes(count * 4);
    return run(check, 'int32', count, (out) => wasm.pe_rope_permutation(out, headDim, heads, inverse ? 1 : 0));
  }

  function ropePermute(w, options) {
    const check = new Checker('ropePermute');
    const opts = check.options(options, ['headDim', 'inverse', 'axis', 'dtype']);
    // read once the options are checked too (2^23 nested values were, 3 s, to be refused by one)
    // (its sizes by index: a destructuring follows an iterator a caller can plant, and answered rows and cols for the core)
    const { shape, data } = readNested(check, 'weights', w, undefined, undefined, undefined, 1), rows = shape[0], cols = shape[1];
    const axis = check.oneOf('axis', opts.axis ?? 'rows', ['rows', 'cols']);
    const along = axis === 'rows' ? rows : cols;
    const headDim = opts.headDim ?? along;
    headDimArg(check, headDim, along, `weights.${axis}`); // (weights of 3 rows and no headDim were "headDim must be even")
    const inverse = check.boolean('inverse', opts.inverse ?? false);
    const dtype = check.oneOf('dtype', opts.dtype ?? 'float32', DTYPES);
    const count = rows * cols;
    check.bytes(count * 16);
    fits(wasm, check);
    const values = data();
    asDtype(check, values, dtype); // the result holds the same values: one past the dtype's range is refused before the work
    return matrix(rows, cols, run(check, 'float64', count, (out, f) => wasm.pe_rope_permute(out, f.float64(values, count), rows, cols,
      headDim, inverse ? 1 : 0, axis === 'rows' ? 0 : 1), dtype));
  }

  // ---- ALiBi ----------------------------------------------------------------------

  function slopeArgs(check, heads, opts) {
    check.size('heads', heads, C.PE_MAX_HEADS);
    const variant = check.oneOf('variant', opts.variant ?? 'press', Object.keys(ALIBI_VARIANTS));
    const maxBias = check.finite('maxBias', opts.maxBias ?? 8, { above: 0 });
    return { variant: ALIBI_VARIANTS[variant], maxBias };
  }

  /** The heads' slopes in float64, in a frame that reserves nothing (a fresh Checker has no footprint, as in early). */
  const slopesOf = (check, heads, a) => run(new Checker(check.fn), 'float64', heads, (out) => wasm.pe_alibi_slopes(out, heads, a.variant, a.maxBias));

  function alibiSlopes(heads, options) {
    const check = new Checker('alibiSlopes');
    const opts = check.options(options, ['variant', 'maxBias', 'dtype']);
    const a = slopeArgs(check, heads, opts);
    const dtype = check.oneOf('dtype', opts.dtype ?? 'float32', DTYPES);
    return asDtype(check, slopesOf(check, heads, a), dtype);
  }

  function alibiBias(heads, qLen, options) {
    const check = new Checker('alibiBias');
    const opts = check.options(options, ['kLen', 'variant', 'maxBias', 'mode', 'maskValue', 'queryOffset', 'dtype']);
    const a = slopeArgs(check, heads, opts);
    check.size('qLen', qLen);
    const kLen = check.size('kLen', opts.kLen ?? qLen);
    const mode = check.oneOf('mode', opts.mode ?? 'causal', Object.keys(ALIBI_MODES));
    const maskValue = check.number('maskValue', opts.maskValue ?? -Infinity);
    // +Infinity added to a score makes softmax NaN: only -Infinity or a finite value masks.
    if (Number.isNaN(maskValue) || maskValue === Infinity) throw check.fail(RangeError, 'maskValue must be -Infinity or a finite number', maskValue);
    const queryOffset = check.integer('queryOffset', opts.queryOffset ?? 0, -(MAX_POSITION - 1), MAX_POSITION - 1 - qLen);
    const dtype = check.oneOf('dtype', opts.dtype ?? 'float32', DTYPES);
    // A finite mask past the dtype's range would become -Infinity silently (float32), or be refused only
    // after all the work, as an overflowing result (float16, bfloat16).
    const top = { float32: '3.4028235e38', bfloat16: '3.39e38', float16: '65504' }[dtype]; // (compared as numbers)
    if (Math.abs(maskValue) > top && maskValue > -Infinity) throw check.fail(RangeError, `maskValue must be -Infinity or within ±${top} for ${dtype}`, maskValue);
    const count = heads * qLen * kLen;
    check.bytes(count * bytesPer(dtype) + heads * 8 + SCRATCH_SLACK); // (the core's allowance and rounding: counted exactly, 1 × 277 × 969081 grew memory to 1 GiB, kept, and its slopes were refused)
    // The largest |bias| is the largest slope times the longest distance left unmasked (a corner's: the
    // first key from the last query, or in symmetric mode the last key from the first), the very product the
    // core forms. float16 rounds it to Infinity from 65520: refused here, before memory grows, not as an
    // overflowing result after the work (511 MiB kept). Slopes are at most 1 and distances below 2^32, so
    // bfloat16 and float32 hold every bias. The largest slope, 2^(-maxBias / P) for P the next power of two from
    // heads (either variant), is the one slope of one head of maxBias / P (exact): the heads' slopes, made before
    // this refusal, grew memory for it where the heap was full (512 KiB at 65536 heads, twentieth pass).
    // (one head: either variant; a's own, not Object.prototype's: a variant put there refused every call, status 4)
    const s = slopesOf(check, 1, { ...a, maxBias: a.maxBias / 2 ** Math.ceil(Math.log2(heads)) || a.maxBias })[0];
    const far = Math.max(queryOffset + qLen - 1, mode === 'causal' ? 0 : kLen - 1 - queryOffset);
    if (dtype === 'float16' && s * far >= 65520) {
      throw check.fail(RangeError, `queryOffset, qLen and kLen must keep |bias| = slope × distance below 65520 for float16: ${s} × ${far} (got queryOffset ${queryOffset}, qLen ${qLen}, kLen ${kLen})`);
    }
    const slopes = slopesOf(check, heads, a);
    const data = run(check, dtype, count, (out) => wasm.pe_alibi_bias(out, dtypeCode(dtype), heads, qLen, kLen, a.variant, a.maxBias,
      ALIBI_MODES[mode], maskValue, queryOffset));
    return { heads, rows: qLen, cols: kLen, shape: [heads, qLen, kLen], slopes: asDtype(check, slopes, dtype), data };
  }

  // ---- relative positions: T5 buckets, Shaw clipping --------------------------------

  function t5Args(check, opts) {
    const bidirectional = check.boolean('bidirectional', opts.bidirectional ?? true);
    // one range, as lab's t5Buckets: "from 1 to 65536" was followed by "at least 4" for 1 to 3
    const numBuckets = check.integer('numBuckets', opts.numBuckets ?? 32, bidirectional ? MIN_T5_BUCKETS : MIN_T5_BUCKETS / 2, C.PE_T5_MAX_BUCKETS);
    const least = t5LeastDistance(numBuckets, bidirectional);
    const maxDistance = check.integer('maxDistance', opts.maxDistance ?? 128, least, MAX_POSITION - 1);
    const precision = check.oneOf('precision', opts.precision ?? 'float32', ['float32', 'float64']);
    return { bidirectional: bidirectional ? 1 : 0, numBuckets, maxDistance, f32: precision === 'float32' ? 1 : 0 };
  }
  const T5_KEYS = ['bidirectional', 'numBuckets', 'maxDistance', 'precision'];

  function t5Bucket(relativePositions, options) {
    const check = new Checker('t5Bucket');
    const a = t5Args(check, check.options(options, T5_KEYS));
    const rel = check.vector('relativePositions', relativePositions, (n) => (check.bytes(n * 8), fits(wasm, check)));
    const n = rel.length;
    for (let i = 0; i < n; i++) check.integer(`relativePositions[${i}]`, rel[i], -(MAX_POSITION - 1), MAX_POSITION - 1);
    return run(check, 'int32', n, (out, f) => wasm.pe_t5_bucket(out, f.int32(rel, n), n, a.bidirectional, a.numBuckets, a.maxDistance, a.f32));
  }

  function t5BucketMatrix(qLen, options) {
    const check = new Checker('t5BucketMatrix');
    const opts = check.options(options, [...T5_KEYS, 'kLen', 'queryOffset']);
    check.size('qLen', qLen);
    const kLen = check.size('kLen', opts.kLen ?? qLen);
    const a = t5Args(check, opts);
    // every relative position j - (i + queryOffset) within ±(2^31 - 1), as the core's int32s hold them
    const queryOffset = check.integer('queryOffset', opts.queryOffset ?? 0, -MAX_POSITION + kLen, MAX_POSITION - qLen);
    const count = qLen * kLen;
    check.bytes(count * 4);
    return matrix(qLen, kLen, run(check, 'int32', count, (out) => wasm.pe_t5_bucket_matrix(out, qLen, kLen, queryOffset, a.bidirectional, a.numBuckets, a.maxDistance, a.f32)));
  }

  function shawClip(qLen, options) {
    const check = new Checker('shawClip');
    const opts = check.options(options, ['kLen', 'maxRelativePosition', 'shift', 'queryOffset']);
    check.size('qLen', qLen);
    const kLen = check.size('kLen', opts.kLen ?? qLen);
    const k = check.integer('maxRelativePosition', opts.maxRelativePosition ?? 16, 0, C.PE_MAX_DIM);
    const shift = check.boolean('shift', opts.shift ?? false);
    // tensor2tensor aligns the queries with the last keys (the cached case: one query, the last position).
    const queryOffset = check.integer('queryOffset', opts.queryOffset ?? kLen - qLen, -C.PE_MAX_DIM, C.PE_MAX_DIM);
    const count = qLen * kLen;
    check.bytes(count * 4);
    return matrix(qLen, kLen, run(check, 'int32', count, (out) => wasm.pe_shaw_matrix(out, qLen, kLen, k, shift ? 1 : 0, queryOffset)));
  }

  // ---- learned absolute table ---------------------------------------------------------

  const LEARNED_KEYS = ['seed', 'distribution', 'scale', 'dtype'];
  function learnedArgs(check, trainedLen, dModel, opts) {
    check.size('trainedLen', trainedLen);
    check.size('dModel', dModel);
    const seed = check.integer('seed', opts.seed ?? 0, 0, Number.MAX_SAFE_INTEGER);
    const distribution = check.oneOf('distribution', opts.distribution ?? 'normal', Object.keys(DISTRIBUTIONS));
    const scale = check.finite('scale', opts.scale ?? 0.02, { min: 0, max: C.PE_LEARNED_MAX_SCALE });
    const dtype = check.oneOf('dtype', opts.dtype ?? 'float32', DTYPES);
    return { seed, dist: DISTRIBUTIONS[distribution], scale, dtype };
  }

  // rows × dModel numbers (and `extra` bytes of input): within the byte limit, then
  // PE_LEARNED_MAX_ELEMENTS (2^26; a normal table of 2^28 took seconds)
  function learnedCount(check, what, rows, dModel, dtype, extra = 0) {
    const count = rows * dModel;
    check.bytes(count * bytesPer(dtype) + extra);
    if (count > C.PE_LEARNED_MAX_ELEMENTS) throw check.fail(RangeError, `${what} × dModel must be at most ${C.PE_LEARNED_MAX_ELEMENTS}`, count);
    fits(wasm, check);
    return count;
  }

  function learnedTable(trainedLen, dModel, options) {
    const check = new Checker('learnedTable');
    const a = learnedArgs(check, trainedLen, dModel, check.options(options, LEARNED_KEYS));
    const count = learnedCount(check, 'trainedLen', trainedLen, dModel, a.dtype);
    return matrix(trainedLen, dModel, run(check, a.dtype, count, (out) => wasm.pe_learned_table(out, dtypeCode(a.dtype), trainedLen, dModel, a.seed, a.dist, a.scale)));
  }

  function learnedRows(positions, trainedLen, dModel, options) {
    const check = new Checker('learnedRows');
    const a = learnedArgs(check, trainedLen, dModel, check.options(options, LEARNED_KEYS));
    // finite numbers, bounded by their count before any is read (2^24 of them were, 2.6 s, to be refused by it)
    const pos = check.vector('positions', positions, (n) => learnedCount(check, 'positions', n, dModel, a.dtype, n * 4));
    for (let i = 0, p; i < typedLength(pos); i++) {
      if (!Number.isInteger((p = pos[i])) || p < 0) throw check.fail(RangeError, `positions[${i}] must be a whole number from 0`, p);
      if (p >= trainedLen) {
        throw check.fail(RangeError, `positions[${i}] is ${p}, but no row exists past the trained length (rows 0 to ${trainedLen - 1})`);
      }
    }
    const n = pos.length;
    const count = learnedCount(check, 'positions', n, dModel, a.dtype, n * 4);
    return matrix(n, dModel, run(check, a.dtype, count, (out, f) => wasm.pe_learned_rows(out, dtypeCode(a.dtype), f.int32(pos, n), n, trainedLen, dModel, a.seed, a.dist, a.scale)));
  }

  // ---- binary encoding ----------------------------------------------------------------

  function binaryTable(maxLen, bits, options) {
    const check = new Checker('binaryTable');
    const opts = check.options(options, ['offset', 'signed', 'dtype']);
    check.size('maxLen', maxLen);
    check.size('bits', bits, 64);
    const offset = check.integer('offset', opts.offset ?? 0, 0, MAX_POSITION - (maxLen - 1));
    const signed = check.boolean('signed', opts.signed ?? false);
    const dtype = check.oneOf('dtype', opts.dtype ?? 'float32', DTYPES);
    const count = maxLen * bits;
    check.bytes(count * bytesPer(dtype));
    return matrix(maxLen, bits, run(check, dtype, count, (out) => wasm.pe_binary_table(out, dtypeCode(dtype), maxLen, bits, offset, signed ? 1 : 0)));
  }

  // ---- precision ------------------------------------------------------------------------

  function roundTo(values, format) {
    const check = new Checker('roundTo');
    const fmt = check.oneOf('format', format, Object.keys(FORMATS));
    const v = check.numbers('values', values, (n) => (check.bytes(n * 16), fits(wasm, check)));
    const n = v.length;
    return run(check, 'float64', n, (out, f) => wasm.pe_round(out, f.float64(v, n), n, FORMATS[fmt]));
  }

  function formatBits(values, format) {
    const check = new Checker('formatBits');
    const fmt = check.oneOf('format', format, ['float32', 'float16', 'bfloat16']);
    const v = check.numbers('values', values, (n) => (check.bytes(n * 12), fits(wasm, check)));
    const n = v.length;
    return withFrame(wasm, check, (f) => {
      const out = f.int32Output(n);
      call(check, wasm.pe_format_bits(out, f.float64(v, n), n, FORMATS[fmt]));
      return copyOf(heapView(Uint32Array, wasm, out, n), Uint32Array);
    });
  }

  function precisionError(dModel, options) {
    const check = new Checker('precisionError');
    const opts = check.options(options, ['positions', 'count', 'format', 'mode', 'preset', 'layout', 'frequencies', 'base']);
    check.size('dModel', dModel);
    const enc = encodingArgs(check, dModel, opts);
    const format = check.oneOf('format', opts.format ?? 'float16', Object.keys(FORMATS));
    const mode = check.oneOf('mode', opts.mode ?? 'angle', Object.keys(PRECISION_MODES));
    // Each (position, column) costs several roundings; above this a call would
    // run for minutes (2^24 columns at 65536 positions: two days). Checked before positions are read
    // (2^24 of them were, 2.5 s, to be refused by it).
    const bound = (n) => {
      check.bytes(n * 16);
      if (n * dModel > PRECISION_MAX_WORK) {
        throw check.fail(RangeError, `positions × dModel must be at most ${PRECISION_MAX_WORK}`, n * dModel);
      }
      fits(wasm, check);
    };
    let positions = positionsArg(check, opts, bound, 'count')?.();
    // count: positions 0..count - 1, made once the call is accepted
    const n = positions ? positions.length : check.size('count', opts.count ?? 65536); // 65536 by default (not a C limit)
    bound(n);
    // a refused count once made its 2^24 positions first (128 MiB and half a second)
    if (!positions) for (let i = n, p = (positions = new Float64Array(n)); i--; ) p[i] = i;
    return run(check, 'float64', n, (out, f) => wasm.pe_precision_error(out, f.float64(positions, n), n, dModel, enc.layout, enc.freq, enc.base,
      FORMATS[format], PRECISION_MODES[mode]));
  }

  return Object.freeze({
    ropeFrequencies, ropeCache, ropeApply, rope, ropePermutation, ropePermute,
    ropeFromConfig,
    mropePositions, mropeCache: axes.mropeCache, ropeAxialCache: axes.ropeAxialCache, ropeGridIds,
    alibiSlopes, alibiBias,
    t5Bucket, t5BucketMatrix, shawClip,
    learnedTable, learnedRows,
    binaryTable,
    roundTo, formatBits, precisionError,
    memoryStats: () => memoryStats(wasm),
  });
}
