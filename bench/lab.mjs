// The PE lab's part of `npm run bench` (also runnable alone: node bench/lab.mjs
// [--lengths[=shift,who-did-what]]):
//  1. time per training step of posenc/lab against the same model trained by
//     TensorFlow.js (tfjs-wasm and tfjs-cpu, its own autodiff and Adam), on the
//     same batch: who-did-what, length 6 (7 tokens), batch 32, d_model 32,
//     4 heads, 2 layers, MLP 64, sinusoidal positions;
//  2. the work of <pe-lab>'s default run (six encodings, who-did-what, its
//     steps, test lengths and samples; web/widgets/lab-defaults.js) with 1 and
//     3 seeds, as CPU seconds of this process: on a shared machine the
//     closest stand-in for the time on an idle one (bench/lab-browser.mjs
//     times the same run in Chromium, wall clock and CPU, on its pool of
//     workers);
//  3. with --lengths, accuracy against test length per encoding, 3 seeds
//     (mean, min, max), over all answers (bench/lab-papers.mjs scores new
//     positions apart); the copy table of docs/lab.md comes from here.
// Writes dist/bench-lab.json.
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { init } from '../web/lib/lab/index.js';
import { measureRatio } from './measure.mjs';
import { tfjsLabModel, loadTfjs } from '../tests/helpers/lab-tfjs.js';
import { LENGTHS, DEFAULT_STEPS, EVAL_SAMPLES, testLengths } from '../web/widgets/lab-defaults.js';
import { evaluateRun } from '../web/widgets/lab-evaluate.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const STEPS = 20;

/** { perStepMs, ratio } rows: posenc/lab against each tfjs backend. */
export async function labSpeed(log = () => {}) {
  const lab = await init();
  const tf = await loadTfjs({ wasm: true });
  const config = { task: 'who-did-what', encoding: 'sinusoidal', attention: 'bidirectional', trainLengths: [6, 6], seed: 1 };
  const { model } = lab.train({ ...config, steps: 1 });
  const batch = lab.examples({ task: 'who-did-what', length: 6, count: 32, seed: 3 });
  const tensors = lab.tensors(model);
  const ours = () => lab.train({ ...config, steps: STEPS, progressEvery: STEPS });
  const rows = [];
  for (const backend of ['wasm', 'cpu']) {
    await tf.setBackend(backend);
    const tfm = tfjsLabModel(tf, model.config, Float32Array.from(model.params), tensors, { trainable: true });
    const opt = tf.train.adam(model.config.learningRate, 0.9, 0.98, 1e-8);
    const theirs = () => {
      for (let s = 0; s < STEPS; s++) tf.tidy(() => opt.minimize(() => tfm.loss(batch.tokens, batch.targets, 32, 7)));
    };
    log(`lab: timing posenc/lab against tfjs-${backend}`);
    const r = await measureRatio(theirs, ours, 7);
    rows.push({ contender: `tfjs-${backend}`, tfjsMsPerStep: r.aMs / STEPS, posencMsPerStep: r.bMs / STEPS, speedup: r.ratio });
    tf.dispose(tfm.variables);
    opt.dispose();
  }
  return rows;
}

/** CPU and wall seconds of <pe-lab>'s default run, as its worker does it, with 1 and 3 seeds. */
export async function labWidgetWork(log = () => {}) {
  const lab = await init();
  const task = 'who-did-what';
  const rows = [];
  for (const seeds of [1, 3]) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (const encoding of lab.encodings) {
      const run = { task, encoding, attention: 'bidirectional', dModel: 32, heads: 4, layers: 2, steps: DEFAULT_STEPS,
        seed: 1, trainLengths: LENGTHS[task], progressEvery: 25 };
      const models = [];
      for (let k = 0; k < seeds; k++) models.push(lab.train({ ...run, seed: 1 + k }).model);
      evaluateRun(lab, models, run, testLengths(task), EVAL_SAMPLES);
    }
    const cpu = process.cpuUsage(cpu0);
    rows.push({ seeds, cpuSeconds: (cpu.user + cpu.system) / 1e6, wallSeconds: (performance.now() - t0) / 1000 });
    log(`lab: the widget's default run, ${seeds} seed(s): ${rows.at(-1).cpuSeconds.toFixed(2)} s CPU, ${rows.at(-1).wallSeconds.toFixed(2)} s wall`);
  }
  return rows;
}

const LENGTH_RUNS = [
  { task: 'shift', attention: 'causal', steps: 1000, lengths: [3, 8, 16, 24, 32, 40, 48] },
  { task: 'who-did-what', attention: 'bidirectional', steps: 600, lengths: [3, 6, 9, 12, 18, 24] },
  { task: 'who-did-what', attention: 'causal', steps: 600, lengths: [3, 6, 9, 12, 18, 24] },
  { task: 'copy', attention: 'causal', steps: 1500, lengths: [2, 4, 8, 12, 16, 24] },
];

/**
 * Accuracy against test length, per task, encoding and seed (3 seeds). `only`
 * keeps the runs whose "task attention" contains one of its words (a subset,
 * for a busy machine); each row is logged as soon as it is measured.
 */
export async function labLengths(log = () => {}, only = null) {
  const lab = await init();
  const out = [];
  for (const run of LENGTH_RUNS.filter((r) => !only || only.some((w) => `${r.task} ${r.attention}`.includes(w)))) {
    for (const encoding of lab.encodings) {
      const perSeed = [];
      for (const seed of [1, 2, 3]) {
        log(`lab: ${run.task} ${run.attention} ${encoding} seed ${seed}`);
        const { model } = lab.train({ task: run.task, attention: run.attention, encoding, steps: run.steps, seed });
        perSeed.push(run.lengths.map((length) => lab.evaluate(model, { length, samples: 512, seed: 100 + seed }).accuracy));
      }
      const stats = run.lengths.map((length, i) => {
        const v = perSeed.map((s) => s[i]);
        return { length, mean: v.reduce((a, b) => a + b, 0) / v.length, min: Math.min(...v), max: Math.max(...v) };
      });
      out.push({ ...run, encoding, trainLengths: lab.train({ task: run.task, steps: 1 }).model.config.trainLengths, stats });
      log(`lab: ${run.task} ${run.attention} ${encoding}: ${stats.map((x) => `${x.length}: ${x.mean.toFixed(2)} [${x.min.toFixed(2)}, ${x.max.toFixed(2)}]`).join(', ')}`);
    }
  }
  return out;
}

/** Markdown lines for the bench report. */
export function labMarkdown(speed, lengths, work) {
  const lines = ['### posenc/lab: one training step (who-did-what, batch 32 x 7 tokens, d_model 32, 4 heads, 2 layers, MLP 64)', '',
    '| contender | ms per step | posenc/lab ms per step | posenc/lab faster by |', '|---|--:|--:|--:|'];
  for (const r of speed) lines.push(`| ${r.contender} | ${r.tfjsMsPerStep.toFixed(2)} | ${r.posencMsPerStep.toFixed(2)} | ${r.speedup.toFixed(1)}x |`);
  if (work) {
    lines.push('', `#### <pe-lab>'s default run in Node (who-did-what, six encodings, ${DEFAULT_STEPS} steps, then its test lengths): targets 5 s (1 seed), 15 s (3 seeds)`, '',
      '| seeds | CPU s | wall s |', '|--:|--:|--:|', ...work.map((w) => `| ${w.seeds} | ${w.cpuSeconds.toFixed(2)} | ${w.wallSeconds.toFixed(2)} |`));
  }
  for (const run of lengths ?? []) {
    if (run.encoding === 'none') {
      lines.push('', `#### ${run.task}, ${run.attention}, trained on lengths ${run.trainLengths.join('-')} (${run.steps} steps): accuracy, mean of 3 seeds [min, max]`, '',
        `| encoding | ${run.lengths.join(' | ')} |`, `|---|${run.lengths.map(() => '--:').join('|')}|`);
    }
    lines.push(`| ${run.encoding} | ${run.stats.map((s) => `${s.mean.toFixed(2)} [${s.min.toFixed(2)}, ${s.max.toFixed(2)}]`).join(' | ')} |`);
  }
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const log = (l) => process.stderr.write(`${l}\n`);
  const speed = await labSpeed(log);
  // --lengths: every run; --lengths=shift,causal: the runs whose "task attention" contains a word.
  const arg = process.argv.find((a) => a.startsWith('--lengths'));
  const only = arg?.includes('=') ? arg.split('=')[1].split(',') : null;
  const lengths = arg ? await labLengths(log, only) : null;
  const work = await labWidgetWork(log);
  console.log(labMarkdown(speed, lengths, work).join('\n'));
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(join(root, 'dist/bench-lab.json'), `${JSON.stringify({ speed, lengths, work }, null, 1)}\n`);
}
