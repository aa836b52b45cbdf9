// <pe-alibi>: ALiBi adds nothing to the tokens. Each head h adds −m_h·(i − j) to
// the score of query i and key j: a penalty growing linearly with distance, with
// slope m_h = 2^(−8h/n) for n heads (n a power of two; other counts take the
// power below and interleave slopes of the next power). Drawn: one head's bias
// matrix (masked future keys in grey), the bias against distance for every head,
// and the slopes as numbers, all from the posenc API.
import { PeWidget } from './base.js';
import { int, oneOf } from './attrs.js';
import { Heatmap } from './heatmap-chart.js';
import { lineChart, lineSet, setSeries, points } from './charts.js';
import { el, fillTable, fmt } from './dom.js';
import { MIN_SIZE } from '../lib/minimums.js';

const MASKED = [150, 150, 150]; // a grey no shade of the blue scale comes close to

/** A heatmap that paints −∞ (a masked score) grey instead of the colour of the lowest value. */
export class MaskedHeatmap extends Heatmap {
  fill(data, lo, hi) {
    super.fill(data, lo, hi);
    const px = this.image.data;
    let masked = 0;
    for (let i = 0; i < data.length; i++) {
      if (data[i] !== -Infinity) continue;
      px.set(MASKED, i * 4);
      masked++;
    }
    if (masked) this.bitmap.getContext('2d').putImageData(this.image, 0, 0);
  }
}

/** 1/2^k written as a fraction when it is one, else 4 significant digits. */
export function slopeText(s) {
  const inv = 1 / s;
  return Number.isInteger(inv) ? `1/${inv}` : fmt(s);
}

export class PeAlibi extends PeWidget {
  static spec = {
    heads: int(MIN_SIZE, 64, 8), // 64: the widget's choice (a legible line per head)
    'max-len': int(2, 256, 24), // the widget's choice: at least one offset; at most a legible heatmap
    head: int(1, 64, 1), // the widget's own: which head to draw, counted from 1
    mode: oneOf(['causal', 'symmetric'], 'causal'),
  };
  static variants = true;
  static titleKey = 'alibiTitle';
  static aspect = 1.15;

  async render(_api, v, variants) {
    const heads = v.heads;
    const len = v['max-len'];
    const head = Math.min(v.head, heads);
    if (head < v.head) this.note('clamped', { raw: v.head, max: head }, 'head');
    this.control('heads', 'headsLabel', heads, { kind: 'number', min: 1, max: 64, step: 1 });
    this.control('head', 'headLabel', head, { kind: 'range', min: 1, max: heads, step: 1 });
    this.control('mode', 'modeLabel', v.mode, { kind: 'select', options: [['causal', 'mode_causal'], ['symmetric', 'mode_symmetric']] });
    const bias = variants.alibiBias(heads, len, { mode: v.mode, dtype: 'float64' });
    const { slopes } = bias;
    const at = (h, i, j) => bias.data[(h * len + i) * len + j];
    const one = bias.data.subarray((head - 1) * len * len, head * len * len);
    // One colour scale for every head: the steepest head's farthest key is the darkest blue.
    const lo = -Math.max(...slopes) * (len - 1);
    const slope = slopes[head - 1];
    const caption = this.t('alibiCaption', { head, heads, slope: slopeText(slope), len, mode: this.t(`mode_${v.mode}`) });
    this.heat ??= new MaskedHeatmap(this.chartsEl, { aspect: 1.15 });
    this.heat.update({
      rows: len, cols: len, data: one, range: [lo, 0], scale: 'sequential-low', x: this.t('keyAxis'), y: this.t('queryAxis'), label: caption,
      describe: (i, j) => [`${this.t('headLabel')} ${head}: m = ${slopeText(slope)}`, `i = ${i}, j = ${j}`, `${this.t('biasWord')} ${fmt(one[i * len + j])}`],
    });
    await this.pause();
    // The last query row holds −m·distance for every distance 0 .. len − 1.
    this.lines ??= lineChart(this.newCanvas(), { aspect: 1.3 });
    this.lines.options.plugins.legend.display = heads <= 16; // before setSeries: one update, not two
    setSeries(this.lines, Array.from(slopes, (m, h) => lineSet(`${h + 1}: m = ${slopeText(m)}`,
      points(len, (dist) => at(h, len - 1, len - 1 - dist)), h, { borderWidth: h === head - 1 ? 3.5 : 1.2 })),
    { x: this.t('distanceAxis'), y: this.t('biasWord') });
    this.lines.canvas.sub.textContent = this.t('alibiLinesTitle');
    this.lines.canvas.setAttribute('aria-label', this.t('alibiLinesAlt', { heads, first: slopeText(slopes[0]), last: slopeText(slopes[heads - 1]) }));
    this.slopeTable(slopes);
    this.captionEl.textContent = `${caption} ${this.t(heads & (heads - 1) ? 'alibiOddHeads' : 'alibiPow2', { heads })}`;
    this.data = () => ({
      header: ['head', 'slope', 'i', ...Array.from({ length: len }, (_, j) => `j${j}`)],
      rows: Array.from({ length: heads * len }, (_, r) => {
        const h = Math.floor(r / len);
        const i = r % len;
        return [h + 1, slopes[h], i, ...Array.from({ length: len }, (_, j) => at(h, i, j))];
      }),
    });
  }

  slopeTable(slopes) {
    this.table ??= this.extraEl.appendChild(el('div', { class: 'tables' })).appendChild(el('table', { class: 'slopes' }));
    fillTable(this.table, [this.t('headLabel'), ...Array.from(slopes, (_, h) => String(h + 1))], [
      [this.t('slopeWord'), ...Array.from(slopes, slopeText)],
      ['log₂ m', ...Array.from(slopes, (m) => fmt(Math.log2(m), 4))],
    ]);
  }
}
