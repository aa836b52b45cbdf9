// <pe-heatmap>: the positions × dimensions table as a heatmap; hovering a cell
// shows its position, column, frequency, wavelength and value.
import { PeWidget } from './base.js';
import { encodingSpec, limitRows } from './attrs.js';
import { Heatmap } from './heatmap-chart.js';
import { columnInfos } from './columns.js';
import { matrixRows } from './export.js';
import { fmt } from './dom.js';

export class PeHeatmap extends PeWidget {
  static spec = encodingSpec(128, 50);
  static titleKey = 'heatmapTitle';

  render(api, v) {
    const d = v['d-model'];
    const [len, note] = limitRows(v['max-len'], d);
    if (note) this.note(...note);
    const enc = PeWidget.encoding(v);
    const table = api.table(len, d, enc);
    const freqs = api.frequencies(d, enc);
    const info = columnInfos(api, d, enc);
    const caption = this.t('heatmapCaption', { len, d, preset: v.preset, base: v.base });
    this.heat ??= new Heatmap(this.chartsEl, { aspect: 1.6 });
    this.heat.update({
      rows: len,
      cols: d,
      data: table.data,
      range: [-1, 1],
      x: this.t('dimension'),
      y: this.t('position'),
      label: caption,
      describe: (r, c) => this.tooltip(table, freqs, info[c], r, c),
    });
    this.captionEl.textContent = caption;
    this.data = () => matrixRows(table, 'position', 'dim');
  }

  tooltip(table, freqs, info, r, c) {
    const value = table.data[r * table.cols + c];
    const lines = [`${this.t('position')} ${r}`, `${this.t('column')} ${c} (${info.fn})`];
    if (info.pair >= 0) {
      const w = freqs[info.pair];
      lines.push(`ω = ${fmt(w)}  (${this.t('pair')} ${info.pair})`, `${this.t('wavelength')} 2π/ω = ${fmt((2 * Math.PI) / w)}`);
    }
    lines.push(`${this.t('value')} ${fmt(value)}`);
    return lines;
  }
}
