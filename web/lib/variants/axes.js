// RoPE over several position axes: Qwen2/2.5-VL's sectioned and Qwen3-VL's
// interleaved M-RoPE (mropeCache), FLUX's EmbedND, diffusers' FluxPosEmbed and
// Pixtral's 2-D RoPE (ropeAxialCache), and ropeApply with [A, S] positions and
// a section or [S, A] ids and axesDim. Each model is a choice of frequencies
// and of the axis each frequency reads; this file makes that choice (from
// c/rope_scaling.c's frequencies) and c/rope_axes.c turns it into cos and sin.
import { withFrame, matrix, dtypeCode, fits } from '../heap.js';
import { Checker, DTYPES, MAX_DIM, MAX_POSITION, SCRATCH_SLACK, bytesPer, sum, largest, item, copyTyped, byIndex, product } from '../validate.js';
import { readNested, tensor, outputArgs, field } from '../tensor.js';
import { ropeCommon } from './scaling.js';
import { resolveConfig } from './config.js';
import { PAIRINGS, CACHE_LAYOUTS, PAIRING_NAMES, LAYOUT_NAMES, FREQUENCY_ORDERS, evenSize, headDimArg } from './rotary.js';

/**
 * Elements of positions and ids: within ±2^31 (the core refused them after allocating), from a real or an integer
 * tensor (HF's int64 position_ids); `count` of them, or any number from 1. An element's name is formed only for the
 * one refused: 2^24 names took 1.5 s, most of a ropeApply with positions (issue 22's twelfth pass).
 */
export const positionElements = (check, name, data, count) => {
  const v = check.vector(name, data, count);
  for (let i = 0; i < v.length; i++) if (!(Math.abs(v[i]) <= MAX_POSITION)) check.finite(`${name}[${i}]`, v[i], { min: -MAX_POSITION, max: MAX_POSITION });
  return v;
};
positionElements.integers = true;

// Option names to C enum values (c/posenc_variants.h); ropeCache and ropeApply use them too.
/** The options of the multi-axis form of ropeApply (besides its own). */
export const AXES_APPLY_KEYS = ['section', 'interleaved', 'axesDim', 'frequencies'];

/** The section option: whole numbers summing to `half` (HF's mrope_section), one per position row. */
// `name`: a config's mrope_section is named as the config's ("section must sum to ..." named an option not given)
function sectionArg(check, value, rows, half, name = 'section') {
  // one entry a row, counted before any is read (2^24 entries were each checked, 0.7 s, before this refused them); the
  // entries read by the function returned, once the call's size is checked and positions' dataSync() counted (2^20 of a
  // proxy's were read, then positions refused by its size or for a dataSync() one value short: thirty-ninth pass)
  const later = check.later(name, value, (n) => {
    if (n !== rows) throw check.fail(RangeError, `${name} has ${n} entries but positions has ${rows} rows`);
  });
  return () => {
    const s = check.allFinite(name, later.read());
    for (let i = 0; i < rows; i++) check.integer(`${name}[${i}]`, s[i], 0, half ?? MAX_DIM / 2); // (by index, as every size here: see sum())
    const total = sum(s);
    if (total < 1) throw check.fail(RangeError, `${name} must hold at least one frequency`, `[${s}]`);
    if (half !== undefined && total !== half) throw check.fail(RangeError, `${name} must sum to headDim / 2 (${half}), one entry per frequency`, `[${s}] (sum ${total})`);
    return byIndex(s, rows);
  };
}

/**
 * The axis each of the sum(section) frequencies reads. Sectioned (Qwen2-VL's
 * apply_multimodal_rotary_pos_emb: cos split by mrope_section * 2): the first
 * section[0] frequencies read row 0, the next section[1] row 1, ...
 * Interleaved (Qwen3-VL's apply_interleaved_mrope): frequency i reads row
 * a = i mod A when a > 0 and i < A · section[a], and row 0 otherwise.
 */
export function sectionAxes(section, interleaved) {
  const a = section.length;
  const n = sum(section);
  const axis = new Int32Array(n);
  if (interleaved) {
    for (let i = 0; i < n; i++) axis[i] = i % a && i < a * section[i % a] ? i % a : 0;
  } else {
    let i = 0;
    // by index, not the prototype's fill: one planted on Int32Array.prototype left every frequency on row 0 (cos and sin wrong, no word)
    for (let row = 0; row < a; row++) for (const end = i + section[row]; i < end; ) axis[i++] = row;
  }
  return axis;
}

/** axesDim: an even width per axis (FLUX's axes_dim), their sum at most MAX_DIM. */
function axesDimArg(check, value, axes, name = 'axesDim') {
  const d = check.vector(name, value, axes);
  for (let i = 0; i < axes; i++) evenSize(check, `${name}[${i}]`, d[i]);
  const total = sum(d);
  if (total > MAX_DIM) throw check.fail(RangeError, `${name} must sum to at most ${MAX_DIM}`, total);
  return byIndex(d, axes);
}

/** Positions as the C core reads them: axis-major, A × S. */
function axisMajor(t, idsRows) {
  if (!idsRows) return t.data;
  const s = t.shape[0], a = t.shape[1];
  const out = new Float64Array(s * a);
  for (let r = 0; r < s; r++) for (let k = 0; k < a; k++) out[k * s + r] = t.data[r * a + k];
  return out;
}

/** frequencies(check, dim, common): api.js's { invFreq, attentionFactor } of a head of width dim (c/rope_scaling.c), in float64. */
export function createAxes(wasm, call, frequencies) {
  /**
   * { freq, axis, attention } of a plan: M-RoPE (section: HF's frequencies of
   * a head of 2 sum(section), scaling included) or axial (axesDim: per axis
   * its own theta^(-2j/axesDim[a]), FLUX; or, with frequencies 'alternate',
   * the frequencies of one head of sum(axesDim), axis a taking every A-th
   * from the a-th, Pixtral).
   */
  function planFrequencies(check, plan, dtype) {
    if (plan.section) {
      const { invFreq, attentionFactor } = frequencies(check, plan.dim, plan.common, 'float64', dtype);
      return { freq: invFreq, axis: sectionAxes(plan.section, plan.interleaved), attention: attentionFactor };
    }
    const dims = plan.axesDim;
    const n = sum(dims) / 2;
    const freq = new Float64Array(n);
    const axis = new Int32Array(n);
    if (plan.alternate) {
      const w = frequencies(check, 2 * n, plan.common).invFreq;
      let at = 0;
      for (let a = 0; a < dims.length; a++) {
        for (let i = a; i < n; i += dims.length) { freq[at] = w[i]; axis[at++] = a; }
      }
    } else {
      let at = 0;
      for (let a = 0; a < dims.length; a++) {
        copyTyped(freq, frequencies(check, dims[a], plan.common).invFreq, at);
        for (const end = at + dims[a] / 2; at < end; ) axis[at++] = a; // by index, as sectionAxes
      }
    }
    return { freq, axis, attention: 1 };
  }

  /** The axial plan's options: axesDim, frequencies rule, base. */
  function axialPlan(check, opts, axes) {
    // the options first, then the list (its every entry was read to refuse frequencies 'x': thirty-fifth pass's seen and left)
    const rule = check.oneOf('frequencies', opts.frequencies ?? 'axis', FREQUENCY_ORDERS);
    if (opts.scaling !== undefined) throw check.fail(TypeError, 'scaling applies to M-RoPE (section), not to axial RoPE');
    const axesDim = axesDimArg(check, opts.axesDim, axes, opts.named);
    if (rule === 'alternate' && axesDim.some((d) => d !== axesDim[0])) {
      throw check.fail(RangeError, "frequencies 'alternate' (Pixtral) needs equal axesDim", `[${axesDim}]`);
    }
    return { __proto__: null, axesDim, alternate: rule === 'alternate', dim: sum(axesDim), common: () => ropeCommon(check, opts, largest(axesDim), 'axesDim (its largest)') };
  }

  /** t: positions [A, S], or ids [S, A] (idsRows) as readNested reads them later. */
  function cacheOut(check, rows, plan, t, idsRows, layout, dtype) {
    const n = plan.dim / 2;
    const cols = layout === 'pairs' ? n : 2 * n;
    const count = rows * cols;
    // The frequencies count too: each formed in wasm (n doubles, and the core's n
    // doubles of scratch), then passed in again with their axes (n doubles, n int32).
    // Counted short, a refused call grew memory by up to a GiB and kept it.
    check.bytes(2 * count * bytesPer(dtype) + t.shape[0] * t.shape[1] * 8 + n * 28 + 64);
    fits(wasm, check);
    // base and scaling: a longrope's factors read once the size is checked (thirty-fifth pass) and a TensorFlow.js
    // tensor's dataSync() counted (factors were read, then positions refused for one value short: thirty-eighth pass)
    t.ready(), plan.common = plan.common();
    // positions and ids are read once every check has passed (2^24 were, 2 s, to be refused by an option), and
    // before the frequencies are formed: those grow memory, which a refused element must not (eighteenth pass)
    t.data = t.data();
    const positions = axisMajor(t, idsRows);
    // before the frame reserves the call's memory: a base the scaling overflows, and (as in ropeCache) an attention
    // factor past the dtype's range, are refused first
    const p = planFrequencies(check, plan, dtype);
    return withFrame(wasm, check, (f) => {
      const cos = f.output(dtype, count);
      const sin = f.output(dtype, count);
      call(check, wasm.pe_rope_axes_cache(cos, sin, dtypeCode(dtype), f.float64(positions, positions.length), rows,
        positions.length / rows, f.float64(p.freq, n), f.int32(p.axis, n), n, p.attention, CACHE_LAYOUTS[layout]));
      return {
        cos: matrix(rows, cols, f.read(dtype, cos, count)),
        sin: matrix(rows, cols, f.read(dtype, sin, count)),
        attentionFactor: p.attention,
        layout,
        frequencies: p.freq,
        axis: p.axis,
      };
    });
  }

  /** A Qwen-VL config's mrope_section and mrope_interleaved, instead of the section and interleaved options. */
  function sectionOfConfig(check, opts, r) {
    if (opts.section !== undefined || opts.interleaved !== undefined) throw check.fail(TypeError, 'give config or section and interleaved, not both');
    if (!r.mropeSection) throw check.fail(RangeError, 'config has no mrope_section (in rope_scaling or rope_parameters): not an M-RoPE model');
    return { section: r.mropeSection, interleaved: r.mropeInterleaved, named: 'config mrope_section' };
  }

  function mropeCache(positions, headDim, options) {
    const check = new Checker('mropeCache');
    const opts = check.options(options, ['section', 'interleaved', 'base', 'scaling', 'config', 'layerType', 'layout', 'dtype']);
    evenSize(check, 'headDim', headDim);
    const t = readNested(check, 'positions', positions, [2], positionElements, undefined, 1);
    const rows = t.shape[0], s = t.shape[1];
    const m = opts.config === undefined ? opts : sectionOfConfig(check, opts, resolveConfig(check, opts.config, { layerType: opts.layerType }));
    if (m.section === undefined) throw check.fail(TypeError, 'section is required (the mrope_section of the model, e.g. [16, 24, 24]), or config');
    const layout = check.oneOf('layout', opts.layout ?? 'half', LAYOUT_NAMES);
    const dtype = check.oneOf('dtype', opts.dtype ?? 'float32', DTYPES);
    const interleaved = check.boolean('interleaved', m.interleaved ?? false);
    const section = sectionArg(check, m.section, rows, headDim / 2, m.named);
    // the section's entries read after base and the scaling (a longrope's factors counted, then read): the section was
    // read whole, then a factor list refused by its count (the stop after the fortieth pass's count family)
    const plan = { interleaved, dim: headDim, common: (c = ropeCommon(check, opts, headDim, 'headDim')) => ((plan.section = section()), c) };
    return cacheOut(check, s, plan, t, false, layout, dtype);
  }

  function ropeAxialCache(ids, options) {
    const check = new Checker('ropeAxialCache');
    const given = check.options(options, ['axesDim', 'frequencies', 'base', 'config', 'layerType', 'layout', 'pairing', 'dtype']);
    const opts = given.config === undefined ? given : axialOfConfig(check, given);
    const t = readNested(check, 'ids', ids, [2], positionElements, undefined, 1);
    const n = t.shape[0], axes = t.shape[1];
    if (opts.axesDim === undefined) throw check.fail(TypeError, 'axesDim is required (the width of each axis, e.g. FLUX [16, 56, 56]), or config');
    const pairing = check.oneOf('pairing', opts.pairing ?? 'interleaved', PAIRING_NAMES);
    const layout = check.oneOf('layout', opts.layout ?? pairing, LAYOUT_NAMES);
    if (opts.pairing !== undefined && layout !== 'pairs' && layout !== pairing) {
      throw check.fail(TypeError, `layout ${layout} contradicts pairing ${pairing}`);
    }
    const dtype = check.oneOf('dtype', opts.dtype ?? 'float32', DTYPES);
    const plan = axialPlan(check, opts, axes);
    return cacheOut(check, n, plan, t, true, layout, dtype);
  }

  /** The options with FLUX's axes_dims_rope and theta from a config (ropeFromConfig's reading). */
  function axialOfConfig(check, opts, r = resolveConfig(check, opts.config, {})) {
    for (const key of ['axesDim', 'base']) if (opts[key] !== undefined) throw check.fail(TypeError, `give config or ${key}, not both`);
    if (!r.axial) throw check.fail(RangeError, 'config has no axes_dims_rope: not an axial RoPE model (ropeFromConfig tells what it holds)');
    if (opts.layerType !== undefined) throw check.fail(RangeError, 'layerType needs a config with layer types (layer_types or rope_parameters keyed by layer type); this one has none', opts.layerType);
    return { __proto__: null, ...opts, config: undefined, axesDim: r.axial, base: r.theta, named: 'config axes_dims_rope' }; // no option from Object.prototype
  }

  /**
   * ropeApply's multi-axis options, or null for the 1-D form: section or
   * axesDim as given, or read from `config`: FLUX's axes (adjacent pairs), or
   * Qwen-VL's mrope_section when positions are [A, S] (1-D positions of such a
   * model are text: the 1-D form). A config's head_dim is headDim's default.
   */
  function multiAxis(check, opts) {
    if (opts.section !== undefined || opts.axesDim !== undefined) return opts;
    if (opts.config === undefined) return null;
    const r = resolveConfig(check, opts.config, { layerType: opts.layerType });
    const headDim = opts.headDim ?? r.headDim, configHead = opts.headDim == null; // (named as the config's when refused)
    if (r.axial) return { __proto__: null, ...axialOfConfig(check, opts, r), headDim, configHead, pairing: opts.pairing ?? 'interleaved' };
    // [A, S] positions (nested arrays, { shape }, a tensor's dims) are M-RoPE's; a list or a typed array is text. By
    // own fields: a `length` on Number.prototype made a list [0, 1, 2] M-RoPE's, a `shape` on Object.prototype a Float64Array
    const p = opts.positions;
    // a tensor is M-RoPE's whatever its fields (its rank checked there): a { rows, cols, data } was read as text ("positions
    // must be an array ... (got Object)"); a list, a typed array or an array-like (an own or class `length`) is text
    const twoD = () => (Array.isArray(p) ? Array.isArray(item(p, 0)) : Object(p) === p && !ArrayBuffer.isView(p) && field(p, 'length') === undefined);
    if (!r.mropeSection || !check.read('positions', twoD)) return null;
    return { __proto__: null, ...opts, headDim, configHead, ...sectionOfConfig(check, opts, r) };
  }

  /** ropeApply with a section ([A, S] positions) or axesDim ([S, A] ids); opts already read. */
  function axesApply(check, x, opts) {
    for (const key of ['offset', 'rotaryDim']) {
      if (opts[key] !== undefined) throw check.fail(TypeError, `${key} does not apply with section or axesDim (give the positions)`);
    }
    if (opts.section !== undefined && opts.axesDim !== undefined) throw check.fail(TypeError, 'give section or axesDim, not both');
    // x and positions: their elements are read once the call's size is checked
    const t = readNested(check, 'x', x, [2, 3, 4], undefined, undefined, 1);
    const rank = t.shape.length, s = t.shape[rank - 2], cols = t.shape[rank - 1];
    const headDim = opts.headDim ?? cols;
    headDimArg(check, headDim, cols, undefined, opts.configHead);
    const pairing = check.oneOf('pairing', opts.pairing ?? 'half', PAIRING_NAMES);
    if (opts.positions === undefined) throw check.fail(TypeError, 'positions are required with section or axesDim');
    const p = readNested(check, 'positions', opts.positions, [2], positionElements, undefined, 1);
    const bySection = opts.section !== undefined;
    const pRows = p.shape[bySection ? 0 : 1], pCols = p.shape[bySection ? 1 : 0];
    if (pCols !== s) throw check.fail(RangeError, `positions must be ${bySection ? '[axes, S]' : '[S, axes]'} with S = ${s} (x's rows)`, `shape [${p.shape}]`);
    const count = product(t.shape);
    const o = outputArgs(check, opts, count);
    let plan;
    if (bySection) {
      const section = sectionArg(check, opts.section, pRows, undefined, opts.named);
      // the width it rotates known once its entries are read (after the size, counted here with its bound, headDim)
      plan = { interleaved: check.boolean('interleaved', opts.interleaved ?? false), dim: headDim, common: () => (plan.dim = 2 * sum(plan.section = section()), wide(), ropeCommon(check, opts, plan.dim, `${opts.named ?? 'section'} (twice its sum)`)) };
    } else {
      plan = axialPlan(check, opts, pRows);
    }
    // named: "the rotated width (16) must be …" named nothing the call was given
    const per = bySection ? 2 : 1; // (a section counts frequencies, axesDim columns)
    const wide = () => {
      if (plan.dim > headDim) throw check.fail(RangeError, `${opts.named ?? (bySection ? 'section' : 'axesDim')} must sum to at most headDim${bySection ? ' / 2' : ''} (${headDim / per})`, plan.dim / per);
    };
    wide();
    // and the frequencies and their axes (6 bytes a column of plan.dim), rounding and the core's allowance: uncounted, x of
    // [63822, 1050] came 496 bytes under 1 GiB, grew memory to it (kept) and its 4200 bytes of frequencies were refused
    check.bytes(count * 16 + pRows * s * 8 + plan.dim * 6 + SCRATCH_SLACK);
    fits(wasm, check);
    t.ready(), p.ready(); // (a TensorFlow.js tensor's dataSync(), counted, before any element)
    plan.common = plan.common(); // as in cacheOut
    t.data = t.data();
    p.data = p.data();
    o.out && o.target(); // out again once the last getter has run, before memory grows (as ropeApply's, forty-first pass)
    const positions = axisMajor(p, !bySection);
    const { freq, axis, attention } = planFrequencies(check, plan); // as in cacheOut
    return withFrame(wasm, check, (f) => {
      const n = plan.dim / 2;
      const out = f.output('float64', count);
      const input = f.float64(t.data, count);
      const pos = f.float64(positions, positions.length);
      const fp = f.float64(freq, n);
      const ap = f.int32(axis, n);
      for (let at = 0; at < count * 8; at += s * cols * 8) {
        call(check, wasm.pe_rope_axes_apply(out + at, input + at, s, cols, headDim, PAIRINGS[pairing], pos, pRows, fp, ap, n, attention));
      }
      return tensor(t.shape, o.into(f.read('float64', out, count, o.dtype)));
    });
  }

  return { mropeCache, ropeAxialCache, axesApply, multiAxis };
}
