// Every RoPE frequency type posenc knows, declared once. Each type names its
// Hugging Face `rope_type` (and the older names configs still carry), its C
// enum value, the parameters it reads and which of them HF requires; each
// parameter names its key in a config's rope_parameters, its JS name in the
// `scaling` option, its CLI flag, its field of C's struct pe_rope_params,
// its bounds and what it means. Validation (scaling.js), ropeFromConfig
// (config.js), the CLI's flags and help, the docs table (docs/variants.md), the
// TypeScript union (index.d.ts) and the rope widget's menu derive from this
// file; tests/rope-types.test.js fails when one of them disagrees.
//
// Adding a type: one entry in TYPES (and its words in MEANINGS), its formula
// in c/rope_scaling.c (with its enum value in c/posenc_variants.h), its golden
// generator in tests/golden/gen_rope_config.py, its paragraph in
// docs/variants.md. `node scripts/rope-types-doc.mjs` then rewrites the docs
// table, the TypeScript union and the <pe-rope> row of docs/widgets.md;
// tests/rope-types.test.js names anything still missing, and
// tests/rope-types-new.test.js adds a type to a scratch copy of this file to
// show that nothing else needs a hand edit.
import * as C from '../../../dist/constants.js';
import { MAX_POSITION } from '../validate.js';
import { MIN_SIZE } from '../minimums.js';

const FACTOR = { min: C.PE_ROPE_PARAM_MIN, max: C.PE_ROPE_PARAM_MAX };
const LENGTH = { min: MIN_SIZE, max: MAX_POSITION };

/**
 * The parameters. kind: 'real' (bounded by min/max), 'length' (a position count),
 * 'boolean', 'factors' (dim/2 reals, longrope). hf: the key in rope_parameters
 * (null: not a rope_parameters key; `config` then names the top-level config key
 * it comes from, or none for a call-time value). c: the pe_rope_params field.
 * hf and c are the JS name in snake case unless given, and flag (the CLI's)
 * is always the JS name in kebab case: PARAMS below fills them in.
 */
const DECLARED = {
  factor: { kind: 'real', ...FACTOR },
  lowFreqFactor: { kind: 'real', ...FACTOR },
  highFreqFactor: { kind: 'real', ...FACTOR },
  originalMaxPosition: { hf: 'original_max_position_embeddings', kind: 'length', ...LENGTH },
  betaFast: { kind: 'real', ...FACTOR },
  betaSlow: { kind: 'real', ...FACTOR },
  attentionFactor: { kind: 'real', ...FACTOR },
  mscale: { kind: 'real', ...FACTOR },
  mscaleAllDim: { kind: 'real', ...FACTOR },
  truncate: { kind: 'boolean' },
  maxPosition: { hf: null, config: 'max_position_embeddings', kind: 'length', ...LENGTH },
  seqLen: { hf: null, kind: 'length', ...LENGTH },
  partialRotaryFactor: { c: 'rotary_fraction', kind: 'real', min: 0, max: 1, above: true },
  shortFactor: { c: 'factors', kind: 'factors', ...FACTOR },
  longFactor: { c: 'factors', kind: 'factors', ...FACTOR },
};
const snake = (key) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
/** Every parameter, its hf, c and flag filled in (lowFreqFactor: low_freq_factor, --low-freq-factor). */
export const PARAMS = Object.fromEntries(Object.entries(DECLARED).map(([key, p]) =>
  [key, { hf: snake(key), c: snake(key), flag: `--${snake(key).replaceAll('_', '-')}`, ...p }]));

/**
 * The types. hf: HF's rope_type, the name unless given (null: posenc's own,
 * refused in a config); aliases: older names HF still maps to it, none unless given. params: JS name -> { default, required }
 * where default is the JS API's (null: the caller must give it; 0: absent, the C
 * core derives it), required marks HF's required keys (a config lacking one is
 * refused), unlisted a key HF reads but its validation does not list (it warns),
 * and min overrides the parameter's lower bound for this type (longrope divides by ln).
 */
const TYPES_DECLARED = {
  default: { code: C.PE_ROPE_DEFAULT, aliases: ['mrope'], params: {} },
  linear: { code: C.PE_ROPE_LINEAR, params: { factor: { default: null, required: true } } },
  ntk: { code: C.PE_ROPE_NTK, hf: null, params: { factor: { default: null } } },
  dynamic: {
    code: C.PE_ROPE_DYNAMIC,
    params: { factor: { default: null, required: true }, maxPosition: { default: null }, seqLen: { default: 0 } },
  },
  yarn: {
    code: C.PE_ROPE_YARN,
    params: {
      factor: { default: 0, required: true }, originalMaxPosition: { default: null, required: true },
      betaFast: { default: 32 }, betaSlow: { default: 1 }, attentionFactor: { default: 0 },
      mscale: { default: 0 }, mscaleAllDim: { default: 0 }, truncate: { default: true }, maxPosition: { default: 0 },
    },
  },
  llama3: {
    code: C.PE_ROPE_LLAMA3,
    params: {
      factor: { default: 8, required: true }, lowFreqFactor: { default: 1, required: true },
      highFreqFactor: { default: 4, required: true }, originalMaxPosition: { default: 8192, required: true },
    },
  },
  longrope: {
    code: C.PE_ROPE_LONGROPE, aliases: ['su'],
    params: {
      shortFactor: { default: null, required: true }, longFactor: { default: null, required: true },
      originalMaxPosition: { default: null, required: true, min: 2 }, factor: { default: 0 }, maxPosition: { default: 0 },
      attentionFactor: { default: 0 }, seqLen: { default: 0 },
    },
  },
  proportional: {
    code: C.PE_ROPE_PROPORTIONAL,
    params: { factor: { default: 1, unlisted: true }, partialRotaryFactor: { default: 1 } },
  },
};

/** HF's keys a config may hold for every type without a warning. */
export const COMMON_KEYS = ['rope_type', 'type', 'rope_theta', 'partial_rotary_factor'];
/** Keys HF's model configs tell validation to ignore (M-RoPE's, read by mropeCache). */
export const IGNORED_KEYS = ['mrope_section', 'mrope_interleaved'];

/** Every type, its hf (the name, unless given) and aliases (none, unless given) filled in. */
export const TYPES = Object.fromEntries(Object.entries(TYPES_DECLARED).map(([name, t]) => [name, { hf: name, aliases: [], ...t }]));

/** Type names (posenc's) of an HF rope_type or alias, or undefined. */
export function typeOfHf(name) {
  return Object.keys(TYPES).find((t) => TYPES[t].hf !== null && (TYPES[t].hf === name || TYPES[t].aliases.includes(name)));
}

/** The rope_parameters keys HF knows for a type: [required, optional]. */
export function hfKeys(type) {
  // own flags only: a `required` or `unlisted` on Object.prototype changed which keys a config must hold
  const entries = Object.entries(TYPES[type].params).map(([k, p]) => [PARAMS[k].hf, { __proto__: null, ...p }]).filter(([hf, p]) => hf && !p.unlisted);
  return [true, false].map((r) => entries.filter(([, p]) => !p.required !== r).map(([hf]) => hf));
}

/**
 * What each type and parameter means, in English and Chinese: the docs table,
 * the CLI's help and the rope widget read it; each type's `name` is the
 * widget's short label for it. Nothing in web/lib imports it, so
 * the library's bundle does not carry the text.
 */
export const MEANINGS = {
  types: {
    default: {
      name: { en: 'none (plain RoPE)', zh: '不缩放（原始 RoPE）' },
      en: 'θ_i = base^(−2i/dim), as RoFormer',
      zh: 'θ_i = base^(−2i/dim)，即 RoFormer 的原始形式',
    },
    linear: {
      name: { en: 'linear (position interpolation)', zh: '线性（位置插值）' },
      en: 'position interpolation: every θ_i divided by the factor',
      zh: '位置内插：每个 θ_i 除以 factor',
    },
    ntk: {
      name: { en: 'NTK-aware (larger base)', zh: 'NTK-aware（增大底数）' },
      en: 'NTK-aware: base × factor^(dim/(dim−2)) (posenc only; HF has no such rope_type)',
      zh: 'NTK-aware：base × factor^(dim/(dim−2))（posenc 独有；HF 没有这个 rope_type）',
    },
    dynamic: {
      name: { en: 'dynamic NTK', zh: '动态 NTK' },
      en: 'NTK whose factor grows with seq_len past max_position_embeddings',
      zh: 'seq_len 超过 max_position_embeddings 后 factor 随之增大的 NTK',
    },
    yarn: {
      name: { en: 'YaRN', zh: 'YaRN' },
      en: 'YaRN: a ramp between kept and divided frequencies over the correction range, and an attention factor',
      zh: 'YaRN：在校正范围内从保持到除以 factor 线性过渡，并带注意力因子',
    },
    llama3: {
      name: { en: 'Llama 3', zh: 'Llama 3' },
      en: 'Llama 3.1: long wavelengths divided, short ones kept, a smooth blend between',
      zh: 'Llama 3.1：长波长除以 factor，短波长保持，中间平滑过渡',
    },
    longrope: {
      name: { en: 'LongRoPE (Phi-3)', zh: 'LongRoPE（Phi-3）' },
      en: 'LongRoPE (Phi-3): per-frequency divisors, short or long set by seq_len',
      zh: 'LongRoPE（Phi-3）：逐频率除数，按 seq_len 选短或长一组',
    },
    proportional: {
      name: { en: 'proportional (only part of the pairs rotate)', zh: '按比例（只有部分维度对旋转）' },
      en: 'a share of the pairs rotate with θ_i = base^(−2i/head_dim), the rest get 0; all divided by the factor',
      zh: '部分维度对以 θ_i = base^(−2i/head_dim) 旋转，其余为 0；全部除以 factor',
    },
  },
  params: {
    factor: {
      en: 'how many times the context is extended; frequencies are divided by it (fully or in part)',
      zh: '上下文扩展的倍数；频率（全部或部分）除以它',
    },
    lowFreqFactor: {
      en: 'wavelengths above original / lowFreqFactor are divided by the factor',
      zh: '波长大于 original / lowFreqFactor 的频率除以 factor',
    },
    highFreqFactor: {
      en: 'wavelengths below original / highFreqFactor are kept; between the two bands, a smooth blend',
      zh: '波长小于 original / highFreqFactor 的频率保持不变；两者之间平滑过渡',
    },
    originalMaxPosition: {
      en: 'the context length the model was pretrained with',
      zh: '模型预训练时的上下文长度',
    },
    betaFast: {
      en: 'frequencies turning more than betaFast times over the original length are kept (extrapolated)',
      zh: '在原始长度内转动超过 betaFast 圈的频率保持不变（外推）',
    },
    betaSlow: {
      en: 'frequencies turning fewer than betaSlow times are divided by the factor (interpolated); a ramp between',
      zh: '转动少于 betaSlow 圈的频率除以 factor（内插）；两者之间线性过渡',
    },
    attentionFactor: {
      en: 'multiplies cos and sin; by default derived from the factor',
      zh: '乘到 cos 和 sin 上；默认由 factor 推出',
    },
    mscale: {
      en: 'with mscaleAllDim, the attention factor is get_mscale(factor, mscale) / get_mscale(factor, mscaleAllDim) (DeepSeek)',
      zh: '与 mscaleAllDim 同时给出时，注意力因子为 get_mscale(factor, mscale) / get_mscale(factor, mscaleAllDim)（DeepSeek）',
    },
    mscaleAllDim: {
      en: 'the denominator\'s mscale of the attention factor (see mscale)',
      zh: '注意力因子分母中的 mscale（见 mscale）',
    },
    truncate: {
      en: 'round the correction range to whole dimensions (floor / ceil); false keeps it fractional',
      zh: '把校正范围取整到整数维度（向下 / 向上取整）；false 保留小数',
    },
    maxPosition: {
      en: 'the model\'s max_position_embeddings (dynamic\'s reference length; the implied factor of yarn and longrope)',
      zh: '模型的 max_position_embeddings（dynamic 的参考长度；yarn 与 longrope 的隐含 factor）',
    },
    seqLen: {
      en: 'HF\'s seq_len: by default the call\'s largest position + 1 (none for ropeFrequencies)',
      zh: 'HF 的 seq_len：默认为本次调用最大位置加 1（ropeFrequencies 没有）',
    },
    partialRotaryFactor: {
      en: 'the share of the head\'s pairs that rotate; the others get frequency 0',
      zh: '头内参与旋转的维度对所占比例；其余频率为 0',
    },
    shortFactor: {
      en: 'dim/2 divisors of the frequencies up to the original length',
      zh: '原始长度以内使用的 dim/2 个频率除数',
    },
    longFactor: {
      en: 'dim/2 divisors of the frequencies when seqLen exceeds the original length',
      zh: 'seqLen 超过原始长度时使用的 dim/2 个频率除数',
    },
  },
};
