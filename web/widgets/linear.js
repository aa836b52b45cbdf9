// <pe-linear>: a linear map Y = X W cannot see order. Reordering the sentence
// only reorders the rows of Y; adding the same (constant) vector to every
// position changes nothing about that; a sinusoidal PE gives each position its
// own vector, and then a token's output depends on where it stands.
import { PeWidget } from './base.js';
import { oneOf, PRESETS, baseAttr } from './attrs.js';
import { barChart, barSet, setSeries } from './charts.js';
import { el, fillTable, fmt } from './dom.js';

const VOCAB = { 我: [0.2, 0.9, -0.4, 0.1], 在: [-0.5, 0.3, 0.8, -0.2], 看: [0.7, -0.6, 0.1, 0.5], 书: [0.1, 0.4, 0.6, -0.9] };
const W = [[0.5, -0.3, 0.8], [0.2, 0.7, -0.1], [-0.6, 0.4, 0.3], [0.9, 0.1, -0.5]];
const SENTENCES = [['我', '在', '看', '书'], ['书', '在', '看', '我']];
const D = 4;
const CONSTANT = 0.5;

export class PeLinear extends PeWidget {
  static spec = { pe: oneOf(['none', 'constant', 'sinusoidal'], 'none'), base: baseAttr(), preset: oneOf(PRESETS, 'vaswani') };
  static titleKey = 'linearTitle';
  static aspect = 2.4;

  async render(api, v) {
    this.control('pe', 'peMode', v.pe, { kind: 'select', options: ['none', 'constant', 'sinusoidal'].map((m) => [m, `pe_${m}`]) });
    const pe = this.encoding(api, v);
    const wCols = W[0].map((_, c) => W.map((row) => row[c]));
    // Y[r][c] = X[r] · W[:, c], each dot product computed by the WASM core.
    const outputs = SENTENCES.map((s) => s.map((w, r) => wCols.map((col) => api.dot(VOCAB[w].map((e, k) => e + pe[r][k]), col))));
    this.showTables(pe, outputs);
    const permuted = SENTENCES[0].every((w, r) => sameRow(outputs[0][r], outputs[1][SENTENCES[1].indexOf(w)]));
    this.captionEl.textContent = this.t(permuted ? 'linearPermuted' : 'linearDiffers');
    await this.pause(); // the tables' layout, then the chart's, each in a task of its own
    this.chart ??= barChart(this.newCanvas(), { aspect: 2.4 });
    const cats = SENTENCES[0].flatMap((w) => wCols.map((_, c) => `${w} y${c + 1}`));
    setSeries(this.chart, outputs.map((out, s) => barSet(SENTENCES[s].join(''), SENTENCES[0].flatMap((w) => out[SENTENCES[s].indexOf(w)]), s)),
      { x: this.t('tokenOutput'), y: 'y' }, cats);
    this.chart.canvas.sub.textContent = this.t('linearChart');
    this.chart.canvas.setAttribute('aria-label', `${this.t('linearChart')} ${this.captionEl.textContent}`);
    this.data = () => ({
      header: ['sentence', 'position', 'token', 'y1', 'y2', 'y3'],
      rows: outputs.flatMap((out, s) => out.map((row, r) => [SENTENCES[s].join(''), r, SENTENCES[s][r], ...row])),
    });
  }

  encoding(api, v) {
    if (v.pe === 'none') return SENTENCES[0].map(() => Array(D).fill(0));
    if (v.pe === 'constant') return SENTENCES[0].map(() => Array(D).fill(CONSTANT));
    const t = api.table(SENTENCES[0].length, D, { preset: v.preset, base: v.base, dtype: 'float64' });
    return SENTENCES[0].map((_, r) => Array.from(t.data.subarray(r * D, (r + 1) * D)));
  }

  showTables(pe, outputs) {
    const table = (caption, header, rows) => {
      const t = el('table');
      fillTable(t, header, rows.map((r) => r.map((x) => (typeof x === 'number' ? fmt(x, 3) : x))));
      t.prepend(el('caption', {}, caption));
      return t;
    };
    const e = ['e1', 'e2', 'e3', 'e4'];
    this.box ??= this.extraEl.appendChild(el('div', { class: 'tables' }));
    this.box.replaceChildren(
      table(this.t('embedding'), [this.t('token'), ...e], Object.entries(VOCAB).map(([w, r]) => [w, ...r])),
      table('W', ['', 'y1', 'y2', 'y3'], W.map((r, k) => [e[k], ...r])),
      table(this.t('positionVectors'), [this.t('position'), ...e], pe.map((r, p) => [String(p), ...r])),
      ...outputs.map((out, s) => table(`Y = (E + PE) W: ${SENTENCES[s].join(' ')}`, [this.t('token'), 'y1', 'y2', 'y3'], out.map((r, p) => [SENTENCES[s][p], ...r]))),
    );
  }
}

const sameRow = (a, b) => a.every((x, i) => Math.abs(x - b[i]) < 1e-9);
