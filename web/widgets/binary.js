// <pe-binary>: the binary counter beside the sinusoid. Bit b of the position
// (least significant first) flips every 2^b positions, the way the left columns
// of the sinusoidal table turn fastest. But the counter jumps: the step from one
// position to the next flips anything from one bit to all of them, and after
// 2^bits positions it starts over; every step of the sinusoid has one length.
import { PeWidget } from './base.js';
import { int, baseAttr } from './attrs.js';
import { Heatmap } from './heatmap-chart.js';
import { lineChart, lineSet, setSeries, points } from './charts.js';
import { fmt } from './dom.js';
import { MIN_SIZE } from '../lib/minimums.js';

/** ‖row p+1 − row p‖ for every p, by the API's norms. */
function steps(api, m) {
  const { rows, cols, data } = m;
  const diff = Float64Array.from({ length: (rows - 1) * cols }, (_, i) => data[i + cols] - data[i]);
  return api.norms({ rows: rows - 1, cols, data: diff });
}

export class PeBinary extends PeWidget {
  static spec = {
    'max-len': int(2, 1024, 64), // the widget's choice: two rows at least to compare
    bits: int(MIN_SIZE, 24, 8), // the API's least; 24 (of its 64) is the widget's choice
    'd-model': int(2, 256, 16), // the widget's choice: one (sin, cos) pair at least
    base: baseAttr(),
  };
  static variants = true;
  static titleKey = 'binaryTitle';
  static aspect = 1.1;

  async render(api, v, variants) {
    const len = v['max-len'];
    const { bits } = v;
    const d = v['d-model'];
    if (len > 2 ** bits) this.note('binaryWraps', { len, bits, period: 2 ** bits });
    this.control('bits', 'bitsLabel', bits, { kind: 'number', min: 1, max: 24, step: 1 });
    this.control('max-len', 'maxLenLabel', len, { kind: 'number', min: 2, max: 1024, step: 1 });
    const bin = variants.binaryTable(len, bits, { dtype: 'float64' });
    const sin = api.table(len, d, { base: v.base, dtype: 'float64' });
    // Each map is built and drawn in a task of its own (see pause).
    this.heats ??= [];
    this.heats[0] ??= new Heatmap(this.chartsEl, { aspect: 1.1 });
    this.heats[0].update({
      rows: len, cols: bits, data: bin.data, range: [0, 1], scale: 'categorical', x: this.t('bitAxis'), y: this.t('position'),
      label: this.t('binaryAlt', { len, bits }),
      describe: (p, b) => [`${this.t('position')} ${p} = ${p.toString(2)}₂`, `${this.t('bitAxis')} ${b}: ${bin.data[p * bits + b]}`],
    });
    await this.pause();
    this.heats[1] ??= new Heatmap(this.chartsEl, { aspect: 1.1 });
    this.heats[1].update({
      rows: len, cols: d, data: sin.data, range: [-1, 1], x: this.t('dimension'), y: this.t('position'),
      label: this.t('sinusoidAlt', { len, d }),
      describe: (p, c) => [`${this.t('position')} ${p}, ${this.t('column')} ${c}`, `${this.t('value')} ${fmt(sin.data[p * d + c])}`],
    });
    await this.pause();
    const sb = steps(api, bin);
    const ss = steps(api, sin);
    this.chart ??= lineChart(this.newCanvas(this.extraEl), { aspect: 3 });
    setSeries(this.chart, [
      lineSet(this.t('binaryStep'), points(len - 1, (p) => sb[p]), 3, { pointRadius: len <= 128 ? 2 : 0, stepped: 'before' }),
      lineSet(this.t('sinusoidStep', { d }), points(len - 1, (p) => ss[p]), 0),
    ], { x: 'p', y: '‖x_{p+1} − x_p‖' });
    // The largest jump: the step into the highest power of two below len.
    const top = 2 ** Math.min(bits, Math.floor(Math.log2(len - 1)));
    const caption = this.t('binaryCaption', {
      bits, from: top - 1, to: top % 2 ** bits, flips: Math.round(sb[top - 1] ** 2),
      bmin: fmt(Math.min(...sb), 3), bmax: fmt(Math.max(...sb), 3),
      smin: fmt(Math.min(...ss), 6), smax: fmt(Math.max(...ss), 6),
    });
    this.chart.canvas.sub.textContent = this.t('stepTitle');
    this.chart.canvas.setAttribute('aria-label', caption);
    this.captionEl.textContent = caption;
    this.data = () => ({
      header: ['position', ...Array.from({ length: bits }, (_, b) => `bit${b}`), ...Array.from({ length: d }, (_, c) => `sin_dim${c}`)],
      rows: Array.from({ length: len }, (_, p) => [p, ...bin.data.subarray(p * bits, (p + 1) * bits), ...sin.data.subarray(p * d, (p + 1) * d)]),
    });
  }
}
