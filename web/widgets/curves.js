// <pe-curves>: chosen columns of the table as curves over positions. Low columns
// turn fast (wavelength 2π), high ones slowly (towards base·2π).
import { PeWidget } from './base.js';
import { encodingSpec, intList, limitRows } from './attrs.js';
import { lineChart, lineSet, setSeries } from './charts.js';
import { columnInfos } from './columns.js';
import { fmt } from './dom.js';

export class PeCurves extends PeWidget {
  static spec = { ...encodingSpec(64, 100), columns: intList([0, 1, 4, 8, 16, 32]) };
  static titleKey = 'curvesTitle';
  static aspect = 2.2;

  render(api, v) {
    const d = v['d-model'];
    // The whole table is formed, though only a few columns are drawn: rows × d stays within MAX_CELLS / 4.
    const [len, note] = limitRows(Math.min(v['max-len'], 4096), 4 * d);
    if (len < v['max-len']) this.note(...(note ?? ['clamped', { raw: v['max-len'], max: len }, 'max-len']));
    const cols = this.pickColumns(v.columns, d);
    const enc = PeWidget.encoding(v);
    const table = api.table(len, d, enc);
    const freqs = api.frequencies(d, enc);
    const infos = columnInfos(api, d, enc);
    const sets = cols.map((c, i) => {
      const info = infos[c];
      const lambda = info.pair >= 0 ? fmt((2 * Math.PI) / freqs[info.pair], 3) : '–';
      const data = Array.from({ length: len }, (_, p) => ({ x: p, y: table.data[p * d + c] }));
      return lineSet(`${this.t('column')} ${c} ${info.fn} (λ=${lambda})`, data, i);
    });
    this.control('columns', 'columnsLabel', v.columns.join(','), { kind: 'text', inputmode: 'numeric' });
    this.chart ??= lineChart(this.newCanvas(), { aspect: 2.2 });
    setSeries(this.chart, sets, { x: this.t('position'), y: this.t('value') });
    const lo = (2 * Math.PI) / freqs[0];
    const hi = (2 * Math.PI) / freqs[freqs.length - 1];
    const caption = this.t('curvesCaption', { cols: cols.join(', '), len: len - 1, lo: fmt(lo), hi: fmt(hi), top: fmt(2 * Math.PI * v.base, 6) });
    this.chart.canvas.setAttribute('aria-label', caption);
    this.captionEl.textContent = caption;
    this.data = () => ({
      header: ['position', ...cols.map((c) => `dim${c}`)],
      rows: Array.from({ length: len }, (_, p) => [p, ...cols.map((c) => table.data[p * d + c])]),
    });
  }

  pickColumns(wanted, d) {
    const cols = [...new Set(wanted)].filter((c) => c < d).slice(0, 8);
    if (cols.length < new Set(wanted).size) this.note('columnsDropped', { d, max: 8 }, 'columns');
    return cols.length ? cols : [0];
  }
}
