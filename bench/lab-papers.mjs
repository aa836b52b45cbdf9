// What the papers on length generalisation claim, tested on the PE lab:
// for each claim of Press et al. 2021 (ALiBi), Haviv et al. 2022, Kazemnejad
// et al. 2023 (NoPE) and Ruoss et al. 2023 (randomized positions) that a
// tiny model can test, the lab's numbers (mean [min, max] over 3 seeds,
// accuracy on new positions where the claim is about length) and a verdict
// that only says "agree" or "disagree" when the seeds' ranges do not overlap.
//
//   node bench/lab-papers.mjs            measure, print, and rewrite the table in docs/lab.md
//   node bench/lab-papers.mjs --print    measure and print only
//   node bench/lab-papers.mjs --from=dist/bench-lab-papers.json
//                                        rewrite the table from a run's saved numbers
//
// tests/lab-facts.test.js checks the same claims in reduced form (one seed,
// fewer settings, margins) through SETTINGS and CLAIMS below.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SEEDS = [1, 2, 3];
const ALL = ['none', 'sinusoidal', 'learned', 'rope', 'alibi', 't5'];
const SAMPLES = 512;
const EVAL_SEED = 100;

/**
 * The trainings: each trains every encoding of `encodings` (and each variant,
 * an extra set of options) with `options`, then evaluates each of `evals`.
 * Eval names are what the claims read.
 */
export const SETTINGS = {
  recency: {
    title: 'recency, causal, trained on lengths 2-12, 300 steps',
    options: { task: 'recency', attention: 'causal', steps: 300, trainLengths: [2, 12] },
    encodings: ALL,
    evals: { 'in range (12)': { length: 12, positions: 'trained' }, 'new, 24': { length: 24, positions: 'new' },
      'new, 48': { length: 48, positions: 'new' }, 'new, 64': { length: 64, positions: 'new' } },
  },
  shift: {
    title: 'shift, causal, trained on lengths 3-16, 1000 steps',
    options: { task: 'shift', attention: 'causal', steps: 1000, trainLengths: [3, 16] },
    encodings: ALL,
    variants: { '': {}, ', bos': { bos: true } },
    variantEncodings: { ', bos': ['none'] },
    evals: { 'in range (16)': { length: 16, positions: 'trained' }, 'all, 32': { length: 32 },
      'new, 32': { length: 32, positions: 'new' }, 'new, 60': { length: 60, positions: 'new' } },
  },
  who: {
    title: 'who-did-what, bidirectional, trained on lengths 3-6, 600 steps',
    options: { task: 'who-did-what', attention: 'bidirectional', steps: 600, trainLengths: [3, 6] },
    encodings: ALL,
    variants: { '': {}, ', randomized': { randomizedPositions: 64 } },
    variantEncodings: { ', randomized': ['sinusoidal', 'learned', 'rope'] },
    evals: { 'in range (6)': { length: 6 }, 'new, 12': { length: 12, positions: 'new' }, 'new, 24': { length: 24, positions: 'new' },
      'probe (reversed, 6)': { length: 6, probe: 'reversed' } },
  },
  whoCausal: {
    title: 'who-did-what, causal, trained on lengths 3-6, 600 steps',
    options: { task: 'who-did-what', attention: 'causal', steps: 600, trainLengths: [3, 6] },
    encodings: ALL,
    evals: { 'in range (6)': { length: 6 }, 'new, 12': { length: 12, positions: 'new' }, 'new, 24': { length: 24, positions: 'new' } },
  },
};

const mean = (v) => v.reduce((a, b) => a + b, 0) / v.length;
export const stat = (v) => ({ mean: mean(v), min: Math.min(...v), max: Math.max(...v), values: v });
const fmt = (s) => `${s.mean.toFixed(2)} [${s.min.toFixed(2)}, ${s.max.toFixed(2)}]`;

/** One row name per encoding and variant: "alibi", "none, bos". */
function rows(setting) {
  const out = [];
  for (const [suffix, extra] of Object.entries(setting.variants ?? { '': {} })) {
    for (const encoding of setting.variantEncodings?.[suffix] ?? setting.encodings) out.push({ name: `${encoding}${suffix}`, encoding, extra });
  }
  return out;
}

/** Trains and evaluates one setting over seeds: { rowName: { evalName: stat } }. */
export function measureSetting(lab, setting, { seeds = SEEDS, only = null, log = () => {} } = {}) {
  const result = {};
  for (const row of rows(setting).filter((r) => !only || only.includes(r.name))) {
    const perEval = Object.fromEntries(Object.keys(setting.evals).map((k) => [k, []]));
    for (const seed of seeds) {
      const { model } = lab.train({ ...setting.options, ...row.extra, encoding: row.encoding, seed });
      for (const [name, e] of Object.entries(setting.evals)) {
        perEval[name].push(lab.evaluate(model, { samples: SAMPLES, seed: EVAL_SEED + seed, ...e }).accuracy);
      }
    }
    result[row.name] = Object.fromEntries(Object.entries(perEval).map(([k, v]) => [k, stat(v)]));
    log(`lab-papers: ${setting.title}: ${row.name}: ${Object.entries(result[row.name]).map(([k, s]) => `${k} ${fmt(s)}`).join('; ')}`);
  }
  return result;
}

/** "a is ahead of b": agree when a's worst seed beats b's best, disagree when the reverse, else cannot tell. */
export function compare(a, b) {
  if (a.min > b.max) return 'agree';
  if (b.min > a.max) return 'disagree';
  return 'cannot tell';
}

/**
 * The claims. `test(m)` reads the measured settings and returns the verdict,
 * the lab's numbers as text, and why.
 */
export const CLAIMS = [
  {
    paper: 'Press et al. 2021', claim: 'ALiBi extrapolates to longer inputs than sinusoidal, RoPE and T5 (language modelling, where the nearest context matters most)',
    test: (m) => {
      const r = m.recency;
      const others = ALL.filter((e) => e !== 'alibi').map((e) => r[e]['new, 64']);
      const best = others.reduce((a, b) => (b.max > a.max ? b : a));
      const far = compare(r.alibi['new, 64'], best);
      const near = compare(r.alibi['new, 24'], r.rope['new, 24']);
      return { verdict: far, numbers: `recency, new positions at 64 tokens: ALiBi ${fmt(r.alibi['new, 64'])}, RoPE ${fmt(r.rope['new, 64'])}, T5 ${fmt(r.t5['new, 64'])}, sinusoidal ${fmt(r.sinusoidal['new, 64'])}; at 24: ALiBi ${fmt(r.alibi['new, 24'])}, RoPE ${fmt(r.rope['new, 24'])}`,
        why: `on the recency task (answer: the nearest name before), at 5x the trained length; at 2x RoPE vs ALiBi: ${near === 'agree' ? 'ALiBi ahead' : near === 'disagree' ? 'RoPE ahead' : 'ranges overlap'}. ALiBi's penalty grows with distance, so the nearest name wins at any length.` };
    },
  },
  {
    paper: 'Press et al. 2021, as often read', claim: 'ALiBi extrapolates better than the others on any task',
    test: (m) => {
      const s = m.shift;
      const v = compare(s.alibi['new, 32'], s.rope['new, 32']);
      return { verdict: v, numbers: `shift, new positions at 32: ALiBi ${fmt(s.alibi['new, 32'])}, RoPE ${fmt(s.rope['new, 32'])}, T5 ${fmt(s.t5['new, 32'])}; ALiBi in range ${fmt(s.alibi['in range (16)'])}`,
        why: 'a claim the paper does not make (it measured language modelling); shown because learners read it so: shift needs "exactly two back", which a monotone distance penalty cannot single out.' };
    },
  },
  {
    paper: 'Press et al. 2021; Kazemnejad et al. 2023', claim: 'absolute encodings (sinusoidal, learned) fail past the trained length',
    test: (m) => {
      const s = m.shift;
      const chance = 0.1;
      const fail = ['sinusoidal', 'learned'].every((e) => s[e]['new, 32'].max < 0.3 && s[e]['in range (16)'].min > 0.9);
      return { verdict: fail ? 'agree' : 'cannot tell', numbers: `shift at 32, new positions only: sinusoidal ${fmt(s.sinusoidal['new, 32'])}, learned ${fmt(s.learned['new, 32'])} (chance ${chance}); all positions: sinusoidal ${fmt(s.sinusoidal['all, 32'])}, learned ${fmt(s.learned['all, 32'])}; in range ${fmt(s.sinusoidal['in range (16)'])}, ${fmt(s.learned['in range (16)'])}`,
        why: 'scored on new positions the collapse is to near chance; whole-sequence accuracy hides it by mixing in the ~half of the answers that sit at trained positions.' };
    },
  },
  {
    paper: 'Haviv et al. 2022', claim: 'a causal Transformer without position encoding still learns order',
    test: (m) => {
      const w = m.whoCausal.none['in range (6)'];
      const b = m.who.none['in range (6)'];
      return { verdict: w.min >= 0.95 && b.max <= 0.6 ? 'agree' : 'cannot tell', numbers: `who-did-what in range: causal none ${fmt(w)}, bidirectional none ${fmt(b)} (chance 0.5)`,
        why: 'the causal mask lets a token count what it sees; but here "the first name" is readable from the mask alone (nothing before it is a name), so this shows order, not counting.' };
    },
  },
  {
    paper: 'Kazemnejad et al. 2023', claim: 'with a start token, a causal model without position encoding can recover absolute position',
    test: (m) => {
      const with_ = m.shift['none, bos']['in range (16)'];
      const without = m.shift.none['in range (16)'];
      return { verdict: compare(with_, without), numbers: `shift in range, causal none: with bos ${fmt(with_)}, without ${fmt(without)}`,
        why: 'shift needs "two back"; with a start token the first attention layer can measure 1/position (the start token\'s share of uniform attention), without one nothing marks where the sequence begins.' };
    },
  },
  {
    paper: 'Kazemnejad et al. 2023', claim: 'NoPE generalises to longer inputs better than the position encodings',
    test: (m) => {
      const s = m.shift;
      const best = ['rope', 't5'].map((e) => s[e]['new, 32']).reduce((a, b) => (b.mean > a.mean ? b : a));
      const v = compare(s['none, bos']['new, 32'], best);
      return { verdict: v, numbers: `shift, new positions at 32: none with bos ${fmt(s['none, bos']['new, 32'])}, none ${fmt(s.none['new, 32'])}, RoPE ${fmt(s.rope['new, 32'])}, T5 ${fmt(s.t5['new, 32'])}`,
        why: '1000 steps of a 2-layer, d_model 32 model; the paper trains far larger models for far longer, so a disagreement here says little about theirs.' };
    },
  },
  {
    paper: 'Ruoss et al. 2023', claim: 'randomized positions (a sorted sample from a larger range) improve length generalisation of the same encoding',
    test: (m) => {
      const w = m.who;
      const verdicts = ['sinusoidal', 'learned', 'rope'].map((e) => compare(w[`${e}, randomized`]['new, 24'], w[e]['new, 24']));
      const v = verdicts.every((x) => x === 'agree') ? 'agree' : verdicts.some((x) => x === 'disagree') ? 'disagree' : 'cannot tell';
      return { verdict: v, numbers: ['sinusoidal', 'learned', 'rope'].map((e) => `${e} ${fmt(w[e]['new, 24'])} -> ${fmt(w[`${e}, randomized`]['new, 24'])}`).join('; ') + ' (who-did-what, bidirectional, new positions at 24)',
        why: 'trained on positions sampled below 64, a model meets every position a long test uses and must rely on their order, not their values.' };
    },
  },
  {
    paper: 'this lab', claim: 'who-did-what\'s bidirectional extrapolation comes from a shortcut: the doer is always the name farther from the query',
    test: (m) => {
      const w = m.who;
      const v = w.alibi['probe (reversed, 6)'].max < 0.2 && w.sinusoidal['probe (reversed, 6)'].min > 0.6 ? 'agree' : 'cannot tell';
      return { verdict: v, numbers: `probe (query first, sentence reversed), share answering the name before the verb: ${ALL.filter((e) => e !== 'none').map((e) => `${e} ${fmt(w[e]['probe (reversed, 6)'])}`).join(', ')}; ALiBi new, 24: ${fmt(w.alibi['new, 24'])}`,
        why: 'bidirectional ALiBi sees distances only, so it learns "farther from the query" and answers the wrong name on every reversed sentence: its length generalisation on this task is that shortcut, not position codes extrapolating.' };
    },
  },
];

/** Markdown: one table per setting, then the claims. */
export function papersMarkdown(measured) {
  const lines = [];
  for (const [key, setting] of Object.entries(SETTINGS)) {
    const evals = Object.keys(setting.evals);
    lines.push(`#### ${setting.title}: accuracy, mean of ${SEEDS.length} seeds [min, max]`, '', `| encoding | ${evals.join(' | ')} |`,
      `|---|${evals.map(() => '--:').join('|')}|`);
    for (const [row, stats] of Object.entries(measured[key])) lines.push(`| ${row} | ${evals.map((e) => fmt(stats[e])).join(' | ')} |`);
    lines.push('');
  }
  lines.push('#### The claims', '', '| paper | claim | the lab | verdict | why |', '|---|---|---|---|---|');
  for (const c of CLAIMS) {
    const r = c.test(measured);
    lines.push(`| ${c.paper} | ${c.claim} | ${r.numbers} | **${r.verdict}** | ${r.why} |`);
  }
  return lines;
}

const START = '<!-- lab-papers:start (written by bench/lab-papers.mjs) -->';
const END = '<!-- lab-papers:end -->';

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { init } = await import('../web/lib/lab/index.js');
  const lab = await init();
  const log = (l) => process.stderr.write(`${l}\n`);
  const from = process.argv.find((a) => a.startsWith('--from='))?.slice(7);
  const started = performance.now();
  const saved = from ? JSON.parse(readFileSync(from, 'utf8')) : null;
  const measured = saved?.measured ?? Object.fromEntries(Object.entries(SETTINGS).map(([k, s]) => [k, measureSetting(lab, s, { log })]));
  const minutes = saved?.minutes ?? ((performance.now() - started) / 60000).toFixed(1);
  const lines = [...papersMarkdown(measured), '', `Measured by \`node bench/lab-papers.mjs\` (WebAssembly, float32) in ${minutes} minutes on this shared 2-core machine; ${SAMPLES} fresh examples per length and seed.`];
  console.log(lines.join('\n'));
  if (!saved) writeFileSync(join(root, 'dist/bench-lab-papers.json'), `${JSON.stringify({ minutes, measured }, null, 1)}\n`);
  if (!process.argv.includes('--print')) {
    const path = join(root, 'docs/lab.md');
    const doc = readFileSync(path, 'utf8');
    const at = doc.indexOf(START);
    const end = doc.indexOf(END);
    if (at < 0 || end < at) throw new Error(`docs/lab.md has no ${START} ... ${END} block`);
    writeFileSync(path, `${doc.slice(0, at + START.length)}\n${lines.join('\n')}\n${doc.slice(end)}`);
  }
}
