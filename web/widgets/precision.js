// <pe-precision>: how far the sinusoidal table drifts from its float64 values
// when it is computed in float32, float16 or bfloat16. Forming the angle
// position × ω in the low precision loses the absolute error of a large number
// (it grows with the position, and float16 cannot hold a position above 65504
// at all); rounding only the finished sin/cos costs the format's relative
// precision and nothing more. Both, per position, on log–log axes.
import { PeWidget } from './base.js';
import { int, baseAttr } from './attrs.js';
import { lineChart, lineSet, setSeries } from './charts.js';
import { LOG, logValue } from './log-scale.js';
import { fmt } from './dom.js';

const FORMATS = ['float32', 'float16', 'bfloat16'];
const MODES = ['angle', 'result'];
const SAMPLES = 360;

// Sampled whenever in range: float16's last exact integer and first gap, the
// position the caption quotes, float16's largest number and first overflow.
const LANDMARKS = [2048, 2049, 10000, 65504, 65520];

/** About `count` whole positions from 1 to max, evenly spaced on a log axis, plus the landmarks. */
export function logPositions(max, count = SAMPLES) {
  const out = new Set(LANDMARKS.filter((p) => p <= max));
  for (let k = 0; k < count; k++) out.add(Math.round(Math.exp((Math.log(max) * k) / (count - 1))));
  return Float64Array.from([...out].sort((a, b) => a - b));
}

export class PePrecision extends PeWidget {
  static spec = {
    'd-model': int(2, 4096, 128), // the widget's choice: one (sin, cos) pair at least
    'max-pos': int(16, 1e7, 100000), // the widget's choice: a range of positions worth a log axis
    base: baseAttr(),
  };
  static variants = true;
  static titleKey = 'precisionTitle';
  static aspect = 1.8;

  async render(_api, v, variants) {
    const d = v['d-model'];
    this.control('d-model', 'dModelLabel', d, { kind: 'number', min: 2, max: 4096, step: 2 });
    this.control('max-pos', 'maxPosLabel', v['max-pos'], { kind: 'number', min: 16, step: 1 });
    this.control('base', 'baseLabel', v.base, { kind: 'number', min: 1.5, step: 'any' });
    const positions = logPositions(v['max-pos']);
    const enc = { base: v.base };
    const series = FORMATS.flatMap((format) => MODES.map((mode) => ({
      format, mode, err: variants.precisionError(d, { ...enc, positions, format, mode }),
    })));
    await this.pause(); // six error curves computed, then the chart drawn, each in a task of its own
    this.chart ??= lineChart(this.newCanvas(), { aspect: 1.8, xExtra: LOG, yExtra: LOG });
    setSeries(this.chart, series.map((s, i) => lineSet(this.t(`prec_${s.mode}`, { format: s.format }),
      Array.from(positions, (p, k) => ({ x: p, y: logValue(s.err[k]) })), Math.floor(i / 2),
      { borderDash: s.mode === 'result' ? [5, 4] : undefined, borderWidth: s.mode === 'result' ? 1.5 : 2 })),
    { x: this.t('position'), y: this.t('maxError') });
    const caption = this.caption(variants, positions, series);
    this.chart.canvas.setAttribute('aria-label', caption);
    this.captionEl.textContent = caption;
    this.data = () => ({
      header: ['position', ...series.map((s) => `${s.format}_${s.mode}`)],
      rows: Array.from(positions, (p, k) => [p, ...series.map((s) => s.err[k])]),
    });
  }

  caption(variants, positions, series) {
    const of = (format, mode) => series.find((s) => s.format === format && s.mode === mode).err;
    // The largest sampled position up to 10000, where float32 angles already go wrong.
    let k = positions.length - 1;
    while (k > 0 && positions[k] > 10000) k--;
    const overflow = positions.find((p, i) => of('float16', 'angle')[i] === Infinity);
    const [r1, r2, r3] = variants.roundTo([65519, 65520, 40001], 'float16');
    return this.t('precisionCaption', {
      pos: positions[k],
      a32: fmt(of('float32', 'angle')[k], 2), r32: fmt(of('float32', 'result')[k], 2),
      a16: fmt(of('float16', 'angle')[k], 2), r16: fmt(of('float16', 'result')[k], 2),
      ab16: fmt(of('bfloat16', 'angle')[k], 2), rb16: fmt(of('bfloat16', 'result')[k], 2),
      overflow: overflow === undefined ? this.t('noOverflow') : this.t('overflowAt', { p: overflow }),
      r1, r2, r3,
    });
  }
}
