// What <pe-lab>'s trainer does, wherever it runs (a worker, or the page when no
// worker can start): trains one model per encoding with posenc/lab and answers
// attention requests. Messages in: { type: 'train', id, runs, lengths, samples,
// seeds } and { type: 'attention', id, encoding, tokens }. Messages out: ready,
// progress (per model, with its seed), done (per encoding, over its seeds:
// lab-evaluate.js's new-position points, in-range accuracy and probe),
// finished, attention, error.
import { init } from '../lib/lab/index.js';
import { evaluateRun } from './lab-evaluate.js';

/** Gives the event loop a turn: on the page, between two models, so clicks and paints get through. */
const breathe = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A trainer posting its messages through `post`; stop() ends a run at its next progress report. */
export function trainer(post) {
  const models = new Map();
  const ready = init();
  let stopped = false;

  async function train({ id, runs, lengths, samples, seeds }) {
    const lab = await ready;
    for (const run of runs) {
      await breathe();
      if (stopped) return;
      const started = performance.now();
      const seedModels = [];
      let history;
      for (let k = 0; k < (seeds ?? 1) && !stopped; k++) {
        const result = lab.train({
          ...run, seed: run.seed + k,
          onProgress: (p) => (post({ type: 'progress', id, encoding: run.encoding, seedIndex: k, seeds: seeds ?? 1, ...p }), !stopped),
        });
        seedModels.push(result.model);
        history ??= result.history;
        if (k + 1 < (seeds ?? 1)) await breathe();
      }
      if (stopped) return;
      const seconds = (performance.now() - started) / 1000;
      models.set(run.encoding, seedModels[0]);
      const { byLength, inRange, fresh, probe } = evaluateRun(lab, seedModels, run, lengths, samples);
      post({ type: 'done', id, encoding: run.encoding, history, byLength, inRange, fresh, probe, seconds, model: seedModels[0] });
    }
    post({ type: 'finished', id });
  }

  async function attention({ id, encoding, tokens }) {
    const lab = await ready;
    const model = models.get(encoding);
    if (!model) throw new Error(`no trained model for ${encoding}`);
    post({ type: 'attention', id, encoding, ...lab.attentionMaps(model, tokens) });
  }

  ready.then(() => post({ type: 'ready' }), (e) => post({ type: 'error', message: `${e.name}: ${e.message}` }));
  return {
    handle(data) {
      const job = data.type === 'train' ? train(data) : attention(data);
      job.catch((e) => post({ type: 'error', id: data.id, message: `${e.name}: ${e.message}` }));
    },
    stop() {
      stopped = true;
    },
  };
}
