// Chart.js with only the parts the widgets draw, and the setup every chart shares:
// no animation, pre-shaped {x, y} data (parsing: false), updates in place.
import {
  Chart, LineController, LineElement, PointElement, BarController, BarElement,
  ScatterController, LinearScale, CategoryScale, Tooltip, Legend,
} from 'chart.js';

Chart.register(LineController, LineElement, PointElement, BarController, BarElement,
  ScatterController, LinearScale, CategoryScale, Tooltip, Legend);

export { Chart };

export const PALETTE = ['#3358c4', '#d9572b', '#2f9e44', '#9c36b5', '#e8a100', '#1098ad', '#c2255c', '#5c6b80'];

const axis = (title, extra = {}) => ({ type: 'linear', title: { display: Boolean(title), text: title }, ...extra });

/** Options shared by every chart; `x`/`y` are axis titles. */
export function baseOptions({ x, y, legend = true, aspect = 2, xExtra, yExtra } = {}) {
  return {
    animation: false,
    parsing: false,
    normalized: true,
    responsive: true,
    maintainAspectRatio: true,
    aspectRatio: aspect,
    interaction: { mode: 'nearest', intersect: false, axis: 'x' },
    plugins: { legend: { display: legend }, tooltip: { enabled: true } },
    scales: { x: axis(x, xExtra), y: axis(y, yExtra) },
  };
}

/** A line chart of several series; datasets are [{ label, data: [{x,y}] }]. */
export function lineChart(canvas, opts) {
  return new Chart(canvas, { type: 'line', data: { datasets: [] }, options: baseOptions(opts) });
}

/** A bar chart over categories; call setBars to fill it. */
export function barChart(canvas, opts) {
  const options = baseOptions(opts);
  options.parsing = true;
  options.scales.x = { type: 'category', title: options.scales.x.title };
  options.interaction = { mode: 'index', intersect: false };
  return new Chart(canvas, { type: 'bar', data: { labels: [], datasets: [] }, options });
}

/** Styles a dataset as a thin line without point dots. */
export function lineSet(label, data, i, extra = {}) {
  const color = PALETTE[i % PALETTE.length];
  return { label, data, borderColor: color, backgroundColor: color, borderWidth: 1.5, pointRadius: 0, ...extra };
}

/** Replaces the series and axis titles of an existing chart, redrawing without recreating it. */
export function setSeries(chart, datasets, titles = {}, labels) {
  chart.data.datasets = datasets;
  if (labels) chart.data.labels = labels;
  for (const [id, text] of Object.entries(titles)) {
    chart.options.scales[id].title.text = text;
    chart.options.scales[id].title.display = Boolean(text);
  }
  chart.update('none');
}

/** [{x: i, y: f(i)}] for i in [0, n). */
export const points = (n, f) => Array.from({ length: n }, (_, i) => ({ x: i, y: f(i) }));
