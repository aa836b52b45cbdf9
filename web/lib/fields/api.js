// The API of `posenc/fields`: sinusoids over diffusion timesteps, patch grids
// and coordinates, each in the convention of the library named by its preset
// (docs/fields.md). Every function validates all of its arguments with a
// Checker before allocating, calls one or two C functions of its module
// (dist/fields.wasm: c/timestep.c, patch_grid.c, fourier.c) and returns copies.
import { withFrame, statusCall, matrix, memoryStats, dtypeCode } from '../heap.js';
import { readNested } from '../tensor.js';
import { Checker, DTYPES, MAX_DIM, MAX_POSITION, SCRATCH_SLACK, bytesPer, isArray } from '../validate.js';
import * as C from '../../../dist/constants.js';
import { BASE_ABOVE, MIN_MAX_PERIOD, MIN_SINCOS_DIM, MIN_SPACED_GRID_DIM } from '../minimums.js';

/** Largest |angle| the core evaluates (PE_MAX_ANGLE): past it a double angle has no sine left. */
const MAX_ANGLE = C.PE_MAX_ANGLE;
const DEFAULT_FEATURES = 256; // random features when none are given: Tancik et al.'s m, a default (not a C limit)

// C enum values (c/posenc_fields.h, through the generated dist/constants.js).
const GRID_RULES = { mae: C.PE_GRID_MAE, spaced: C.PE_GRID_SPACED };
const FOURIER_LAYOUTS = { frequency: C.PE_FOURIER_BY_FREQUENCY, coordinate: C.PE_FOURIER_BY_COORDINATE };

/** diffusers get_timestep_embedding's arguments, per library. */
export const TIMESTEP_PRESETS = Object.freeze({
  // diffusers' defaults, which are Ho et al.'s DDPM (diffusion_tf/nn.py): sin first, frequencies over h - 1.
  diffusers: { flipSinToCos: false, downscaleFreqShift: 1 },
  ddpm: { flipSinToCos: false, downscaleFreqShift: 1 },
  // The Stable Diffusion UNet's time_proj: Timesteps(flip_sin_to_cos=True, downscale_freq_shift=0).
  'stable-diffusion': { flipSinToCos: true, downscaleFreqShift: 0 },
  // DiT's TimestepEmbedder.timestep_embedding (from GLIDE / ADM): cos first, frequencies over h.
  dit: { flipSinToCos: true, downscaleFreqShift: 0 },
});

/** The 2-D tables' conventions. */
export const GRID_PRESETS = Object.freeze({
  // MAE util/pos_embed.py: columns (w) first; clsToken prepends one zero row.
  mae: { frequencies: 'mae', baseSize: null, clsRows: 1 },
  // DiT models.py: MAE's table; its cls_token adds rows only with extra_tokens > 0.
  dit: { frequencies: 'mae', baseSize: null, clsRows: 0 },
  // diffusers get_2d_sincos_pos_embed: positions i / (gridSize / baseSize) / interpolationScale,
  // and DiT's rule for the class token.
  diffusers: { frequencies: 'mae', baseSize: 16, clsRows: 0 },
  // big_vision posemb_sincos_2d (simple ViT, no class token of its own): frequencies over k - 1.
  'big-vision': { frequencies: 'spaced', baseSize: null, clsRows: 1 },
});

/** NeRF positional encodings. */
export const FOURIER_PRESETS = Object.freeze({
  // The paper's gamma(p): 2^k pi p, applied to each coordinate, no input copy.
  'nerf-paper': { pi: true, includeInput: false, layout: 'coordinate', logSampling: true },
  // bmild/nerf's code and its PyTorch port (yenchenlin/nerf-pytorch get_embedder): no pi,
  // input first, then band by band the sines and the cosines of every coordinate.
  'nerf-pytorch': { pi: false, includeInput: true, layout: 'frequency', logSampling: true },
});

/**
 * A number or an array of finite numbers, as a typed array; size(n) checks the call's size from the count
 * before any element is read (2^24 timesteps were read, 2 s through a proxy, to be refused for the size).
 */
function numbers(check, name, value, size) {
  if (typeof value !== 'number') return check.vector(name, value, size);
  check.finite(name, value);
  size(1);
  const one = new Float64Array(1); // (not Float64Array.of, which a caller can replace)
  one[0] = value;
  return one;
}

/**
 * Points as { rows, cols, data } (one point per row) or a plain array of 1-D points; extra(rows, cols), the
 * bytes the call holds beside their copy, is refused with it before any point is read.
 */
function points(check, value, extra, before) {
  if (value !== null && typeof value === 'object' && !isArray(value) && !ArrayBuffer.isView(value)) {
    // the shape by index, not destructured: Array.prototype's iterator is the caller's to plant, and a [rows, cols] read
    // as [rows, 1] sized fourierFeatures' output for one coordinate, which the core then wrote past (a wasm trap, 2 blocks kept)
    const t = readNested(check, 'points', value, undefined, undefined, (shape) => extra(shape[0], shape[1]), 1);
    // a TensorFlow.js tensor's dataSync() and its count before before() reads a given B's elements: B's 2^21 were read,
    // then points' dataSync() of 7 values for 8 refused (thirty-seventh pass)
    t.ready();
    before?.();
    return { rows: t.shape[0], cols: t.shape[1], data: t.data() };
  }
  const data = numbers(check, 'points', value, (n) => {
    check.bytes(n * 8 + extra(n, 1));
    before?.();
  });
  return { rows: data.length, cols: 1, data };
}

function presetOf(check, opts, table, fallback) {
  return table[check.oneOf('preset', opts.preset ?? fallback, Object.keys(table))];
}

export function createFields(wasm) {
  const call = statusCall(wasm);

  // ---- diffusion timesteps ------------------------------------------------------------

  function timestepEmbedding(timesteps, dim, options) {
    const check = new Checker('timestepEmbedding');
    const opts = check.options(options, ['preset', 'flipSinToCos', 'downscaleFreqShift', 'scale', 'maxPeriod', 'dtype']);
    const preset = presetOf(check, opts, TIMESTEP_PRESETS, 'diffusers');
    check.size('dim', dim);
    const half = Math.floor(dim / 2);
    const flip = check.boolean('flipSinToCos', opts.flipSinToCos ?? preset.flipSinToCos);
    const shift = check.finite('downscaleFreqShift', opts.downscaleFreqShift ?? preset.downscaleFreqShift);
    if (half >= 1 && shift >= half) {
      // (naming the preset when the shift is its: dim 2 or 3 with the default preset was refused for an option not given)
      throw check.fail(RangeError, `downscaleFreqShift${opts.downscaleFreqShift == null ? " (the preset's)" : ''} must be less than dim / 2 (${half}): the frequencies divide by dim / 2 − shift`, shift);
    }
    const scale = check.finite('scale', opts.scale ?? 1);
    const maxPeriod = check.finite('maxPeriod', opts.maxPeriod ?? 10000, { min: MIN_MAX_PERIOD });
    const dtype = check.oneOf('dtype', opts.dtype ?? 'float32', DTYPES);
    // + SCRATCH_SLACK, here and below: the core's scratch check allows 64 bytes for rounding and every buffer has a
    // chunk header; counted exactly, a call within ~150 bytes of 1 GiB (dim 1048574, 255 timesteps) passed, grew
    // memory to 1020 MiB for its output and was refused by the core as "status 2", the memory kept
    const t = numbers(check, 'timesteps', timesteps, (n) => check.bytes(n * dim * bytesPer(dtype) + n * 8 + half * 8 + SCRATCH_SLACK));
    for (let i = 0; i < t.length; i++) {
      if (Math.abs(scale * t[i]) > MAX_POSITION) {
        throw check.fail(RangeError, `scale × timesteps[${i}] must lie within ±2^31`, scale * t[i]); // (the product: t[i] alone read as a product of 1)
      }
    }
    const n = t.length;
    return withFrame(wasm, check, (f) => {
      const out = f.output(dtype, n * dim);
      call(check, wasm.pe_timestep_embedding(out, dtypeCode(dtype), f.float64(t, n), n, dim, flip ? 1 : 0,
        shift, scale, maxPeriod));
      return matrix(n, dim, f.read(dtype, out, n * dim));
    });
  }

  // ---- sin-cos over positions and patch grids -------------------------------------------

  /** perAxis: frequencies per axis; minDim: the dim that gives 2 of them. */
  function gridRule(check, opts, preset, dim, perAxis, minDim) {
    const rule = check.oneOf('frequencies', opts.frequencies ?? preset.frequencies, Object.keys(GRID_RULES));
    if (rule === 'spaced' && perAxis < 2) {
      // whose rule it is: a preset's, where frequencies was not given ("frequencies" named an option not given)
      const whose = opts.frequencies === undefined ? `preset ${JSON.stringify(opts.preset)}'s ` : '';
      throw check.fail(RangeError, `${whose}frequencies "spaced" divides by (frequencies per axis − 1), so dim must be at least ${minDim}`, dim);
    }
    return GRID_RULES[rule];
  }

  function sincos1d(positions, dim, options) {
    const check = new Checker('sincos1d');
    const opts = check.options(options, ['frequencies', 'base', 'dtype']);
    check.integer('dim', dim, MIN_SINCOS_DIM, MAX_DIM); // (from 2: "from 1" named a range whose 1 is refused too, as odd)
    if (dim % 2) throw check.fail(RangeError, 'dim must be even: each frequency has a sin and a cos column', dim);
    const rule = gridRule(check, opts, { frequencies: 'mae' }, dim, dim / 2, 4);
    const base = check.finite('base', opts.base ?? 10000, { above: BASE_ABOVE });
    const dtype = check.oneOf('dtype', opts.dtype ?? 'float32', DTYPES);
    const pos = numbers(check, 'positions', positions, (n) => check.bytes(n * dim * bytesPer(dtype) + n * 8 + dim * 4 + SCRATCH_SLACK));
    // an element's name formed only for the one refused (2^24 names took 1.5 s)
    for (let i = 0; i < pos.length; i++) if (!(Math.abs(pos[i]) <= MAX_POSITION)) check.finite(`positions[${i}]`, pos[i], { min: -MAX_POSITION, max: MAX_POSITION });
    const n = pos.length;
    return withFrame(wasm, check, (f) => {
      const out = f.output(dtype, n * dim);
      call(check, wasm.pe_sincos_1d(out, dtypeCode(dtype), f.float64(pos, n), n, dim, rule, base));
      return matrix(n, dim, f.read(dtype, out, n * dim));
    });
  }

  /** Coordinates 0 .. size − 1 of one axis, as the preset places them. */
  function axisPositions(size, baseSize, interpolationScale) {
    const step = baseSize === null ? 1 : size / baseSize;
    const p = new Float64Array(size); // (by index: Float64Array.from follows an iterator planted on Object.prototype)
    for (let i = 0; i < size; i++) p[i] = i / step / interpolationScale;
    return p;
  }

  function sincos2d(gridH, gridW, dim, options) {
    const check = new Checker('sincos2d');
    const opts = check.options(options, ['preset', 'clsToken', 'extraTokens', 'baseSize', 'interpolationScale',
      'firstAxis', 'frequencies', 'base', 'dtype']);
    const preset = presetOf(check, opts, GRID_PRESETS, 'mae');
    check.size('gridH', gridH, C.PE_MAX_GRID);
    check.size('gridW', gridW, C.PE_MAX_GRID);
    check.integer('dim', dim, 2 * MIN_SINCOS_DIM, MAX_DIM); // (from 4: 1 to 3 are refused below too)
    if (dim % 4) throw check.fail(RangeError, 'dim must be a multiple of 4: each axis gets half, as sines and cosines', dim);
    const rule = gridRule(check, opts, preset, dim, dim / 4, MIN_SPACED_GRID_DIM);
    const base = check.finite('base', opts.base ?? 10000, { above: BASE_ABOVE });
    const cls = check.boolean('clsToken', opts.clsToken ?? false);
    const extra = opts.extraTokens == null ? (cls ? preset.clsRows : 0) : check.integer('extraTokens', opts.extraTokens, 0, C.PE_MAX_EXTRA_TOKENS);
    if (opts.extraTokens != null && opts.clsToken === false && extra > 0) {
      throw check.fail(TypeError, 'extraTokens needs clsToken (as in DiT and diffusers); leave clsToken out or set it to true');
    }
    const baseSize = opts.baseSize === undefined ? preset.baseSize
      : opts.baseSize === null ? null : check.finite('baseSize', opts.baseSize, { above: 0, max: MAX_POSITION });
    const interpolationScale = check.finite('interpolationScale', opts.interpolationScale ?? 1, { above: 0, max: MAX_POSITION });
    const firstAxis = check.oneOf('firstAxis', opts.firstAxis ?? 'w', ['w', 'h']);
    const dtype = check.oneOf('dtype', opts.dtype ?? 'float32', DTYPES);
    const posH = axisPositions(gridH, baseSize, interpolationScale);
    const posW = axisPositions(gridW, baseSize, interpolationScale);
    for (const [name, p] of [['gridH', posH], ['gridW', posW]]) {
      if (!(Math.abs(p[p.length - 1]) <= MAX_POSITION)) {
        throw check.fail(RangeError, `baseSize and interpolationScale put the last index of ${name} past ±2^31`, p[p.length - 1]);
      }
    }
    const rows = extra + gridH * gridW;
    check.bytes(rows * dim * bytesPer(dtype) + (gridH + gridW) * 8 + dim * 2 + SCRATCH_SLACK);
    return withFrame(wasm, check, (f) => {
      const out = f.output(dtype, rows * dim);
      call(check, wasm.pe_sincos_2d(out, dtypeCode(dtype), f.float64(posH, gridH), gridH, f.float64(posW, gridW), gridW,
        dim, extra, firstAxis === 'h' ? 1 : 0, rule, base));
      return { ...matrix(rows, dim, f.read(dtype, out, rows * dim)), gridH, gridW, extraTokens: extra };
    });
  }

  // ---- NeRF and random Fourier features ------------------------------------------------

  function fourierFeatures(pointsArg, options) {
    const check = new Checker('fourierFeatures');
    const opts = check.options(options, ['preset', 'levels', 'maxFreqLog2', 'includeInput', 'logSampling', 'pi', 'layout', 'dtype']);
    const preset = presetOf(check, opts, FOURIER_PRESETS, 'nerf-pytorch');
    const levels = check.size('levels', opts.levels ?? 10, C.PE_MAX_FOURIER_LEVELS);
    const log2 = C.PE_MAX_FOURIER_LOG2;
    // (null is absent here too: it was refused as "maxFreqLog2 must be … from -64 to 64 (got 1023)", a value not given)
    if (opts.maxFreqLog2 == null && levels - 1 > log2) {
      throw check.fail(RangeError, `levels above ${log2 + 1} need an explicit maxFreqLog2 (its default, levels − 1, must be at most ${log2})`, levels);
    }
    const maxFreqLog2 = check.finite('maxFreqLog2', opts.maxFreqLog2 ?? levels - 1, { min: -log2, max: log2 });
    const includeInput = check.boolean('includeInput', opts.includeInput ?? preset.includeInput);
    const logSampling = check.boolean('logSampling', opts.logSampling ?? preset.logSampling);
    const pi = check.boolean('pi', opts.pi ?? preset.pi);
    const layout = check.oneOf('layout', opts.layout ?? preset.layout, Object.keys(FOURIER_LAYOUTS));
    const dtype = check.oneOf('dtype', opts.dtype ?? 'float32', DTYPES);
    let cols;
    const p = points(check, pointsArg, (rows, d) => {
      cols = check.size('the output width (input + 2 × levels × coordinates)', (includeInput ? d : 0) + 2 * levels * d);
      return rows * cols * bytesPer(dtype) + SCRATCH_SLACK;
    });
    // The highest band: either end of the spacing, whichever is larger. The core's own bands (its pow,
    // linspace's rounding) can come out a few ulps above 2^maxFreqLog2: checked with 2^-40 to spare, so a
    // point it would refuse after allocating is refused here, naming it.
    const top = Math.max(1, 2 ** maxFreqLog2) * (pi ? Math.PI : 1);
    for (let i = 0; i < p.data.length; i++) {
      if (Math.abs(p.data[i]) * top * (1 + 2 ** -40) > MAX_ANGLE) {
        throw check.fail(RangeError, `points.data[${i}] × the highest frequency (${top}) must lie within ±2^42`, p.data[i]);
      }
      // copied into the result: float16 holds ±65504 (within 2^42, float32 and bfloat16 hold any)
      if (includeInput && dtype === 'float16' && Math.abs(p.data[i]) > 65504) {
        throw check.fail(RangeError, `points.data[${i}] must lie within ±65504: includeInput copies it into a float16 result`, p.data[i]);
      }
    }
    const count = p.rows * cols;
    return withFrame(wasm, check, (f) => {
      const out = f.output(dtype, count);
      // the points copied as rows × cols, the sizes the core reads (f.float64 refuses data of another length): by their
      // own length, a `reduce` planted on Array.prototype (the shape's product) gave 1 point of a 64 × 64 shape, and
      // the core read 4 095 values past it, wasm memory returned as features
      call(check, wasm.pe_fourier_features(out, dtypeCode(dtype), f.float64(p.data, p.rows * p.cols), p.rows, p.cols,
        levels, maxFreqLog2, logSampling ? 1 : 0, includeInput ? 1 : 0, pi ? 1 : 0, FOURIER_LAYOUTS[layout]));
      return matrix(p.rows, cols, f.read(dtype, out, count));
    });
  }

  function randomFourierFeatures(pointsArg, options) {
    const check = new Checker('randomFourierFeatures');
    const opts = check.options(options, ['features', 'sigma', 'seed', 'B', 'dtype']);
    const drawn = opts.B == null;
    if (!drawn && (opts.features != null || opts.sigma != null || opts.seed != null)) {
      throw check.fail(TypeError, 'give B, or features / sigma / seed to draw it, not both');
    }
    let m = drawn ? check.size('features', opts.features ?? DEFAULT_FEATURES, C.PE_MAX_FEATURES) : 0;
    // B is drawn by the learned table's code (c/learned.c), within its scale limit.
    const sigma = drawn ? check.finite('sigma', opts.sigma ?? 10, { min: 0, max: C.PE_LEARNED_MAX_SCALE }) : 0;
    const seed = drawn ? check.integer('seed', opts.seed ?? 0, 0, Number.MAX_SAFE_INTEGER) : 0;
    const dtype = check.oneOf('dtype', opts.dtype ?? 'float32', DTYPES);
    // A given B's shape (features × coordinates) first, then its data's type and count (readNested's checks, no
    // element read), its elements once the points are counted, before any point is read; the result and B beside the points' copy are refused
    // before any element of either is read. (B read inside the points' reader let B's getters detach or resize the
    // points between their length and their copy; B.data of the wrong length, or none, was refused after every point
    // was read: 2^22 reads of a proxy's, 1 s.)
    const b = drawn ? null : readNested(check, 'B', opts.B, [2], undefined, undefined, true);
    // (a nested B's rows, ragged ones refused, by b.data() below, once the points are counted: each row's length was read
    // first, and 2^20 rows of a proxy's were walked before points "x" or of the wrong count were refused; thirty-seventh pass)
    // B's data (a TensorFlow.js B's dataSync(), its count and storage) once the call's size is counted, before a point is
    // read: a dataSync() of 7 values for 8 was refused after every point was read (2^22 reads of a proxy's, thirty-sixth pass)
    let data;
    const p = points(check, pointsArg, (rows, d) => {
      if (b && b.shape[1] !== d) throw check.fail(RangeError, `B.cols must equal the points' coordinates (${d})`, b.shape[1]);
      m = b ? b.shape[0] : m;
      return m * d * 8 + rows * 2 * m * bytesPer(dtype) + SCRATCH_SLACK;
    }, () => (data = b && b.data()));
    // The core's bound (the largest row sum of |B|) before the result is allocated: a given B's computed as the core
    // computes it, a drawn B's by the core from its seed without making B (pe_fourier_gaussian_bound). B was drawn
    // first, alone, and one whose bound then refused the call kept the memory it took (512 MiB for 65 536 features
    // of 1024 coordinates).
    let top = 0, sum = 0;
    for (let i = 0; i < p.data.length; i++) top = Math.max(top, Math.abs(p.data[i]));
    for (let k = 0; data && k < m; k++) {
      let s = 0;
      for (let j = 0; j < p.cols; j++) s += Math.abs(data[k * p.cols + j]);
      sum = Math.max(sum, s);
    }
    // (only where a B could fail it, as it takes as long as drawing B: no |B_kj| passes 8.6 sigma, the largest
    // Box-Muller draw of 53-bit uniforms, so points within ±1 skip it at any sigma for up to 77 000 coordinates)
    if (!data && top * 2 * Math.PI * 9 * sigma * p.cols > MAX_ANGLE) {
      sum = withFrame(wasm, check.fn, (f) => {
        const out = f.output('float64', 1);
        call(check, wasm.pe_fourier_gaussian_bound(out, m, p.cols, seed, sigma));
        return f.read('float64', out, 1)[0]; // (by the view taken at load: wasm.memory.buffer handed a getter planted on Memory.prototype the memory)
      });
    }
    if (top * (2 * Math.PI * sum) > MAX_ANGLE) {
      throw check.fail(RangeError, 'an angle 2π B x lies past ±2^42 (2π · max row sum of |B| · max |x|); use smaller points or sigma');
    }
    const count = p.rows * 2 * m;
    return withFrame(wasm, check, (f) => {
      // a drawn B: B_kj ~ N(0, sigma^2), the learned table's seeded Gaussian stream (c/learned.c), m rows of d
      const bp = data ? f.float64(data, m * p.cols) : f.output('float64', m * p.cols);
      if (!data) call(check, wasm.pe_fourier_gaussian(bp, m, p.cols, seed, sigma));
      const out = f.output(dtype, count);
      call(check, wasm.pe_fourier_random(out, dtypeCode(dtype), f.float64(p.data, p.rows * p.cols), p.rows, p.cols, bp, m));
      return { ...matrix(p.rows, 2 * m, f.read(dtype, out, count)), B: matrix(m, p.cols, f.read('float64', bp, m * p.cols)) };
    });
  }

  return Object.freeze({
    timestepEmbedding, sincos1d, sincos2d, fourierFeatures, randomFourierFeatures,
    memoryStats: () => memoryStats(wasm),
  });
}
