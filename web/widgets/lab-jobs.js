// What one of <pe-lab>'s trainers does, wherever it runs (a worker, or the
// page when no worker can start): trains one model at a time with
// posenc/lab, evaluates it, and answers attention requests. The page hands a
// run's models out to several trainers (lab-runner.js), so that each core
// trains its own; a model depends only on its run and seed, never on which
// trainer trained it or when. Messages in: { type: 'train', id, run,
// seedIndex, seeds, lengths, samples } (one model: run.seed + seedIndex) and
// { type: 'attention', id, model, tokens }. Messages out: ready, progress
// (with the model's seed and the milliseconds since its training began),
// done (the model, its history and lab-evaluate.js's evaluating() result),
// attention, error.
import { init } from '../lib/lab/index.js';
import { evaluating } from './lab-evaluate.js';

/** Gives the event loop a turn: on the page, between two models, so clicks and paints get through. */
const breathe = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * A trainer posting its messages through `post`. In a worker it trains with
 * lab.train and is stopped by terminating the worker; on the page (inPage) it
 * trains with lab.trainAsync, between turns of the event loop, and evaluates
 * one length per turn, so the tab still answers; stop() ends the job there at
 * its next slice.
 */
export function trainer(post, inPage = false) {
  const ready = init();
  const abort = new AbortController();
  let stopped = false;

  async function train({ id, run, seedIndex, seeds, lengths, samples }) {
    // a message without run failed here as a raw "Cannot destructure property 'encoding' of 'run'"
    if (!run || typeof run !== 'object') throw new TypeError('a train message needs run, the options of lab.train');
    const lab = await ready;
    await breathe();
    if (stopped) return;
    const started = performance.now();
    const { encoding } = run;
    const options = {
      ...run, seed: run.seed + seedIndex,
      onProgress: (p) => (post({ type: 'progress', id, encoding, seedIndex, seeds, elapsedMs: performance.now() - started, ...p }), !stopped),
    };
    const { model, history } = inPage ? await lab.trainAsync({ ...options, signal: abort.signal }) : lab.train(options);
    const evaluation = evaluating(lab, model, lengths, samples);
    let r = evaluation.next();
    while (!r.done && !stopped) {
      if (inPage) await breathe();
      r = evaluation.next();
    }
    if (stopped) return;
    const result = r.value;
    post({ type: 'done', id, encoding, seedIndex, history, result, seconds: (performance.now() - started) / 1000, model });
  }

  async function attention({ id, model, tokens }) {
    const maps = (await ready).attentionMaps(model, tokens); // checks model before its config is read
    // the tokens come back with their maps: a second request's were labelling the first's maps until its answer came
    post({ type: 'attention', id, encoding: model.config.encoding, ...maps, tokens });
  }

  ready.then(() => post({ type: 'ready' }), (e) => post({ type: 'error', message: `${e.name}: ${e.message}` }));
  return {
    handle(data) {
      // Any message gets an answer: null threw here (and in the catch), an unknown type was taken as attention.
      const type = data?.type;
      const job = type === 'train' ? train(data) : type === 'attention' ? attention(data)
        // a type named by its first 99 characters (one of 2^29 characters failed the message's making: a throw)
        : Promise.reject(new TypeError(`unknown message type ${typeof type === 'string' ? type.slice(0, 99) : typeof type}`));
      job.catch((e) => stopped || post({ type: 'error', id: data?.id, message: `${e.name}: ${e.message}` }));
    },
    stop() {
      stopped = true;
      abort.abort();
    },
  };
}
