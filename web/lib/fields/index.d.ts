// posenc/fields: sinusoids outside text (diffusion timesteps, 2-D patch grids,
// NeRF and random Fourier features), in a WebAssembly module of their own
// (web/lib/fields/; docs/fields.md). Every array returned is a fresh copy.
import type { DType, Matrix, MatrixInput, MemoryStats } from '../index.js';

export type { DType, Matrix, MatrixInput, MemoryStats } from '../index.js';

export interface PosencFields {
  /** n × dim diffusion timestep embeddings, as diffusers' get_timestep_embedding (odd dim: a zero last column). */
  timestepEmbedding(timesteps: number | ArrayLike<number>, dim: number, options?: TimestepOptions): Matrix;
  /** n × dim: [sin(p w) | cos(p w)] of arbitrary positions p (MAE's get_1d_sincos_pos_embed_from_grid); dim even. */
  sincos1d(positions: number | ArrayLike<number>, dim: number, options?: SinCos1dOptions): Matrix;
  /** (extraTokens + gridH·gridW) × dim patch-grid table, patches row-major; dim a multiple of 4. */
  sincos2d(gridH: number, gridW: number, dim: number, options?: SinCos2dOptions): PatchGrid;
  /**
   * NeRF positional encoding of each point (row). An array or a typed array is n points of one coordinate (any other
   * object is read as a MatrixInput: an array-like { length, 0, … } is refused for its missing rows).
   */
  fourierFeatures(points: Points, options?: FourierOptions): Matrix;
  /** Random Fourier features [sin 2πBx | cos 2πBx] (Tancik et al. 2020), n × 2·features, and the B used. */
  randomFourierFeatures(points: Points, options?: RandomFourierOptions): RandomFourier;
  /** WebAssembly memory of this module; for leak checks. */
  memoryStats(): MemoryStats;
}

/** Points: a matrix (one point per row), or an array or typed array of n points of one coordinate. */
export type Points = MatrixInput | readonly number[] | (ArrayLike<number> & ArrayBufferView);

/** Loads the fields' WebAssembly module once; every call returns the same promise. */
export function init(): Promise<PosencFields>;

export default init;

/**
 * - 'diffusers' (default) and 'ddpm': sin first, w_i = maxPeriod^(−i/(h − 1)), h = ⌊dim/2⌋
 *   (diffusers' defaults; Ho et al.'s diffusion_tf get_timestep_embedding).
 * - 'stable-diffusion' and 'dit': cos first, w_i = maxPeriod^(−i/h) (the SD UNet's
 *   flip_sin_to_cos=True, downscale_freq_shift=0; DiT's TimestepEmbedder, from GLIDE/ADM).
 */
export type TimestepPreset = 'diffusers' | 'ddpm' | 'stable-diffusion' | 'dit';
/** Every timestep preset name, the default first. */
export const TIMESTEP_PRESET_NAMES: readonly TimestepPreset[];

export interface TimestepOptions {
  preset?: TimestepPreset;
  /** [cos | sin] instead of [sin | cos]. */
  flipSinToCos?: boolean;
  /** s in w_i = maxPeriod^(−i/(h − s)); must be < h. */
  downscaleFreqShift?: number;
  /** Multiplies the angle t·w_i. Default 1; |scale·t| ≤ 2^31. */
  scale?: number;
  /** ≥ 1. Default 10000. */
  maxPeriod?: number;
  /** Default 'float32'. */
  dtype?: DType;
}

/** 'mae': w_i = base^(−i/k); 'spaced': w_i = base^(−i/(k − 1)) (big_vision), k frequencies per axis. */
export type GridFrequencies = 'mae' | 'spaced';

export interface SinCos1dOptions {
  frequencies?: GridFrequencies;
  /** > 1. Default 10000. */
  base?: number;
  dtype?: DType;
}

/**
 * - 'mae' (default): MAE's get_2d_sincos_pos_embed; clsToken adds one zero row.
 * - 'dit': the same table; as in DiT, clsToken adds rows only with extraTokens.
 * - 'diffusers': positions i / (gridSize / baseSize) / interpolationScale, baseSize 16 (PixArt, SD3).
 * - 'big-vision': frequencies 'spaced' (big_vision / simple ViT posemb_sincos_2d).
 */
export type GridPreset = 'mae' | 'dit' | 'diffusers' | 'big-vision';
/** Every patch-grid preset name, the default first. */
export const GRID_PRESET_NAMES: readonly GridPreset[];

export interface SinCos2dOptions {
  preset?: GridPreset;
  /** Zero rows in front for class tokens (see the presets). */
  clsToken?: boolean;
  /** How many zero rows clsToken adds, 0 to 65536. */
  extraTokens?: number;
  /** diffusers' base_size; null: positions are the indices. */
  baseSize?: number | null;
  /** diffusers' interpolation_scale (positions are divided by it). Default 1. */
  interpolationScale?: number;
  /** Which coordinate the first dim/2 columns encode. Default 'w' (MAE's meshgrid(grid_w, grid_h)). */
  firstAxis?: 'w' | 'h';
  frequencies?: GridFrequencies;
  /** > 1. Default 10000. */
  base?: number;
  dtype?: DType;
}

export interface PatchGrid extends Matrix {
  gridH: number;
  gridW: number;
  /** Zero rows in front; patch (r, c) is row extraTokens + r·gridW + c. */
  extraTokens: number;
}

/**
 * - 'nerf-pytorch' (default): bmild/nerf and yenchenlin/nerf-pytorch: input first, then per
 *   band the sines and the cosines of all coordinates, frequencies 2^k (no π).
 * - 'nerf-paper': the paper's γ(p) on each coordinate: sin(2^k π p), cos(2^k π p), no input.
 */
export type FourierPreset = 'nerf-paper' | 'nerf-pytorch';

export interface FourierOptions {
  preset?: FourierPreset;
  /** Number of bands L, 1 to 1024. Default 10. */
  levels?: number;
  /** log2 of the highest band, −64 to 64. Default levels − 1. */
  maxFreqLog2?: number;
  /** Prepend the coordinates themselves. */
  includeInput?: boolean;
  /** Bands 2^linspace(0, maxFreqLog2, L) (true) or linspace(1, 2^maxFreqLog2, L). */
  logSampling?: boolean;
  /** Multiply every band by π. */
  pi?: boolean;
  /** 'frequency': band by band; 'coordinate': coordinate by coordinate. */
  layout?: 'frequency' | 'coordinate';
  dtype?: DType;
}

export interface RandomFourierOptions {
  /** Rows of B (m), 1 to 65536. Default 256. */
  features?: number;
  /** Standard deviation of B's entries, 0 to 1e6. Default 10. */
  sigma?: number;
  /** Seed of posenc's splitmix64 Gaussian stream (the learned table's), 0 to 2^53 − 1. Default 0. */
  seed?: number;
  /** Your own B (features × coordinates), instead of features / sigma / seed. */
  B?: MatrixInput;
  dtype?: DType;
}

export interface RandomFourier extends Matrix {
  /** The B used, float64. */
  B: Matrix<Float64Array>;
}
