// The encodings that followed the 2017 sinusoid: RoPE, ALiBi, T5 buckets and
// Shaw clipping, a learned table, the binary counter, and the precision of the
// sinusoidal table in float32 / float16 / bfloat16. Each function validates
// everything with a Checker before allocating, calls one C function of the
// core (c/rope.c, alibi.c, relative.c, learned.c, binary.c, precision.c) and
// returns fresh copies. api.js spreads createVariants(wasm) into the API.
import { withFrame, readCString } from './heap.js';
import { Checker, DTYPES, MAX_POSITION, bytesPer } from './validate.js';
import { PRESETS, PRESET_NAMES, LAYOUTS, FREQUENCY_RULES } from './presets.js';

// C enum values (c/posenc.h, section "variants").
const PAIRINGS = { interleaved: 0, half: 1 };
const SCALINGS = { default: 0, linear: 1, ntk: 2, yarn: 3, llama3: 4 };
const CACHE_LAYOUTS = { pairs: 0, half: 1, interleaved: 2 };
const ALIBI_VARIANTS = { press: 0, mpt: 1 };
const ALIBI_MODES = { causal: 0, symmetric: 1 };
const DISTRIBUTIONS = { normal: 0, uniform: 1 };
const FORMATS = { float32: 0, float64: 1, float16: 2, bfloat16: 3 };
const PRECISION_MODES = { angle: 0, result: 1, both: 2 };
const ROPE_PARAMS = 7;

// Defaults per scaling type. Llama 3.1's published rope_scaling for llama3;
// YaRN's paper values for beta (Hugging Face defaults). `null`: required.
const SCALING_DEFAULTS = {
  linear: { factor: null },
  ntk: { factor: null },
  yarn: { factor: null, originalMaxPosition: null, betaFast: 32, betaSlow: 1, attentionFactor: 0 },
  llama3: { factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPosition: 8192 },
};

// C status codes that mean "wrong type or unknown option" (as in api.js).
const TYPE_STATUSES = new Set([1, 4]);

const isF32 = (data) => data instanceof Float32Array;
const dtypeCode = (dtype) => (dtype === 'float32' ? 0 : 1);

export function createVariants(wasm) {
  function call(check, status) {
    if (status === 0) return;
    const text = readCString(wasm, wasm.pe_strerror(status));
    throw check.fail(TYPE_STATUSES.has(status) ? TypeError : RangeError, `${text} (status ${status})`);
  }

  const matrix = (rows, cols, data) => ({ rows, cols, data });

  /** Int32 buffers: a copy of `values`, or room for `count`. */
  function int32In(f, values) {
    const ptr = f.alloc(Math.max(values.length, 1) * 4);
    new Int32Array(wasm.memory.buffer, ptr, values.length).set(values);
    return ptr;
  }
  const int32Out = (f, count) => f.alloc(Math.max(count, 1) * 4);
  const readInt32 = (ptr, count) => new Int32Array(wasm.memory.buffer, ptr, count).slice();

  // ---- shared option readers --------------------------------------------------

  function evenSize(check, name, value, max) {
    check.size(name, value, max);
    if (value % 2) throw check.fail(RangeError, `${name} must be even: RoPE rotates pairs of coordinates`, value);
    return value;
  }

  /** { code, params: Float64Array(7) | null } from the `scaling` option. */
  function scalingArgs(check, scaling, dim) {
    if (scaling === undefined || scaling === null || scaling === 'default') return { code: 0, params: null };
    const spec = typeof scaling === 'string' ? { type: scaling } : scaling;
    if (typeof spec !== 'object' || Array.isArray(spec)) {
      throw check.fail(TypeError, 'scaling must be a type name or an object { type, factor, ... }', scaling);
    }
    const type = check.oneOf('scaling.type', spec.type, Object.keys(SCALINGS));
    if (type === 'default') return { code: 0, params: null };
    const defaults = SCALING_DEFAULTS[type];
    const known = ['type', ...Object.keys(defaults)];
    const opts = check.options(spec, known);
    const value = (key) => {
      const v = opts[key] ?? defaults[key];
      if (v === null) throw check.fail(TypeError, `scaling.${key} is required for scaling type ${JSON.stringify(type)}`);
      return v;
    };
    const factor = check.finite('scaling.factor', value('factor'), { above: 0 });
    if (type === 'ntk' && dim < 4) throw check.fail(RangeError, 'NTK scaling needs a dimension of at least 4 (it raises factor to dim/(dim-2))', dim);
    const params = new Float64Array(ROPE_PARAMS);
    params[0] = factor;
    if (type === 'llama3') {
      params[1] = check.finite('scaling.lowFreqFactor', value('lowFreqFactor'), { above: 0 });
      params[2] = check.finite('scaling.highFreqFactor', value('highFreqFactor'), { above: params[1] });
      params[3] = check.finite('scaling.originalMaxPosition', value('originalMaxPosition'), { above: 0 });
    }
    if (type === 'yarn') {
      params[3] = check.finite('scaling.originalMaxPosition', value('originalMaxPosition'), { above: 0 });
      params[4] = check.finite('scaling.betaFast', value('betaFast'), { above: 0 });
      params[5] = check.finite('scaling.betaSlow', value('betaSlow'), { above: 0 });
      params[6] = check.finite('scaling.attentionFactor', value('attentionFactor'), { min: 0 });
    }
    return { code: SCALINGS[type], params };
  }

  function ropeCommon(check, opts, dim) {
    const base = check.finite('base', opts.base ?? 10000, { above: 1 });
    return { base, ...scalingArgs(check, opts.scaling, dim) };
  }

  const paramsPtr = (f, params) => (params ? f.float64(params, ROPE_PARAMS) : 0);

  // ---- RoPE -----------------------------------------------------------------------

  function ropeFrequencies(dim, options) {
    const check = new Checker('ropeFrequencies');
    const opts = check.options(options, ['base', 'scaling']);
    evenSize(check, 'dim', dim);
    const a = ropeCommon(check, opts, dim);
    const h = dim / 2;
    return withFrame(wasm, 'ropeFrequencies', (f) => {
      const out = f.output('float64', h);
      const af = f.output('float64', 1);
      call(check, wasm.pe_rope_frequencies(out, af, dim, a.base, a.code, paramsPtr(f, a.params)));
      return { invFreq: f.read('float64', out, h), attentionFactor: f.read('float64', af, 1)[0] };
    });
  }

  function ropeCache(maxLen, dim, options) {
    const check = new Checker('ropeCache');
    const opts = check.options(options, ['base', 'scaling', 'offset', 'layout', 'dtype']);
    check.size('maxLen', maxLen);
    evenSize(check, 'dim', dim);
    const a = ropeCommon(check, opts, dim);
    const offset = check.finite('offset', opts.offset ?? 0, { min: -MAX_POSITION, max: MAX_POSITION - (maxLen - 1) });
    const layout = check.oneOf('layout', opts.layout ?? 'half', Object.keys(CACHE_LAYOUTS));
    const dtype = check.oneOf('dtype', opts.dtype ?? 'float32', DTYPES);
    const cols = layout === 'pairs' ? dim / 2 : dim;
    const count = maxLen * cols;
    check.bytes(2 * count * bytesPer(dtype));
    return withFrame(wasm, 'ropeCache', (f) => {
      const cos = f.output(dtype, count);
      const sin = f.output(dtype, count);
      const params = paramsPtr(f, a.params);
      call(check, wasm.pe_rope_cache(cos, sin, dtypeCode(dtype), maxLen, dim, a.base, a.code, params,
        offset, CACHE_LAYOUTS[layout]));
      const af = f.output('float64', 1);
      call(check, wasm.pe_rope_frequencies(f.output('float64', dim / 2), af, dim, a.base, a.code, params));
      return {
        cos: matrix(maxLen, cols, f.read(dtype, cos, count)),
        sin: matrix(maxLen, cols, f.read(dtype, sin, count)),
        attentionFactor: f.read('float64', af, 1)[0],
        layout,
      };
    });
  }

  function ropeApply(x, options) {
    const check = new Checker('ropeApply');
    const opts = check.options(options, ['pairing', 'headDim', 'positions', 'offset', 'base', 'scaling', 'dtype']);
    const m = check.matrix('x', x);
    const headDim = opts.headDim ?? m.cols;
    evenSize(check, 'headDim', headDim);
    if (m.cols % headDim) throw check.fail(RangeError, `x.cols must be a multiple of headDim (${headDim})`, m.cols);
    const pairing = check.oneOf('pairing', opts.pairing ?? 'half', Object.keys(PAIRINGS));
    const a = ropeCommon(check, opts, headDim);
    let positions = null;
    if (opts.positions !== undefined && opts.positions !== null) {
      if (opts.offset !== undefined) throw check.fail(TypeError, 'give positions or offset, not both');
      positions = check.vector('positions', opts.positions, m.rows);
      for (let i = 0; i < positions.length; i++) {
        check.finite(`positions[${i}]`, positions[i], { min: -MAX_POSITION, max: MAX_POSITION });
      }
    }
    const offset = check.finite('offset', opts.offset ?? 0, { min: -MAX_POSITION, max: MAX_POSITION - (m.rows - 1) });
    const dtype = check.oneOf('dtype', opts.dtype ?? (isF32(m.data) ? 'float32' : 'float64'), DTYPES);
    const count = m.rows * m.cols;
    check.bytes(count * 16 + m.rows * 8);
    return withFrame(wasm, 'ropeApply', (f) => {
      const out = f.output('float64', count);
      call(check, wasm.pe_rope_apply(out, f.float64(m.data, count), m.rows, m.cols, headDim, PAIRINGS[pairing],
        positions ? f.float64(positions, m.rows) : 0, offset, a.base, a.code, paramsPtr(f, a.params)));
      const data = f.read('float64', out, count);
      return matrix(m.rows, m.cols, dtype === 'float32' ? Float32Array.from(data) : data);
    });
  }

  function ropePermutation(headDim, options) {
    const check = new Checker('ropePermutation');
    const opts = check.options(options, ['heads', 'inverse']);
    evenSize(check, 'headDim', headDim);
    const heads = check.size('heads', opts.heads ?? 1);
    const inverse = check.boolean('inverse', opts.inverse ?? false);
    const count = headDim * heads;
    check.bytes(count * 4);
    return withFrame(wasm, 'ropePermutation', (f) => {
      const out = int32Out(f, count);
      call(check, wasm.pe_rope_permutation(out, headDim, heads, inverse ? 1 : 0));
      return readInt32(out, count);
    });
  }

  function ropePermute(w, options) {
    const check = new Checker('ropePermute');
    const opts = check.options(options, ['headDim', 'inverse', 'axis', 'dtype']);
    const m = check.matrix('weights', w);
    const axis = check.oneOf('axis', opts.axis ?? 'rows', ['rows', 'cols']);
    const along = axis === 'rows' ? m.rows : m.cols;
    const headDim = opts.headDim ?? along;
    evenSize(check, 'headDim', headDim);
    if (along % headDim) throw check.fail(RangeError, `weights.${axis} must be a multiple of headDim (${headDim})`, along);
    const inverse = check.boolean('inverse', opts.inverse ?? false);
    const dtype = check.oneOf('dtype', opts.dtype ?? (isF32(m.data) ? 'float32' : 'float64'), DTYPES);
    const count = m.rows * m.cols;
    check.bytes(count * 16);
    return withFrame(wasm, 'ropePermute', (f) => {
      const out = f.output('float64', count);
      call(check, wasm.pe_rope_permute(out, f.float64(m.data, count), m.rows, m.cols, headDim, inverse ? 1 : 0,
        axis === 'rows' ? 0 : 1));
      const data = f.read('float64', out, count);
      return matrix(m.rows, m.cols, dtype === 'float32' ? Float32Array.from(data) : data);
    });
  }

  // ---- ALiBi ----------------------------------------------------------------------

  function slopeArgs(check, heads, opts) {
    check.size('heads', heads, 65536);
    const variant = check.oneOf('variant', opts.variant ?? 'press', Object.keys(ALIBI_VARIANTS));
    const maxBias = check.finite('maxBias', opts.maxBias ?? 8, { above: 0 });
    return { variant: ALIBI_VARIANTS[variant], maxBias };
  }

  function alibiSlopes(heads, options) {
    const check = new Checker('alibiSlopes');
    const a = slopeArgs(check, heads, check.options(options, ['variant', 'maxBias']));
    return withFrame(wasm, 'alibiSlopes', (f) => {
      const out = f.output('float64', heads);
      call(check, wasm.pe_alibi_slopes(out, heads, a.variant, a.maxBias));
      return f.read('float64', out, heads);
    });
  }

  function alibiBias(heads, qLen, options) {
    const check = new Checker('alibiBias');
    const opts = check.options(options, ['kLen', 'variant', 'maxBias', 'mode', 'maskValue', 'queryOffset', 'dtype']);
    const a = slopeArgs(check, heads, opts);
    check.size('qLen', qLen);
    const kLen = check.size('kLen', opts.kLen ?? qLen);
    const mode = check.oneOf('mode', opts.mode ?? 'causal', Object.keys(ALIBI_MODES));
    const maskValue = check.number('maskValue', opts.maskValue ?? -Infinity);
    if (Number.isNaN(maskValue)) throw check.fail(RangeError, 'maskValue must not be NaN (use -Infinity or a finite number)', maskValue);
    const queryOffset = check.integer('queryOffset', opts.queryOffset ?? 0, -(MAX_POSITION - 1), MAX_POSITION - 1 - qLen);
    const dtype = check.oneOf('dtype', opts.dtype ?? 'float32', DTYPES);
    const count = heads * qLen * kLen;
    check.bytes(count * bytesPer(dtype) + heads * 8);
    return withFrame(wasm, 'alibiBias', (f) => {
      const out = f.output(dtype, count);
      call(check, wasm.pe_alibi_bias(out, dtypeCode(dtype), heads, qLen, kLen, a.variant, a.maxBias,
        ALIBI_MODES[mode], maskValue, queryOffset));
      const slopes = f.output('float64', heads);
      call(check, wasm.pe_alibi_slopes(slopes, heads, a.variant, a.maxBias));
      return { heads, rows: qLen, cols: kLen, slopes: f.read('float64', slopes, heads), data: f.read(dtype, out, count) };
    });
  }

  return {
    ropeFrequencies, ropeCache, ropeApply, ropePermutation, ropePermute,
    alibiSlopes, alibiBias,
  };
}
