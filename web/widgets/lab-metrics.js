// What <pe-lab> plots and tabulates after training: accuracy on new
// positions against test length (mean over seeds, the seeds' range as dashed
// lines, the task's chance as a grey line), and a table of each encoding's
// in-range accuracy, new-position accuracy and, for who-did-what, the
// reversed-sentence probe. Numbers arrive from lab-worker.js as
// { mean, min, max } over the seeds trained.
import { el } from './dom.js';
import { lineSet } from './charts.js';

/** Grey and thin: not a series, so the theme does not recolour it. */
const CHANCE_STYLE = { borderColor: '#767676', backgroundColor: '#767676', borderDash: [2, 3], borderWidth: 1, pointRadius: 0 };

/** "0.93" or, over several seeds that differ, "0.93 [0.90, 0.95]"; "–" for no answers scored. */
export function formatRange(s) {
  if (!s || !Number.isFinite(s.mean)) return '–';
  return s.min === s.max ? s.mean.toFixed(2) : `${s.mean.toFixed(2)} [${s.min.toFixed(2)}, ${s.max.toFixed(2)}]`;
}

/**
 * The datasets of the new-position chart: per encoding (in `order`), its mean
 * line and, when seeds differ, a dashed min and max; then the chance line
 * across the lengths plotted.
 */
export function newPositionSets(curves, order, name, words) {
  const sets = [];
  const xs = [];
  for (const [i, k] of order.entries()) {
    const points = curves.get(k)?.byLength ?? [];
    if (!points.length) continue;
    xs.push(...points.map((p) => p.length));
    sets.push(lineSet(name(k), points.map((p) => ({ x: p.length, y: p.mean })), i, { pointRadius: 2 }));
    if (points.some((p) => p.min !== p.max)) {
      for (const side of ['min', 'max']) {
        sets.push(lineSet(`${name(k)} ${words[side]}`, points.map((p) => ({ x: p.length, y: p[side] })), i,
          { borderDash: [4, 3], borderWidth: 1, seedRange: true }));
      }
    }
  }
  if (xs.length) {
    const lo = Math.min(...xs);
    const hi = Math.max(...xs);
    sets.push({ label: words.chance, data: [{ x: lo, y: words.chanceValue }, { x: hi, y: words.chanceValue }], ...CHANCE_STYLE });
  }
  return sets;
}

/**
 * Keeps the seeds' min and max lines out of the chart's legend (six
 * encodings would bring twelve entries that squeeze the plot); the caption
 * says what the dashed lines are.
 */
export function legendWithoutRanges(chart) {
  chart.options.plugins.legend.labels = { ...chart.options.plugins.legend.labels,
    filter: (item, data) => !data.datasets[item.datasetIndex]?.seedRange };
}

/**
 * A table cell "mean [min, max]" (formatRange's text) with the range on a line
 * of its own, so that at phone width a cell breaks there, not inside the range.
 */
function rangeCell(s) {
  const text = formatRange(s);
  const at = text.indexOf(' [');
  return at < 0 ? el('td', {}, text) : el('td', {}, text.slice(0, at + 1), el('span', { class: 'range' }, text.slice(at + 1)));
}

/**
 * The summary table: one row per trained encoding. headers: the column
 * titles; rows: [name, inRange, newAt, probe?] with { mean, min, max } cells.
 */
export function summaryTable(headers, rows) {
  const probe = rows.some((r) => r.probe);
  const head = el('tr', {}, ...headers.slice(0, probe ? 4 : 3).map((h) => el('th', { scope: 'col' }, h)));
  const body = rows.map((r) => el('tr', {}, el('th', { scope: 'row' }, r.name), rangeCell(r.inRange),
    rangeCell(r.fresh), ...(probe ? [rangeCell(r.probe)] : [])));
  return el('table', { class: 'lab-summary' }, el('thead', {}, head), el('tbody', {}, ...body));
}

/**
 * Each chart's text alternative (role img): what it plots and each
 * encoding's latest value, or that nothing has been trained yet. charts:
 * [[chart, curve key, name of what it plots]]; tl: the lab's words.
 */
export function describeCharts(charts, curves, order, tl) {
  const pct = (y) => `${(100 * y).toFixed(1)}%`;
  const show = { loss: (p) => `${p.y.toFixed(3)} (${tl('step')} ${p.x})`, accuracy: (p) => `${pct(p.y)} (${tl('step')} ${p.x})`,
    byLength: (p) => `${pct(p.mean)} (${p.length})` };
  for (const [chart, key, what] of charts) {
    const values = order.filter((k) => curves.get(k)?.[key]?.length)
      .map((k) => `${tl(`enc_${k}`)} ${show[key](curves.get(k)[key].at(-1))}`).join('; ');
    chart.canvas.setAttribute('role', 'img');
    chart.canvas.setAttribute('aria-label', tl(values ? 'chartAlt' : 'chartAltEmpty', { what: tl(what), values }));
  }
}
