// The worker behind <pe-lab>: trains one model per encoding with posenc/lab,
// so the page stays responsive. Messages in: { type: 'train', id, runs, lengths,
// samples, seeds } and { type: 'attention', id, encoding, tokens }. Messages out:
// progress, done (with accuracy against length), attention, error. The page
// stops a run by terminating the worker.
import { init } from '../lib/lab/index.js';

const models = new Map();
const ready = init();

async function train({ id, runs, lengths, samples, seeds }) {
  const lab = await ready;
  for (const run of runs) {
    const started = performance.now();
    const { model, history } = lab.train({
      ...run,
      onProgress: (p) => postMessage({ type: 'progress', id, encoding: run.encoding, ...p }),
    });
    const seconds = (performance.now() - started) / 1000;
    models.set(run.encoding, model);
    // Accuracy against length over `seeds` models (this one and seeds - 1 more,
    // trained alike with the next seeds): mean, min and max.
    const seedModels = [model];
    for (let k = 1; k < (seeds ?? 1); k++) seedModels.push(lab.train({ ...run, seed: run.seed + k }).model);
    const byLength = lengths
      .filter((length) => length >= 1)
      .map((length) => {
        try {
          const acc = seedModels.map((m) => lab.evaluate(m, { length, samples, seed: 12345 }).accuracy);
          return { length, accuracy: acc.reduce((a, b) => a + b, 0) / acc.length, min: Math.min(...acc), max: Math.max(...acc) };
        } catch {
          return null; // longer than the model accepts (maxLength)
        }
      })
      .filter(Boolean);
    postMessage({ type: 'done', id, encoding: run.encoding, history, byLength, seconds, model });
  }
  postMessage({ type: 'finished', id });
}

async function attention({ id, encoding, tokens }) {
  const lab = await ready;
  const model = models.get(encoding);
  if (!model) throw new Error(`no trained model for ${encoding}`);
  postMessage({ type: 'attention', id, encoding, ...lab.attentionMaps(model, tokens) });
}

onmessage = ({ data }) => {
  const job = data.type === 'train' ? train(data) : attention(data);
  job.catch((e) => postMessage({ type: 'error', id: data.id, message: `${e.name}: ${e.message}` }));
};
