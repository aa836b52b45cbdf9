// The public API of posenc/lab: validated options in, plain copies out. A
// trained model is a plain object (its options and a copy of its parameters),
// so it can be posted between a worker and a page; every call that needs the
// C model makes one from it and frees it in `finally`.
import { withFrame, openFrame, statusCall, memoryStats, room, exhausted } from '../heap.js';
import { Float32Array, Float64Array, Int32Array, heapView, copyOf, typedArrayBuffer, typedArrayOffset } from '../intrinsics.js';
import { Checker, isArray, typedLength, typedArrayName, copyTyped, SCRATCH_SLACK, item } from '../validate.js';
import { encodingArgs, PRESET_NAMES } from '../presets.js';
import { field } from '../tensor.js';
import { TASKS, TASK_IDS } from './tasks.js';
import { MIN_T5_BUCKETS, t5LeastDistance } from '../minimums.js';
import {
  PE_LAB_MIN_DMODEL, PE_LAB_MAX_DMODEL, PE_LAB_MAX_HEADS, PE_LAB_MAX_LAYERS, PE_LAB_MAX_MLP,
  PE_LAB_MAX_TOKENS, PE_LAB_MAX_BATCH, PE_LAB_MIN_BUCKETS, PE_LAB_MAX_BUCKETS, PE_LAB_MAX_DISTANCE,
  PE_LAB_MAX_ALIBI_BIAS, PE_LAB_MAX_TENSORS, PE_LAB_MAX_LENGTH, PE_LAB_MAX_SEED, PE_LAB_MAX_STEPS,
  PE_LAB_MAX_SAMPLES, PE_LAB_MAX_EXAMPLES, PE_LAB_CALL_SLACK, PE_LAB_CFG_INTS, PE_LAB_CFG_REALS, PE_LAB_TENSOR_FIELDS,
  PE_LAB_NONE, PE_LAB_SINUSOIDAL, PE_LAB_LEARNED, PE_LAB_ROPE, PE_LAB_ALIBI, PE_LAB_T5, PE_LAB_MAX_POSITIONS,
  PE_LAB_BOS, PE_LAB_WHO_REVERSED, PE_LAB_SCORE_ALL, PE_LAB_SCORE_TRAINED, PE_LAB_SCORE_NEW,
} from '../../../dist/constants.js';

/** An Int32Array, by its internal slot (instanceof ran a revoked Proxy's trap and threw a raw TypeError). */
const isInt32 = (v) => typedLength(v) >= 0 && typedArrayName(v) === 'Int32Array';
/**
 * The element count of an array or Int32Array: the typed array's by its slot (an own `length` of 3
 * read 3 of its ids), an array's (a proxy's) as a number read once (an object's valueOf ran twice);
 * callers refuse one that is not whole (a NaN was read as 0 ids).
 */
const lengthOf = (check, name, v) => (isInt32(v) ? typedLength(v) : check.read(`${name}.length`, () => +v.length));

const ENCODING_IDS = { none: PE_LAB_NONE, sinusoidal: PE_LAB_SINUSOIDAL, learned: PE_LAB_LEARNED, rope: PE_LAB_ROPE,
  alibi: PE_LAB_ALIBI, t5: PE_LAB_T5 };
// the lists a caller reads (lab.encodings, lab.tasks, …) are the ones the checks read: frozen, as posenc's PRESET_NAMES,
// or lab.encodings.push('y') made encoding "y" train a model of encoding id 0 without a word
export const ENCODINGS = Object.freeze(Object.keys(ENCODING_IDS));
export const ATTENTION = ['bidirectional', 'causal'];
export const PARAMETER_KINDS = ['token', 'position', 'norm-gain', 'norm-bias', 'query', 'key', 'value',
  'output', 't5-bias', 'mlp-in', 'mlp-in-bias', 'mlp-out', 'mlp-out-bias', 'head', 'head-bias'];

const MODEL_KEYS = ['task', 'encoding', 'attention', 'seed', 'dModel', 'heads', 'layers', 'mlp', 'batch',
  'learningRate', 'weightDecay', 'clip', 'trainLengths', 'maxLength', 'preset', 'ropeBase', 'alibiMaxBias',
  't5Buckets', 't5MaxDistance', 'bos', 'randomizedPositions'];
const TRAIN_KEYS = [...MODEL_KEYS, 'steps', 'onProgress', 'progressEvery'];
/** trainAsync's slice of work between two turns of the event loop: a page stays under the 50 ms of a long task. */
const SLICE_MS = 40;
/**
 * One turn of the event loop: setImmediate where there is one (Node), else a
 * message task. A timer is clamped to 4 ms in a chain; scheduler.yield()'s
 * continuations go ahead of a page's other tasks (a run of them starved
 * Playwright's); Node delivers a message posted from a message's handler in
 * the same turn.
 */
const turn = typeof setImmediate === 'function' ? () => new Promise((resolve) => setImmediate(resolve))
  : () => new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(0);
  });
const DEFAULT_LENGTHS = { 'who-did-what': [3, 6], shift: [3, 16], copy: [2, 8], reverse: [2, 8], recency: [2, 12] };
export const POSITIONS = Object.freeze(['all', 'trained', 'new']);
const SCORE = { all: PE_LAB_SCORE_ALL, trained: PE_LAB_SCORE_TRAINED, new: PE_LAB_SCORE_NEW };
export const PROBES = Object.freeze(['reversed']);

/**
 * The probe option: "reversed" is who-did-what's only. `model`: a task not given is the model's, and said so
 * ("(got "shift")" named a value the caller never gave).
 */
function probeOf(check, o, task, model) {
  const probe = o.probe == null ? null : check.oneOf('probe', o.probe, PROBES);
  if (probe && task !== 'who-did-what') {
    throw check.fail(RangeError, `probe "reversed" is a probe of who-did-what, not of task ${JSON.stringify(task)}${model && o.task == null ? " (the model's)" : ''}`);
  }
  return probe;
}

export function createLab(wasm) {
  const call = statusCall(wasm);
  const Real = wasm.pe_lab_real_bytes() === 8 ? Float64Array : Float32Array;
  // copies, read by index: a view handed to a planted iterator or slice reaches all of wasm memory, and a destructuring
  // follows an iterator a caller can plant (a model's parameter count, answered larger, was written past its parameters)
  const i32 = (ptr, n) => copyOf(heapView(Int32Array, wasm, ptr, n), Int32Array);
  const f64 = (ptr, n) => copyOf(heapView(Float64Array, wasm, ptr, n), Float64Array);

  // A task's C id: its number, plus PE_LAB_BOS when examples start with a start token.
  const taskId = (task, bos) => (typeof task === 'number' ? task : TASK_IDS[task]) + (bos ? PE_LAB_BOS : 0);

  function taskShape(check, frame, task, bos) {
    const out = frame.alloc(12);
    call(check, wasm.pe_lab_task_shape(out, taskId(task, bos)));
    const v = i32(out, 3);
    return { vocab: v[0], classes: v[1], minLength: v[2] };
  }

  /**
   * The longest length of task `id` from `least` whose examples have at most `tokens` tokens, PE_LAB_MAX_LENGTH at most
   * (a copy example of length 1024 has 2049: "from 3 to 1024", then "more than maxLength", named two ranges); where
   * none fits, PE_LAB_MAX_LENGTH, and the caller says why.
   */
  function mostLength(check, frame, id, least, tokens) {
    const t0 = seqLen(check, frame, id, least);
    const most = least + Math.floor((tokens - t0) / (seqLen(check, frame, id, least + 1) - t0));
    return most < least ? PE_LAB_MAX_LENGTH : Math.min(most, PE_LAB_MAX_LENGTH);
  }

  /** The tokens of an example of `length` (checked from the task's shortest to the longest of `tokens`: C said only "status 2"). */
  function taskLength(check, frame, id, length, name = 'length', tokens = Infinity) {
    const least = taskShape(check, frame, id).minLength;
    check.integer(name, length, least, mostLength(check, frame, id, least, tokens));
    return seqLen(check, frame, id, length);
  }

  /** The task's { vocab, classes, minLength }, outside any model. */
  const shapeOf = (check, task, bos) => withFrame(wasm, check, (frame) => taskShape(check, frame, task, bos));

  function seqLen(check, frame, task, length, bos) {
    const out = frame.alloc(4);
    call(check, wasm.pe_lab_task_seq_len(out, taskId(task, bos), length));
    return i32(out, 1)[0];
  }

  /** Every option of a model, checked, with its defaults filled in. */
  function resolve(check, o) {
    const task = check.oneOf('task', o.task ?? 'who-did-what', TASKS);
    const encoding = check.oneOf('encoding', o.encoding ?? 'sinusoidal', ENCODINGS);
    const attention = check.oneOf('attention', o.attention ?? 'bidirectional', ATTENTION);
    const dModel = check.integer('dModel', o.dModel ?? 32, PE_LAB_MIN_DMODEL, PE_LAB_MAX_DMODEL);
    const heads = check.integer('heads', o.heads ?? 4, 1, PE_LAB_MAX_HEADS);
    // an option not given named as the default ("dModel (6) must be a multiple of heads (got 4)" named a value never given)
    const named = (key) => (o[key] == null ? 'the default ' : '') + key;
    if (dModel % heads) throw check.fail(RangeError, `${named('dModel')} (${dModel}) must be a multiple of ${named('heads')}`, heads);
    if (encoding === 'rope' && (dModel / heads) % 2) {
      throw check.fail(RangeError, 'rope needs an even width per head (dModel / heads)', dModel / heads);
    }
    const lengths = o.trainLengths ?? DEFAULT_LENGTHS[task];
    if (!isArray(lengths) || check.read('trainLengths.length', () => lengths.length) !== 2) {
      throw check.fail(TypeError, 'trainLengths must be [shortest, longest]', lengths);
    }
    const bos = check.boolean('bos', o.bos ?? false);
    const { minLength } = shapeOf(check, task, bos);
    // read through check.read: a getter's error named trainLengths (it escaped raw)
    // by item(), as posenc's readers: a hole is undefined, not an index planted on Array.prototype (a token of [0, , 2]
    // was read as Array.prototype[1] and the maps made of it; posenc and posenc/fields refused the hole)
    const [l0, l1] = check.read('trainLengths', () => [item(lengths, 0), item(lengths, 1)]);
    // the longest length whose examples fit a model (PE_LAB_MAX_TOKENS): a copy example of length 1024 has 2049 tokens,
    // and was refused as more than maxLength (1024) after "from 3 to 1024" (the range's top refused too, thirtieth pass)
    const id = taskId(task, bos);
    const most = withFrame(wasm, check, (frame) => mostLength(check, frame, id, minLength, PE_LAB_MAX_TOKENS));
    const lo = check.integer('trainLengths[0]', l0, minLength, most);
    const hi = check.integer('trainLengths[1]', l1, lo, most);
    // the tokens of the longest training example: maxLength's least ("from 1", then "shorter than the 5 tokens of a
    // training example of length 4" for 1 to 4: a range whose least was refused too, thirtieth pass)
    const longest = withFrame(wasm, check, (frame) => seqLen(check, frame, id, hi));
    // the default maxLength too short for trainLengths: named as the default ("(got 64)" named a value never given)
    if (o.maxLength === undefined && longest > 64) {
      throw check.fail(RangeError, `trainLengths [${lo}, ${hi}] make examples of ${longest} tokens, more than the default maxLength (64): give maxLength from ${longest} to ${PE_LAB_MAX_TOKENS}`);
    }
    const t5 = encoding === 't5', two = attention === 'bidirectional';
    const config = {
      task, encoding, attention, dModel, heads, bos,
      seed: check.integer('seed', o.seed ?? 1, 0, PE_LAB_MAX_SEED),
      layers: check.integer('layers', o.layers ?? 2, 1, PE_LAB_MAX_LAYERS),
      mlp: check.integer('mlp', o.mlp ?? 2 * dModel, 0, PE_LAB_MAX_MLP),
      batch: check.integer('batch', o.batch ?? 32, 1, PE_LAB_MAX_BATCH),
      learningRate: check.finite('learningRate', o.learningRate ?? 3e-3, { above: 0, max: 1 }),
      weightDecay: check.finite('weightDecay', o.weightDecay ?? 0.01, { min: 0, max: 1 }),
      clip: check.finite('clip', o.clip ?? 1, { min: 0 }),
      trainLengths: [lo, hi],
      maxLength: check.integer(`maxLength (${longest} tokens of a training example of length ${hi})`, o.maxLength ?? 64, longest, PE_LAB_MAX_TOKENS),
      preset: check.oneOf('preset', o.preset ?? 'vaswani', PRESET_NAMES),
      ropeBase: check.finite('ropeBase', o.ropeBase ?? 10000, { above: 1 }),
      alibiMaxBias: check.finite('alibiMaxBias', o.alibiMaxBias ?? 8, { above: 0, max: PE_LAB_MAX_ALIBI_BIAS }),
      // for t5, the core's buckets need an exact and a logarithmic one each way, and a distance past the exact ones
      // (the model refused them as "status 2" or "status 7" once its block was allocated, 788 MiB kept); checked
      // once, with that least: "from 2" (or "from 1"), then "from 4" (or "from 3") for the same value, named two ranges
      t5Buckets: check.integer(t5 ? `t5Buckets (${attention})` : 't5Buckets', o.t5Buckets ?? 32, t5 && two ? MIN_T5_BUCKETS : PE_LAB_MIN_BUCKETS, PE_LAB_MAX_BUCKETS),
    };
    config.t5MaxDistance = check.integer(t5 ? `${named('t5MaxDistance')} (past the exact distances of ${config.t5Buckets} buckets)` : 't5MaxDistance',
      o.t5MaxDistance ?? 128, t5 ? t5LeastDistance(config.t5Buckets, two) : 1, PE_LAB_MAX_DISTANCE);
    config.randomizedPositions = randomRange(check, o.randomizedPositions ?? 0, config.maxLength);
    return config;
  }

  /**
   * randomizedPositions: 0 (positions 0 .. n - 1), or the range of Ruoss et
   * al.'s randomized positions, maxLength .. PE_LAB_MAX_POSITIONS; true picks
   * four times maxLength.
   */
  function randomRange(check, value, maxLength) {
    if (value === false) return 0;
    if (value === true) return Math.min(4 * maxLength, PE_LAB_MAX_POSITIONS);
    if (value === 0) return 0;
    if (typeof value !== 'number') throw check.fail(TypeError, 'randomizedPositions must be true, false or a number of positions', value);
    return check.integer('randomizedPositions', value, maxLength, PE_LAB_MAX_POSITIONS);
  }

  /**
   * Refuses, before the model is made, one whose buffers (its size from C)
   * and `extra` bytes the call adds pass one call's limit, naming the options
   * that make it that big (a bare "status 2" said none of them), and params
   * that do not fit it (found after the model was made, they left memory
   * grown for it). Returns [bytes + extra, a checked copy of params].
   */
  function checkFits(check, frame, cfg, fcfg, c, params, extra) {
    const out = frame.alloc(16);
    call(check, wasm.pe_lab_model_bytes(out, cfg, fcfg));
    const sizes = f64(out, 2), bytes = sizes[0], count = sizes[1];
    if (params && (typedLength(params) !== count || typedArrayName(params) !== Real.name)) { // by slots: a Proxy runs nothing
      throw check.fail(TypeError, `model.params must be a ${Real.name} of ${count} numbers`, params);
    }
    // + PE_LAB_CALL_SLACK: the model's struct, the frame's small buffers and every buffer's chunk header; counted exactly, a
    // T5 model with attention maps 20 bytes under 1 GiB was made (memory grown to 1006 MiB) and its maps refused as
    // "memory is exhausted", the memory kept
    check.bytes(bytes + extra + PE_LAB_CALL_SLACK, 0, `: a model's attention weights take batch × heads × maxLength² × layers reals (here ${c.batch} × ${c.heads} × ${c.maxLength}² × ${c.layers}), its activations batch × maxLength × (dModel and mlp) (${c.batch} × ${c.maxLength} × (${c.dModel}, ${c.mlp})); lower batch or maxLength`);
    // and beside what is live, as openModel's reserve will ask (the allocator's limit, growing nothing), before params are
    // copied and a caller's data read: beside a model trainAsync held, lab.loss read every id of its batch first
    const need = bytes + extra + SCRATCH_SLACK;
    if (!wasm.pe_fits(need)) throw exhausted(check.fn, need);
    // after the sizes: a forged model's NaN or infinity gave NaN losses and maps, and an accuracy of chance, without a word;
    // checked in a copy, which is what the model is given: a worker writing NaN into params on a SharedArrayBuffer between
    // the check and the copy gave a NaN loss, without a word
    // (of `count` elements, by a view of that length: one on a growable SharedArrayBuffer, grown by a worker after its
    // length was checked, was copied whole and refused raw, "offset is out of bounds")
    const copy = params && copyOf(new Real(typedArrayBuffer(params), typedArrayOffset(params), count), Real);
    for (let i = 0; copy && i < count; i++) if (!Number.isFinite(copy[i])) throw check.fail(RangeError, `model.params[${i}] must be finite`, copy[i]);
    return [bytes + extra, copy];
  }

  /**
   * Memory for a call's `bytes` (and its buffers' headers) grown at once beside what is live, or a refusal before
   * any of it is allocated. Beside a model that trainAsync holds between its slices, attentionMaps' model and
   * examples' tokens each fitted alone, grew memory (146 and 128 MiB, kept) and the maps or targets were then
   * refused as "memory is exhausted".
   */
  const reserve = (check, bytes) => room(wasm, check.fn, bytes + SCRATCH_SLACK, 1);

  /** The C model's two config blocks for config, in frame, once the model (and params, and `extra`) fit (checkFits), its bytes with `extra` and params' checked copy. */
  function modelConfig(check, frame, config, params, extra) {
    const { vocab, classes } = taskShape(check, frame, config.task, config.bos);
    const enc = encodingArgs(check, config.dModel, { __proto__: null, preset: config.preset }); // no layout or base from Object.prototype
    const cfg = frame.alloc(PE_LAB_CFG_INTS * 4);
    // by the set taken at load (copyTyped), not the prototype's: one planted on Int32Array.prototype wrote a config of 4
    // layers where the lab had counted 1, and the core wrote attentionMaps' 3 other layers past its output (48 KiB, the
    // allocator's next header overwritten: a later call trapped)
    copyTyped(heapView(Int32Array, wasm, cfg, PE_LAB_CFG_INTS), [vocab, classes, config.dModel, config.heads, config.layers, config.mlp,
      config.maxLength, config.batch, ENCODING_IDS[config.encoding], config.attention === 'causal' ? 1 : 0,
      enc.layout, enc.freq, config.t5Buckets, config.t5MaxDistance, config.seed, config.randomizedPositions]);
    const fcfg = frame.alloc(PE_LAB_CFG_REALS * 8);
    copyTyped(heapView(Float64Array, wasm, fcfg, PE_LAB_CFG_REALS), [enc.base, config.ropeBase, config.alibiMaxBias, config.learningRate, 0.9, 0.98, 1e-8,
      config.weightDecay, config.clip]);
    const fits = checkFits(check, frame, cfg, fcfg, config, params, extra); // (by index: no iterator a caller can plant)
    return [cfg, fcfg, fits[0], fits[1]];
  }

  /**
   * A C model made from config (and params) in a frame of its own: { ptr, frame, count, close() }, close()
   * freeing both; `extra`: bytes the call adds. Whatever fails on the way is freed before the error leaves.
   */
  function openModel(check, config, params, extra = 0) {
    const frame = openFrame(wasm, check);
    let ptr = 0;
    const close = () => {
      wasm.pe_lab_free(ptr);
      frame.free();
    };
    try {
      // by index, not destructured: a planted Array.prototype[Symbol.iterator] gave pe_lab_create its own addresses, and
      // the core read a config from wasm memory outside the call's buffers
      const made = modelConfig(check, frame, config, params, extra);
      reserve(check, made[2]);
      const out = frame.alloc(4);
      call(check, wasm.pe_lab_create(out, made[0], made[1]));
      ptr = i32(out, 1)[0];
      const count = wasm.pe_lab_param_count(ptr);
      if (made[3]) copyTyped(heapView(Real, wasm, wasm.pe_lab_params(ptr), count), made[3]); // (checkFits' checked copy)
      return { ptr, frame, count, close };
    } catch (e) {
      close();
      throw e;
    }
  }

  /** Runs body(model pointer, frame, parameter count) on openModel's model, freed after. */
  function withModel(check, config, params, body, extra) {
    const m = openModel(check, config, params, extra);
    try {
      return body(m.ptr, m.frame, m.count);
    } finally {
      m.close();
    }
  }

  const readParams = (model, count) => copyOf(heapView(Real, wasm, wasm.pe_lab_params(model), count), Real);

  /** { config, params } of a model, each read once: a getter's error becomes a posenc message naming it. */
  function checkModel(check, model) {
    if (!model || typeof model !== 'object') throw check.fail(TypeError, 'model must be the model that train() returned', model);
    // a model's, a batch's and a signal's fields by field(): their own or their classes', never Object.prototype's (a
    // config, params, tokens or targets planted there was taken for one the call was not given; thirty-eighth pass)
    const config = check.read('model.config', () => field(model, 'config'));
    const params = check.read('model.params', () => field(model, 'params'));
    if (!config || !params) throw check.fail(TypeError, 'model must be the model that train() returned', model);
    return { config: resolve(check, check.options(config, MODEL_KEYS, 'model.config')), params };
  }

  /** lab.train's (and trainAsync's) options, checked: [config, steps, progressEvery, onProgress, rest]. */
  function trainOptions(check, options, keys) {
    const o = check.options(options, keys);
    const config = resolve(check, o);
    const steps = check.integer('steps', o.steps ?? 600, 1, PE_LAB_MAX_STEPS);
    const every = check.integer('progressEvery', o.progressEvery ?? 25, 1, PE_LAB_MAX_STEPS);
    if (o.onProgress != null && typeof o.onProgress !== 'function') {
      throw check.fail(TypeError, 'onProgress must be a function', o.onProgress);
    }
    return [config, steps, every, o.onProgress, o];
  }

  /**
   * The training loop as a generator: each `yield` gives the caller a turn
   * and takes how many steps the next slice may run. A report's sums add up
   * in C across its slices (pe_lab_train_sum), so how a run is cut changes
   * no bit of its model or history.
   */
  function* training(check, config, steps, every, onProgress) {
    const m = openModel(check, config, null);
    try {
      const acc = m.frame.alloc(24);
      const history = [];
      for (let step = 0; step < steps;) {
        const chunk = Math.min(every, steps - step);
        copyTyped(heapView(Float64Array, wasm, acc, 3), [0, 0, 0]); // (not the view's fill: a method a caller can plant)
        for (let done = 0; done < chunk;) {
          const n = Math.min(yield, chunk - done);
          call(check, wasm.pe_lab_train_sum(acc, m.ptr, taskId(config.task, config.bos), config.trainLengths[0],
            config.trainLengths[1], n));
          done += n;
        }
        step += chunk;
        const sums = f64(acc, 3);
        const entry = { step, loss: sums[0] / chunk, accuracy: sums[2] ? sums[1] / sums[2] : 0 };
        history.push(entry);
        if (onProgress && onProgress({ ...entry, steps }) === false) break;
      }
      return { model: { config, params: readParams(m.ptr, m.count) }, history };
    } finally {
      m.close();
    }
  }

  /**
   * Trains a fresh model. Progress is reported (and history recorded) every
   * progressEvery steps as the mean loss and accuracy of those steps' batches;
   * onProgress returning false stops training there.
   */
  function train(options) {
    const check = new Checker('lab.train');
    const run = training(check, ...trainOptions(check, options, TRAIN_KEYS));
    let r = run.next();
    while (!r.done) r = run.next(Infinity);
    return r.value;
  }

  /**
   * train() in slices of about SLICE_MS, each in a turn of the event loop of
   * its own, so a page that trains without a worker still answers clicks and
   * paints; the same model and history as train(), to the bit. signal: an
   * AbortSignal whose abort rejects with its reason at the next slice.
   */
  async function trainAsync(options) {
    const check = new Checker('lab.trainAsync');
    const [config, steps, every, onProgress, o] = trainOptions(check, options, [...TRAIN_KEYS, 'signal']);
    const signal = o.signal;
    // a boolean at every read: a fake whose `aborted` said false, then "yes", was taken as aborted (thirty-fifth pass)
    const aborted = () => {
      const a = typeof signal === 'object' ? check.read('signal.aborted', () => field(signal, 'aborted')) : undefined;
      if (typeof a !== 'boolean') throw check.fail(TypeError, 'signal must be an AbortSignal', signal);
      return a;
    };
    if (signal != null) aborted();
    const run = training(check, config, steps, every, onProgress);
    try {
      // the signal is read before the model is made too: one aborted already grew memory for it (788 MiB kept)
      for (let n = 0; ; await turn()) {
        if (signal && aborted()) throw check.read('signal.reason', () => field(signal, 'reason')) ?? new DOMException('lab.trainAsync was aborted', 'AbortError');
        const t = performance.now();
        const r = run.next(n);
        if (r.done) return r.value;
        // the next slice from this one's pace, at most twice as many steps: a slow step stays one slice (and a
        // clock giving NaN or Infinity one step: Math.max(1, NaN) ran slices of 0 steps, "status 2")
        n = Math.min(2 * n, Math.floor(n * SLICE_MS / Math.max(performance.now() - t, 0.01))) || 1;
      }
    } finally {
      run.return(); // frees the model when the signal or onProgress ended the run
    }
  }

  /**
   * Accuracy and loss on fresh examples of one length. positions: 'all'
   * answers, those at positions a training example had ('trained'), or those
   * at positions none had ('new': c/lab/tasks.c says which). probe
   * 'reversed' (who-did-what): the examples backwards, query first, scored
   * by the name before the verb; the other name is the one farther from the
   * query. scored: answers counted (0: accuracy and loss are NaN).
   */
  function evaluate(model, options) {
    const check = new Checker('lab.evaluate');
    const { config, params } = checkModel(check, model);
    const o = check.options(options, ['task', 'length', 'samples', 'seed', 'positions', 'probe']);
    const task = check.oneOf('task', o.task ?? config.task, TASKS);
    const length = o.length ?? config.trainLengths[1]; // checked by taskLength, from the task's shortest ("from 1" came first)
    // (one not given is the model's, and said so: a recency model of length 2 on who-did-what was "length must be …")
    const named = `length${o.length == null ? " (the model's longest training length)" : ''}`;
    const samples = check.integer('samples', o.samples ?? 512, 1, PE_LAB_MAX_SAMPLES);
    const seed = check.integer('seed', o.seed ?? 0, 0, PE_LAB_MAX_SEED);
    const positions = check.oneOf('positions', o.positions ?? 'all', POSITIONS);
    const probe = probeOf(check, o, task, 1);
    const id = taskId(probe ? PE_LAB_WHO_REVERSED : task, config.bos);
    // Refused before the model is made (a refused call grows no memory).
    withFrame(wasm, check, (frame) => {
      // Another task's tokens or answers may not fit this model's embedding and output (status 9 before).
      const mine = taskShape(check, frame, config.task, config.bos), asked = taskShape(check, frame, task, config.bos);
      if (asked.vocab !== mine.vocab || asked.classes !== mine.classes) {
        throw check.fail(RangeError, `task ${JSON.stringify(task)} uses ${asked.vocab} token ids and ${asked.classes} answers; this model was trained on ${JSON.stringify(config.task)} (${mine.vocab} and ${mine.classes})`, task);
      }
      // the trained positions are those of an example of the model's longest length in the task asked: a recency model of
      // length 2 evaluated on who-did-what (its shortest 3) was refused by the core as "status 2", naming nothing
      const least = taskShape(check, frame, id).minLength;
      if (positions !== 'all' && config.trainLengths[1] < least) {
        throw check.fail(RangeError, `positions "${positions}" needs an example of the model's longest training length (${config.trainLengths[1]}) in task ${JSON.stringify(task)}${probe ? ' (probe "reversed")' : ''}, whose shortest is ${least}; use positions "all"`, positions);
      }
      const need = taskLength(check, frame, id, length, named, config.maxLength);
      if (need > config.maxLength) {
        throw check.fail(RangeError, `${named} ${length} makes ${need} tokens, more than the model's maxLength (${config.maxLength})`);
      }
    });
    return withModel(check, config, params, (ptr, frame) => {
      const out = frame.alloc(24);
      call(check, wasm.pe_lab_evaluate(out, ptr, id, length, samples, seed, config.trainLengths[1], SCORE[positions]));
      const [loss, accuracy, scored] = f64(out, 3);
      return scored ? { accuracy, loss, scored } : { accuracy: NaN, loss: NaN, scored };
    });
  }

  /** n token ids below `vocab` (1 <= n <= maxLength), as an Int32Array snapshot; counted(n) runs before any is read. */
  function tokenArray(check, tokens, vocab, maxLength, counted) {
    const name = 'tokens';
    if (!isArray(tokens) && !isInt32(tokens)) {
      throw check.fail(TypeError, `${name} must be an array of token ids`, tokens);
    }
    const n = lengthOf(check, name, tokens);
    if (!Number.isInteger(n) || n < 1 || n > maxLength) {
      throw check.fail(RangeError, `${name} must hold 1 to ${maxLength} ids (the model's maxLength)`, n);
    }
    counted(n);
    const ids = new Int32Array(n);
    for (let i = 0; i < n; i++) ids[i] = check.integer(`${name}[${i}]`, check.read(`${name}[${i}]`, () => item(tokens, i)), 0, vocab - 1);
    return ids;
  }

  /** Attention weights for one sequence: data is layers x heads x n x n (row: query). */
  function attentionMaps(model, tokens, options) {
    const check = new Checker('lab.attentionMaps');
    const { config, params } = checkModel(check, model);
    check.options(options, []);
    const bytes = (n) => config.layers * config.heads * n * n * Real.BYTES_PER_ELEMENT + 4 * n;
    // the model (and params) checked with the maps' bytes, beside what is live, before an id is read: up to 1 024 ids
    // were read, then the model refused (the eighteenth pass's "seen and left")
    const ids = tokenArray(check, tokens, shapeOf(check, config.task, config.bos).vocab, config.maxLength,
      (n) => withFrame(wasm, check, (frame) => modelConfig(check, frame, config, params, bytes(n))));
    const n = ids.length;
    const size = config.layers * config.heads * n * n;
    return withModel(check, config, params, (ptr, frame) => {
      const tok = frame.alloc(4 * n);
      copyTyped(heapView(Int32Array, wasm, tok, n), ids);
      const out = frame.alloc(size * Real.BYTES_PER_ELEMENT);
      call(check, wasm.pe_lab_attention(out, ptr, tok, n));
      return { shape: [config.layers, config.heads, n, n], data: copyOf(heapView(Real, wasm, out, size), Real) };
    }, bytes(n));
  }

  /**
   * A task's examples as the C generator makes them (targets -1: nothing to
   * predict); bos: each starts with a start token; probe 'reversed': the
   * who-did-what probe's examples (see evaluate).
   */
  function examples(options) {
    const check = new Checker('lab.examples');
    const o = check.options(options, ['task', 'length', 'count', 'seed', 'bos', 'probe']);
    const task = check.oneOf('task', o.task ?? 'who-did-what', TASKS);
    const length = o.length ?? 3; // (as evaluate's)
    const count = check.integer('count', o.count ?? 1, 1, PE_LAB_MAX_EXAMPLES);
    const seed = check.integer('seed', o.seed ?? 0, 0, PE_LAB_MAX_SEED);
    const bos = check.boolean('bos', o.bos ?? false);
    const probe = probeOf(check, o, task);
    const id = taskId(probe ? PE_LAB_WHO_REVERSED : task, bos);
    return withFrame(wasm, check, (frame) => {
      const n = taskLength(check, frame, id, length);
      reserve(check, check.bytes(8 * n * count, undefined, `: count (${count}) examples of ${n} tokens, each a token and a target of 4 bytes`));
      const tok = frame.alloc(4 * n * count);
      const tgt = frame.alloc(4 * n * count);
      call(check, wasm.pe_lab_generate(tok, tgt, id, length, count, seed));
      return { shape: [count, n], tokens: i32(tok, n * count), targets: i32(tgt, n * count) };
    });
  }

  /** batch = { shape: [count, n], tokens, targets } checked against a model's sizes and words. */
  function checkBatch(check, batch, config, vocab, classes, fits) {
    if (!batch || typeof batch !== 'object') throw check.fail(TypeError, 'batch must be { shape, tokens, targets }', batch);
    const shape = check.read('batch.shape', () => field(batch, 'shape'));
    if (!isArray(shape) || check.read('batch.shape.length', () => shape.length) !== 2) throw check.fail(TypeError, 'batch.shape must be [count, n]', shape);
    const [c0, n0] = check.read('batch.shape', () => [item(shape, 0), item(shape, 1)]);
    const count = check.integer('batch.shape[0]', c0, 1, config.batch);
    const n = check.integer('batch.shape[1]', n0, 1, config.maxLength);
    // both lists' type and length before an element of either is read, and before fits() reads the model's params:
    // targets of the wrong length were refused after every one of tokens' up to 2^20 ids was read (a proxy's getter
    // run for each), and a batch of no targets after every value of the params was copied and checked
    const list = (name) => {
      const v = check.read(`batch.${name}`, () => field(batch, name));
      if (!isArray(v) && !isInt32(v)) throw check.fail(TypeError, `batch.${name} must be an Int32Array or array of integers`, v);
      const len = lengthOf(check, `batch.${name}`, v);
      if (len !== count * n) throw check.fail(RangeError, `batch.${name} must hold count x n = ${count * n} ids to match batch.shape`, len);
      return v;
    };
    const lists = [list('tokens'), list('targets')];
    fits(count, n);
    const read = (name, v, lo, hi) => {
      const copy = new Int32Array(count * n);
      for (let i = 0; i < count * n; i++) copy[i] = check.integer(`batch.${name}[${i}]`, check.read(`batch.${name}[${i}]`, () => item(v, i)), lo, hi);
      return copy;
    };
    return { count, n, tokens: read('tokens', lists[0], 0, vocab - 1), targets: read('targets', lists[1], -1, classes - 1) };
  }

  /**
   * The loss (and, with gradient: true, its gradient) of a model on given
   * examples ({ tokens, targets, shape } as examples() returns), with no update:
   * what the gradient check differentiates. At most the model's batch rows
   * and maxLength tokens; targets -1 (nothing to predict) up to classes - 1.
   */
  function loss(model, batch, options) {
    const check = new Checker('lab.loss');
    const { config, params } = checkModel(check, model);
    const o = check.options(options, ['gradient']);
    const gradient = check.boolean('gradient', o.gradient ?? false);
    const { vocab, classes } = shapeOf(check, config.task, config.bos);
    // the model (and params) checked against the batch's shape before its 2 × 2^20 ids are read (0.3 s through a
    // proxy, for a model config or params refused after them)
    // and beside what is live (checkFits): beside a model trainAsync held, every id was read before "memory is exhausted"
    // (13 312 reads of a proxy's for a batch of 52 × 128 at a limit of 36 MiB)
    const { count, n, tokens, targets } = checkBatch(check, batch, config, vocab, classes,
      (count, n) => withFrame(wasm, check, (frame) => modelConfig(check, frame, config, params, 8 * count * n)));
    return withModel(check, config, params, (ptr, frame, size) => {
      const tok = frame.alloc(4 * count * n);
      const tgt = frame.alloc(4 * count * n);
      copyTyped(heapView(Int32Array, wasm, tok, count * n), tokens);
      copyTyped(heapView(Int32Array, wasm, tgt, count * n), targets);
      const out = frame.alloc(24);
      call(check, wasm.pe_lab_loss(out, ptr, tok, tgt, count, n, gradient ? 1 : 0));
      const [value, correct, counted] = f64(out, 3);
      const result = { loss: value, accuracy: counted ? correct / counted : 0 };
      if (gradient) result.gradient = copyOf(heapView(Real, wasm, wasm.pe_lab_grads(ptr), size), Real);
      return result;
    }, 8 * count * n);
  }

  /** Where each parameter tensor lies in model.params, and what kind it is. */
  function tensors(model) {
    const check = new Checker('lab.tensors');
    const { config, params } = checkModel(check, model);
    // its rows counted with the model (`extra`): beside a model trainAsync holds, one of no position scratch within
    // their 1 280 bytes of the limit was made (memory grown by 31 MiB, kept) and the rows refused as "memory is exhausted"
    const most = PE_LAB_MAX_TENSORS * PE_LAB_TENSOR_FIELDS * 4;
    return withModel(check, config, params, (ptr, frame) => {
      const out = frame.alloc(most);
      const count = frame.alloc(4);
      call(check, wasm.pe_lab_tensors(out, count, ptr));
      const rows = i32(out, PE_LAB_TENSOR_FIELDS * i32(count, 1)[0]);
      const list = [];
      for (let t = 0; t < rows.length; t += PE_LAB_TENSOR_FIELDS) {
        list.push({ offset: rows[t], shape: [rows[t + 1], rows[t + 2]], kind: PARAMETER_KINDS[rows[t + 3]], decay: rows[t + 4] === 1 });
      }
      return list;
    }, most + 4);
  }

  return Object.freeze({ train, trainAsync, evaluate, attentionMaps, examples, loss, tensors, memoryStats: () => memoryStats(wasm),
    encodings: ENCODINGS, tasks: TASKS, positions: POSITIONS, probes: PROBES,
    precision: Real === Float64Array ? 'float64' : 'float32' });
}
