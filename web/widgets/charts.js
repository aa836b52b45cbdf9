// Chart.js with only the parts the widgets draw, and the setup every chart shares:
// no animation, pre-shaped {x, y} data (parsing: false), updates in place, a
// size that follows the plot box (see .plot in styles.js), legends below the
// plot on narrow screens, colours from the --pe-* theme properties, and a
// visually hidden table of the plotted numbers for screen readers when they are few.
import {
  Chart, LineController, LineElement, PointElement, BarController, BarElement,
  ScatterController, LinearScale, CategoryScale, Tooltip, Legend,
} from 'chart.js';
import { el, fmt } from './dom.js';

Chart.register(LineController, LineElement, PointElement, BarController, BarElement,
  ScatterController, LinearScale, CategoryScale, Tooltip, Legend);

export { Chart };

/** Series colours: each has at least 3:1 contrast on white (WCAG 1.4.11); --pe-series overrides them. */
export const PALETTE = ['#3358c4', '#d9572b', '#2f9e44', '#9c36b5', '#b07800', '#1098ad', '#c2255c', '#5c6b80'];

/** Below this width (CSS px) a chart takes its phone shape: taller, legend under the plot. */
export const PHONE = 500;
/** A chart shows a hidden table of its numbers when it plots at most this many points. */
const TABLE_POINTS = 240;

const axis = (title, extra = {}) => ({ type: 'linear', title: { display: Boolean(title), text: title }, ...extra });

/** The theme in effect for an element (custom properties inherit into shadow roots). */
export function theme(node) {
  const style = getComputedStyle(node);
  const get = (name, def) => style.getPropertyValue(name).trim() || def;
  const series = get('--pe-series', '').split(',').map((s) => s.trim()).filter(Boolean);
  return {
    fg: get('--pe-fg', '#1d2430'),
    grid: get('--pe-grid', 'rgba(0, 0, 0, 0.1)'),
    series: series.length ? series : PALETTE,
  };
}

/** Sets the chart box's shape: `aspect` (width / height) on wide screens, a taller one on phones. */
export function shapeBox(box, aspect, legend) {
  box.style.setProperty('--aspect', String(aspect));
  box.style.setProperty('--phone-aspect', String(Math.min(aspect, legend ? 0.9 : 1.2)));
}

/** Options shared by every chart; `x`/`y` are axis titles. */
export function baseOptions({ x, y, legend = true, xExtra, yExtra } = {}) {
  return {
    animation: false,
    parsing: false,
    normalized: true,
    responsive: true,
    maintainAspectRatio: false, // the plot box has the aspect ratio (CSS), the chart fills it
    interaction: { mode: 'nearest', intersect: false, axis: 'x' },
    plugins: { legend: { display: legend, position: 'top' }, tooltip: { enabled: true } },
    scales: { x: axis(x, xExtra), y: axis(y, yExtra) },
    onResize: placeLegend,
  };
}

/** Legend above the plot on wide charts, below it on narrow ones (where it would squash the plot). */
function placeLegend(chart, { width }) {
  chart.options.plugins.legend.position = width < PHONE ? 'bottom' : 'top';
}

function create(canvas, config, opts) {
  const box = canvas.parentElement;
  shapeBox(box, opts.aspect ?? 2, opts.legend !== false);
  const chart = new Chart(canvas, config);
  placeLegend(chart, { width: box.clientWidth });
  return chart;
}

/** A line chart of several series; datasets are [{ label, data: [{x,y}] }]. */
export function lineChart(canvas, opts = {}) {
  return create(canvas, { type: 'line', data: { datasets: [] }, options: baseOptions(opts) }, opts);
}

/** A bar chart over categories; call setBars to fill it. */
export function barChart(canvas, opts = {}) {
  const options = baseOptions(opts);
  options.parsing = true;
  options.scales.x = { type: 'category', title: options.scales.x.title };
  options.interaction = { mode: 'index', intersect: false };
  return create(canvas, { type: 'bar', data: { labels: [], datasets: [] }, options }, opts);
}

/** Styles a dataset as a thin line without point dots; series `i` takes the i-th theme colour. */
export function lineSet(label, data, i, extra = {}) {
  const color = PALETTE[i % PALETTE.length];
  return { label, data, borderColor: color, backgroundColor: color, borderWidth: 1.5, pointRadius: 0, series: i, ...extra };
}

/** A bar dataset in series colour `i`. */
export const barSet = (label, data, i) => ({ label, data, backgroundColor: PALETTE[i], borderColor: PALETTE[i], series: i });

/** Applies the page's theme (text, grid and series colours) to a chart. */
export function applyTheme(chart) {
  const { fg, grid, series } = theme(chart.canvas);
  chart.options.color = fg;
  for (const scale of Object.values(chart.options.scales)) {
    scale.ticks = { ...scale.ticks, color: fg };
    scale.title = { ...scale.title, color: fg };
    scale.grid = { ...scale.grid, color: grid };
  }
  for (const set of chart.data.datasets) {
    if (set.series === undefined) continue;
    set.borderColor = set.backgroundColor = series[set.series % series.length];
  }
}

/** Replaces the series and axis titles of an existing chart, redrawing without recreating it. */
export function setSeries(chart, datasets, titles = {}, labels) {
  chart.data.datasets = datasets;
  if (labels) chart.data.labels = labels;
  for (const [id, text] of Object.entries(titles)) {
    chart.options.scales[id].title.text = text;
    chart.options.scales[id].title.display = Boolean(text);
  }
  applyTheme(chart);
  chart.update('none');
  describeChart(chart);
}

/**
 * The plotted numbers as a visually hidden table beside the canvas, for screen
 * readers, when there are few of them (the canvas's aria-label is the summary).
 */
function describeChart(chart) {
  const box = chart.canvas.parentElement;
  // In a clipped box: a table is never narrower than its content, whatever its own width says.
  chart.$peTable ??= box.appendChild(el('div', { class: 'sr' })).appendChild(el('table'));
  const sets = chart.data.datasets;
  const labels = chart.data.labels ?? [];
  const rowsOf = (s) => s.data.length;
  const total = sets.reduce((n, s) => n + rowsOf(s), 0);
  const table = chart.$peTable;
  if (!sets.length || total > TABLE_POINTS) {
    table.replaceChildren();
    table.hidden = true;
    return;
  }
  table.hidden = false;
  const xTitle = chart.options.scales.x.title.text || 'x';
  const cell = (v) => (typeof v === 'number' ? fmt(v) : String(v ?? ''));
  const body = sets.flatMap((s) => s.data.map((p, i) => {
    const x = p && typeof p === 'object' ? p.x : labels[i];
    const y = p && typeof p === 'object' ? p.y : p;
    return el('tr', {}, el('th', { scope: 'row' }, s.label ?? ''), el('td', {}, cell(x)), el('td', {}, cell(y)));
  }));
  table.replaceChildren(
    el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, '#'), el('th', { scope: 'col' }, xTitle),
      el('th', { scope: 'col' }, chart.options.scales.y.title.text || 'y'))),
    el('tbody', {}, body),
  );
}

/** [{x: i, y: f(i)}] for i in [0, n). */
export const points = (n, f) => Array.from({ length: n }, (_, i) => ({ x: i, y: f(i) }));
