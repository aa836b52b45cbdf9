// <pe-conventions>: the same positions under two conventions, e.g. interleaved
// (Vaswani: sin, cos, sin, cos...) and concatenated (tensor2tensor, fairseq:
// all sines, then all cosines). Weights trained with one and run with the other
// see vectors that do not match: the cosine of the two rows for one position.
import { PeWidget } from './base.js';
import { encodingSpec, oneOf, PRESETS, MAX_CELLS } from './attrs.js';
import { Heatmap } from './heatmap-chart.js';
import { lineChart, lineSet, setSeries, points } from './charts.js';
import { matrixRows } from './export.js';
import { fmt } from './dom.js';

export class PeConventions extends PeWidget {
  static spec = (({ preset, ...rest }) => ({ ...rest, 'preset-a': oneOf(PRESETS, 'vaswani'), 'preset-b': oneOf(PRESETS, 'tensor2tensor') }))(encodingSpec(64, 50));
  static titleKey = 'conventionsTitle';
  static aspect = 1.2;

  async render(api, v) {
    const d = Math.min(v['d-model'], 2048);
    // Two tables and two heatmaps: each within MAX_CELLS / 4, so the pair draws within a second.
    const len = Math.min(v['max-len'], 2048, Math.max(1, Math.floor(MAX_CELLS / 4 / d)));
    if (d < v['d-model'] || len < v['max-len']) this.note('clampedBoth', { d, len });
    const options = PRESETS.map((p) => [p, `preset_${p}`]);
    this.control('preset-a', 'presetA', v['preset-a'], { kind: 'select', options });
    this.control('preset-b', 'presetB', v['preset-b'], { kind: 'select', options });
    const tables = ['preset-a', 'preset-b'].map((k) => api.table(len, d, { preset: v[k], base: v.base, dtype: 'float64' }));
    // Each map is built and drawn in a task of its own (see pause).
    this.heats ??= [];
    for (const [s, t] of tables.entries()) {
      const name = v[s ? 'preset-b' : 'preset-a'];
      this.heats[s] ??= new Heatmap(this.chartsEl, { aspect: 1.2 });
      this.heats[s].update({
        rows: len, cols: d, data: t.data, range: [-1, 1], x: `${this.t('dimension')} (${name})`, y: this.t('position'),
        label: this.t('conventionAlt', { name, len, d }),
        describe: (r, c) => [`${name}`, `${this.t('position')} ${r}, ${this.t('column')} ${c}`, `${this.t('value')} ${fmt(t.data[r * d + c])}`],
      });
      await this.pause();
    }
    const [na, nb] = tables.map((t) => api.norms(t));
    const row = (t, r) => t.data.subarray(r * d, (r + 1) * d);
    const cos = Array.from({ length: len }, (_, r) => {
      const den = na[r] * nb[r];
      return den > 0 ? api.dot(row(tables[0], r), row(tables[1], r)) / den : 0;
    });
    const mean = cos.reduce((s, c) => s + c, 0) / len;
    this.cosChart ??= lineChart(this.newCanvas(this.extraEl), { aspect: 3 });
    this.cosChart.canvas.sub.textContent = this.t('cosChart', { a: v['preset-a'], b: v['preset-b'] });
    setSeries(this.cosChart, [lineSet(this.t('cosSeries'), points(len, (r) => cos[r]), 0, { pointRadius: len <= 64 ? 2 : 0 })],
      { x: this.t('position'), y: 'cos' });
    const [fa, fb] = ['preset-a', 'preset-b'].map((k) => api.frequencies(d, { preset: v[k], base: v.base }));
    const freqDiff = fa.reduce((m, w, i) => (i < fb.length ? Math.max(m, Math.abs(w - fb[i]) / w) : m), 0);
    const caption = this.t('conventionsCaption', { a: v['preset-a'], b: v['preset-b'], mean: fmt(mean, 3), freq: fmt(100 * freqDiff, 3) });
    this.cosChart.canvas.setAttribute('aria-label', caption);
    this.captionEl.textContent = caption;
    this.data = () => {
      const [a, b] = tables.map((t) => matrixRows(t, 'position', 'dim'));
      return { header: ['convention', ...a.header], rows: [...a.rows.map((r) => [v['preset-a'], ...r]), ...b.rows.map((r) => [v['preset-b'], ...r])] };
    };
  }
}
