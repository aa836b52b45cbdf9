// <pe-learned>: a learned absolute table (GPT-2, BERT): one trained row per
// position 0 .. trained-len − 1, here seeded random numbers standing in for the
// trained ones. A position past the table has no row at all; the lookup box asks
// the API for one and shows the RangeError it answers with.
import { PeWidget } from './base.js';
import { int } from './attrs.js';
import { Heatmap } from './heatmap-chart.js';
import { matrixRows } from './export.js';
import { el, fmt } from './dom.js';
import { MIN_SIZE } from '../lib/minimums.js';

export class PeLearned extends PeWidget {
  static spec = {
    // the API's least; the largest are the widget's choice (a table a heatmap can show)
    'trained-len': int(MIN_SIZE, 4096, 32),
    'd-model': int(MIN_SIZE, 1024, 32),
    seed: int(0, Number.MAX_SAFE_INTEGER, 0),
    lookup: int(0, 1e9, null),
  };
  static variants = true;
  static titleKey = 'learnedTitle';

  render(_api, v, variants) {
    const len = v['trained-len'];
    const d = v['d-model'];
    const lookup = v.lookup ?? len; // by default ask for the first row that does not exist
    this.control('trained-len', 'trainedLenLabel', len, { kind: 'number', min: 1, max: 4096, step: 1 });
    this.control('lookup', 'lookupLabel', lookup, { kind: 'number', min: 0, step: 1 });
    const opts = { seed: v.seed, dtype: 'float64' };
    const table = variants.learnedTable(len, d, opts);
    const top = table.data.reduce((m, x) => Math.max(m, Math.abs(x)), 0) || 1;
    const caption = this.t('learnedCaption', { len, d, last: len - 1, seed: v.seed });
    this.heat ??= new Heatmap(this.chartsEl, { aspect: 1.6 });
    this.heat.update({
      rows: len, cols: d, data: table.data, range: [-top, top], x: this.t('dimension'), y: this.t('position'), label: caption,
      describe: (p, c) => [`${this.t('position')} ${p}, ${this.t('column')} ${c}`, `${this.t('value')} ${fmt(table.data[p * d + c])}`],
    });
    this.answer ??= this.extraEl.appendChild(el('p', { class: 'verdict', role: 'status' }));
    try {
      const row = variants.learnedRows([lookup], len, d, opts).data;
      this.answer.className = 'verdict good';
      this.answer.textContent = this.t('learnedRow', { p: lookup, values: Array.from(row.subarray(0, 4), (x) => fmt(x, 3)).join(', ') });
    } catch (e) {
      // The expected answer past the table: the API's own message, shown as it is.
      this.answer.className = 'verdict bad';
      this.answer.textContent = `${this.t('learnedNoRow', { p: lookup })} ${e.name}: ${e.message}`;
    }
    this.captionEl.textContent = caption;
    this.data = () => matrixRows(table, 'position', 'dim');
  }
}
