// posenc/lab: a tiny Transformer trained in WebAssembly (see docs/lab.md).
import type { Preset } from '../index.js';

export type LabTask = 'who-did-what' | 'shift' | 'copy' | 'reverse' | 'recency';
/** Which answers evaluate() scores: all, those at positions training examples had, or the others. */
export type LabPositions = 'all' | 'trained' | 'new';
export type LabEncoding = 'none' | 'sinusoidal' | 'learned' | 'rope' | 'alibi' | 't5';
export type LabAttention = 'bidirectional' | 'causal';

export interface LabModelOptions {
  task?: LabTask;
  encoding?: LabEncoding;
  attention?: LabAttention;
  /** Integer 0 .. 2^31 - 1: initialisation and training batches. Default 1. */
  seed?: number;
  dModel?: number;
  heads?: number;
  /** 1 to 4. Default 2. */
  layers?: number;
  /** Hidden width of each block's MLP; 0: no MLP. Default 2 dModel. */
  mlp?: number;
  batch?: number;
  learningRate?: number;
  weightDecay?: number;
  /** Global gradient-norm clip; 0: none. Default 1. */
  clip?: number;
  /** Task lengths drawn uniformly for each training batch, [shortest, longest]. */
  trainLengths?: [number, number];
  /** Longest token sequence the model accepts (learned tables have this many rows). Default 64. */
  maxLength?: number;
  /** Sinusoidal preset (as posenc's table()). Default 'vaswani'. */
  preset?: Preset;
  ropeBase?: number;
  alibiMaxBias?: number;
  /** T5's relative-position buckets, 2 to 1024 (at least 4 with bidirectional attention: an exact and a logarithmic one each way). Default 32. */
  t5Buckets?: number;
  /** T5's max_distance, past the exact distances (t5Buckets / 4 + 1 bidirectional, t5Buckets / 2 + 1 causal, rounded down) up to 2^20. Default 128. */
  t5MaxDistance?: number;
  /** Every example starts with a start token (one more word and token). Default false. */
  bos?: boolean;
  /**
   * Randomized positions (Ruoss et al. 2023): each example's positions are a
   * sorted sample of distinct positions below this range, in training and in
   * evaluate() (loss() and attentionMaps() use 0 .. n - 1). 0 or false: off
   * (default); true: 4 maxLength; else maxLength .. 4096.
   */
  randomizedPositions?: number | boolean;
}

export interface LabProgress { step: number; loss: number; accuracy: number }

export interface LabTrainOptions extends LabModelOptions {
  steps?: number;
  progressEvery?: number;
  /** Called every progressEvery steps; returning false stops training. */
  onProgress?: (p: LabProgress & { steps: number }) => boolean | void;
}

export interface LabModel {
  config: Required<LabModelOptions>;
  params: Float32Array | Float64Array;
}

export interface LabExamples { shape: [number, number]; tokens: Int32Array; targets: Int32Array }

export interface Lab {
  train(options?: LabTrainOptions): { model: LabModel; history: LabProgress[] };
  /**
   * train() in slices of about 40 ms, each in a turn of the event loop of its own, so a
   * page training without a worker stays responsive: the same model and history, to the bit.
   * Aborting `signal` rejects with its reason at the next slice; everything is freed.
   */
  trainAsync(options?: LabTrainOptions & { signal?: AbortSignal }): Promise<{ model: LabModel; history: LabProgress[] }>;
  /**
   * positions: which answers count (default 'all'); probe 'reversed' (who-did-what):
   * the example backwards, query first, scored by the name before the verb.
   * scored: answers counted; 0 gives NaN accuracy and loss.
   */
  evaluate(model: LabModel, options?: { task?: LabTask; length?: number; samples?: number; seed?: number;
    positions?: LabPositions; probe?: 'reversed' }): { accuracy: number; loss: number; scored: number };
  /** data is layers x heads x n x n, row = query position. tokens: an array or an Int32Array (another typed array is refused). */
  attentionMaps(model: LabModel, tokens: readonly number[] | Int32Array, options?: Record<string, never>): { shape: [number, number, number, number]; data: Float32Array | Float64Array };
  examples(options?: { task?: LabTask; length?: number; count?: number; seed?: number; bos?: boolean; probe?: 'reversed' }): LabExamples;
  loss(model: LabModel, batch: LabExamples, options?: { gradient?: boolean }):
    { loss: number; accuracy: number; gradient?: Float32Array | Float64Array };
  tensors(model: LabModel): { offset: number; shape: [number, number]; kind: string; decay: boolean }[];
  memoryStats(): { bytes: number; liveAllocations: number };
  readonly encodings: readonly LabEncoding[];
  readonly tasks: readonly LabTask[];
  readonly positions: readonly LabPositions[];
  readonly probes: readonly 'reversed'[];
  readonly precision: 'float32' | 'float64';
}

export function init(): Promise<Lab>;
export default init;
export const TASKS: readonly LabTask[];
export function vocabulary(task: LabTask, lang?: 'en' | 'zh', bos?: boolean): string[];
/** The accuracy of guessing: 1/2 for who-did-what (two names present), 1/8 recency, 1/10 the others. */
export function chance(task: LabTask): number;
export function classNames(task: LabTask, lang?: 'en' | 'zh'): string[];
