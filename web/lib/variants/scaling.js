// RoPE's frequency scalings as the API reads them: each type's name (its C
// enum value), its parameters with their defaults, and the reader that turns a
// `scaling` option (a type name or { type, ... }) into what c/rope_scaling.c takes.
import * as C from '../../../dist/constants.js';
import { MAX_POSITION } from '../validate.js';

export const SCALINGS = {
  default: C.PE_ROPE_DEFAULT, linear: C.PE_ROPE_LINEAR, ntk: C.PE_ROPE_NTK, yarn: C.PE_ROPE_YARN, llama3: C.PE_ROPE_LLAMA3,
  dynamic: C.PE_ROPE_DYNAMIC, longrope: C.PE_ROPE_LONGROPE,
};
const ROPE_PARAMS = C.PE_ROPE_PARAMS;

// Defaults per scaling type. Llama 3.1's published rope_scaling for llama3;
// YaRN's paper values for beta (Hugging Face defaults). `null`: required;
// 0: optional, absent (the C core's default). longrope's arrays are read apart.
const SCALING_DEFAULTS = {
  linear: { factor: null },
  ntk: { factor: null },
  dynamic: { factor: null, maxPosition: null, seqLen: 0 },
  yarn: { factor: null, originalMaxPosition: null, betaFast: 32, betaSlow: 1, attentionFactor: 0, mscale: 0, mscaleAllDim: 0 },
  llama3: { factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPosition: 8192 },
  longrope: { shortFactor: null, longFactor: null, originalMaxPosition: null, factor: 0, maxPosition: 0, attentionFactor: 0, seqLen: 0 },
};
// The index of each parameter in the C core's params array (c/posenc_variants.h);
// the lengths (> 100) hold positions, the others are factors.
const PARAM_SLOTS = {
  factor: 0, lowFreqFactor: 1, highFreqFactor: 2, betaFast: 4, betaSlow: 5, attentionFactor: 6, mscale: 9, mscaleAllDim: 10,
  originalMaxPosition: 103, maxPosition: 107, seqLen: 108,
};

export /** { code, params: Float64Array | null (the C core's params) } from the `scaling` option. */
function scalingArgs(check, scaling, dim) {
  if (scaling === undefined || scaling === null || scaling === 'default') return { code: C.PE_ROPE_DEFAULT, params: null };
  const spec = typeof scaling === 'string' ? { type: scaling } : scaling;
  if (typeof spec !== 'object' || check.read('scaling', () => Array.isArray(spec))) {
    throw check.fail(TypeError, 'scaling must be a type name or { type, ... }', scaling);
  }
  // Every key any type knows, each read once (own properties only); the
  // keys this type does not know are refused below.
  const all = check.options(spec, ['type', ...new Set(Object.values(SCALING_DEFAULTS).flatMap(Object.keys))], 'scaling');
  const type = check.oneOf('scaling.type', all.type, Object.keys(SCALINGS));
  if (type === 'default') return { code: C.PE_ROPE_DEFAULT, params: null };
  const defaults = SCALING_DEFAULTS[type];
  const known = ['type', ...Object.keys(defaults)];
  const extra = Object.keys(all).find((key) => all[key] !== undefined && !known.includes(key));
  if (extra) throw check.fail(TypeError, `unknown option ${JSON.stringify(extra)}; known options are ${known.join(', ')}`);
  const params = new Float64Array(ROPE_PARAMS + (type === 'longrope' ? dim : 0));
  for (const [key, fallback] of Object.entries(defaults)) {
    const v = all[key] ?? fallback;
    const name = `scaling.${key}`;
    if (v === null) throw check.fail(TypeError, `${name} is required for scaling type ${JSON.stringify(type)}`);
    const slot = PARAM_SLOTS[key];
    if (slot === undefined) { // longrope's shortFactor, longFactor: dim/2 factors each
      const f = check.vector(name, v, dim / 2);
      f.forEach((x, i) => check.finite(`${name}[${i}]`, x, { min: C.PE_ROPE_PARAM_MIN, max: C.PE_ROPE_PARAM_MAX }));
      params.set(f, ROPE_PARAMS + (key === 'longFactor' ? dim / 2 : 0));
    } else if (v !== 0 || fallback !== 0) {
      // The C core's bounds (PE_ROPE_PARAM_MIN/MAX): outside them a frequency can overflow or vanish.
      params[slot % 100] = check.finite(name, v, slot > 100
        ? { min: type === 'longrope' && slot === 103 ? 2 : 1, max: MAX_POSITION }
        : { min: C.PE_ROPE_PARAM_MIN, max: C.PE_ROPE_PARAM_MAX });
    }
  }
  if (type === 'llama3' && params[2] <= params[1]) throw check.fail(RangeError, `scaling.highFreqFactor must be greater than lowFreqFactor (${params[1]})`, params[2]);
  if (dim < 4 && /ntk|dyn/.test(type)) throw check.fail(RangeError, `NTK scaling (${type}) needs dim >= 4`, dim);
  if (!params[0] && !params[7]) throw check.fail(TypeError, 'scaling.factor or scaling.maxPosition is required for longrope');
  return { code: SCALINGS[type], params };
}

/** The base and the scaling of a RoPE call. */
export function ropeCommon(check, opts, dim) {
  const base = check.finite('base', opts.base ?? 10000, { above: 1 });
  // NTK's base × factor^(dim/(dim−2)) can overflow: the C core refuses it (status 7).
  return { base, ...scalingArgs(check, opts.scaling, dim) };
}
