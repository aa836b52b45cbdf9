// What <pe-lab> measures after training, shared by its workers and
// bench/lab.mjs: per model, accuracy at each test length and the probe
// (evaluateModel, in the worker that trained it); over the seeds' models of
// one encoding, mean, min and max (combineSeeds, on the page once every seed
// is in): in range, near twice the longest trained length, and the probe.
const EVAL_SEED = 12345;

/** { mean, min, max } of the seeds' values. */
const spread = (v) => ({ mean: v.reduce((a, b) => a + b, 0) / v.length, min: Math.min(...v), max: Math.max(...v) });

/**
 * One model's points: lengths up to the longest trained are scored on all
 * their answers (every position was seen in training); longer ones on their
 * new positions only, since the answers at trained positions would hide what
 * the encoding does past them. Lengths the model cannot take (maxLength) are
 * left out. probe: who-did-what's reversed sentences, the share answering
 * with the name before the verb (the rest, the farther name); null otherwise.
 * A generator, yielding before each evaluation, so the page's trainer can
 * give the event loop a turn between them (evaluateModel runs them at once).
 */
export function* evaluating(lab, model, lengths, samples) {
  // the model's own config, defaults filled in: a run may leave trainLengths or task out
  const { trainLengths: [, hi], task } = model.config;
  const points = [];
  for (const length of lengths) {
    const positions = length > hi ? 'new' : 'trained';
    yield;
    try {
      points.push({ length, positions, accuracy: lab.evaluate(model, { length, samples, seed: EVAL_SEED, positions }).accuracy });
    } catch {
      // longer than the model accepts
    }
  }
  if (task !== 'who-did-what') return { points, probe: null };
  yield;
  return { points, probe: lab.evaluate(model, { length: hi, samples, seed: EVAL_SEED, probe: 'reversed' }).accuracy };
}

/** evaluating()'s result, in one go. */
export function evaluateModel(lab, model, lengths, samples) {
  const evaluation = evaluating(lab, model, lengths, samples);
  let r = evaluation.next();
  while (!r.done) r = evaluation.next();
  return r.value;
}

/**
 * The seeds' results (evaluateModel's, same run but the seed) as byLength:
 * the new-position points; inRange: the longest trained length; fresh: the
 * first new point at twice that or more; probe. Each a { mean, min, max }.
 */
export function combineSeeds(results, run) {
  const hi = run.trainLengths[1];
  const points = results[0].points.map((p, i) => ({ length: p.length, positions: p.positions, ...spread(results.map((r) => r.points[i].accuracy)) }));
  const fresh = points.filter((p) => p.positions === 'new');
  return { byLength: fresh, inRange: points.find((p) => p.length === hi) ?? null,
    fresh: fresh.find((p) => p.length >= 2 * hi) ?? fresh.at(-1) ?? null,
    probe: results[0].probe === null ? null : spread(results.map((r) => r.probe)) };
}

/** Both, for models trained in one place (bench/lab.mjs). */
export const evaluateRun = (lab, seedModels, run, lengths, samples) =>
  combineSeeds(seedModels.map((m) => evaluateModel(lab, m, lengths, samples)), run);
