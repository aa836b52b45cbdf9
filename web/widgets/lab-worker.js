// The worker behind <pe-lab>: trains one model per encoding (and seed) with
// posenc/lab, so the page stays responsive. Messages in: { type: 'train', id,
// runs, lengths, samples, seeds } and { type: 'attention', id, encoding,
// tokens }. Messages out: progress (per model, with its seed), done (per
// encoding: accuracy against length over the seeds, in-range accuracy, the
// probe), attention, error. The page stops a run by terminating the worker.
import { init } from '../lib/lab/index.js';

const models = new Map();
const ready = init();
const EVAL_SEED = 12345;

/** { mean, min, max } of the seeds' values. */
const spread = (v) => ({ mean: v.reduce((a, b) => a + b, 0) / v.length, min: Math.min(...v), max: Math.max(...v) });

/**
 * Lengths up to the longest trained are scored on all their answers (every
 * position was seen in training); longer ones on their new positions only,
 * since the answers at trained positions would hide what the encoding does
 * past them. Lengths the model cannot take (maxLength) are left out.
 */
function byLength(lab, seedModels, lengths, samples, hi) {
  const out = [];
  for (const length of lengths) {
    const positions = length > hi ? 'new' : 'trained';
    try {
      const acc = seedModels.map((m) => lab.evaluate(m, { length, samples, seed: EVAL_SEED, positions }).accuracy);
      out.push({ length, positions, ...spread(acc) });
    } catch {
      // longer than the model accepts
    }
  }
  return out;
}

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
    const hi = run.trainLengths[1];
    const points = byLength(lab, seedModels, lengths, samples, hi);
    const inRange = points.find((p) => p.length === hi) ?? null;
    const fresh = points.filter((p) => p.positions === 'new');
    // who-did-what's probe: the sentence reversed, query first; the share that
    // answers with the name before the verb (the rest, the farther name).
    const probe = run.task === 'who-did-what'
      ? spread(seedModels.map((m) => lab.evaluate(m, { length: hi, samples, seed: EVAL_SEED, probe: 'reversed' }).accuracy))
      : null;
    postMessage({ type: 'done', id, encoding: run.encoding, history, byLength: fresh, inRange, probe,
      fresh: fresh.find((p) => p.length >= 2 * hi) ?? fresh.at(-1) ?? null, seconds, model: seedModels[0] });
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
