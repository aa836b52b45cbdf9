// What one of <pe-lab>'s trainers does, wherever it runs (a worker, or the
// page when no worker can start): trains one model at a time with
// posenc/lab, evaluates it, and answers attention requests. The page hands a
// run's models out to several trainers (lab-runner.js), so that each core
// trains its own; a model depends only on its run and seed, never on which
// trainer trained it or when. Messages in: { type: 'train', id, run,
// seedIndex, seeds, lengths, samples } (one model: run.seed + seedIndex) and
// { type: 'attention', id, model, tokens }. Messages out: ready, progress
// (with the model's seed and the milliseconds since its training began),
// done (the model, its history and lab-evaluate.js's evaluateModel result),
// attention, error.
import { init } from '../lib/lab/index.js';
import { evaluateModel } from './lab-evaluate.js';

/** Gives the event loop a turn: on the page, between two models, so clicks and paints get through. */
const breathe = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A trainer posting its messages through `post`; stop() ends a job at its next progress report. */
export function trainer(post) {
  const ready = init();
  let stopped = false;

  async function train({ id, run, seedIndex, seeds, lengths, samples }) {
    // a message without run failed here as a raw "Cannot destructure property 'encoding' of 'run'"
    if (!run || typeof run !== 'object') throw new TypeError('a train message needs run, the options of lab.train');
    const lab = await ready;
    await breathe();
    if (stopped) return;
    const started = performance.now();
    const { encoding } = run;
    const { model, history } = lab.train({
      ...run, seed: run.seed + seedIndex,
      onProgress: (p) => (post({ type: 'progress', id, encoding, seedIndex, seeds, elapsedMs: performance.now() - started, ...p }), !stopped),
    });
    if (stopped) return;
    const result = evaluateModel(lab, model, run, lengths, samples);
    post({ type: 'done', id, encoding, seedIndex, history, result, seconds: (performance.now() - started) / 1000, model });
  }

  async function attention({ id, model, tokens }) {
    const maps = (await ready).attentionMaps(model, tokens); // checks model before its config is read
    post({ type: 'attention', id, encoding: model.config.encoding, ...maps });
  }

  ready.then(() => post({ type: 'ready' }), (e) => post({ type: 'error', message: `${e.name}: ${e.message}` }));
  return {
    handle(data) {
      // Any message gets an answer: null threw here (and in the catch), an unknown type was taken as attention.
      const type = data?.type;
      const job = type === 'train' ? train(data) : type === 'attention' ? attention(data)
        // a type named by its first 99 characters (one of 2^29 characters failed the message's making: a throw)
        : Promise.reject(new TypeError(`unknown message type ${typeof type === 'string' ? type.slice(0, 99) : typeof type}`));
      job.catch((e) => post({ type: 'error', id: data?.id, message: `${e.name}: ${e.message}` }));
    },
    stop() {
      stopped = true;
    },
  };
}
