// A heatmap as a Chart.js chart: the cells are one bitmap (ImageData on an
// offscreen canvas, one pixel per cell) that a plugin scales into the chart area.
// That stays fast for 128×512 and 8192-wide tables, keeps Chart.js axes, and
// updates in place: new data refills the bitmap, then chart.update('none').
// Colour scales: diverging (blue–white–red) for signed data centred on 0,
// sequential (one hue, light to dark) for one-sided data, categorical for a few
// distinct values. The keyboard reaches every value: the arrow keys move a focus
// cell whose value is announced; small maps also get a hidden table of numbers.
import { Chart, baseOptions, shapeBox, theme, PALETTE } from './charts.js';
import { el, fmt } from './dom.js';

/** 256-entry RGB lookup table interpolated between colour stops. */
function lut(stops) {
  const out = new Uint8ClampedArray(256 * 3);
  for (let i = 0; i < 256; i++) {
    const t = (i / 255) * (stops.length - 1);
    const k = Math.min(Math.floor(t), stops.length - 2);
    for (let c = 0; c < 3; c++) out[i * 3 + c] = stops[k][c] + (stops[k + 1][c] - stops[k][c]) * (t - k);
  }
  return out;
}

const hex = (h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));

// ColorBrewer RdBu (diverging) and Blues (sequential) stops.
const LUTS = {
  diverging: lut([[33, 102, 172], [103, 169, 207], [247, 247, 247], [239, 138, 98], [178, 24, 43]]),
  sequential: lut(['#f7fbff', '#deebf7', '#c6dbef', '#9ecae1', '#6baed6', '#4292c6', '#2171b5', '#08519c', '#08306b'].map(hex)),
};

/** The colour of the i-th category: the series palette, with a light grey for the first (usually 0 / "off"). */
const CATEGORY = ['#e9ecf1', ...PALETTE].map(hex);
const MAX_CATEGORIES = CATEGORY.length;
/** Maps at most this many cells get a hidden table of all their values. */
const TABLE_CELLS = 256;

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
    heat.drawKey(ctx, chart.chartArea);
    heat.drawFocus(ctx, chart.chartArea);
    ctx.restore();
  },
};

const formatTick = (v) => (Math.abs(v) >= 1000 ? v.toExponential(1) : String(Number(v.toPrecision(3))));

/** Keeps only the ticks that name a cell (whole numbers inside the table). */
function centredTicks(scale) {
  scale.ticks = scale.ticks.filter((t) => Number.isInteger(t.value) && t.value >= 0 && t.value <= scale.max);
}

export class Heatmap {
  /** Builds the chart inside `parent`; `describe(row, col)` gives tooltip lines. */
  constructor(parent, { aspect = 1.6, label = '' } = {}) {
    this.canvas = el('canvas', { role: 'application', tabindex: '0', 'aria-label': label });
    this.tip = el('div', { class: 'tip hidden' });
    this.live = el('p', { class: 'sr', 'aria-live': 'polite' });
    this.table = el('table');
    const plot = el('div', { class: 'plot' }, this.canvas, this.tip);
    shapeBox(plot, aspect, false);
    this.box = el('div', { class: 'chart' }, plot, this.live, el('div', { class: 'sr' }, this.table));
    parent.append(this.box);
    this.bitmap = document.createElement('canvas');
    this.range = [-1, 1];
    this.kind = 'diverging';
    this.focus = null; // [row, col] of the keyboard's cell, null until the arrow keys are used
    this.describe = () => [];
    const options = baseOptions({ legend: false });
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
    this.canvas.addEventListener('keydown', (e) => this.key(e));
    this.canvas.addEventListener('focus', () => this.moveFocus(0, 0));
    this.canvas.addEventListener('blur', () => {
      this.tip.classList.add('hidden');
      this.chart.draw();
    });
  }

  /** Releases the chart and both bitmaps (the element's release() calls it). */
  destroy() {
    this.chart.destroy();
    this.bitmap.width = this.bitmap.height = 0;
    this.image = null;
    this.data = null;
    this.describe = () => [];
  }

  /**
   * Shows a rows × cols matrix (row-major `data`) with values mapped over `range`.
   * scale: 'diverging' (signed, centred on 0), 'sequential' (low light, high dark),
   * 'sequential-low' (high light, low dark: for data <= 0), or 'categorical'.
   */
  update({ rows, cols, data, range, x, y, describe, label, scale = 'diverging' }) {
    const [lo, hi] = range ?? extent(data);
    this.range = [lo, hi];
    this.kind = scale;
    this.categories = scale === 'categorical' ? categories(data) : null;
    if (this.categories && this.categories.length > MAX_CATEGORIES) {
      this.kind = 'sequential';
      this.categories = null;
    }
    this.rows = rows;
    this.cols = cols;
    this.data = data;
    this.describe = describe ?? this.describe;
    if (this.focus) this.focus = [Math.min(this.focus[0], rows - 1), Math.min(this.focus[1], cols - 1)];
    this.fill(data, lo, hi);
    const { fg } = theme(this.canvas);
    const { scales } = this.chart.options;
    Object.assign(scales.x, { min: -0.5, max: cols - 0.5, title: { display: Boolean(x), text: x, color: fg } });
    Object.assign(scales.y, { min: -0.5, max: rows - 0.5, title: { display: Boolean(y), text: y, color: fg } });
    for (const s of Object.values(scales)) s.ticks = { ...s.ticks, color: fg };
    this.fg = fg;
    if (label) this.label = label;
    this.canvas.setAttribute('aria-label', `${this.label ?? ''} ${this.hint()}`.trim());
    this.chart.update('none');
    this.fillTable(x, y);
  }

  /** The keyboard hint read after the label, in the widget's language. */
  hint() {
    return this.canvas.getRootNode().host?.t?.('heatKeys') ?? '';
  }

  /** The 0..255 colour index of a value, or -1 for NaN. */
  index(v, lo, hi) {
    if (v !== v) return -1;
    if (this.categories) return this.categories.indexOf(v);
    const t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
    const k = Math.max(0, Math.min(255, Math.round(t * 255)));
    return this.kind === 'sequential-low' ? 255 - k : k;
  }

  /** The RGB of colour index k (see index()). */
  rgb(k) {
    if (k < 0) return [128, 128, 128];
    if (this.categories) return CATEGORY[k] ?? [128, 128, 128];
    const table = this.kind === 'diverging' ? LUTS.diverging : LUTS.sequential;
    return [table[k * 3], table[k * 3 + 1], table[k * 3 + 2]];
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
    // Colour index 256 is NaN's grey; the loop avoids calls, as a table may have 4M cells.
    const pal = new Uint8ClampedArray(257 * 3);
    for (let k = 0; k <= 256; k++) pal.set(this.rgb(k === 256 ? -1 : k), k * 3);
    const cats = this.categories;
    const scale = hi > lo ? 255 / (hi - lo) : 0;
    const flip = this.kind === 'sequential-low';
    for (let i = 0, n = rows * cols; i < n; i++) {
      const v = data[i];
      let k;
      if (v !== v) k = 256;
      else if (cats) k = cats.indexOf(v);
      else {
        k = Math.max(0, Math.min(255, Math.round((v - lo) * scale)));
        if (flip) k = 255 - k;
      }
      const p = i * 4;
      px[p] = pal[k * 3];
      px[p + 1] = pal[k * 3 + 1];
      px[p + 2] = pal[k * 3 + 2];
      px[p + 3] = 255;
    }
    ctx.putImageData(this.image, 0, 0);
  }

  /** The colour bar (continuous scales) or the swatches of each category, right of the plot. */
  drawKey(ctx, area) {
    const x = area.right + 12;
    ctx.fillStyle = this.fg;
    ctx.font = '11px sans-serif';
    if (this.categories) {
      this.categories.forEach((v, k) => {
        const y = area.top + k * 16;
        ctx.fillStyle = `rgb(${this.rgb(k).join(',')})`;
        ctx.fillRect(x, y, BAR, 12);
        ctx.strokeStyle = this.fg;
        ctx.strokeRect(x + 0.5, y + 0.5, BAR - 1, 11);
        ctx.fillStyle = this.fg;
        ctx.textBaseline = 'top';
        ctx.fillText(formatTick(v), x + BAR + 3, y);
      });
      return;
    }
    const [lo, hi] = this.range;
    const h = area.bottom - area.top;
    for (let i = 0; i < h; i++) {
      const v = hi - ((hi - lo) * i) / Math.max(h - 1, 1);
      ctx.fillStyle = `rgb(${this.rgb(this.index(v, lo, hi)).join(',')})`;
      ctx.fillRect(x, area.top + i, BAR, 1);
    }
    ctx.fillStyle = this.fg;
    ctx.textBaseline = 'top';
    ctx.fillText(formatTick(hi), x + BAR + 3, area.top);
    ctx.textBaseline = 'bottom';
    ctx.fillText(formatTick(lo), x + BAR + 3, area.bottom);
  }

  /** Outlines the keyboard's cell while the map has the focus. */
  drawFocus(ctx, area) {
    if (!this.focus || this.canvas.getRootNode().activeElement !== this.canvas) return;
    const [r, c] = this.focus;
    const w = (area.right - area.left) / this.cols;
    const h = (area.bottom - area.top) / this.rows;
    ctx.lineWidth = 2;
    ctx.strokeStyle = '#000';
    ctx.strokeRect(area.left + c * w - 1, area.top + r * h - 1, Math.max(w, 2) + 2, Math.max(h, 2) + 2);
    ctx.strokeStyle = '#fff';
    ctx.lineWidth = 1;
    ctx.strokeRect(area.left + c * w, area.top + r * h, Math.max(w, 2), Math.max(h, 2));
  }

  /** Arrow keys move one cell, Page Up/Down ten rows, Home/End to the row's ends. */
  key(e) {
    const moves = {
      ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1],
      PageUp: [-10, 0], PageDown: [10, 0], Home: [0, -Infinity], End: [0, Infinity],
    };
    const m = moves[e.key];
    if (!m || !this.rows) return;
    e.preventDefault();
    this.moveFocus(...m);
  }

  moveFocus(dr, dc) {
    if (!this.rows) return;
    const [r, c] = this.focus ?? [0, 0];
    const clamp = (v, n) => Math.max(0, Math.min(n - 1, v));
    this.focus = [clamp(r + dr, this.rows), clamp(c + dc, this.cols)];
    const lines = this.describe(...this.focus);
    this.live.textContent = lines.join(', ');
    this.chart.draw();
    const { left, top, right, bottom } = this.chart.chartArea;
    const x = left + ((this.focus[1] + 0.5) * (right - left)) / this.cols;
    const y = top + ((this.focus[0] + 0.5) * (bottom - top)) / this.rows;
    this.showTip(lines, x, y);
  }

  /** The values of small maps as a hidden table (screen readers); larger ones rely on the label and the keys. */
  fillTable(x, y) {
    const { rows, cols, data } = this;
    if (rows * cols > TABLE_CELLS) {
      this.table.replaceChildren();
      this.table.hidden = true;
      return;
    }
    this.table.hidden = false;
    const head = el('tr', {}, el('th', { scope: 'col' }, `${y ?? ''} \\ ${x ?? ''}`),
      Array.from({ length: cols }, (_, c) => el('th', { scope: 'col' }, String(c))));
    const body = Array.from({ length: rows }, (_, r) => el('tr', {}, el('th', { scope: 'row' }, String(r)),
      Array.from({ length: cols }, (_, c) => el('td', {}, fmt(data[r * cols + c])))));
    this.table.replaceChildren(el('caption', {}, this.label ?? ''), el('thead', {}, head), el('tbody', {}, body));
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
    this.showTip(this.describe(row, col), e.offsetX, e.offsetY);
  }

  showTip(lines, px, py) {
    const width = this.canvas.parentElement.clientWidth;
    this.tip.textContent = lines.join('\n');
    this.tip.classList.remove('hidden');
    const flip = px > width / 2;
    this.tip.style.left = flip ? '' : `${px + 14}px`;
    this.tip.style.right = flip ? `${width - px + 14}px` : '';
    this.tip.style.top = `${py + 10}px`;
  }
}

/** The distinct values of categorical data, in increasing order (stops counting past MAX_CATEGORIES). */
function categories(data) {
  const seen = new Set();
  for (let i = 0; i < data.length && seen.size <= MAX_CATEGORIES; i++) seen.add(data[i]);
  return [...seen].sort((a, b) => a - b);
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
