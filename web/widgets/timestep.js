// <pe-timestep>: the sinusoid a diffusion model feeds its noise level through.
// Columns of the timestep embedding over t = 0 .. max-t, with the two switches
// that tell the libraries apart: flip_sin_to_cos (sin or cos first) and
// downscale_freq_shift (frequencies spread over h − 1 or h).
import { PeWidget } from './base.js';
import { int, num, oneOf, bool } from './attrs.js';
import { Heatmap } from './heatmap-chart.js';
import { lineChart, lineSet, setSeries } from './charts.js';
import { matrixRows } from './export.js';
import { fmt } from './dom.js';
import { MIN_MAX_PERIOD } from '../lib/minimums.js';

const SAMPLES = 201;
const SHIFTS = ['0', '1'];

export class PeTimestep extends PeWidget {
  static spec = {
    // The API's rule: the frequencies divide by ⌊d/2⌋ − shift, which must stay positive
    // at the largest shift offered (4 for shift 1). 1024 is the widget's choice.
    'd-model': int(2 * (Math.max(...SHIFTS.map(Number)) + 1), 1024, 32),
    'max-t': int(1, 100000, 1000),
    flip: bool(false),
    shift: oneOf(SHIFTS, '1'),
    'max-period': num(MIN_MAX_PERIOD, 1e12, 10000, true), // 1e12: the widget's choice
  };
  static fields = true;
  static titleKey = 'timestepTitle';

  async render(_api, v, fields) {
    const d = v['d-model'];
    const maxT = v['max-t'];
    this.control('flip', 'flipLabel', v.flip, { kind: 'checkbox' });
    this.control('shift', 'shiftLabel', v.shift, { kind: 'select', options: [['1', 'shift_1'], ['0', 'shift_0']] });
    this.control('d-model', 'dModelLabel', d, { kind: 'number', min: PeTimestep.spec['d-model'].min, max: 1024, step: 2 });
    const t = Float64Array.from({ length: SAMPLES }, (_, i) => (i * maxT) / (SAMPLES - 1));
    const opts = { flipSinToCos: v.flip, downscaleFreqShift: Number(v.shift), maxPeriod: v['max-period'], dtype: 'float64' };
    const m = fields.timestepEmbedding(t, d, opts);
    const h = Math.floor(d / 2);
    this.heat ??= new Heatmap(this.chartsEl, { aspect: 1.6 });
    const first = v.flip ? 'cos' : 'sin';
    const second = v.flip ? 'sin' : 'cos';
    this.heat.update({
      rows: SAMPLES, cols: d, data: m.data, range: [-1, 1], x: this.t('dimension'), y: this.t('timestepRows', { step: fmt(maxT / (SAMPLES - 1)) }), label: this.t('timestepAlt', { d, maxT }),
      describe: (r, c) => [`t = ${fmt(t[r])}, ${this.t('column')} ${c} (${c < h ? first : c < 2 * h ? second : '0'})`, `${this.t('value')} ${fmt(m.data[r * d + c])}`],
    });
    await this.pause();
    // The first column of each half and the slowest one: where the switches show.
    const cols = [...new Set([0, 1, h - 1, h].filter((c) => c >= 0 && c < 2 * h))];
    this.chart ??= lineChart(this.newCanvas(this.extraEl), { aspect: 2.6 });
    this.chart.canvas.sub.textContent = this.t('timestepCurves');
    setSeries(this.chart, cols.map((c, i) => lineSet(`${this.t('column')} ${c} (${c < h ? first : second})`,
      Array.from(t, (x, r) => ({ x, y: m.data[r * d + c] })), i)), { x: 't', y: this.t('value') });
    const wSlow = h > 0 ? v['max-period'] ** (-(h - 1) / (h - Number(v.shift))) : 1;
    // Which library's convention the two switches spell.
    const lib = !v.flip && v.shift === '1' ? 'timestepLibDdpm' : v.flip && v.shift === '0' ? 'timestepLibDit' : 'timestepLibNone';
    const caption = this.t('timestepCaption', { d, first, shift: v.shift, slow: fmt((2 * Math.PI) / wSlow, 4), lib: this.t(lib) });
    this.chart.canvas.setAttribute('aria-label', caption);
    this.captionEl.textContent = caption;
    this.data = () => {
      const rows = matrixRows(m, 't', 'dim');
      return { header: rows.header, rows: rows.rows.map((r, i) => [t[i], ...r.slice(1)]) };
    };
  }
}
