// The first chart on the page, drawn with the 2-D canvas API instead of
// Chart.js so it needs nothing but the posenc core: the table of 40 positions
// × 64 dimensions, blue −1, white 0, red +1. It is a fixed illustration (its
// caption says so), drawn before the settings exist, so it never waits on them. Hovering (or focusing and using
// the arrow keys) names a cell.
import { init } from '../lib/index.js';
import { markFirstChart } from './first-screen.js';

const ROWS = 40;
const COLS = 64;
const PAD = { left: 34, top: 8, right: 8, bottom: 26 };

/** Blue–white–red for v in [−1, 1], written as RGBA at px[at]. */
function paint(px, at, v) {
  const t = Math.max(-1, Math.min(1, v));
  const a = Math.round(255 * (1 - Math.abs(t)));
  px[at] = t < 0 ? a : 255;
  px[at + 1] = t < 0 ? a + Math.round(0.4 * (255 - a)) : a;
  px[at + 2] = t < 0 ? 255 : a;
  px[at + 3] = 255;
}

// The readout follows each language's punctuation: full-width in Chinese.
const words = () => (document.documentElement.lang.startsWith('zh')
  ? { pos: '位置', dim: '维度', hint: '把鼠标移到图上，或聚焦后按方向键',
    cell: (r, c, fn, v) => `位置 ${r}，维度 ${c}（${fn}）：数值 ${v}` }
  : { pos: 'position', dim: 'dimension', hint: 'Hover the map, or focus it and use the arrow keys',
    cell: (r, c, fn, v) => `position ${r}, dimension ${c} (${fn}): value ${v}` });

export async function drawHero(canvas) {
  if (!canvas) return;
  const api = await init();
  const table = api.table(ROWS, COLS);
  const ctx = canvas.getContext('2d');
  const { width, height } = canvas;
  const cw = (width - PAD.left - PAD.right) / COLS;
  const ch = (height - PAD.top - PAD.bottom) / ROWS;
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, height);
  // One pixel per cell, scaled up unsmoothed: a single draw instead of 2,560
  // fillRect calls that each parse a colour string (the first screen waits on it).
  // Each cell's bytes written in place: an array and a set() per cell were 10 ms of the first screen, run
  // before any optimising compiler had seen the loop.
  const cells = new ImageData(COLS, ROWS);
  const px = cells.data, values = table.data;
  for (let i = 0; i < ROWS * COLS; i++) paint(px, 4 * i, values[i]);
  const pixels = document.createElement('canvas');
  pixels.width = COLS;
  pixels.height = ROWS;
  pixels.getContext('2d').putImageData(cells, 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(pixels, PAD.left, PAD.top, COLS * cw, ROWS * ch);
  axes(ctx, cw, ch, height, words());
  markFirstChart();
  explore(canvas, table, cw, ch);
}

/** Ticks at cell centres: rows 0, 10, 20, 30, 39 and columns 0, 16, 32, 48, 63. */
function axes(ctx, cw, ch, height, w) {
  ctx.fillStyle = '#1d2430';
  // The page's own font list (site.css), so the axis titles' Chinese finds a
  // named font instead of asking the system's fallback for one.
  ctx.font = `11px ${getComputedStyle(ctx.canvas).fontFamily}`;
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (const r of [0, 10, 20, 30, ROWS - 1]) ctx.fillText(String(r), PAD.left - 4, PAD.top + (r + 0.5) * ch);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  for (const c of [0, 16, 32, 48, COLS - 1]) ctx.fillText(String(c), PAD.left + (c + 0.5) * cw, height - PAD.bottom + 3);
  ctx.fillText(`${w.dim} →`, PAD.left + (COLS * cw) / 2, height - 12);
  ctx.save();
  ctx.translate(10, PAD.top + (ROWS * ch) / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.fillText(`${w.pos} →`, 0, -6);
  ctx.restore();
}

function explore(canvas, table, cw, ch) {
  const out = document.getElementById('hero-readout');
  if (!out) return;
  let cell = [1, 2];
  const show = ([r, c]) => {
    const w = words();
    cell = [r, c];
    const fn = c % 2 ? 'cos' : 'sin';
    out.textContent = w.cell(r, c, fn, table.data[r * COLS + c].toFixed(4));
  };
  out.textContent = words().hint;
  canvas.addEventListener('mousemove', (e) => {
    const rect = canvas.getBoundingClientRect();
    const x = ((e.clientX - rect.left) * canvas.width) / rect.width - PAD.left;
    const y = ((e.clientY - rect.top) * canvas.height) / rect.height - PAD.top;
    if (x < 0 || y < 0 || x >= COLS * cw || y >= ROWS * ch) return;
    show([Math.floor(y / ch), Math.floor(x / cw)]);
  });
  canvas.addEventListener('keydown', (e) => {
    const step = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[e.key];
    if (!step) return;
    e.preventDefault();
    show([Math.min(ROWS - 1, Math.max(0, cell[0] + step[0])), Math.min(COLS - 1, Math.max(0, cell[1] + step[1]))]);
  });
}
