// The CSV / JSON / PNG download buttons every chart has. A widget supplies
// getData() -> { name, params, header, rows } and getCanvases() -> [canvas].
import { el } from './dom.js';

function download(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = el('a', { href: url, download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

const csvCell = (v) => {
  const s = typeof v === 'number' ? String(v) : String(v ?? '');
  // Quote text, and defuse spreadsheet formulas in user-typed tokens.
  if (typeof v === 'number') return s;
  const safe = /^[=+\-@]/.test(s) ? `'${s}` : s;
  return /[",\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

export function toCsv({ header, rows }) {
  return [header, ...rows].map((r) => r.map(csvCell).join(',')).join('\n') + '\n';
}

export function toJson({ name, params, header, rows }) {
  return JSON.stringify({ name, params, header, rows }, null, 1);
}

/** Stacks several canvases vertically into one PNG blob; null when none has been drawn. */
function canvasesToPng(canvases) {
  const list = canvases.filter((c) => c.width && c.height);
  if (!list.length) return null;
  const out = document.createElement('canvas');
  out.width = Math.max(...list.map((c) => c.width));
  out.height = list.reduce((h, c) => h + c.height, 0);
  const ctx = out.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, out.width, out.height);
  let y = 0;
  for (const c of list) {
    ctx.drawImage(c, 0, y);
    y += c.height;
  }
  return new Promise((ok) => out.toBlob(ok, 'image/png'));
}

/** The button row; labels come from `t` so they follow the widget's language. */
export function exportBar(getData, getCanvases, t) {
  const name = () => getData().name || 'posenc';
  const csv = el('button', { type: 'button', onclick: () => download(new Blob([toCsv(getData())], { type: 'text/csv' }), `${name()}.csv`) });
  const json = el('button', { type: 'button', onclick: () => download(new Blob([toJson(getData())], { type: 'application/json' }), `${name()}.json`) });
  const png = el('button', {
    type: 'button',
    // Nothing drawn yet (the bar shows under the placeholder before the first chart): nothing to save.
    // download(null) threw "Failed to execute 'createObjectURL'" uncaught in the page.
    onclick: async () => {
      const png = await canvasesToPng(getCanvases());
      if (png) download(png, `${name()}.png`);
    },
  });
  const bar = el('div', { class: 'export' }, csv, json, png);
  bar.relabel = () => {
    csv.textContent = 'CSV';
    json.textContent = 'JSON';
    png.textContent = 'PNG';
    csv.setAttribute('aria-label', t('downloadCsv'));
    json.setAttribute('aria-label', t('downloadJson'));
    png.setAttribute('aria-label', t('downloadPng'));
    csv.title = t('downloadCsv');
    json.title = t('downloadJson');
    png.title = t('downloadPng');
  };
  return bar;
}

/** header + rows for a row-major matrix, first column = row label. */
export function matrixRows(m, rowName = 'row', colName = 'c') {
  const header = [rowName, ...Array.from({ length: m.cols }, (_, c) => `${colName}${c}`)];
  const rows = Array.from({ length: m.rows }, (_, r) => [r, ...Array.from(m.data.subarray(r * m.cols, (r + 1) * m.cols))]);
  return { header, rows };
}
