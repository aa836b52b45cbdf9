// A heatmap as a Chart.js chart: the cells are one bitmap (ImageData on an
// offscreen canvas, one pixel per cell) that a plugin scales into the chart area.
// That stays fast for 128×512 and 8192-wide tables, keeps Chart.js axes, and
// updates in place: new data refills the bitmap, then chart.update('none').
import { Chart, baseOptions } from './charts.js';
import { el } from './dom.js';

// Diverging blue–white–red colour map (ColorBrewer RdBu stops), 256 entries.
const STOPS = [[33, 102, 172], [103, 169, 207], [247, 247, 247], [239, 138, 98], [178, 24, 43]];
const LUT = new Uint8ClampedArray(256 * 3);
for (let i = 0; i < 256; i++) {
  const t = (i / 255) * (STOPS.length - 1);
  const k = Math.min(Math.floor(t), STOPS.length - 2);
  for (let c = 0; c < 3; c++) LUT[i * 3 + c] = STOPS[k][c] + (STOPS[k + 1][c] - STOPS[k][c]) * (t - k);
}

const BAR = 10; // colour bar width in CSS pixels

const imagePlugin = {
  id: 'peHeatmapImage',
  beforeDatasetsDraw(chart) {
    const heat = chart.$peHeat;
    if (!heat?.bitmap.width) return;
    const { left, top, width, height } = chart.chartArea;
    const { ctx } = chart;
    ctx.save();
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(heat.bitmap, left, top, width, height);
    drawColorBar(ctx, chart.chartArea, heat.range);
    ctx.restore();
  },
};

function drawColorBar(ctx, area, [lo, hi]) {
  const x = area.right + 12;
  const h = area.bottom - area.top;
  for (let i = 0; i < h; i++) {
    const k = Math.round((1 - i / Math.max(h - 1, 1)) * 255) * 3;
    ctx.fillStyle = `rgb(${LUT[k]},${LUT[k + 1]},${LUT[k + 2]})`;
    ctx.fillRect(x, area.top + i, BAR, 1);
  }
  ctx.fillStyle = '#333';
  ctx.font = '11px sans-serif';
  ctx.textBaseline = 'top';
  ctx.fillText(formatTick(hi), x + BAR + 3, area.top);
  ctx.textBaseline = 'bottom';
  ctx.fillText(formatTick(lo), x + BAR + 3, area.bottom);
}

const formatTick = (v) => (Math.abs(v) >= 1000 ? v.toExponential(1) : String(Number(v.toPrecision(3))));

/** Keeps only the ticks that name a cell (whole numbers inside the table). */
function centredTicks(scale) {
  scale.ticks = scale.ticks.filter((t) => Number.isInteger(t.value) && t.value >= 0 && t.value <= scale.max);
}

export class Heatmap {
  /** Builds the chart inside `parent`; `describe(row, col)` gives tooltip lines. */
  constructor(parent, { aspect = 1.6, label = '' } = {}) {
    this.canvas = el('canvas', { role: 'img', 'aria-label': label });
    this.tip = el('div', { class: 'tip hidden' });
    this.box = el('div', { class: 'chart' }, this.canvas, this.tip);
    parent.append(this.box);
    this.bitmap = document.createElement('canvas');
    this.range = [-1, 1];
    this.describe = () => [];
    const options = baseOptions({ legend: false, aspect });
    options.layout = { padding: { right: BAR + 44 } };
    options.plugins.tooltip.enabled = false;
    options.events = [];
    options.scales.y.reverse = true;
    // Cell k spans [k − 0.5, k + 0.5], so the ticks (whole numbers only) sit on cell centres.
    for (const s of Object.values(options.scales)) {
      Object.assign(s, { grid: { display: false }, ticks: { precision: 0, includeBounds: false }, afterBuildTicks: centredTicks });
    }
    this.chart = new Chart(this.canvas, { type: 'scatter', data: { datasets: [] }, options, plugins: [imagePlugin] });
    this.chart.$peHeat = this;
    this.canvas.addEventListener('mousemove', (e) => this.hover(e));
    this.canvas.addEventListener('mouseleave', () => this.tip.classList.add('hidden'));
  }

  /** Shows a rows × cols matrix (row-major `data`) with values mapped over `range`. */
  update({ rows, cols, data, range, x, y, describe, label }) {
    const [lo, hi] = range ?? extent(data);
    this.range = [lo, hi];
    this.rows = rows;
    this.cols = cols;
    this.describe = describe ?? this.describe;
    this.fill(data, lo, hi);
    const { scales } = this.chart.options;
    Object.assign(scales.x, { min: -0.5, max: cols - 0.5, title: { display: Boolean(x), text: x } });
    Object.assign(scales.y, { min: -0.5, max: rows - 0.5, title: { display: Boolean(y), text: y } });
    if (label) this.canvas.setAttribute('aria-label', label);
    this.chart.update('none');
  }

  fill(data, lo, hi) {
    const { rows, cols, bitmap } = this;
    if (bitmap.width !== cols || bitmap.height !== rows) {
      bitmap.width = cols;
      bitmap.height = rows;
      this.image = null;
    }
    const ctx = bitmap.getContext('2d');
    this.image ??= ctx.createImageData(cols, rows);
    const px = this.image.data;
    const scale = hi > lo ? 255 / (hi - lo) : 0;
    for (let i = 0, n = rows * cols; i < n; i++) {
      const v = data[i];
      const k = (v !== v ? 127 : Math.max(0, Math.min(255, Math.round((v - lo) * scale)))) * 3;
      const p = i * 4;
      px[p] = LUT[k];
      px[p + 1] = LUT[k + 1];
      px[p + 2] = LUT[k + 2];
      px[p + 3] = 255;
    }
    ctx.putImageData(this.image, 0, 0);
  }

  hover(e) {
    const { x, y } = this.chart.scales;
    const { left, right, top, bottom } = this.chart.chartArea;
    if (e.offsetX < left || e.offsetX >= right || e.offsetY < top || e.offsetY >= bottom) {
      this.tip.classList.add('hidden');
      return;
    }
    const col = Math.max(0, Math.min(this.cols - 1, Math.round(x.getValueForPixel(e.offsetX))));
    const row = Math.max(0, Math.min(this.rows - 1, Math.round(y.getValueForPixel(e.offsetY))));
    this.tip.textContent = this.describe(row, col).join('\n');
    this.tip.classList.remove('hidden');
    const flip = e.offsetX > this.box.clientWidth / 2;
    this.tip.style.left = flip ? '' : `${e.offsetX + 14}px`;
    this.tip.style.right = flip ? `${this.box.clientWidth - e.offsetX + 14}px` : '';
    this.tip.style.top = `${e.offsetY + 10}px`;
  }
}

/** [min, max] of finite values, widened so that lo < hi. */
export function extent(data) {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (!(lo < hi)) return [Number.isFinite(lo) ? lo - 1 : -1, Number.isFinite(hi) ? hi + 1 : 1];
  return [lo, hi];
}
