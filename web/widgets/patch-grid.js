// <pe-patch-grid>: the figure of the ViT paper for a fixed 2-D sin-cos table.
// Block (r, c) of the picture is the grid seen from patch (r, c): the cosine
// similarity of its code with the code of every other patch. Each patch is most
// like itself and its neighbours, along both axes, because half of the width
// encodes the column and half the row (MAE's get_2d_sincos_pos_embed).
import { PeWidget } from './base.js';
import { int, oneOf, baseAttr } from './attrs.js';
import { Heatmap } from './heatmap-chart.js';
import { fmt } from './dom.js';
import { MIN_SPACED_GRID_DIM } from '../lib/minimums.js';

const GRID_PRESETS = ['mae', 'dit', 'diffusers', 'big-vision'];

export class PePatchGrid extends PeWidget {
  static spec = {
    grid: int(2, 24, 8), // the widget's choice: a grid of at least 2 × 2 patches, at most a legible 24 × 24
    // The API's least for the presets with frequencies "spaced"; 2048 is the widget's choice.
    'd-model': int(MIN_SPACED_GRID_DIM, 2048, 64),
    preset: oneOf(GRID_PRESETS, 'mae'),
    'first-axis': oneOf(['w', 'h'], 'w'),
    base: baseAttr(),
  };
  static fields = true;
  static titleKey = 'patchGridTitle';

  render(api, v, fields) {
    const g = v.grid;
    const d = v['d-model'] - (v['d-model'] % 4); // the table needs a multiple of 4
    if (d !== v['d-model']) this.note('patchGridDim', { d });
    this.control('grid', 'gridLabel', g, { kind: 'number', min: 2, max: 24, step: 1 });
    this.control('preset', 'presetLabel', v.preset, { kind: 'select', options: GRID_PRESETS.map((p) => [p, `grid_${p}`]) });
    this.control('first-axis', 'firstAxisLabel', v['first-axis'], { kind: 'select', options: [['w', 'axis_w'], ['h', 'axis_h']] });
    const table = fields.sincos2d(g, g, d, { preset: v.preset, firstAxis: v['first-axis'], base: v.base, dtype: 'float64' });
    const sim = api.gram(table, { cosine: true, dtype: 'float64' }); // (g·g) × (g·g), patches row-major
    const n = g * g;
    // Pixel (r·g + r2, c·g + c2) = cos(patch (r, c), patch (r2, c2)).
    const img = new Float64Array(n * n);
    for (let p = 0; p < n; p++) {
      const [r, c] = [Math.floor(p / g), p % g];
      for (let q = 0; q < n; q++) img[(r * g + Math.floor(q / g)) * n + c * g + (q % g)] = sim.data[p * n + q];
    }
    const at = (row, col) => ({ r: Math.floor(row / g), c: Math.floor(col / g), r2: row % g, c2: col % g });
    const right = sim.data[1]; // patch (0, 0) against (0, 1)
    const down = sim.data[g]; // against (1, 0)
    const caption = this.t('patchGridCaption', { g, d, preset: v.preset, right: fmt(right, 3), down: fmt(down, 3) });
    this.heat ??= new Heatmap(this.chartsEl, { aspect: 1.15 });
    // Most frequencies of a small grid turn slowly, so every cosine is high: colour from the lowest one up.
    const lo = img.reduce((m, x) => Math.min(m, x), 1);
    this.heat.update({
      rows: n, cols: n, data: img, range: [lo, 1], x: this.t('patchCol'), y: this.t('patchRow'), label: caption,
      describe: (row, col) => {
        const { r, c, r2, c2 } = at(row, col);
        return [this.t('patchPair', { r, c, r2, c2 }), `${this.t('cosine')} ${fmt(img[row * n + col])}`];
      },
    });
    this.captionEl.textContent = caption;
    this.data = () => ({
      header: ['row', 'col', 'row2', 'col2', 'cosine'],
      rows: Array.from({ length: n * n }, (_, k) => {
        const { r, c, r2, c2 } = at(Math.floor(k / n), k % n);
        return [r, c, r2, c2, img[k]];
      }),
    });
  }
}
