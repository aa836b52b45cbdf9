// The worker behind <pe-lab>: trains one model per encoding with posenc/lab,
// so the page stays responsive. Messages in: { type: 'train', id, runs, lengths,
// samples } and { type: 'attention', id, encoding, tokens }. Messages out:
// progress, done (with accuracy against length), attention, error. The page
// stops a run by terminating the worker.
import { init } from '../lib/lab/index.js';

const models = new Map();
const ready = init();

async function train({ id, runs, lengths, samples }) {
  const lab = await ready;
  for (const run of runs) {
    const started = performance.now();
    const { model, history } = lab.train({
      ...run,
      onProgress: (p) => postMessage({ type: 'progress', id, encoding: run.encoding, ...p }),
    });
    const seconds = (performance.now() - started) / 1000;
    models.set(run.encoding, model);
    const byLength = lengths
      .filter((length) => length >= 1)
      .map((length) => {
        try {
          return { length, accuracy: lab.evaluate(model, { length, samples, seed: 12345 }).accuracy };
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
