// posenc/variants: the encodings that followed the 2017 sinusoid, in a
// WebAssembly module of their own (web/lib/variants/; docs/variants.md).
// Every array a function returns is a fresh copy owned by the caller.
import type { ArrayOf, DType, EncodingOptions, Matrix, MatrixInput, MemoryStats, OutputOptions, Tensor, TensorInput, TensorLike } from '../index.js';

export type { ArrayOf, DType, EncodingOptions, Matrix, MatrixInput, MemoryStats, OutputOptions, Tensor, TensorInput, TensorLike } from '../index.js';

/** The dtype option: default 'float32'. */
interface WithDType<T extends DType> {
  dtype?: T;
}

export interface PosencVariants {
  /** RoPE frequencies theta_i = base^(−2i/dim), scaled, and the attention factor; dim even. */
  ropeFrequencies<T extends DType = 'float32'>(dim: number, options?: RopeOptions & WithDType<T>): RopeFrequencies<ArrayOf<T>>;
  /** RoPE cos and sin tables, maxLen × (dim/2 or dim). */
  ropeCache<T extends DType = 'float32'>(maxLen: number, dim: number, options?: RopeCacheOptions & WithDType<T>): RopeCache<ArrayOf<T>>;
  /** Rotates q or k: x [S, D] (heads of headDim in D), [H, S, D] or [B, H, S, D]; row s is at its position. `out`: written and returned as data. */
  ropeApply<T extends DType = 'float32'>(x: TensorInput, options?: (RopeApplyOptions | RopeMultiAxisApplyOptions) & OutputOptions<T>): Tensor<ArrayOf<T>> & Partial<Matrix<ArrayOf<T>>>;
  /** Qwen2-VL's get_rope_index for a prompt of text, images and videos: [3, S] position ids (time, height, width) and the rope delta. */
  mropePositions(segments: MropeSegment[], options?: MropePositionsOptions): MropePositions;
  /** M-RoPE cos and sin, S × headDim in HF's layout: frequencies split among the position rows by `section` (Qwen2/2.5-VL) or interleaved (Qwen3-VL). */
  mropeCache<T extends DType = 'float32'>(positions: TensorInput, headDim: number, options?: MropeCacheOptions & WithDType<T>): MultiAxisCache<ArrayOf<T>>;
  /** Axial RoPE cos and sin for ids [N, A]: FLUX's EmbedND (axesDim [16, 56, 56]), diffusers' FluxPosEmbed, Pixtral's 2-D RoPE. */
  ropeAxialCache<T extends DType = 'float32'>(ids: TensorInput, options?: RopeAxialOptions & WithDType<T>): MultiAxisCache<ArrayOf<T>>;
  /** Patch-grid ids in raster order: [h, w] per patch (axes 2: ViT, Pixtral) or [time, h, w] (axes 3: FLUX's img_ids). */
  ropeGridIds(height: number, width: number, options?: { axes?: 2 | 3; time?: number; offset?: number }): Matrix<Float64Array>;
  /** The RoPE of one layer of a model's parsed config.json, as transformers 5 computes it (HF's inv_freq, attention factor, warnings). */
  ropeFromConfig<T extends DType = 'float64'>(config: ModelConfig, options?: RopeFromConfigOptions & WithDType<T>): RopeConfig<ArrayOf<T>>;
  /**
   * A reusable RoPE: caches of positions 0 … maxLen − 1 formed once and kept in WebAssembly memory; apply() only rotates.
   * Release with free(). dynamic and longrope scale them as a sequence of maxLen does (ropeCache's seq_len, not ropeApply's).
   */
  rope<T extends 'float32' | 'float64' = 'float32'>(options: RopeHandleOptions & WithDType<T>): RopeHandle<T extends 'float64' ? Float64Array : Float32Array>;
  /** out[new] = old: HF's LLaMA permute (interleaved → half), or its inverse. */
  ropePermutation(headDim: number, options?: { heads?: number; inverse?: boolean }): Int32Array;
  /** Converts weights (rows) or vectors (cols) between the two pairings. */
  ropePermute<T extends DType = 'float32'>(weights: TensorInput, options?: RopePermuteOptions & WithDType<T>): Matrix<ArrayOf<T>>;
  /** ALiBi slope of each head. */
  alibiSlopes<T extends DType = 'float32'>(heads: number, options?: AlibiSlopeOptions & WithDType<T>): ArrayOf<T>;
  /** ALiBi bias added to the attention scores of each head. */
  alibiBias<T extends DType = 'float32'>(heads: number, qLen: number, options?: AlibiBiasOptions & WithDType<T>): AlibiBias<ArrayOf<T>>;
  /** T5 bucket of each relative position (memory − query), as HF _relative_position_bucket. */
  t5Bucket(relativePositions: ArrayLike<number>, options?: T5BucketOptions): Int32Array;
  /** qLen × kLen T5 buckets of j − (i + queryOffset). */
  t5BucketMatrix(qLen: number, options?: T5BucketMatrixOptions): Matrix<Int32Array>;
  /** qLen × kLen Shaw relative positions clip(j − (i + queryOffset), −k, k) (+ k when shift). */
  shawClip(qLen: number, options?: ShawOptions): Matrix<Int32Array>;
  /** A seeded random learned table with rows for positions 0 .. trainedLen − 1 only; trainedLen × dModel ≤ 2^26. */
  learnedTable<T extends DType = 'float32'>(trainedLen: number, dModel: number, options?: LearnedOptions & WithDType<T>): Matrix<ArrayOf<T>>;
  /** Rows of that table; a RangeError for any position ≥ trainedLen (no such row exists); positions × dModel ≤ 2^26. */
  learnedRows<T extends DType = 'float32'>(positions: ArrayLike<number>, trainedLen: number, dModel: number, options?: LearnedOptions & WithDType<T>): Matrix<ArrayOf<T>>;
  /** maxLen × bits: bit b (LSB first) of each position, 0/1 or ±1. */
  binaryTable<T extends DType = 'float32'>(maxLen: number, bits: number, options?: BinaryOptions & WithDType<T>): Matrix<ArrayOf<T>>;
  /** Values rounded to the format (round to nearest, ties to even), as doubles. */
  roundTo(values: ArrayLike<number>, format: NumberFormat): Float64Array;
  /** Bit patterns in the format (float16 / bfloat16 in the low 16 bits). */
  formatBits(values: ArrayLike<number>, format: 'float32' | 'float16' | 'bfloat16'): Uint32Array;
  /** Per position: max over the sinusoidal table's columns of |value − float64 value|; Infinity where the angle overflows. */
  precisionError(dModel: number, options?: PrecisionOptions): Float64Array;
  /** WebAssembly memory of the variants' module in use; for leak checks and benchmarks. */
  memoryStats(): MemoryStats;
}

/** Loads the variants' WebAssembly module once; every call returns the same promise. */
export function init(): Promise<PosencVariants>;

export default init;

/** The table of RoPE types and their parameters (web/lib/variants/rope-types.js), for tools such as the CLI. */
export const ROPE_TYPES: Readonly<Record<RopeTypeName, { hf: string | null; aliases: string[]; params: Record<string, { default: number | boolean | null; required?: boolean }> }>>;
export const ROPE_PARAMS: Readonly<Record<string, { hf: string | null; config?: string; c: string; flag: string; kind: 'real' | 'length' | 'boolean' | 'factors'; min?: number; max?: number }>>;

// ---- RoPE, ALiBi ------------------------------------------------------------------------

/**
 * RoPE frequency scaling, as Hugging Face transformers 5's modeling_rope_utils.py
 * (docs/variants.md has the formulas). Written from web/lib/variants/rope-types.js
 * (tests/rope-types.test.js fails when it differs): one member per type, a key
 * optional exactly when the table gives it a default. A bare type name uses the
 * defaults. `seqLen` (dynamic, longrope): HF's seq_len; by default the
 * call's largest position + 1 (ropeApply, ropeCache), none for ropeFrequencies.
 */
// rope-types: written by scripts/rope-types-doc.mjs from web/lib/variants/rope-types.js
export type RopeTypeName = 'default' | 'linear' | 'ntk' | 'dynamic' | 'yarn' | 'llama3' | 'longrope' | 'proportional';
export type RopeScaling =
  | 'default' | 'llama3' | 'proportional'
  /** θ_i = base^(−2i/dim), as RoFormer. */
  | { type: 'default' }
  /** position interpolation: every θ_i divided by the factor. */
  | { type: 'linear'; factor: number }
  /** NTK-aware: base × factor^(dim/(dim−2)) (posenc only; HF has no such rope_type). */
  | { type: 'ntk'; factor: number }
  /** NTK whose factor grows with seq_len past max_position_embeddings. */
  | { type: 'dynamic'; factor: number; maxPosition: number; seqLen?: number }
  /** YaRN: a ramp between kept and divided frequencies over the correction range, and an attention factor. */
  | ({ type: 'yarn'; originalMaxPosition: number; betaFast?: number; betaSlow?: number; attentionFactor?: number; mscale?: number; mscaleAllDim?: number; truncate?: boolean } & ({ factor: number; maxPosition?: number } | { factor?: number; maxPosition: number }))
  /** Llama 3.1: long wavelengths divided, short ones kept, a smooth blend between. */
  | { type: 'llama3'; factor?: number; lowFreqFactor?: number; highFreqFactor?: number; originalMaxPosition?: number }
  /** LongRoPE (Phi-3): per-frequency divisors, short or long set by seq_len. */
  | ({ type: 'longrope'; shortFactor: ArrayLike<number>; longFactor: ArrayLike<number>; originalMaxPosition: number; attentionFactor?: number; seqLen?: number } & ({ factor: number; maxPosition?: number } | { factor?: number; maxPosition: number }))
  /** a share of the pairs rotate with θ_i = base^(−2i/head_dim), the rest get 0; all divided by the factor. */
  | { type: 'proportional'; factor?: number; partialRotaryFactor?: number };
// /rope-types

/** A parsed config.json (transformers' PretrainedConfig as JSON): read as HF reads it. */
export type ModelConfig = Record<string, unknown>;

export interface RopeFromConfigOptions {
  /** A key of layer_types / nested rope_parameters (e.g. 'full_attention', 'sliding_attention'). Default 'full_attention' where the config has layer types. */
  layerType?: string;
  /** A layer index: its layer type, or type 'none' for a Llama 4 layer without RoPE. */
  layerIndex?: number;
  /** HF's seq_len (dynamic, longrope). Default none, as HF at initialisation. */
  seqLen?: number;
}

/** What a config's RoPE is for one layer (ropeFromConfig). */
export interface RopeConfig<D = Float64Array> {
  /** A RopeTypeName, 'none' (a layer without RoPE) or 'axial' (FLUX's axes_dims_rope). */
  type: RopeTypeName | 'none' | 'axial';
  theta: number;
  headDim: number;
  /** Rotated width: int(headDim · partial_rotary_factor); headDim for proportional. */
  rotaryDim: number;
  pairing: RopePairing;
  /** HF's inv_freq, rotaryDim/2 values (FLUX: each axis's, concatenated). */
  invFreq: D;
  attentionFactor: number;
  /** HF's warnings (unrecognised keys, factor < 1, …); refusals throw instead. */
  warnings: string[];
  /** The `scaling` option equal to this layer's RoPE (ropeCache({ base: theta, scaling })). */
  scaling?: Exclude<RopeScaling, string>;
  layerTypes?: string[];
  layerType?: string;
  /** Llama 4: whether each layer uses RoPE. */
  ropeLayers?: boolean[];
  originalMaxPosition?: number;
  maxPosition?: number;
  /** FLUX: the rotated width of each axis. */
  axesDim?: number[];
  /** Qwen2-VL / Qwen3-VL: frequencies per (time, height, width) row, and whether they interleave (Qwen3-VL). */
  mropeSection?: number[];
  mropeInterleaved?: boolean;
}

/** 'interleaved': pairs (x_2i, x_2i+1), Meta LLaMA / GPT-J. 'half': (x_i, x_i+d/2), rotate_half, GPT-NeoX / HF. */
export type RopePairing = 'interleaved' | 'half';
/** Cache columns: 'pairs' d/2 (one per frequency); 'half' d as HF [f | f]; 'interleaved' d as f0 f0 f1 f1 … */
export type RopeCacheLayout = 'pairs' | 'half' | 'interleaved';

export interface RopeOptions {
  /** Default 10000. */
  base?: number;
  /** Default none. */
  scaling?: RopeScaling;
  /** A parsed config.json instead of base and scaling (dim must be the config's rotary dim; ropeApply takes its head_dim, rotary dim and pairing as defaults). */
  config?: ModelConfig;
  /** With config: the layer type whose RoPE to use. */
  layerType?: string;
}

export interface RopeFrequencies<D = Float32Array> {
  /** theta_i for i < dim/2 (HF inv_freq), after scaling. */
  invFreq: D;
  /** Multiplies cos and sin: 1 except for YaRN and longrope. */
  attentionFactor: number;
}

export interface RopeCacheOptions extends RopeOptions {
  /** Position of row 0. Default 0. */
  offset?: number;
  /** Default 'half' (HF's cos/sin of shape maxLen × dim). */
  layout?: RopeCacheLayout;
}

export interface RopeCache<D extends ArrayLike<number> = Float32Array> {
  cos: Matrix<D>;
  sin: Matrix<D>;
  attentionFactor: number;
  layout: RopeCacheLayout;
}

export interface RopeApplyOptions extends RopeOptions {
  /** Default 'half'. */
  pairing?: RopePairing;
  /** Width of one head; x's last dimension must be a multiple. Default that dimension. */
  headDim?: number;
  /** Rotate only the first rotaryDim (even) coordinates of each head, with the frequencies of a head that wide; pass the rest through (GPT-J rotary_dim, GPT-NeoX rotary_pct). Default headDim. */
  rotaryDim?: number;
  /** Position of each of the S rows (any finite numbers), the same for every head and batch. Default offset + row. */
  positions?: ArrayLike<number>;
  /** Position of row 0 when positions is not given. Default 0. */
  offset?: number;
  /** Caches to rotate by instead of base and scaling (HF's cos, sin): rotaryDim columns in the pairing's layout, or rotaryDim / 2 ('pairs'); positions then index their rows. */
  cos?: MatrixInput;
  sin?: MatrixInput;
  /** The caches' layout, checked against the pairing when given. */
  layout?: RopeCacheLayout;
}

interface RopeHandleShape {
  /** Rows of the caches: positions 0 … maxLen − 1. */
  maxLen: number;
  /** Width of one head in x (≥ dim; the coordinates past dim pass through). Default dim, or the config's head_dim. */
  headDim?: number;
  /** Default 'half', or the config's pairing (DeepSeek, Llama 4: 'interleaved'). */
  pairing?: RopePairing;
}

/** rope()'s options: dim with base and scaling, or a model's config (+ layerType), whose rotary dim is dim's default. */
export type RopeHandleOptions = RopeHandleShape & (
  | {
    /** Rotated width (even): the frequencies are those of a head this wide. */
    dim: number;
    /** Default 10000. */
    base?: number;
    /** Default none. */
    scaling?: RopeScaling;
    config?: undefined;
    layerType?: undefined;
  }
  | {
    /** A parsed config.json instead of base and scaling; its rotary dim, head_dim and pairing are the defaults. */
    config: ModelConfig;
    /** The layer type whose RoPE to use. */
    layerType?: string;
    /** Must be the config's rotary dim when given. */
    dim?: number;
    base?: undefined;
    scaling?: undefined;
  });

export interface RopeHandle<D extends Float32Array | Float64Array = Float32Array> {
  readonly dim: number;
  readonly headDim: number;
  readonly pairing: RopePairing;
  readonly maxLen: number;
  readonly dtype: 'float32' | 'float64';
  /** Multiplies cos and sin: 1 except for YaRN and longrope. */
  readonly attentionFactor: number;
  /** x rotated at positions (S rows, or the first of S consecutive; default 0), into out (may be x's data) or a fresh array. */
  apply(x: TensorInput, positions?: number | ArrayLike<number>, out?: D | null): Tensor<D>;
  /** Releases the handle's WebAssembly memory; apply() then throws. */
  free(): void;
}

/**
 * ropeApply's multi-axis form: with `section`, positions are [A, S] (M-RoPE, from mropePositions);
 * with `axesDim`, ids are [S, A] (axial). A `config` gives them instead: a Qwen-VL config's
 * mrope_section when positions are [A, S], a FLUX config's axes_dims_rope and theta. `offset` and `rotaryDim` do not apply; the first
 * 2 · sum(section) or sum(axesDim) coordinates of each head rotate.
 */
export interface RopeMultiAxisApplyOptions extends RopePairingOptions {
  positions: TensorInput;
  section?: ArrayLike<number>;
  interleaved?: boolean;
  axesDim?: ArrayLike<number>;
  frequencies?: 'axis' | 'alternate';
}

interface RopePairingOptions extends RopeOptions {
  pairing?: RopePairing;
  headDim?: number;
}

/** One run of a prompt: text tokens (vision start and end tokens included), an image grid or a video grid [t, h, w] in patches (before merging). */
export type MropeSegment =
  | { text: number }
  | { image: [number, number, number] | ArrayLike<number> }
  /** secondsPerGrid: HF's second_per_grid_t (temporal_patch_size / fps). Default 1. */
  | { video: [number, number, number] | ArrayLike<number>; secondsPerGrid?: number };

export interface MropePositionsOptions {
  /** vision_config.spatial_merge_size; h and w must be multiples. Default 2. */
  spatialMergeSize?: number;
  /** vision_config.tokens_per_second (Qwen2.5-VL): a video's time step is tokensPerSecond × secondsPerGrid. Default none (Qwen2-VL: step 1). */
  tokensPerSecond?: number;
  /** Padded slots before the prompt (attention mask 0). Default 0. */
  leftPadding?: number;
}

export interface MropePositions {
  /** [3, S]: rows time, height, width; padded slots hold 1. */
  shape: [3, number];
  data: Int32Array;
  /** max(position) + 1 − S: the offset of generated token k is S + k + ropeDelta. */
  ropeDelta: number;
  /** Per token: 0 text (and padding), 1 image, 2 video (HF 5's mm_token_type_ids). */
  tokenTypes: Uint8Array;
  attentionMask: Uint8Array;
}

export interface MropeCacheOptions extends RopeOptions {
  /** HF's mrope_section, one entry per position row, summing to headDim / 2 (Qwen2-VL [16, 24, 24]); or give `config`. */
  section?: ArrayLike<number>;
  /** (`config`: a Qwen2-VL, Qwen2.5-VL or Qwen3-VL config.json also gives mrope_section and mrope_interleaved, instead of section and interleaved.) */
  /** Qwen3-VL's interleaved assignment. Default false (sectioned). */
  interleaved?: boolean;
  /** Default 'half' (HF's cat(freqs, freqs)). */
  layout?: RopeCacheLayout;
}

export interface RopeAxialOptions {
  /** Width of each axis (even), one per column of ids; FLUX [16, 56, 56]; or give `config`. */
  axesDim?: ArrayLike<number>;
  /** A parsed FLUX transformer config.json: its axes_dims_rope and theta, instead of axesDim and base. */
  config?: ModelConfig;
  /** As for the other config readers; an axial config has no layer types, so any value is refused. */
  layerType?: string;
  /** 'axis' (default): axis a has its own base^(−2j/axesDim[a]) (FLUX, Qwen2-VL vision); 'alternate': one head of sum(axesDim), axis a takes every A-th frequency from the a-th (Pixtral). */
  frequencies?: 'axis' | 'alternate';
  /** Default 10000. */
  base?: number;
  /** Which coordinates pair: default 'interleaved' (FLUX's adjacent pairs); 'half' (HF). */
  pairing?: RopePairing;
  /** Default the pairing's layout; 'pairs' for one column per frequency. */
  layout?: RopeCacheLayout;
}

export interface MultiAxisCache<D extends ArrayLike<number> = Float32Array> extends RopeCache<D> {
  /** The frequency of each pair, and the position row (axis) it reads. */
  frequencies: Float64Array;
  axis: Int32Array;
}

export interface RopePermuteOptions {
  /** Default: the whole axis is one head. */
  headDim?: number;
  /** false: interleaved → half (HF's LLaMA conversion); true: half → interleaved. */
  inverse?: boolean;
  /** 'rows' for projection weights (out × in), 'cols' for q/k vectors in rows. Default 'rows'. */
  axis?: 'rows' | 'cols';
}

/** 'press': Press et al. get_slopes (also BLOOM). 'mpt': MosaicML gen_slopes (equal to 'press' at maxBias 8). */
export type AlibiVariant = 'press' | 'mpt';

export interface AlibiSlopeOptions {
  /** Default 'press'. */
  variant?: AlibiVariant;
  /** The 8 of 2^(−8h/n) (MPT alibi_bias_max). Default 8. */
  maxBias?: number;
}

export interface AlibiBiasOptions extends AlibiSlopeOptions {
  /** Keys. Default qLen. */
  kLen?: number;
  /** 'causal': −m(i − j) for j ≤ i, maskValue above; 'symmetric': −m|i − j|. Default 'causal'. */
  mode?: 'causal' | 'symmetric';
  /** Written where a causal key lies in the future. Default −Infinity. */
  maskValue?: number;
  /** Query i sits at position i + queryOffset (e.g. kLen − qLen when decoding). Default 0. */
  queryOffset?: number;
}

/** heads × rows × cols biases, data[(h·rows + i)·cols + j]; shape [heads, rows, cols] (pass it to attention's bias). */
export interface AlibiBias<D extends ArrayLike<number> = Float32Array> {
  heads: number;
  rows: number;
  cols: number;
  shape: [number, number, number];
  slopes: D;
  data: D;
}

// ---- relative positions, learned, binary, precision -------------------------------------

export interface T5BucketOptions {
  /** Encoder (true, default) or decoder (false: only the past is bucketed). */
  bidirectional?: boolean;
  /** Default 32. */
  numBuckets?: number;
  /** Default 128. */
  maxDistance?: number;
  /** 'float32' (default) evaluates the log branch as PyTorch does; 'float64' in double. */
  precision?: 'float32' | 'float64';
}

export interface T5BucketMatrixOptions extends T5BucketOptions {
  /** Default qLen. */
  kLen?: number;
  /** Query i sits at position i + queryOffset. Default 0. */
  queryOffset?: number;
}

export interface ShawOptions {
  /** Default qLen. */
  kLen?: number;
  /** Shaw's k: relative positions are clipped to [−k, k]. Default 16. */
  maxRelativePosition?: number;
  /** Add k, giving indices 0..2k into the relative embeddings. Default false. */
  shift?: boolean;
  /** Query i sits at position i + queryOffset. Default kLen − qLen: the queries are the last positions (tensor2tensor; one query is the newest token). */
  queryOffset?: number;
}

export interface LearnedOptions {
  /** Integer 0 .. 2^53 − 1. Default 0. */
  seed?: number;
  /** 'normal' N(0, scale²) (default) or 'uniform' U[−scale, scale). */
  distribution?: 'normal' | 'uniform';
  /** Default 0.02 (GPT-2's initialiser). */
  scale?: number;
}

export interface BinaryOptions {
  /** Position of row 0; a whole number ≥ 0. Default 0. */
  offset?: number;
  /** −1/+1 instead of 0/1. Default false. */
  signed?: boolean;
}

export type NumberFormat = 'float32' | 'float64' | 'float16' | 'bfloat16';

export interface PrecisionOptions extends EncodingOptions {
  /** Positions to measure. Default 0 .. count − 1. */
  positions?: ArrayLike<number>;
  /** Default 65536 (with positions absent). */
  count?: number;
  /** Default 'float16'. */
  format?: NumberFormat;
  /** 'angle' (position, frequency and product rounded; default), 'result' (sin/cos rounded), or 'both'. */
  mode?: 'angle' | 'result' | 'both';
}
