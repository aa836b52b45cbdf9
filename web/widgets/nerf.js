// <pe-nerf>: NeRF's frequency bands on a 1-D signal. Each band turns x into a
// sine and a cosine 2^k times faster than the last, so a small network fed
// γ(x) can follow detail a network fed x alone smooths away. The paper writes
// 2^k π x; the code (bmild/nerf, nerf-pytorch) drops the π, so for inputs in
// [−1, 1] its slowest band does not even make one turn.
import { PeWidget } from './base.js';
import { int, bool } from './attrs.js';
import { Heatmap } from './heatmap-chart.js';
import { lineChart, lineSet, setSeries } from './charts.js';
import { matrixRows } from './export.js';
import { fmt } from './dom.js';
import { MIN_SIZE } from '../lib/minimums.js';

const SAMPLES = 257;
const SHOWN = 4; // bands drawn as curves

export class PeNerf extends PeWidget {
  static spec = { levels: int(MIN_SIZE, 16, 6), pi: bool(true) }; // 16 levels: the widget's choice
  static fields = true;
  static titleKey = 'nerfTitle';

  async render(_api, v, fields) {
    const L = v.levels;
    this.control('levels', 'levelsLabel', L, { kind: 'number', min: 1, max: 16, step: 1 });
    this.control('pi', 'piLabel', v.pi, { kind: 'checkbox' });
    const x = Float64Array.from({ length: SAMPLES }, (_, i) => -1 + (2 * i) / (SAMPLES - 1));
    // One coordinate: both presets give [sin f_0 x, cos f_0 x, sin f_1 x, ...] after the input.
    const m = fields.fourierFeatures(x, { levels: L, pi: v.pi, includeInput: false, dtype: 'float64' });
    const cols = 2 * L;
    this.heat ??= new Heatmap(this.chartsEl, { aspect: 1.6 });
    this.heat.update({
      rows: SAMPLES, cols, data: m.data, range: [-1, 1], x: this.t('nerfColumns'), y: 'x', label: this.t('nerfAlt', { L }),
      describe: (r, c) => [`x = ${fmt(x[r], 3)}, ${c % 2 ? 'cos' : 'sin'}(2^${c >> 1}${v.pi ? 'π' : ''}x)`, `${this.t('value')} ${fmt(m.data[r * cols + c])}`],
    });
    await this.pause();
    const bands = Array.from({ length: Math.min(L, SHOWN) }, (_, i) => Math.round((i * (L - 1)) / Math.max(Math.min(L, SHOWN) - 1, 1)));
    this.chart ??= lineChart(this.newCanvas(this.extraEl), { aspect: 2.6 });
    this.chart.canvas.sub.textContent = this.t('nerfCurves');
    setSeries(this.chart, [...new Set(bands)].map((k, i) => lineSet(`sin(2^${k}${v.pi ? 'π' : ''}x)`,
      Array.from(x, (xv, r) => ({ x: xv, y: m.data[r * cols + 2 * k] })), i)), { x: 'x', y: this.t('value') });
    const turns = (k) => (2 * 2 ** k * (v.pi ? Math.PI : 1)) / (2 * Math.PI); // periods over [−1, 1]
    const caption = this.t('nerfCaption', { L, top: L - 1, slow: fmt(turns(0), 3), fast: fmt(turns(L - 1), 4), pi: v.pi ? 'π' : '' });
    this.chart.canvas.setAttribute('aria-label', caption);
    this.captionEl.textContent = caption;
    this.data = () => {
      const rows = matrixRows(m, 'x', 'feature');
      return { header: rows.header, rows: rows.rows.map((r, i) => [x[i], ...r.slice(1)]) };
    };
  }
}
