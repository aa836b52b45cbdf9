// Reads a model's parsed config.json the way Hugging Face transformers 5 does
// (modeling_rope_utils.py: standardize_rope_params, validate_rope and the rope
// init functions) and says which RoPE one layer uses: its type, θ, head and
// rotary dims, pairing and the `scaling` option that gives HF's inv_freq
// through the C core. Every name of a type and of its parameters comes from
// rope-types.js. Where HF versions disagree, the newest is followed
// (docs/variants.md, "RoPE from a model's config", lists each case).
import { PARAMS, TYPES, COMMON_KEYS, IGNORED_KEYS, typeOfHf, hfKeys } from './rope-types.js';
import { isArray, isOptions, show, sum, byIndex, cut, typedLength, MAX_POSITION } from '../validate.js';

/**
 * What transformers' config classes fill in when a published config.json leaves
 * a RoPE value at the class default (Gemma 3's text config omits its θ). Used
 * with a warning naming the value, so that nothing is assumed silently.
 */
const MODEL_DEFAULTS = {
  gemma3_text: { rope_theta: 1000000, rope_local_base_freq: 10000, head_dim: 256, sliding_window_pattern: 6 }, // (not a C limit): transformers' values
  modernbert: { global_rope_theta: 160000, local_rope_theta: 10000, global_attn_every_n_layers: 3 },
  llama4_text: { no_rope_layer_interval: 4 },
  deepseek_v3: { rope_interleave: true },
  deepseek_v2: { rope_interleave: false },
};
/** rope_type names a model's config class rewrites before validation (Phi3Config: its early "su" and "yarn" were LongRoPE). */
const MODEL_RENAMES = { phi3: { su: 'longrope', yarn: 'longrope' } };
/** Models whose attention rotates adjacent pairs (complex multiplication) unless the config says otherwise. */
const INTERLEAVED_MODELS = ['llama4_text', 'llama4'];
const DEFAULT_THETA = 10000; // HF's RotaryEmbeddingConfigMixin.default_theta
/** Layers a config may list (Llama 4 has 48, the largest published models a few hundred): bounds the per-layer lists made here. */
const MAX_LAYERS = 65536; // (not a C limit)
/** A head or axis width read from a config (the C core then applies its own size limit). */
const MAX_WIDTH = 2 ** 20; // (not a C limit)

// by its tag, as an options object (not an array, typed array, Map, Date or other built-in kind: a Map as rope_scaling had
// no own keys and was read as no scaling); false for a revoked proxy, or one whose tag cannot be read
const isObject = (v) => {
  try {
    return typeof v === 'object' && v !== null && isOptions(v);
  } catch {
    return false;
  }
};

/** tables[key] for an own key only (a model_type such as "__proto__" or "toString" finds nothing). */
const own = (table, key) => (typeof key === 'string' && Object.hasOwn(table, key) ? table[key] : undefined);
/**
 * A list of a config's own strings (layer types, dict keys) in a message or warning: its first 9, each cut() as
 * a single one is. One of 2^29 - 24 characters failed as the engine's raw "Invalid string length", and 2^16
 * names of 2^13 (issue 22, nineteenth pass).
 */
const names = (list) => list.slice(0, 9).map(cut).join(', ') + ', …'.repeat(list.length > 9);
/** A plain dict with no prototype: a key planted on Object.prototype is not one of its keys. */
const bare = (entries = []) => Object.assign(Object.create(null), Object.fromEntries(entries));

/** A value HF 5's strict config classes type-check: absent (undefined or null), or `ok`. */
function typed(check, key, value, ok, what) {
  if (value != null && !ok(value)) throw check.fail(TypeError, `config.${key} must be ${what}`, value);
  return value;
}
const isString = (v) => typeof v === 'string';
const isBoolean = (v) => typeof v === 'boolean';
/** o[key] for an own key of the config, else undefined; typed() when `ok` is given. */
const field = (check, o, key, ok, what) => {
  const v = check.read(`config.${key}`, () => (Object.hasOwn(o, key) ? o[key] : undefined));
  return ok ? typed(check, key, v, ok, what) : v;
};

/** A reader of one config level: own keys, the model type's class defaults (with a warning), or undefined. */
function reader(check, cfg, warnings) {
  const type = field(check, cfg, 'model_type', isString, 'a string');
  const defaults = own(MODEL_DEFAULTS, type) ?? bare();
  return (key) => {
    const v = field(check, cfg, key);
    if (v == null && own(defaults, key) !== undefined) {
      warnings.push(`config.${key} is absent: transformers' default for ${type}, ${defaults[key]}, is used`);
      return defaults[key];
    }
    return v;
  };
}

/**
 * A whole number from 1 read from the config, named by its key (HF 5's strict classes type hidden_size and
 * num_attention_heads as int: a num_attention_heads of 0.5 made a head_dim of twice hidden_size, taken).
 */
const count = (check, key, value) => check.integer(`config.${key}`, value, 1, MAX_POSITION);

/** HF's head_dim: qk_rope_head_dim (DeepSeek's rotary part), head_dim, else hidden_size // num_attention_heads. */
function headDimOf(check, get) {
  for (const key of ['qk_rope_head_dim', 'head_dim']) {
    const v = get(key);
    if (v != null) return check.integer(`config.${key}`, v, 2, MAX_WIDTH);
  }
  const hidden = get('hidden_size'), heads = get('num_attention_heads');
  if (hidden == null || heads == null) {
    throw check.fail(TypeError, 'config needs head_dim, or hidden_size and num_attention_heads');
  }
  const width = Math.floor(count(check, 'hidden_size', hidden) / count(check, 'num_attention_heads', heads));
  return check.integer('config.hidden_size / num_attention_heads (the head_dim)', width, 2, MAX_WIDTH);
}

/**
 * A per-layer list (HF 5: a list or None), copied once: its length is bounded
 * before it is walked (a length of 2^32 - 1 hung the reader) and each entry
 * must pass `ok`. Null when absent.
 */
function layerList(check, key, value, ok, what) {
  const name = `config.${key}`;
  if (typed(check, key, value, isArray, 'a list, one entry per layer') == null) return null; // isArray: a revoked proxy's threw raw
  const n = check.read(name, () => +value.length); // a number once: a proxy's length object could say 2, then 2^31
  if (!(n >= 0 && n <= MAX_LAYERS)) throw check.fail(RangeError, `${name} may have at most ${MAX_LAYERS} entries`, n);
  const list = check.read(name, () => byIndex(value, n));
  for (const [i, v] of list.entries()) if (!ok(v)) throw check.fail(TypeError, `${name}[${i}] must be ${what}`, v);
  return list;
}

/** The layer types of the config: its layer_types, or those Gemma 3 and ModernBERT derive from their patterns. */
function layerTypesOf(check, get) {
  const given = layerList(check, 'layer_types', get('layer_types'), isString, 'a string');
  if (given) return given;
  const layers = get('num_hidden_layers');
  const n = layers == null ? undefined : check.integer('config.num_hidden_layers', layers, 1, MAX_LAYERS);
  const kind = (sliding) => (sliding ? 'sliding_attention' : 'full_attention');
  if (get('rope_local_base_freq') != null && n !== undefined) { // Gemma 3: every pattern-th layer is global
    const p = check.integer('config.sliding_window_pattern', get('sliding_window_pattern'), 1, n);
    return Array.from({ length: n }, (_, i) => kind((i + 1) % p !== 0));
  }
  if (get('global_rope_theta') != null && n !== undefined) { // ModernBERT: layer 0 and every n-th are global
    const every = check.integer('config.global_attn_every_n_layers', get('global_attn_every_n_layers'), 1, n);
    return Array.from({ length: n }, (_, i) => kind(i % every !== 0));
  }
  return null;
}

/** Llama 4's no_rope_layers: 1 = the layer uses RoPE; an empty list means HF's default, every interval-th layer without. */
function ropeLayersOf(check, get) {
  const given = layerList(check, 'no_rope_layers', get('no_rope_layers'), (v) => [0, 1, false, true].includes(v), '0 or 1');
  if (given?.length) return given.map((v) => v === 1 || v === true);
  const n = get('num_hidden_layers');
  const interval = get('no_rope_layer_interval'); // read only when used: its default warns
  if (given === null && interval == null) return null;
  const every = check.integer('config.no_rope_layer_interval', interval ?? 4, 1, MAX_LAYERS);
  return Array.from({ length: check.integer('config.num_hidden_layers', n, 1, MAX_LAYERS) }, (_, i) => (i + 1) % every !== 0);
}

/** A shallow own-key copy of a rope dict (HF mutates its own; the caller's object is never touched). */
function copyDict(check, name, dict) {
  if (!isObject(dict)) throw check.fail(TypeError, `${name} must be an object`, dict);
  return bare(check.read(name, () => Object.keys(dict).map((k) => [k, dict[k]])));
}

/** HF's standardize_rope_params: { dicts by layer type, nested } with rope_type, rope_theta and the lengths filled in. */
function standardize(check, get, layerTypes) {
  const raw = get('rope_scaling') ?? get('rope_parameters');
  let rp = raw == null ? bare() : copyDict(check, 'config.rope_parameters', raw);
  const theta = get('rope_theta') ?? rp.rope_theta ?? DEFAULT_THETA;
  const keys = Object.keys(rp);
  const types = new Set(layerTypes); // includes() per key was quadratic: 65 536 layer types took 8 s
  let nested = layerTypes !== null && keys.length > 0 && keys.every((k) => types.has(k));
  if (!nested && get('rope_local_base_freq') != null) { // Gemma 3 (v4 form): sliding layers default θ local
    rp = bare([['full_attention', rp], ['sliding_attention', { rope_type: 'default', rope_theta: get('rope_local_base_freq') }]]);
    rp.full_attention.rope_theta ??= get('rope_theta') ?? DEFAULT_THETA;
    nested = true;
  } else if (!nested && get('global_rope_theta') != null) { // ModernBERT (v4 form)
    rp = bare([['full_attention', { rope_type: 'default', rope_theta: get('global_rope_theta') }],
      ['sliding_attention', { rope_type: 'default', rope_theta: get('local_rope_theta') ?? DEFAULT_THETA }]]);
    nested = true;
  }
  const dicts = nested
    ? bare(Object.entries(rp).map(([k, d]) => [k, copyDict(check, `config.rope_parameters.${cut(k)}`, d)]))
    : bare([['', rp]]);
  const prf = get('partial_rotary_factor');
  const renames = own(MODEL_RENAMES, get('model_type')) ?? bare();
  for (const d of Object.values(dicts)) {
    d.rope_type ??= d.type ?? 'default';
    d.rope_type = own(renames, d.rope_type) ?? d.rope_type;
    d.rope_theta ??= theta;
    if (prf != null) d.partial_rotary_factor = prf; // the top-level value wins (HF)
    if (['llama3', 'yarn', 'longrope'].includes(typeOfHf(d.rope_type))) {
      // Phi-3 keeps the pretraining length at the top level: it wins, for a flat dict only.
      const top = get('original_max_position_embeddings');
      if (!nested && top !== undefined) d.original_max_position_embeddings = top;
      else if (get('max_position_embeddings') !== undefined) d.original_max_position_embeddings ??= get('max_position_embeddings');
    }
  }
  return { dicts, nested, prfTop: prf != null };
}

/** HF's validate_rope for one dict: refuses an unknown type or missing keys, returns its warnings. */
function validate(check, d, where, { prfTop, maxPosition }) {
  const type = typeof d.rope_type === 'string' ? typeOfHf(d.rope_type) : undefined;
  const known = Object.values(TYPES).flatMap((t) => (t.hf ? [t.hf, ...t.aliases] : []));
  if (!type) throw check.fail(RangeError, `${where}rope_type must be one of ${known.join(', ')}`, d.rope_type);
  const [required, optional] = hfKeys(type);
  const ignored = new Set([...IGNORED_KEYS, ...(prfTop ? ['partial_rotary_factor'] : []), 'type']);
  const received = Object.keys(d).filter((k) => !ignored.has(k));
  const missing = required.filter((k) => !received.includes(k) || d[k] === undefined);
  if (missing.length) throw check.fail(TypeError, `${where}missing required keys for rope_type "${d.rope_type}": ${missing.join(', ')}`);
  const warnings = [];
  const unknown = received.filter((k) => !COMMON_KEYS.includes(k) && !required.includes(k) && !optional.includes(k));
  if (unknown.length) warnings.push(`${where}unrecognized keys for rope_type "${d.rope_type}": ${names(unknown)}`);
  const f = d.factor;
  const checked = ['linear', 'dynamic', 'yarn', 'llama3'].includes(type) || (type === 'longrope' && f != null);
  if (checked && !(typeof f === 'number' && f >= 1)) warnings.push(`${where}factor must be a number >= 1, got ${show(f)}`);
  warnings.push(...typeWarnings(type, d, where, maxPosition));
  return { type, warnings };
}

/**
 * The warnings HF's per-type validators give beyond the keys and the factor.
 * Only numbers are compared (an object's valueOf, a Symbol or a BigInt threw
 * raw here): anything else is refused by name when the scaling is read.
 */
function typeWarnings(type, dict, where, max) {
  const w = [];
  const d = new Proxy(dict, { get: (o, k) => (typeof o[k] === 'number' ? o[k] : undefined) });
  const maxPosition = typeof max === 'number' ? max : NaN;
  if (type === 'yarn') {
    if ((d.beta_fast || 32) < (d.beta_slow || 1)) w.push(`${where}beta_fast must be greater than beta_slow`);
    if (typeof d.attention_factor === 'number' && d.attention_factor < 0) w.push(`${where}attention_factor must be positive`);
    const implicit = maxPosition / d.original_max_position_embeddings;
    if (d.factor && Number.isFinite(implicit) && implicit !== d.factor && implicit !== 1) {
      w.push(`${where}factor ${d.factor} differs from max_position_embeddings / original_max_position_embeddings = ${implicit}; the explicit factor is used (HF 5)`);
    }
  }
  if (type === 'longrope' && dict.factor == null) {
    w.push(`${where}no factor: max_position_embeddings / original_max_position_embeddings is used (HF recommends setting factor)`);
  }
  if (type === 'llama3') {
    if (d.high_freq_factor <= d.low_freq_factor) w.push(`${where}high_freq_factor must be greater than low_freq_factor (no blended band)`);
    if (d.original_max_position_embeddings >= maxPosition) w.push(`${where}original_max_position_embeddings must be less than max_position_embeddings`);
  }
  if (type === 'proportional' && dict.partial_rotary_factor == null) {
    w.push(`${where}partial_rotary_factor is absent: proportional then equals linear`);
  }
  if (dict.rope_type === 'su') w.push(`${where}rope_type "su" is the old name of "longrope"`);
  return w;
}

/** The JS `scaling` option of a validated dict: each parameter under its JS name (rope-types.js). */
function scalingOf(type, d, { maxPosition, seqLen }) {
  const spec = { type };
  for (const key of Object.keys(TYPES[type].params)) {
    const p = PARAMS[key];
    let v = p.hf ? d[p.hf] : key === 'maxPosition' ? maxPosition : key === 'seqLen' ? seqLen : undefined;
    if ((key === 'betaFast' || key === 'betaSlow' || key === 'mscale' || key === 'mscaleAllDim') && !v) v = undefined; // HF: `or default`
    if (v != null) spec[key] = v;
  }
  return spec;
}

/** The layer a call asks about: { key (a dict key), layerType, ropeless }. */
function pickLayer(check, { dicts, nested }, layerTypes, ropeLayers, opts) {
  const n = layerTypes?.length ?? ropeLayers?.length;
  // one entry a layer in each: layer 5 of 8 layer types and 4 no_rope_layers was reported as a layer without RoPE
  if (ropeLayers && ropeLayers.length !== n) throw check.fail(RangeError, `config.no_rope_layers must have ${n} elements to match layer_types`, ropeLayers.length);
  let layerType = opts.layerType;
  const index = opts.layerIndex;
  if (index !== undefined) {
    if (n === undefined) throw check.fail(RangeError, 'layerIndex needs a config with per-layer RoPE (layer_types or no_rope_layers)', index);
    check.integer('layerIndex', index, 0, n - 1);
    if (layerType !== undefined && layerTypes && layerTypes[index] !== layerType) {
      // shown as any value is (a BigInt, a cyclic object or a throwing toJSON escaped JSON.stringify raw)
      throw check.fail(typeof layerType === 'string' ? RangeError : TypeError, `layerType is not the type of layer ${index} (${cut(layerTypes[index])})`, layerType);
    }
    layerType = layerTypes?.[index];
  }
  if (layerType !== undefined) {
    const types = [...new Set(nested ? Object.keys(dicts) : layerTypes)];
    if (!types.length) throw check.fail(RangeError, 'layerType needs a config with layer types (layer_types or rope_parameters keyed by layer type); this one has none', layerType);
    // the type of a layer asked by index is the config's, named as such ("layerType must be one of" named an option not given)
    if (!types.includes(layerType)) {
      throw index !== undefined
        ? check.fail(RangeError, `layer ${index}'s type (config.layer_types[${index}]) has no RoPE parameters in config.rope_parameters, which has ${names(types)}`, layerType)
        : check.fail(typeof layerType === 'string' ? RangeError : TypeError, `layerType must be one of ${names(types)}`, layerType);
    }
  }
  const ropeless = index !== undefined && ropeLayers !== null && !ropeLayers[index];
  if (!nested) return { key: '', layerType, ropeless };
  layerType ??= Object.hasOwn(dicts, 'full_attention') ? 'full_attention' : Object.keys(dicts)[0];
  return { key: layerType, layerType, ropeless };
}

/** Qwen-VL's M-RoPE keys, for mropeCache: mrope_section (frequencies per time / height / width) and Qwen3-VL's mrope_interleaved. */
function mropeOf(check, d) {
  if (d.mrope_section == null) return {};
  // by index, as every size (Array.from and forEach follow what a caller can plant): see validate.js's sum()
  // counted before any is read, as axes_dims_rope: 2^24 entries (a proxy's) were read, 2.6 s, by every call given the
  // config (ropeApply's three readings of it, 7.7 s; a ropeCache of 2 rows), and refused by mropeCache only after
  const v = check.vector('config rope_parameters.mrope_section', d.mrope_section, (k) => check.integer('config rope_parameters.mrope_section (their count)', k, 1, MAX_WIDTH / 2)), n = typedLength(v);
  for (let i = 0; i < n; i++) check.integer(`config rope_parameters.mrope_section[${i}]`, v[i], 0, MAX_WIDTH);
  const section = byIndex(v, n);
  return { mropeSection: section, mropeInterleaved: !!typed(check, 'rope_parameters.mrope_interleaved', d.mrope_interleaved, isBoolean, 'true or false') };
}

/** FLUX's axial RoPE (diffusers' axes_dims_rope): one set of frequencies per axis, adjacent pairs. */
function axialOf(check, get, warnings) {
  // each axis at least 2 wide, their sum at most MAX_WIDTH: counted before any is read (2^24 were, 1.2 s, to be refused by their sum)
  const axes = check.vector('config.axes_dims_rope', get('axes_dims_rope'), (n) => check.integer('config.axes_dims_rope (their count)', n, 1, MAX_WIDTH / 2));
  for (let i = 0, d, name; i < typedLength(axes); i++) {
    // an odd axis was refused by the core as "this operation needs an even d_model (status 5)"
    if (check.integer((name = `config.axes_dims_rope[${i}]`), (d = axes[i]), 2, MAX_WIDTH) % 2) throw check.fail(RangeError, `${name} must be even (RoPE rotates pairs)`, d);
  }
  // Each axis bounded is not enough: 64 axes of 2^20 took 5 s and half a GiB. Their sum is the head's width.
  const width = check.integer('config.axes_dims_rope (their sum, the head width)', sum(axes), 2, MAX_WIDTH);
  // checked as every config's θ: a BigInt or a Symbol escaped raw from the core's call, a string or an object was
  // made a number there (its valueOf run) and came back as theta
  const theta = check.finite('config.theta', get('theta') ?? DEFAULT_THETA, { above: 1 });
  const headDim = get('attention_head_dim') == null ? width : check.integer('config.attention_head_dim', get('attention_head_dim'), width, MAX_WIDTH);
  return { __proto__: null, axial: byIndex(axes, typedLength(axes)), theta, headDim, warnings: [...new Set(warnings)] };
}

/**
 * The RoPE of one layer of a config: { type, theta, headDim, rotaryDim, pairing,
 * scaling (the JS option), layerTypes, layerType, warnings, originalMaxPosition,
 * maxPosition } or { type: 'none', ... }, or { axial } for FLUX.
 */
export function resolveConfig(check, config, opts) {
  opts = { __proto__: null, ...opts }; // layerIndex or seqLen on Object.prototype are not options
  if (!isObject(config)) throw check.fail(TypeError, 'config must be a parsed config.json object', config);
  const warnings = [];
  const text = field(check, config, 'text_config', isObject, 'an object');
  const cfg = text ?? config;
  const get = reader(check, cfg, warnings);
  if (get('axes_dims_rope') != null) return axialOf(check, get, warnings);
  const headDim = headDimOf(check, get);
  const layerTypes = layerTypesOf(check, get);
  const ropeLayers = ropeLayersOf(check, get);
  const std = standardize(check, get, layerTypes);
  // Typed as HF 5's strict classes type them, in every dict, not only the layer asked about
  // (a max_position_embeddings of "abc" came back as maxPosition; a sliding θ of "abc" passed for a full layer).
  const maxPosition = typed(check, 'max_position_embeddings', get('max_position_embeddings'), Number.isInteger, 'a whole number');
  // in range wherever given: -1, 0 or 1e300 were taken where no scaling reads it (and \`posenc inspect\` said "within -1")
  if (maxPosition != null) check.integer('config.max_position_embeddings', maxPosition, 1, MAX_POSITION);
  for (const [k, d] of Object.entries(std.dicts)) {
    const where = k && `rope_parameters.${cut(k)}: `;
    check.finite(`config rope_theta${k && ` (${cut(k)})`}`, d.rope_theta, { above: 1 });
    warnings.push(...validate(check, d, where, { prfTop: std.prfTop, maxPosition }).warnings);
    if (std.nested && d.truncate !== undefined) warnings.push(`${where}truncate is read by HF 5 only from a flat rope_parameters; ignored`);
  }
  const layer = pickLayer(check, std, layerTypes, ropeLayers, opts);
  const common = { layerTypes: layerTypes ?? undefined, layerType: layer.layerType, warnings: [...new Set(warnings)], maxPosition, headDim };
  // no prototype: an `axial` or `mropeSection` on Object.prototype made a Llama config axial (a raw TypeError) or M-RoPE
  if (layer.ropeless) return { __proto__: null, type: 'none', ...common };
  const d = std.dicts[layer.key];
  const type = typeOfHf(d.rope_type);
  if (std.nested) delete d.truncate;
  const theta = d.rope_theta;
  const prf = d.partial_rotary_factor ?? 1;
  check.finite('config.partial_rotary_factor', prf, { above: 0, max: 1 });
  const rotaryDim = type === 'proportional' ? headDim : Math.trunc(headDim * prf);
  if (rotaryDim % 2 || rotaryDim < 2) {
    throw check.fail(RangeError, `head_dim × partial_rotary_factor must be an even number of at least 2 (RoPE rotates pairs); it is ${headDim} × ${prf}`, rotaryDim);
  }
  const flag = typed(check, 'rope_interleave', get('rope_interleave'), isBoolean, 'true or false');
  const interleaved = flag ?? INTERLEAVED_MODELS.includes(get('model_type'));
  return {
    __proto__: null, ...common, type, theta, rotaryDim, pairing: interleaved ? 'interleaved' : 'half',
    scaling: scalingOf(type, d, { maxPosition, seqLen: opts.seqLen }),
    // typed as max_position_embeddings also where the type takes none (an object was reported as the trained length)
    originalMaxPosition: typed(check, 'rope_parameters.original_max_position_embeddings', d.original_max_position_embeddings, Number.isInteger, 'a whole number'),
    ropeLayers: ropeLayers ?? undefined,
    ...mropeOf(check, d),
  };
}
