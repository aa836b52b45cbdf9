// posenc: Transformer positional encodings computed by a C core in WebAssembly.
// Every array a function returns is a fresh copy owned by the caller. The
// variants (RoPE, ALiBi, ...) are the entry posenc/variants (variants/index.d.ts).

/** float16 and bfloat16 results are bit patterns in a Uint16Array, rounded once from float64 (ties to even). */
export type DType = 'float32' | 'float64' | 'float16' | 'bfloat16';

/** The array type of a dtype: Float32Array unless the dtype is 'float64' (Float64Array) or 16-bit (Uint16Array). */
export type ArrayOf<T extends DType> = T extends 'float64' ? Float64Array : T extends 'float16' | 'bfloat16' ? Uint16Array : Float32Array;

/** Element types of other libraries' tensors: float16 / bfloat16 data are Uint16Array bit patterns; integer types only for masks. */
export type ElementType = 'float32' | 'float64' | 'float16' | 'bfloat16' | 'int8' | 'uint8' | 'int16' | 'uint16'
  | 'int32' | 'uint32' | 'int64' | 'uint64' | 'bool';

/** A dense row-major tensor: element (i, j, ...) at data[(i * shape[1] + j) * ...]. Glue: tf.tensor(r.data, r.shape). */
export interface Tensor<D extends ArrayLike<number> = Float32Array | Float64Array | Uint16Array> {
  shape: number[];
  data: D;
}

/** A dense row-major matrix: element (r, c) is data[r * cols + c]; shape is [rows, cols]. */
export interface Matrix<D extends ArrayLike<number> = Float32Array | Float64Array | Uint16Array> {
  rows: number;
  cols: number;
  shape: [number, number];
  data: D;
}

/** The { rows, cols, data } form of a matrix input. */
export interface MatrixInput {
  rows: number;
  cols: number;
  data: ArrayLike<number>;
}

/** Nested arrays of numbers, rank 1 to 4 (rows must not be ragged). */
export type NestedArray<T = number> = T[] | T[][] | T[][][] | T[][][][];

/**
 * What the functions accept as a tensor: { data, shape }, { rows, cols, data },
 * nested arrays, or another library's tensor, duck-typed (posenc depends on
 * none): shape + dataSync() as TensorFlow.js, dims + data as transformers.js
 * and onnxruntime-web.
 */
export type TensorInput<T = number> = TensorLike<T> | NestedArray<T>;

/** TensorInput but nested arrays. */
export type TensorLike<T = number> =
  | { data: ArrayLike<T>; shape: readonly number[]; type?: ElementType }
  | (T extends number ? MatrixInput : never)
  | { shape: readonly number[]; dataSync(): ArrayLike<T>; dtype?: ElementType }
  | { dims: readonly number[]; data: ArrayLike<T>; type?: ElementType };

/** dtype (default 'float32') and an optional array of that type and the result's length to write into. */
export interface OutputOptions<T extends DType> {
  dtype?: T;
  out?: ArrayOf<T>;
}

/**
 * Conventions found in real code:
 * - 'vaswani' (default): interleaved sin/cos, w_i = base^(-2i/d), base 10000.
 * - 'tensor2tensor': [sin | cos], w_i = exp(-i ln(base) / max(d/2 - 1, 1)); odd d gets a zero last column.
 * - 'fairseq': tensor2tensor frequencies; the row at position paddingIdx (default 1) is zero, tokens start at paddingIdx + 1.
 * - 'tf-tutorial': [sin | cos], w_i = base^(-2i/d); needs an even dModel.
 * - 'marian': the vaswani columns reordered, the sines first then the cosines (Hugging Face Marian).
 */
export type Preset = 'vaswani' | 'tensor2tensor' | 'fairseq' | 'tf-tutorial' | 'marian';
/** Every preset name, in the order the documentation lists them. */
export const PRESET_NAMES: readonly Preset[];
export type Layout = 'interleaved' | 'concat' | 'split';
/** Every layout name, as the layout option takes them. */
export const LAYOUT_NAMES: readonly Layout[];
export type FrequencyRule = 'paper' | 'geometric';
/** Every frequency rule name, as the frequencies option takes them. */
export const FREQUENCY_RULE_NAMES: readonly FrequencyRule[];

export interface EncodingOptions {
  /** Convention; its layout, frequency rule and defaults apply unless overridden below. */
  preset?: Preset;
  /** Where the sin and cos of each frequency go. */
  layout?: Layout;
  /** How frequencies are spaced. */
  frequencies?: FrequencyRule;
  /** Largest wavelength divided by 2π; finite and > 1. Default 10000. */
  base?: number;
}

export interface TableOptions<T extends DType = DType> extends EncodingOptions, OutputOptions<T> {
  /** Position encoded by row 0. Default 0 (fairseq: 0, the weights as fairseq stores them). */
  offset?: number;
  /** Integer position of each row (packed sequences, left padding); instead of offset. */
  positions?: ArrayLike<number>;
  /**
   * The position whose row is zero (fairseq's padding row; default 1 for fairseq, none otherwise; any preset may
   * give one, null gives none): the row at position paddingIdx, that is row paddingIdx - offset, or with positions
   * every row whose position is paddingIdx. No row is zero when the table's positions miss it.
   */
  paddingIdx?: number | null;
}

export interface TableGramOptions<T extends DType = DType> extends Omit<TableOptions<T>, 'positions'> {
  /** Cosine similarity instead of the plain dot product. */
  cosine?: boolean;
}

export interface GramOptions<T extends DType = DType> extends OutputOptions<T> {
  cosine?: boolean;
}

export interface RotationOptions<T extends DType = DType> extends EncodingOptions, OutputOptions<T> {}

export interface ToyOptions {
  /** The sum head says 'happy' when sum(y) > threshold. Default 30. */
  threshold?: number;
  /** Weights of the position-weighted head. Default [1, 2, ..., n]. */
  weights?: ArrayLike<number>;
}

export interface ToyResult {
  x: number[];
  y: number[];
  sum: number;
  label: 'happy' | 'unhappy';
  weighted: number;
}

export interface AttentionOptions<T extends DType = DType> {
  /** Mask key j > query i (top-left aligned, as PyTorch's is_causal). */
  causal?: boolean;
  /** 1 / true = attend, 0 / false = not; broadcastable to [batch, heads, queries, keys]. */
  mask?: TensorInput<number | boolean>;
  /** Added to the scaled scores (ALiBi's or T5's bias as they are; -Infinity leaves a key out); broadcastable likewise. */
  bias?: TensorInput;
  /** Default 1 / sqrt(dk). */
  scale?: number;
  /** Default 'float32'. */
  dtype?: T;
  /**
   * Default true. false: the output alone, never forming the queries × keys
   * weights (blocked over keys with an online softmax; a float32 SIMD kernel
   * for float32 without mask or bias, when dv is a multiple of 8).
   */
  weights?: boolean;
  /**
   * The output's data written here and returned as output.data: a typed array of dtype holding
   * [..., queries, dv] values, on a fixed-length buffer (a decode loop reuses one; it may be q's, k's or v's).
   */
  out?: ArrayOf<T>;
}

/** What attention() returns with weights: false. */
export interface AttentionOutput<D extends ArrayLike<number> = Float32Array> {
  output: Tensor<D> & Partial<Matrix<D>>;
}

/** weights [..., queries, keys] and output [..., queries, dv], the leading dimensions those of q. */
export interface AttentionResult<D extends ArrayLike<number> = Float32Array> {
  weights: Tensor<D> & Partial<Matrix<D>>;
  output: Tensor<D> & Partial<Matrix<D>>;
}

export interface KvCacheOptions {
  /** Key/value heads (the model's num_key_value_heads). */
  heads: number;
  /** Elements of a key (and a query) per head. */
  headDim: number;
  /** Elements of a value per head, a multiple of 8. Default headDim. */
  valueDim?: number;
  /** Positions the cache can hold. */
  maxLength: number;
  /** Default 1. */
  batch?: number;
}

/**
 * A KV cache kept in WebAssembly memory: append() copies in the new rows
 * only, attend() the queries only; results are fresh copies (or `out`).
 * While it lives, its batch × heads × maxLength × (headDim + valueDim) float32
 * values count toward the module's memory; free() releases them (a dropped
 * cache is released when collected), and any call after free() throws.
 */
export interface KvCache {
  readonly heads: number;
  readonly headDim: number;
  readonly valueDim: number;
  readonly maxLength: number;
  readonly batch: number;
  /** Positions held. */
  readonly length: number;
  /** Adds k [B, heads, t, headDim] and v [B, heads, t, valueDim] (rank 2 to 4; B = batch) after the cached rows; returns the new length. */
  append(k: TensorInput, v: TensorInput): number;
  /**
   * softmax(scale · q Kᵀ) V over the cached keys, float32: q [B, H, n, headDim] with H a multiple of heads
   * (grouped-query), its n queries being the last n cached positions; causal lets each see keys up to its own.
   */
  attend(q: TensorInput, options?: { causal?: boolean; scale?: number; out?: Float32Array }): Tensor<Float32Array> & Partial<Matrix<Float32Array>>;
  /** Keeps the first `length` positions (HF's crop); returns it. */
  truncate(length: number): number;
  free(): void;
}

/** What columns() returns: one entry per frequency, as many as frequencies() returns. */
export interface ColumnPlacement {
  sin: Int32Array;
  cos: Int32Array;
}

export interface MemoryStats {
  /** Size of the WebAssembly memory in bytes. */
  bytes: number;
  /** Allocations made by posenc and not yet freed; 0 between calls. */
  liveAllocations: number;
}

export interface Posenc {
  /** The maxLen × dModel sinusoidal table (rows for positions when given). */
  table<T extends DType = 'float32'>(maxLen: number, dModel: number, options?: TableOptions<T>): Matrix<ArrayOf<T>>;
  /** Angular frequencies w_i, one per (sin, cos) pair. */
  frequencies<T extends DType = 'float32'>(dModel: number, options?: EncodingOptions & { dtype?: T }): ArrayOf<T>;
  /**
   * Where each frequency of frequencies() lands in a row of table(): sin[i] is the
   * column of sin(w_i · pos), cos[i] that of cos(w_i · pos), or -1 for the lone sine
   * of an odd width (interleaved, split). Columns in neither are zero (concat, odd d).
   * Only the layout matters; the other options are checked as table() checks them.
   */
  columns(dModel: number, options?: EncodingOptions): ColumnPlacement;
  /** maxLen × maxLen Gram (or cosine) matrix of the table, computed without forming it where possible. */
  tableGram<T extends DType = 'float32'>(maxLen: number, dModel: number, options?: TableGramOptions<T>): Matrix<ArrayOf<T>>;
  /** Dot product of two vectors of equal length. */
  dot(a: ArrayLike<number>, b: ArrayLike<number>): number;
  /** Euclidean norm of each row. */
  norms<T extends DType = 'float32'>(matrix: TensorInput, options?: { dtype?: T }): ArrayOf<T>;
  /** X Xᵀ (or cosine similarities) of a matrix. */
  gram<T extends DType = 'float32'>(matrix: TensorInput, options?: GramOptions<T>): Matrix<ArrayOf<T>>;
  /** The dModel × dModel rotation M_k with PE[pos + k] = M_k PE[pos]; dModel even. */
  rotation<T extends DType = 'float32'>(k: number, dModel: number, options?: RotationOptions<T>): Matrix<ArrayOf<T>>;
  /** The toy attention y_i = x_i Σ_j x_j with x = codes + positionCodes. */
  toyAttention(codes: ArrayLike<number>, positionCodes?: ArrayLike<number> | null, options?: ToyOptions): ToyResult;
  /**
   * softmax(scale · Q Kᵀ + bias) V per head: q [S, D], [H, S, D] or [B, H, S, D]; k and v of
   * the same rank and batch, with H or a divisor of H heads (grouped-query attention).
   */
  attention<T extends DType = 'float32', W extends boolean = true>(q: TensorInput, k: TensorInput, v: TensorInput, options?: AttentionOptions<T> & { weights?: W }): W extends false ? AttentionOutput<ArrayOf<T>> : AttentionResult<ArrayOf<T>>;
  /** A KV cache for decode loops, attended with the float32 blocked kernel of attention(…, { weights: false }). */
  kvCache(options: KvCacheOptions): KvCache;
  /** WebAssembly memory in use; for leak checks and benchmarks. */
  memoryStats(): MemoryStats;
  /** The presets and the options they stand for (fairseq's paddingIdx too: the position whose row is zero). */
  readonly presets: Readonly<Record<Preset, Readonly<{ layout: Layout; frequencies: FrequencyRule; base: number; evenOnly: boolean; paddingIdx?: number }>>>;
  /** Largest number of bytes one call may hold in WebAssembly memory at once, inputs, outputs and scratch (1 GiB). */
  readonly maxBytes: number;
}

/** Loads the WebAssembly module once; every call returns the same promise. */
export function init(): Promise<Posenc>;

export default init;
