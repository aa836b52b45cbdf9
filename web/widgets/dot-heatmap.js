// <pe-dot-heatmap>: PE_i · PE_j for all position pairs (the Gram matrix) and one
// row's profile. For an even d the dot product is Σ cos(ω_k (i − j)): it depends
// only on i − j, so every diagonal is constant; the caption reports how constant.
import { PeWidget } from './base.js';
import { encodingSpec, int, bool } from './attrs.js';
import { Heatmap, extent } from './heatmap-chart.js';

import { lineChart, lineSet, setSeries, points } from './charts.js';
import { matrixRows } from './export.js';
import { fmt } from './dom.js';
import { diagonalSpread } from './diagonals.js';

/** [−m, m] for m = max |x|: signed data keeps white at 0. */
const symmetric = (g) => {
  const [lo, hi] = extent(g);
  const m = Math.max(Math.abs(lo), Math.abs(hi));
  return [-m, m];
};

// 1024² cells draw within a second; beyond that the map has more cells than pixels anyway.
const MAX_LEN = 1024;
/** len² · d bound for a Gram that the core must form from the table (about a quarter second). */
const DIRECT_WORK = 2 ** 29;

export class PeDotHeatmap extends PeWidget {
  static spec = { ...encodingSpec(64, 20), cosine: bool(false), row: int(0, 1e6, null) };
  static titleKey = 'dotTitle';
  static aspect = 1.15;

  async render(api, v) {
    const d = v['d-model'];
    const enc = PeWidget.encoding(v);
    const direct = !isToeplitz(api.columns(d, enc), api.presets[v.preset], v['max-len']);
    const most = direct ? Math.min(MAX_LEN, Math.floor(Math.sqrt(DIRECT_WORK / d))) : MAX_LEN;
    const len = Math.min(v['max-len'], most);
    if (len < v['max-len']) this.note(direct ? 'gramDirect' : 'clamped', { raw: v['max-len'], max: len, d }, 'max-len');
    const gram = api.tableGram(len, d, { ...enc, cosine: v.cosine, dtype: 'float64' });
    const row = Math.min(v.row ?? Math.floor(len / 2), len - 1);
    this.control('row', 'rowLabel', row, { kind: 'range', min: 0, max: len - 1, step: 1 });
    this.control('cosine', 'cosineLabel', v.cosine, { kind: 'checkbox' });
    const g = gram.data;
    const caption = this.t('dotCaption', { len, d, spread: fmt(diagonalSpread(g, len), 2), kind: this.t(v.cosine ? 'cosine' : 'dot') });
    this.heat ??= new Heatmap(this.chartsEl, { aspect: 1.15 });
    this.heat.update({
      rows: len, cols: len, data: g, range: symmetric(g), x: 'j', y: 'i', label: caption,
      describe: (i, j) => [`i = ${i}, j = ${j}, i − j = ${i - j}`, `PE_i · PE_j = ${fmt(g[i * len + j])}`],
    });
    await this.pause();
    this.profile ??= lineChart(this.newCanvas(), { aspect: 1.4 });
    this.profile.canvas.sub.textContent = this.t('profileTitle', { row });
    setSeries(this.profile, [
      lineSet(this.t('rowSeries', { row }), points(len, (j) => g[row * len + j]), 0, { pointRadius: 2, order: 1 }),
      lineSet(this.t('shiftedSeries', { row }), points(len, (j) => g[Math.abs(j - row)]), 1, { borderDash: [5, 4], order: 0 }),
    ], { x: 'j', y: this.t(v.cosine ? 'cosine' : 'dot') });
    this.profile.canvas.setAttribute('aria-label', this.t('profileAlt', { row }));
    this.captionEl.textContent = caption;
    this.data = () => matrixRows(gram, 'i', 'j');
  }
}

/**
 * Whether the core can take the Toeplitz shortcut (one profile row, then copies):
 * only when every sine has its cosine and no zero padding row is among the rows.
 * A sine without a cosine (columns(): an odd d in an interleaved or split layout),
 * or fairseq's zero row paddingIdx: then the whole table and its Gram are formed, len² · d work.
 */
export function isToeplitz(placement, preset, len) {
  const lonelySine = placement.cos.includes(-1);
  const zeroRow = preset.paddingIdx !== undefined && preset.paddingIdx < len;
  return !lonelySine && !zeroRow;
}
