// RoPE's frequency scalings as the API reads them: the reader that turns a
// `scaling` option (a type name or { type, ... }) into the C enum value and the
// image of C's struct pe_rope_params, every name, default and bound taken from
// the table in rope-types.js.
import * as C from '../../../dist/constants.js';
import { BASE_ABOVE, MIN_NTK_DIM, NTK_TYPES } from '../minimums.js';
import { PARAMS, TYPES } from './rope-types.js';
import { resolveConfig } from './config.js';

/** The JS names of every type (the values of scaling.type). */
export const SCALINGS = Object.fromEntries(Object.entries(TYPES).map(([name, t]) => [name, t.code]));
const FIELDS = C.pe_rope_params_fields;
/** Doubles before longrope's factors (the struct's fixed fields). */
export const FIXED = FIELDS.indexOf('factors');
/** Every parameter any type knows, for reading a `scaling` object once. */
const ALL_KEYS = ['type', ...Object.keys(PARAMS)];

/**
 * One parameter's value into the struct image, checked against the table's bounds; a list's elements (longrope's
 * factors) by the function returned, once every parameter is checked: shortFactor was read whole, then longFactor
 * refused by its count (the stop after the fortieth pass's count family).
 */
function writeParam(check, params, key, value, { dim, min, name }) {
  const p = PARAMS[key];
  if (p.kind === 'boolean') {
    params[FIELDS.indexOf(p.c)] = check.boolean(name, value) ? 1 : 0;
  } else if (p.kind === 'factors') { // longrope's shortFactor, longFactor: dim/2 each, short first
    const later = check.later(name, value, dim / 2);
    return () => {
      const f = check.allFinite(name, later.read());
      // an element named only when refused: 2^24 names and bounds objects took 1.7 s of a 2.2 s ropeFrequencies
      for (let i = 0, x; i < dim / 2; i++) (x = f[i]) >= p.min && x <= p.max || check.finite(`${name}[${i}]`, x, { min: p.min, max: p.max });
      params.set(f, FIXED + (key === 'longFactor' ? dim / 2 : 0));
    };
  } else {
    const bounds = Object.hasOwn(p, 'above') ? { above: p.min, max: p.max } : { min: min ?? p.min, max: p.max };
    params[FIELDS.indexOf(p.c)] = check.finite(name, value, bounds);
  }
}

/** The `scaling` object as a snapshot of its own keys (each read once), or a refusal naming `scaling`. */
function scalingObject(check, scaling) {
  const spec = typeof scaling === 'string' ? { type: scaling } : scaling;
  if (typeof spec !== 'object') throw check.fail(TypeError, 'scaling must be a type name or { type, ... }', scaling);
  // validate.js's option reader refuses arrays and typed arrays by name (issue 22 point 8).
  return check.options(spec, ALL_KEYS, 'scaling');
}

/** How a parameter is named in messages: as the `scaling` option's key, or (config) as the config's key. */
const OPTION_NAME = (key) => `scaling.${key}`;
const CONFIG_NAME = (key) => `config rope_parameters.${PARAMS[key].hf ?? PARAMS[key].config ?? key}`;

export /** { code, params: Float64Array | null (the image of C's pe_rope_params) } from the `scaling` option. */
function scalingArgs(check, scaling, dim, label = OPTION_NAME) {
  if (scaling === undefined || scaling === null || scaling === 'default') return { code: C.PE_ROPE_DEFAULT, params: null };
  const all = scalingObject(check, scaling);
  const type = check.oneOf('scaling.type', all.type, Object.keys(TYPES));
  const declared = TYPES[type].params;
  const known = ['type', ...Object.keys(declared)];
  const extra = Object.keys(all).find((key) => all[key] !== undefined && !known.includes(key));
  if (extra) throw check.fail(TypeError, `unknown option ${JSON.stringify(extra)} for scaling type ${JSON.stringify(type)}; known options are ${known.join(', ')}`);
  if (type === 'default') return { code: C.PE_ROPE_DEFAULT, params: null };
  const params = new Float64Array(FIXED + (type === 'longrope' ? dim : 0)), lists = [];
  for (const [key, spec] of Object.entries(declared)) {
    // own keys: a min (or above, required, unlisted) on Object.prototype moved a bound or a config's required keys
    const { default: fallback, min } = { __proto__: null, ...spec };
    const v = all[key] ?? fallback;
    if (v === null) throw check.fail(TypeError, `${label(key)} is required for scaling type ${JSON.stringify(type)}`);
    // absent: the C core derives it; 0 as HF reads it (mscale, seq_len: falsy, so absent), but an attention factor
    // of 0 is HF's 0 (is None), which its validator calls invalid: refused by its range (it was derived, silently)
    const zero = fallback === 0 && key !== 'attentionFactor';
    if (v === 0 && (zero || fallback === 0 && all[key] == null)) continue;
    // (said so: "seqLen must be … from 1" refused -1 and took 0, pass 36's seen-and-left)
    lists.push(writeParam(check, params, key, v, { dim, min, name: label(key) + (zero ? ' (0: as not given)' : '') }));
  }
  if (dim < MIN_NTK_DIM && NTK_TYPES.test(type)) throw check.fail(RangeError, `NTK scaling (${type}) needs dim >= ${MIN_NTK_DIM}`, dim);
  const at = (key) => params[FIELDS.indexOf(PARAMS[key].c)];
  if ((type === 'yarn' || type === 'longrope') && !at('factor')) {
    if (!at('maxPosition')) throw check.fail(TypeError, `${label('factor')} or ${label('maxPosition')} is required for ${type}`);
    // HF's factor, max_position_embeddings / original: the core refused it only as "NaN or infinite", after allocating
    const { min, max } = PARAMS.factor, implied = at('maxPosition') / at('originalMaxPosition');
    if (!(implied >= min && implied <= max)) throw check.fail(RangeError, `${label('maxPosition')} / ${label('originalMaxPosition')}, the factor it implies, must be from ${min} to ${max}`, implied);
  }
  for (const read of lists) read?.();
  return { code: SCALINGS[type], params };
}

/** The 1-D RoPE of the `config` option's layer (`layerType`), or a refusal for a config without one. */
function oneLayer(check, opts) {
  const r = resolveConfig(check, opts.config, { layerType: opts.layerType, layerIndex: undefined, seqLen: undefined });
  if (r.axial || r.type === 'none') {
    throw check.fail(RangeError, `config describes ${r.axial ? 'axial RoPE (axes_dims_rope)' : 'a layer without RoPE'}; ropeFromConfig tells what it holds`);
  }
  return r;
}

/** The base and scaling of one layer of a model's config (the `config` and `layerType` options). */
function fromConfig(check, opts, dim, name = 'the dim') {
  for (const key of ['base', 'scaling']) {
    if (opts[key] !== undefined) throw check.fail(TypeError, `give config or ${key}, not both`);
  }
  const r = oneLayer(check, opts);
  if (dim !== r.rotaryDim) {
    throw check.fail(RangeError, `${name} must be ${r.rotaryDim}, the config's rotary dim (head_dim ${r.headDim} × partial_rotary_factor)`, dim);
  }
  return { base: r.theta, ...scalingArgs(check, r.scaling, dim, CONFIG_NAME) };
}

/**
 * The base and the scaling of a RoPE call: `base` and `scaling`, or a model's `config` (+ `layerType`). `name`: what
 * gave dim, where the call has no dim (ropeApply's rotaryDim, mropeCache's headDim: "the dim must be …" named neither)
 */
export function ropeCommon(check, opts, dim, name) {
  if (opts.config !== undefined) return fromConfig(check, opts, dim, name);
  if (opts.layerType !== undefined) throw check.fail(TypeError, 'layerType needs config');
  const base = check.finite('base', opts.base ?? 10000, { above: BASE_ABOVE });
  // NTK's base × factor^(dim/(dim−2)) can overflow: the C core refuses it (status 7).
  return { base, ...scalingArgs(check, opts.scaling, dim) };
}

/** With a `config` option: its head_dim, rotary dim and pairing, the defaults of ropeApply and rope() (none without one). */
export function configShape(check, opts) {
  if (opts.config === undefined) return { headDim: undefined, rotaryDim: undefined, pairing: undefined }; // own keys: nothing read from Object.prototype
  return oneLayer(check, opts); // resolveConfig's answer: headDim, rotaryDim and pairing are its own keys
}

/** ropeFromConfig's reading of a config: what resolveConfig says, with the C core's arguments. */
export function configArgs(check, config, opts, room) {
  const r = resolveConfig(check, config, opts);
  if (r.axial || r.type === 'none') return { resolved: r };
  room(check, r.rotaryDim); // (the frequencies' room, before the factors are read)
  return { resolved: r, base: r.theta, ...scalingArgs(check, r.scaling, r.rotaryDim, CONFIG_NAME) };
}
