// The public API of posenc/lab: validated options in, plain copies out. A
// trained model is a plain object (its options and a copy of its parameters),
// so it can be posted between a worker and a page; every call that needs the
// C model makes one from it and frees it in `finally`.
import { withFrame, statusCall } from '../heap.js';
import { Checker } from '../validate.js';
import { encodingArgs, PRESET_NAMES } from '../presets.js';
import { TASKS, TASK_IDS } from './tasks.js';
import {
  PE_LAB_MIN_DMODEL, PE_LAB_MAX_DMODEL, PE_LAB_MAX_HEADS, PE_LAB_MAX_LAYERS, PE_LAB_MAX_MLP,
  PE_LAB_MAX_TOKENS, PE_LAB_MAX_BATCH, PE_LAB_MIN_BUCKETS, PE_LAB_MAX_BUCKETS, PE_LAB_MAX_DISTANCE,
  PE_LAB_MAX_ALIBI_BIAS, PE_LAB_MAX_TENSORS, PE_LAB_MAX_LENGTH, PE_LAB_MAX_SEED, PE_LAB_MAX_STEPS,
  PE_LAB_MAX_SAMPLES, PE_LAB_MAX_EXAMPLES, PE_LAB_CFG_INTS, PE_LAB_CFG_REALS, PE_LAB_TENSOR_FIELDS,
  PE_LAB_NONE, PE_LAB_SINUSOIDAL, PE_LAB_LEARNED, PE_LAB_ROPE, PE_LAB_ALIBI, PE_LAB_T5,
} from '../../../dist/constants.js';

const ENCODING_IDS = { none: PE_LAB_NONE, sinusoidal: PE_LAB_SINUSOIDAL, learned: PE_LAB_LEARNED, rope: PE_LAB_ROPE,
  alibi: PE_LAB_ALIBI, t5: PE_LAB_T5 };
export const ENCODINGS = Object.keys(ENCODING_IDS);
export const ATTENTION = ['bidirectional', 'causal'];
export const PARAMETER_KINDS = ['token', 'position', 'norm-gain', 'norm-bias', 'query', 'key', 'value',
  'output', 't5-bias', 'mlp-in', 'mlp-in-bias', 'mlp-out', 'mlp-out-bias', 'head', 'head-bias'];

const MODEL_KEYS = ['task', 'encoding', 'attention', 'seed', 'dModel', 'heads', 'layers', 'mlp', 'batch',
  'learningRate', 'weightDecay', 'clip', 'trainLengths', 'maxLength', 'preset', 'ropeBase', 'alibiMaxBias',
  't5Buckets', 't5MaxDistance'];
const TRAIN_KEYS = [...MODEL_KEYS, 'steps', 'onProgress', 'progressEvery'];
const DEFAULT_LENGTHS = { 'who-did-what': [3, 6], shift: [3, 16], copy: [2, 8], reverse: [2, 8] };

export function createLab(wasm) {
  const call = statusCall(wasm);
  const Real = wasm.pe_lab_real_bytes() === 8 ? Float64Array : Float32Array;
  const i32 = (ptr, n) => new Int32Array(wasm.memory.buffer, ptr, n);
  const f64 = (ptr, n) => new Float64Array(wasm.memory.buffer, ptr, n);

  function taskShape(check, frame, task) {
    const out = frame.alloc(12);
    call(check, wasm.pe_lab_task_shape(out, TASK_IDS[task]));
    const [vocab, classes, minLength] = i32(out, 3);
    return { vocab, classes, minLength };
  }

  function seqLen(check, frame, task, length) {
    const out = frame.alloc(4);
    call(check, wasm.pe_lab_task_seq_len(out, TASK_IDS[task], length));
    return i32(out, 1)[0];
  }

  /** Every option of a model, checked, with its defaults filled in. */
  function resolve(check, o) {
    const task = check.oneOf('task', o.task ?? 'who-did-what', TASKS);
    const encoding = check.oneOf('encoding', o.encoding ?? 'sinusoidal', ENCODINGS);
    const attention = check.oneOf('attention', o.attention ?? 'bidirectional', ATTENTION);
    const dModel = check.integer('dModel', o.dModel ?? 32, PE_LAB_MIN_DMODEL, PE_LAB_MAX_DMODEL);
    const heads = check.integer('heads', o.heads ?? 4, 1, PE_LAB_MAX_HEADS);
    if (dModel % heads) throw check.fail(RangeError, `dModel (${dModel}) must be a multiple of heads`, heads);
    if (encoding === 'rope' && (dModel / heads) % 2) {
      throw check.fail(RangeError, 'rope needs an even width per head (dModel / heads)', dModel / heads);
    }
    const lengths = o.trainLengths ?? DEFAULT_LENGTHS[task];
    if (!Array.isArray(lengths) || lengths.length !== 2) {
      throw check.fail(TypeError, 'trainLengths must be [shortest, longest]', lengths);
    }
    const { minLength } = withFrame(wasm, check, (frame) => taskShape(check, frame, task));
    const lo = check.integer('trainLengths[0]', lengths[0], minLength, PE_LAB_MAX_LENGTH);
    const hi = check.integer('trainLengths[1]', lengths[1], lo, PE_LAB_MAX_LENGTH);
    const config = {
      task, encoding, attention, dModel, heads,
      seed: check.integer('seed', o.seed ?? 1, 0, PE_LAB_MAX_SEED),
      layers: check.integer('layers', o.layers ?? 2, 1, PE_LAB_MAX_LAYERS),
      mlp: check.integer('mlp', o.mlp ?? 2 * dModel, 0, PE_LAB_MAX_MLP),
      batch: check.integer('batch', o.batch ?? 32, 1, PE_LAB_MAX_BATCH),
      learningRate: check.finite('learningRate', o.learningRate ?? 3e-3, { above: 0, max: 1 }),
      weightDecay: check.finite('weightDecay', o.weightDecay ?? 0.01, { min: 0, max: 1 }),
      clip: check.finite('clip', o.clip ?? 1, { min: 0 }),
      trainLengths: [lo, hi],
      maxLength: check.integer('maxLength', o.maxLength ?? 64, 1, PE_LAB_MAX_TOKENS),
      preset: check.oneOf('preset', o.preset ?? 'vaswani', PRESET_NAMES),
      ropeBase: check.finite('ropeBase', o.ropeBase ?? 10000, { above: 1 }),
      alibiMaxBias: check.finite('alibiMaxBias', o.alibiMaxBias ?? 8, { above: 0, max: PE_LAB_MAX_ALIBI_BIAS }),
      t5Buckets: check.integer('t5Buckets', o.t5Buckets ?? 32, PE_LAB_MIN_BUCKETS, PE_LAB_MAX_BUCKETS),
      t5MaxDistance: check.integer('t5MaxDistance', o.t5MaxDistance ?? 128, 1, PE_LAB_MAX_DISTANCE),
    };
    withFrame(wasm, check, (frame) => {
      const longest = seqLen(check, frame, task, hi);
      if (longest > config.maxLength) {
        throw check.fail(RangeError, `maxLength (${config.maxLength}) is shorter than the ${longest} tokens of a training example of length ${hi}`);
      }
    });
    return config;
  }

  /** Runs body(model pointer) on a C model made from config (and params), freed after. */
  function withModel(check, config, params, body) {
    return withFrame(wasm, check, (frame) => {
      const { vocab, classes } = taskShape(check, frame, config.task);
      const enc = encodingArgs(check, config.dModel, { preset: config.preset });
      const cfg = frame.alloc(PE_LAB_CFG_INTS * 4);
      i32(cfg, PE_LAB_CFG_INTS).set([vocab, classes, config.dModel, config.heads, config.layers, config.mlp,
        config.maxLength, config.batch, ENCODING_IDS[config.encoding], config.attention === 'causal' ? 1 : 0,
        enc.layout, enc.freq, config.t5Buckets, config.t5MaxDistance, config.seed]);
      const fcfg = frame.alloc(PE_LAB_CFG_REALS * 8);
      f64(fcfg, PE_LAB_CFG_REALS).set([enc.base, config.ropeBase, config.alibiMaxBias, config.learningRate, 0.9, 0.98, 1e-8,
        config.weightDecay, config.clip]);
      const out = frame.alloc(4);
      call(check, wasm.pe_lab_create(out, cfg, fcfg));
      const model = i32(out, 1)[0];
      try {
        const count = wasm.pe_lab_param_count(model);
        if (params) {
          if (params.length !== count || !(params instanceof Real)) {
            throw check.fail(TypeError, `model.params must be a ${Real.name} of ${count} numbers`, params);
          }
          new Real(wasm.memory.buffer, wasm.pe_lab_params(model), count).set(params);
        }
        return body(model, frame, count);
      } finally {
        wasm.pe_lab_free(model);
      }
    });
  }

  const readParams = (model, count) => new Real(wasm.memory.buffer, wasm.pe_lab_params(model), count).slice();

  function checkModel(check, model) {
    if (!model || typeof model !== 'object' || !model.config || !model.params) {
      throw check.fail(TypeError, 'model must be the model that train() returned', model);
    }
    return resolve(check, model.config);
  }

  /**
   * Trains a fresh model. Progress is reported (and history recorded) every
   * progressEvery steps as the mean loss and accuracy of those steps' batches;
   * onProgress returning false stops training there.
   */
  function train(options) {
    const check = new Checker('lab.train');
    const o = check.options(options, TRAIN_KEYS);
    const config = resolve(check, o);
    const steps = check.integer('steps', o.steps ?? 600, 1, PE_LAB_MAX_STEPS);
    const every = check.integer('progressEvery', o.progressEvery ?? 25, 1, PE_LAB_MAX_STEPS);
    if (o.onProgress !== undefined && typeof o.onProgress !== 'function') {
      throw check.fail(TypeError, 'onProgress must be a function', o.onProgress);
    }
    return withModel(check, config, null, (model, frame, count) => {
      const out = frame.alloc(16);
      const history = [];
      for (let step = 0; step < steps;) {
        const chunk = Math.min(every, steps - step);
        call(check, wasm.pe_lab_train(out, model, TASK_IDS[config.task], config.trainLengths[0],
          config.trainLengths[1], chunk));
        step += chunk;
        const [loss, accuracy] = f64(out, 2);
        const entry = { step, loss, accuracy };
        history.push(entry);
        if (o.onProgress && o.onProgress({ ...entry, steps }) === false) break;
      }
      return { model: { config, params: readParams(model, count) }, history };
    });
  }

  function evaluate(model, options) {
    const check = new Checker('lab.evaluate');
    const config = checkModel(check, model);
    const o = check.options(options, ['task', 'length', 'samples', 'seed']);
    const task = check.oneOf('task', o.task ?? config.task, TASKS);
    const length = check.integer('length', o.length ?? config.trainLengths[1], 1, PE_LAB_MAX_LENGTH);
    const samples = check.integer('samples', o.samples ?? 512, 1, PE_LAB_MAX_SAMPLES);
    const seed = check.integer('seed', o.seed ?? 0, 0, PE_LAB_MAX_SEED);
    return withModel(check, config, model.params, (ptr, frame) => {
      const need = seqLen(check, frame, task, length);
      if (need > config.maxLength) {
        throw check.fail(RangeError, `length ${length} makes ${need} tokens, more than the model's maxLength (${config.maxLength})`);
      }
      const out = frame.alloc(16);
      call(check, wasm.pe_lab_evaluate(out, ptr, TASK_IDS[task], length, samples, seed));
      const [loss, accuracy] = f64(out, 2);
      return { accuracy, loss };
    });
  }

  function tokenArray(check, tokens, vocab, maxLength) {
    if (!Array.isArray(tokens) && !(tokens instanceof Int32Array)) {
      throw check.fail(TypeError, 'tokens must be an array of token ids', tokens);
    }
    if (tokens.length < 1 || tokens.length > maxLength) {
      throw check.fail(RangeError, `tokens must hold 1 to ${maxLength} ids (the model's maxLength)`, tokens.length);
    }
    return Int32Array.from(tokens, (t, i) => check.integer(`tokens[${i}]`, t, 0, vocab - 1));
  }

  /** Attention weights for one sequence: data is layers x heads x n x n (row: query). */
  function attentionMaps(model, tokens) {
    const check = new Checker('lab.attentionMaps');
    const config = checkModel(check, model);
    return withModel(check, config, model.params, (ptr, frame) => {
      const { vocab } = taskShape(check, frame, config.task);
      const ids = tokenArray(check, tokens, vocab, config.maxLength);
      const n = ids.length;
      const tok = frame.alloc(4 * n);
      i32(tok, n).set(ids);
      const size = config.layers * config.heads * n * n;
      const out = frame.alloc(size * Real.BYTES_PER_ELEMENT);
      call(check, wasm.pe_lab_attention(out, ptr, tok, n));
      return { shape: [config.layers, config.heads, n, n], data: new Real(wasm.memory.buffer, out, size).slice() };
    });
  }

  /** A task's examples as the C generator makes them (targets -1: nothing to predict). */
  function examples(options) {
    const check = new Checker('lab.examples');
    const o = check.options(options, ['task', 'length', 'count', 'seed']);
    const task = check.oneOf('task', o.task ?? 'who-did-what', TASKS);
    const length = check.integer('length', o.length ?? 3, 1, PE_LAB_MAX_LENGTH);
    const count = check.integer('count', o.count ?? 1, 1, PE_LAB_MAX_EXAMPLES);
    const seed = check.integer('seed', o.seed ?? 0, 0, PE_LAB_MAX_SEED);
    return withFrame(wasm, check, (frame) => {
      const n = seqLen(check, frame, task, length);
      const tok = frame.alloc(4 * n * count);
      const tgt = frame.alloc(4 * n * count);
      call(check, wasm.pe_lab_generate(tok, tgt, TASK_IDS[task], length, count, seed));
      return { shape: [count, n], tokens: i32(tok, n * count).slice(), targets: i32(tgt, n * count).slice() };
    });
  }

  /**
   * The loss (and, with gradient: true, its gradient) of a model on given
   * examples ({ tokens, targets, shape } as examples() returns), with no update:
   * what the gradient check differentiates.
   */
  function loss(model, batch, { gradient = false } = {}) {
    const check = new Checker('lab.loss');
    const config = checkModel(check, model);
    const [count, n] = batch.shape;
    return withModel(check, config, model.params, (ptr, frame, size) => {
      const tok = frame.alloc(4 * count * n);
      const tgt = frame.alloc(4 * count * n);
      i32(tok, count * n).set(batch.tokens);
      i32(tgt, count * n).set(batch.targets);
      const out = frame.alloc(24);
      call(check, wasm.pe_lab_loss(out, ptr, tok, tgt, count, n, gradient ? 1 : 0));
      const [value, correct, counted] = f64(out, 3);
      const result = { loss: value, accuracy: counted ? correct / counted : 0 };
      if (gradient) result.gradient = new Real(wasm.memory.buffer, wasm.pe_lab_grads(ptr), size).slice();
      return result;
    });
  }

  /** Where each parameter tensor lies in model.params, and what kind it is. */
  function tensors(model) {
    const check = new Checker('lab.tensors');
    const config = checkModel(check, model);
    return withModel(check, config, model.params, (ptr, frame) => {
      const out = frame.alloc(PE_LAB_MAX_TENSORS * PE_LAB_TENSOR_FIELDS * 4);
      const count = frame.alloc(4);
      call(check, wasm.pe_lab_tensors(out, count, ptr));
      const rows = i32(out, PE_LAB_TENSOR_FIELDS * i32(count, 1)[0]);
      const list = [];
      for (let t = 0; t < rows.length; t += PE_LAB_TENSOR_FIELDS) {
        list.push({ offset: rows[t], shape: [rows[t + 1], rows[t + 2]], kind: PARAMETER_KINDS[rows[t + 3]], decay: rows[t + 4] === 1 });
      }
      return list;
    });
  }

  const memoryStats = () => ({ bytes: wasm.memory.buffer.byteLength, liveAllocations: wasm.pe_live_allocations() });

  return Object.freeze({ train, evaluate, attentionMaps, examples, loss, tensors, memoryStats,
    encodings: ENCODINGS, tasks: TASKS, precision: Real === Float64Array ? 'float64' : 'float32' });
}
