// <pe-circles>: the odometer picture. Each (sin, cos) pair of a position is the
// point (cos θ, sin θ), θ = ω_i·pos, on a unit circle: a row of clocks whose hands
// turn at different speeds. view="grid": clocks for the chosen position above a
// grid of circles (positions × pairs). view="single": d = 2, every position on
// one circle. The position slider (and Play) moves the hands.
import { PeWidget } from './base.js';
import { encodingSpec, int, oneOf } from './attrs.js';
import { wholePairs } from './columns.js';
import { el, fmt } from './dom.js';

const MAX_ROWS = 16;
const MAX_PAIRS = 16;

export class PeCircles extends PeWidget {
  // d-model from 2, the widget's choice (the API takes 1): a clock needs a whole (sin, cos) pair.
  static spec = { ...encodingSpec(20, 7), 'd-model': int(2, 8192, 20), view: oneOf(['grid', 'single'], 'grid'), pos: int(0, 100000, 0) };
  static titleKey = 'circlesTitle';
  static aspect = 1.2;
  static followsWidth = true; // drawn at the element's width, so redrawn when it changes

  render(api, v) {
    const single = v.view === 'single';
    const d = single ? 2 : v['d-model'];
    const len = Math.min(v['max-len'], single ? 64 : MAX_ROWS);
    if (len < v['max-len']) this.note('clamped', { raw: v['max-len'], max: len }, 'max-len');
    const enc = PeWidget.encoding(v);
    const pairs = this.pairs(wholePairs(api, d, enc), single ? 1 : MAX_PAIRS);
    if (!pairs.length) throw new RangeError(this.t('noPairs', { d }));
    const last = single ? len - 1 : Math.max(len - 1, 200);
    const pos = Math.min(v.pos, last);
    // the sinusoid's pairs, as the caption's angles: fairseq's zero row (position 1) would stop every clock there
    const table = api.table(len, d, { ...enc, paddingIdx: null });
    const now = api.table(1, d, { ...enc, offset: pos, paddingIdx: null }).data;
    const freqs = api.frequencies(d, enc);
    this.controls(pos, last);
    this.canvas ??= this.newCanvas();
    this.canvas.parentElement.classList.add('free'); // sized by its drawing, not by an aspect ratio
    this.canvas.classList.add('circles');
    const draw = single ? drawSingle : drawGrid;
    draw(this.canvas, { table, now, pairs, len, pos, t: (k) => this.t(k) });
    const caption = this.t(single ? 'singleCaption' : 'circlesCaption', {
      len: len - 1, pairs: pairs.length, pos, d,
      angles: pairs.slice(0, 4).map((p) => `${fmt(((freqs[p.i] * pos) % (2 * Math.PI)) * (180 / Math.PI), 3)}°`).join(', '),
    });
    this.canvas.setAttribute('aria-label', caption);
    this.captionEl.textContent = caption;
    this.data = () => ({
      header: ['position', 'pair', 'omega', 'cos', 'sin'],
      rows: Array.from({ length: len }, (_, r) => pairs.map((p) => [r, p.i, freqs[p.i], table.data[r * d + p.cos], table.data[r * d + p.sin]])).flat(),
    });
  }

  pairs(all, most) {
    if (all.length > most) this.note('pairsCut', { most });
    return all.slice(0, most);
  }

  controls(pos, last) {
    this.control('pos', 'positionSlider', pos, { kind: 'range', min: 0, max: last, step: 1 });
    if (!this.play) {
      this.play = el('button', { type: 'button', onclick: () => this.toggle() });
      this.controlsEl.append(this.play);
    }
    this.last = last;
    this.play.textContent = this.t(this.timer ? 'pause' : 'play');
    this.play.setAttribute('aria-pressed', String(Boolean(this.timer)));
  }

  toggle() {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    } else {
      this.timer = setInterval(() => {
        // From the position drawn, as parsed: Number() of the attribute read pos="0x10" as 16 and "1e2" as 100,
        // and wrote "abc" back as "NaN", quoted by the error. An error stays, with what was written, until fixed.
        if (this.dataset.state !== 'ready') return;
        this.setAttribute('pos', String((this.values.pos + 1) % (this.last + 1)));
      }, 300);
    }
    this.schedule();
  }

  /** Play stops when the element is removed or released off screen. */
  release() {
    clearInterval(this.timer);
    super.release();
  }
}

/** Sizes a canvas for the device pixel ratio; returns its 2-D context in CSS pixels. */
function prepare(canvas, width, height) {
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(width * dpr);
  canvas.height = Math.round(height * dpr);
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, height);
  ctx.font = '11px sans-serif';
  return ctx;
}

/** One unit circle of radius r at (cx, cy), the point (x, y) on it, and optionally its hand. */
function circle(ctx, cx, cy, r, x, y, { hand = false, color = '#3358c4' } = {}) {
  ctx.strokeStyle = '#c3c9d4';
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(cx - r, cy);
  ctx.lineTo(cx + r, cy);
  ctx.moveTo(cx, cy - r);
  ctx.lineTo(cx, cy + r);
  ctx.stroke();
  ctx.strokeStyle = '#6b7486';
  ctx.beginPath();
  ctx.arc(cx, cy, r, 0, 2 * Math.PI);
  ctx.stroke();
  const px = cx + x * r;
  const py = cy - y * r;
  if (hand) {
    ctx.strokeStyle = color;
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(cx, cy);
    ctx.lineTo(px, py);
    ctx.stroke();
  }
  ctx.fillStyle = color;
  ctx.beginPath();
  ctx.arc(px, py, Math.min(6, Math.max(2, r / 9)), 0, 2 * Math.PI);
  ctx.fill();
}

function drawGrid(canvas, { table, now, pairs, len, pos, t }) {
  const d = table.cols;
  const width = Math.max(200, canvas.parentElement.clientWidth || 640);
  const labelW = 56;
  const cell = Math.min(64, (width - labelW) / pairs.length);
  const clock = Math.min(cell * 1.3, 80);
  const height = 28 + clock + 24 + len * cell;
  const ctx = prepare(canvas, labelW + pairs.length * cell, height);
  ctx.fillStyle = '#1d2430';
  ctx.textAlign = 'center';
  pairs.forEach((p, j) => ctx.fillText(`j=${p.sin},${p.cos}`, labelW + (j + 0.5) * cell, 12));
  ctx.textAlign = 'left';
  ctx.fillText(`pos=${pos}`, 2, 28 + clock / 2);
  pairs.forEach((p, j) =>
    circle(ctx, labelW + (j + 0.5) * cell, 24 + clock / 2, Math.min(clock, cell) / 2 - 4, now[p.cos], now[p.sin], { hand: true, color: '#d9572b' }));
  const top = 28 + clock + 20;
  ctx.fillStyle = '#4a5568';
  ctx.fillText(t('gridBelow'), 2, top - 6);
  for (let r = 0; r < len; r++) {
    const cy = top + (r + 0.5) * cell;
    if (r === pos) {
      ctx.fillStyle = '#fff1d6';
      ctx.fillRect(0, top + r * cell, labelW + pairs.length * cell, cell);
    }
    ctx.fillStyle = '#1d2430';
    ctx.fillText(`pos=${r}`, 2, cy + 4);
    pairs.forEach((p, j) => circle(ctx, labelW + (j + 0.5) * cell, cy, cell / 2 - 5, table.data[r * d + p.cos], table.data[r * d + p.sin], { hand: r === pos }));
  }
}

function drawSingle(canvas, { table, now, pairs, len, pos }) {
  const [p] = pairs;
  const size = Math.max(180, Math.min(420, canvas.parentElement.clientWidth || 420));
  const ctx = prepare(canvas, size, size);
  const c = size / 2;
  const r = size / 2 - 34;
  circle(ctx, c, c, r, now[p.cos], now[p.sin], { hand: true, color: '#d9572b' });
  ctx.fillStyle = '#3358c4';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  for (let k = 0; k < len; k++) {
    const x = table.data[k * 2 + p.cos];
    const y = table.data[k * 2 + p.sin];
    ctx.beginPath();
    ctx.arc(c + x * r, c - y * r, 4, 0, 2 * Math.PI);
    ctx.fill();
    const lift = 1 + 16 / r + (k % 2) * (12 / r); // alternate label radius: close positions stay readable
    ctx.fillText(String(k), c + x * r * lift, c - y * r * lift);
  }
  ctx.fillStyle = '#1d2430';
  ctx.textAlign = 'left';
  ctx.fillText(`pos=${pos}`, 6, 14);
}
