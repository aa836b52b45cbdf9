// What <pe-lab> measures after training, shared by its worker and
// bench/lab.mjs: per test length, accuracy over the seeds' models (mean, min,
// max); in range, near twice the longest trained length, and the probe.
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

/**
 * byLength: the new-position points; inRange: the longest trained length;
 * fresh: the first new point at twice that or more; probe: who-did-what's
 * reversed sentences, the share answering with the name before the verb
 * (the rest, the farther name).
 */
export function evaluateRun(lab, seedModels, run, lengths, samples) {
  const hi = run.trainLengths[1];
  const points = byLength(lab, seedModels, lengths, samples, hi);
  const fresh = points.filter((p) => p.positions === 'new');
  const probe = run.task === 'who-did-what'
    ? spread(seedModels.map((m) => lab.evaluate(m, { length: hi, samples, seed: EVAL_SEED, probe: 'reversed' }).accuracy))
    : null;
  return { byLength: fresh, inRange: points.find((p) => p.length === hi) ?? null,
    fresh: fresh.find((p) => p.length >= 2 * hi) ?? fresh.at(-1) ?? null, probe };
}
