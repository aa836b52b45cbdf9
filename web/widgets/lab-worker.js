// The worker behind <pe-lab>: trains one model per encoding (and seed) with
// posenc/lab, so the page stays responsive. Messages in: { type: 'train', id,
// runs, lengths, samples, seeds } and { type: 'attention', id, encoding,
// tokens }. Messages out: progress (per model, with its seed), done (per
// encoding: accuracy against length over the seeds, in-range accuracy, the
// probe), attention, error. The page stops a run by terminating the worker.
import { init } from '../lib/lab/index.js';
import { evaluateRun } from './lab-evaluate.js';

const models = new Map();
const ready = init();

async function train({ id, runs, lengths, samples, seeds = 1 }) {
  const lab = await ready;
  for (const run of runs) {
    const started = performance.now();
    const seedModels = [];
    let history;
    for (let k = 0; k < seeds; k++) {
      const result = lab.train({
        ...run, seed: run.seed + k,
        onProgress: (p) => postMessage({ type: 'progress', id, encoding: run.encoding, seedIndex: k, seeds, ...p }),
      });
      seedModels.push(result.model);
      history ??= result.history;
    }
    const seconds = (performance.now() - started) / 1000;
    models.set(run.encoding, seedModels[0]);
    const { byLength, inRange, fresh, probe } = evaluateRun(lab, seedModels, run, lengths, samples);
    postMessage({ type: 'done', id, encoding: run.encoding, history, byLength, inRange, probe, fresh, seconds, model: seedModels[0] });
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
