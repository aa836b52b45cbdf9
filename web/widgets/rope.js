// <pe-rope>: rotary position embedding (RoPE). Nothing is added to the tokens;
// instead pair i of q and of k is rotated by position × θ_i, θ_i = base^(−2i/d).
// Rotations compose, so q_m · k_n = qᵀ R(n − m) k depends only on m − n: the
// score heatmap of one fixed (q, k) pair is constant along every diagonal.
// Also drawn: the trajectories of a few pairs of q, and θ_i before and after the
// chosen context-extension scaling. Every number comes from the posenc API.
import { PeWidget } from './base.js';
import { int, num, oneOf, text, baseAttr } from './attrs.js';
import { PE_ROPE_PARAM_MIN } from '../../dist/constants.js';
import { MIN_SIZE, MIN_NTK_DIM, NTK_TYPES } from '../lib/minimums.js';
import { Heatmap } from './heatmap-chart.js';
import { lineChart, lineSet, setSeries, points } from './charts.js';
import { LOG } from './log-scale.js';
import { embed } from './tokens.js';
import { diagonalSpread } from './diagonals.js';
import { matrixRows } from './export.js';
import { fmt } from './dom.js';
// The table posenc/variants exports as ROPE_TYPES, imported from its own module
// so that the variants' WebAssembly still loads only on first use (base.js).
import { TYPES } from '../lib/variants/rope-types.js';
import { SCALINGS, FROM_ATTRIBUTES, scalingName } from './rope-scalings.js';

const PAIRINGS = ['half', 'interleaved'];

/**
 * Columns [a, b] of pair i. Interleaved pairs are adjacent; the library's
 * ropePermutation says where the half (rotate_half) layout puts them, so the
 * widget does not restate that convention.
 */
function pairColumns(variants, pairing, d) {
  if (pairing === 'interleaved') return (i) => [2 * i, 2 * i + 1];
  const at = variants.ropePermutation(d, { inverse: true });
  return (i) => [at[2 * i], at[2 * i + 1]];
}

/** The `scaling` option of the API for the widget's attributes: each parameter of the type the attributes set. */
function scalingOption(v) {
  const spec = { type: v.scaling };
  for (const k of Object.keys(TYPES[v.scaling].params)) if (k in FROM_ATTRIBUTES) spec[k] = FROM_ATTRIBUTES[k](v);
  return spec;
}

/** The RoPE options: a model's config.json (the model-config attribute, JSON text) or base and scaling. */
export function ropeOptions(v) {
  if (!v['model-config']) return { base: v.base, scaling: scalingOption(v) };
  let config;
  try {
    config = JSON.parse(v['model-config']);
  } catch (e) {
    throw new TypeError(`model-config is not JSON: ${e.message}`);
  }
  return { config, ...(v['layer-type'] ? { layerType: v['layer-type'] } : {}) };
}

/** `rows` copies of one vector as a matrix (the same q at every position). */
const repeat = (vec, rows) => ({ rows, cols: vec.length, data: Float64Array.from({ length: rows * vec.length }, (_, i) => vec[i % vec.length]) });

const maxAbsDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

export class PeRope extends PeWidget {
  static spec = {
    'd-model': int(2 * MIN_SIZE, 1024, 64, 2), // pairs of dimensions rotate together: at least one pair; 1024 is the widget's choice
    'max-len': int(MIN_SIZE, 256, 48), // 256: the widget's choice (a len × len heatmap)
    base: baseAttr(),
    scaling: oneOf(SCALINGS, 'default'),
    factor: num(PE_ROPE_PARAM_MIN, 1000, 4, true), // the C core's least scaling parameter; 1000 is the widget's choice
    'original-max': int(MIN_SIZE, 1e7, 2048), // a length (rope-types.js LENGTH); 1e7 is the widget's choice
    pairing: oneOf(PAIRINGS, 'half'),
    pos: int(0, 1e6, 5),
    // A model's parsed config.json as text: its RoPE replaces base and scaling, its rotary dim d-model.
    'model-config': text(1 << 20, ''),
    'layer-type': text(64, ''),
  };
  static variants = true;
  static titleKey = 'ropeTitle';

  /** NTK and dynamic scaling change the base by a power d / (d − 2): the API asks for d ≥ MIN_NTK_DIM. */
  static rules(v) {
    return NTK_TYPES.test(v.scaling) && v['d-model'] < MIN_NTK_DIM ? [['tooSmallWith', { raw: v['d-model'], min: MIN_NTK_DIM, with: `scaling="${v.scaling}"` }, 'd-model']] : [];
  }
  static aspect = 1.15;

  async render(api, v, variants) {
    const fromConfig = ropeOptions(v);
    const model = fromConfig.config ? variants.ropeFromConfig(fromConfig.config, { layerType: fromConfig.layerType }) : null;
    if (model && model.type !== 'none' && model.type !== 'axial') {
      // The model's width replaces d-model, within d-model's limit: a head_dim of 2^20 built len × 2^20 copies of q
      // (2 GiB at max-len 256) and froze the tab for 10 s before the API refused it (seventeenth pass).
      const most = PeRope.spec['d-model'].max;
      if (model.rotaryDim > most) throw new RangeError(this.t('ropeConfigTooWide', { d: model.rotaryDim, max: most }));
      // the model's rotary part is drawn, paired as the model pairs it unless the pairing attribute says otherwise
      v = { ...v, 'd-model': model.rotaryDim, base: model.theta, scaling: model.type, pairing: this.hasAttribute('pairing') ? v.pairing : model.pairing };
    }
    const d = v['d-model'];
    const len = v['max-len'];
    const pos = Math.min(v.pos, len - 1);
    if (pos < v.pos) this.note('clamped', { raw: v.pos, max: pos }, 'pos');
    this.controls(v, pos, len);
    // float64 throughout: the chart's point is that q·k is exactly constant along
    // each diagonal, which float32 rounding would blur at the 1e-6 level.
    const rope = { ...fromConfig, dtype: 'float64' };
    const freqs = variants.ropeFrequencies(d, rope); // an odd d is refused here, shown in place
    // q and k hold the d rotated coordinates only: with a config of partial_rotary_factor < 1 its head_dim is wider
    const apply = (x, pairing) => variants.ropeApply(x, { ...rope, headDim: d, pairing });
    const plain = variants.ropeFrequencies(d, { base: v.base, dtype: 'float64' });
    const q = embed('q', d);
    const k = embed('k', d);
    const Q = apply(repeat(q, len), v.pairing);
    const K = apply(repeat(k, len), v.pairing);
    // One Gram matrix of [Q; K] holds every q_m · k_n in its upper-right block.
    const both = new Float64Array(2 * len * d);
    both.set(Q.data);
    both.set(K.data, len * d);
    const g = api.gram({ rows: 2 * len, cols: d, data: both }, { dtype: 'float64' }).data;
    const scores = Float64Array.from({ length: len * len }, (_, i) => g[Math.floor(i / len) * 2 * len + len + (i % len)]);
    const spread = diagonalSpread(scores, len);
    this.drawScores(scores, len, spread, v);
    await this.pause();
    this.drawPairs(Q, pos, v.pairing, pairColumns(variants, v.pairing, d), freqs.invFreq);
    await this.pause();
    const freqText = this.drawFrequencies(plain.invFreq, freqs, v);
    const scoreText = this.t('ropeCaption', { len, d, base: v.base, spread: fmt(spread, 2), pairing: this.t(`pairing_${v.pairing}`) });
    this.captionEl.textContent = `${scoreText} ${freqText} ${this.pairingCheck(variants, q, len, apply)}`;
    this.data = () => matrixRows({ rows: len, cols: len, data: scores }, 'm', 'n');
  }

  /** A type's label, from the table of types (a model's longrope too, which the menu does not offer). */
  scalingName(type) {
    return scalingName(type, this.language);
  }

  controls(v, pos, len) {
    this.control('base', 'baseLabel', v.base, { kind: 'number', min: 1.5, step: 'any' });
    this.control('scaling', 'scalingLabel', v.scaling, { kind: 'select', options: SCALINGS.map((s) => [s, null, this.scalingName(s)]) });
    this.control('factor', 'factorLabel', v.factor, { kind: 'number', min: 0.1, step: 'any' });
    this.control('original-max', 'originalMaxLabel', v['original-max'], { kind: 'number', min: 1, step: 1 });
    this.control('pairing', 'pairingLabel', v.pairing, { kind: 'select', options: PAIRINGS.map((p) => [p, `pairing_${p}`]) });
    this.control('pos', 'positionSlider', pos, { kind: 'range', min: 0, max: len - 1, step: 1 });
  }

  drawScores(scores, len, spread, v) {
    const top = scores.reduce((m, x) => Math.max(m, Math.abs(x)), 0) || 1;
    this.heat ??= new Heatmap(this.chartsEl, { aspect: 1.15 });
    this.heat.update({
      rows: len, cols: len, data: scores, range: [-top, top], x: this.t('keyPos'), y: this.t('queryPos'),
      label: this.t('ropeHeatAlt', { len, spread: fmt(spread, 2), scaling: this.scalingName(v.scaling) }),
      describe: (m, n) => [`m = ${m}, n = ${n}, m − n = ${m - n}`, `q_m · k_n = ${fmt(scores[m * len + n])}`],
    });
  }

  /** Pairs 0, h/4, h/2 and h − 1 of the rotated q over every position, the chosen one enlarged. */
  drawPairs(Q, pos, pairing, pairCols, theta) {
    const d = Q.cols;
    const h = d / 2;
    const pairs = [...new Set([0, Math.floor(h / 4), Math.floor(h / 2), h - 1])];
    let r = 0;
    const sets = pairs.map((i, s) => {
      const [a, b] = pairCols(i);
      const data = Array.from({ length: Q.rows }, (_, m) => ({ x: Q.data[m * d + a], y: Q.data[m * d + b] }));
      for (const p of data) r = Math.max(r, Math.hypot(p.x, p.y));
      return lineSet(this.t('ropePairSeries', { i, a, b, theta: fmt(theta[i], 3) }), data, s, {
        showLine: false,
        pointRadius: (c) => (c.dataIndex === pos ? 7 : 2.5),
      });
    });
    this.pairChart ??= lineChart(this.newCanvas(), { aspect: 1 });
    const lim = Math.ceil(r * 11) / 10 || 1;
    for (const id of ['x', 'y']) Object.assign(this.pairChart.options.scales[id], { min: -lim, max: lim });
    setSeries(this.pairChart, sets, { x: this.t('pairFirst'), y: this.t('pairSecond') });
    const text = this.t('ropePairsAlt', { pos, pairs: pairs.join(', '), pairing: this.t(`pairing_${pairing}`) });
    this.pairChart.canvas.sub.textContent = this.t('ropePairsTitle', { pos });
    this.pairChart.canvas.setAttribute('aria-label', text);
  }

  drawFrequencies(plain, scaled, v) {
    const idx = (arr) => points(arr.length, (i) => arr[i]);
    this.freqChart ??= lineChart(this.newCanvas(this.extraEl), { aspect: 2.6, yExtra: LOG });
    setSeries(this.freqChart, [
      lineSet(this.t('thetaPlain', { base: v.base }), idx(plain), 7, { pointRadius: 1.5 }),
      lineSet(this.t('thetaScaled', { scaling: this.scalingName(v.scaling) }), idx(scaled.invFreq), 1, { pointRadius: 1.5, borderDash: [5, 3] }),
    ], { x: this.t('pairIndex'), y: 'θ_i' });
    const ratio = plain.map((w, i) => scaled.invFreq[i] / w);
    const text = this.t('ropeFreqAlt', {
      scaling: this.scalingName(v.scaling), first: fmt(ratio[0], 3), last: fmt(ratio[ratio.length - 1], 3), af: fmt(scaled.attentionFactor, 4),
    });
    this.freqChart.canvas.sub.textContent = this.t('ropeFreqTitle');
    this.freqChart.canvas.setAttribute('aria-label', text);
    return text;
  }

  /** The two pairings agree once q's dimensions are permuted (ropePermutation), and only then. */
  pairingCheck(variants, q, len, apply) {
    const x = repeat(q, len);
    const inter = apply(x, 'interleaved');
    const moved = variants.ropePermute(inter, { axis: 'cols', dtype: 'float64' }).data;
    const half = apply(variants.ropePermute(x, { axis: 'cols', dtype: 'float64' }), 'half').data;
    const unpermuted = apply(x, 'half').data;
    const perm = Array.from(variants.ropePermutation(q.length));
    const shown = perm.length > 8 ? `${perm.slice(0, 4).join(', ')}, …, ${perm.slice(-2).join(', ')}` : perm.join(', ');
    return this.t('ropePermCaption', { perm: shown, same: fmt(maxAbsDiff(moved, half), 2), raw: fmt(maxAbsDiff(inter.data, unpermuted), 3) });
  }
}
