// posenc: Transformer positional encodings computed by a C core in WebAssembly.
// Every array a function returns is a fresh copy owned by the caller. The
// variants (RoPE, ALiBi, ...) are the entry posenc/variants (variants/index.d.ts).

/** A dense row-major matrix: element (r, c) is data[r * cols + c]. */
export interface Matrix<D extends ArrayLike<number> = Float32Array | Float64Array> {
  rows: number;
  cols: number;
  data: D;
}

/** What the functions accept as a matrix: any array-like of numbers with its shape. */
export interface MatrixInput {
  rows: number;
  cols: number;
  data: ArrayLike<number>;
}

export type DType = 'float32' | 'float64';

/**
 * Conventions found in real code:
 * - 'vaswani' (default): interleaved sin/cos, w_i = base^(-2i/d), base 10000.
 * - 'tensor2tensor': [sin | cos], w_i = exp(-i ln(base) / max(d/2 - 1, 1)); odd d gets a zero last column.
 * - 'fairseq': tensor2tensor frequencies; row paddingIdx (default 1) is zero, tokens start at paddingIdx + 1.
 * - 'tf-tutorial': [sin | cos], w_i = base^(-2i/d); needs an even dModel.
 * - 'marian': the vaswani columns reordered, the sines first then the cosines (Hugging Face Marian).
 */
export type Preset = 'vaswani' | 'tensor2tensor' | 'fairseq' | 'tf-tutorial' | 'marian';
/** Every preset name, in the order the documentation lists them. */
export const PRESET_NAMES: readonly Preset[];
export type Layout = 'interleaved' | 'concat' | 'split';
export type FrequencyRule = 'paper' | 'geometric';

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

export interface TableOptions extends EncodingOptions {
  /** Position encoded by row 0. Default 0 (fairseq: 0, the weights as fairseq stores them). */
  offset?: number;
  /** fairseq only: the padding row, set to zero. Default 1. */
  paddingIdx?: number;
  /** Default 'float32'. */
  dtype?: DType;
}

export interface TableGramOptions extends TableOptions {
  /** Cosine similarity instead of the plain dot product. */
  cosine?: boolean;
}

export interface GramOptions {
  cosine?: boolean;
  /** Default: float32 for Float32Array input, float64 otherwise. */
  dtype?: DType;
}

export interface RotationOptions extends EncodingOptions {
  /** Default 'float64'. */
  dtype?: DType;
}

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

export interface AttentionOptions {
  /** Mask key j > query i (top-left aligned, as PyTorch's is_causal). */
  causal?: boolean;
  /** Default 1 / sqrt(dk). */
  scale?: number;
  /** Default: float32 if all of q, k, v are Float32Array, float64 otherwise. */
  dtype?: DType;
}

export interface AttentionResult {
  weights: Matrix;
  output: Matrix;
}

export interface MemoryStats {
  /** Size of the WebAssembly memory in bytes. */
  bytes: number;
  /** Allocations made by posenc and not yet freed; 0 between calls. */
  liveAllocations: number;
}

export interface Posenc {
  /** The maxLen × dModel sinusoidal table. */
  table(maxLen: number, dModel: number, options?: TableOptions): Matrix;
  /** Angular frequencies w_i, one per (sin, cos) pair. */
  frequencies(dModel: number, options?: EncodingOptions): Float64Array;
  /** maxLen × maxLen Gram (or cosine) matrix of the table, computed without forming it where possible. */
  tableGram(maxLen: number, dModel: number, options?: TableGramOptions): Matrix;
  /** Dot product of two vectors of equal length. */
  dot(a: ArrayLike<number>, b: ArrayLike<number>): number;
  /** Euclidean norm of each row. */
  norms(matrix: MatrixInput): Float64Array;
  /** X Xᵀ (or cosine similarities) of a matrix. */
  gram(matrix: MatrixInput, options?: GramOptions): Matrix;
  /** The dModel × dModel rotation M_k with PE[pos + k] = M_k PE[pos]; dModel even. */
  rotation(k: number, dModel: number, options?: RotationOptions): Matrix;
  /** The toy attention y_i = x_i Σ_j x_j with x = codes + positionCodes. */
  toyAttention(codes: ArrayLike<number>, positionCodes?: ArrayLike<number> | null, options?: ToyOptions): ToyResult;
  /** softmax(scale · Q Kᵀ) V, optionally causal. */
  attention(q: MatrixInput, k: MatrixInput, v: MatrixInput, options?: AttentionOptions): AttentionResult;
  /** WebAssembly memory in use; for leak checks and benchmarks. */
  memoryStats(): MemoryStats;
  /** The presets and the options they stand for. */
  readonly presets: Readonly<Record<Preset, Readonly<{ layout: Layout; frequencies: FrequencyRule; base: number; evenOnly: boolean }>>>;
  /** Largest number of bytes one call may allocate (1 GiB). */
  readonly maxBytes: number;
}

/** Loads the WebAssembly module once; every call returns the same promise. */
export function init(): Promise<Posenc>;

export default init;
