// What <pe-lab>'s trainer does, wherever it runs (a worker, or the page when no
// worker can start): trains one model per encoding with posenc/lab and answers
// attention requests. Messages in: { type: 'train', id, runs, lengths, samples,
// seeds } and { type: 'attention', id, encoding, tokens }. Messages out: ready,
// progress, done (with accuracy against length), finished, attention, error.
import { init } from '../lib/lab/index.js';

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
      const { model, history } = lab.train({
        ...run,
        onProgress: (p) => (post({ type: 'progress', id, encoding: run.encoding, ...p }), !stopped),
      });
      if (stopped) return;
      const seconds = (performance.now() - started) / 1000;
      models.set(run.encoding, model);
      // Accuracy against length over `seeds` models (this one and seeds - 1 more,
      // trained alike with the next seeds): mean, min and max.
      const seedModels = [model];
      for (let k = 1; k < (seeds ?? 1); k++) seedModels.push(lab.train({ ...run, seed: run.seed + k }).model);
      const byLength = lengths.filter((length) => length >= 1).map((length) => {
        try {
          const acc = seedModels.map((m) => lab.evaluate(m, { length, samples, seed: 12345 }).accuracy);
          return { length, accuracy: acc.reduce((a, b) => a + b, 0) / acc.length, min: Math.min(...acc), max: Math.max(...acc) };
        } catch {
          return null; // longer than the model accepts (maxLength)
        }
      }).filter(Boolean);
      post({ type: 'done', id, encoding: run.encoding, history, byLength, seconds, model });
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
