// "What a position code needs", tested live: five candidate codes against five
// requirements, each verdict computed from the candidates' actual numbers for
// a trained length N the reader picks. Tutorial-only (not a <pe-*> widget).
import { init } from '../lib/index.js';
import { pageLanguage } from './i18n.js';
import { TEXT } from './checklist-text.js';

const D = 8; // width of the sinusoidal, binary-free and learned codes shown
const TOL = 1e-9;

/** A deterministic stand-in for a trained table: uniform numbers in [−1, 1] per (run, row, column). */
function learnedValue(run, row, col) {
  let h = Math.imul(run * 7919 + row * 104729 + col * 15485863, 2654435761) >>> 0;
  h ^= h >>> 15;
  h = Math.imul(h, 2246822519) >>> 0;
  h ^= h >>> 13;
  return Math.round(((h >>> 0) / 2 ** 32) * 2e4 - 1e4) / 1e4;
}

/** The candidates: code(p, L, run) for position p in a text of length L, or null when there is none. */
function candidates(api, N) {
  const bits = Math.max(1, Math.ceil(Math.log2(N)));
  const sin = api.table(4 * N, D, { dtype: 'float64' }).data;
  return {
    raw: (p) => [p],
    frac: (p, L) => [p / L],
    binary: (p) => Array.from({ length: bits }, (_, b) => ((p % 2 ** bits) >> b) & 1),
    learned: (p, L, run = 1) => (p < N ? Array.from({ length: D }, (_, c) => learnedValue(run, p, c)) : null),
    sinusoid: (p) => Array.from(sin.subarray(p * D, p * D + D)),
  };
}

const dist = (a, b) => Math.hypot(...a.map((x, i) => x - b[i]));
const range = (n, from = 0) => Array.from({ length: n }, (_, i) => from + i);
const n4 = (x) => String(Number(x.toFixed(4)));

/** Each requirement: (code, N) → { state: 'pass'|'part'|'fail', key, vars } (key into TEXT). */
const TESTS = {
  distinct(code, N) {
    let min = Infinity;
    for (const p of range(N)) for (const q of range(N - p - 1, p + 1)) min = Math.min(min, dist(code(p, N), code(q, N)));
    return { state: min > TOL ? 'pass' : 'fail', key: 'closest', vars: { v: n4(min) } };
  },
  bounded(code, N) {
    const vals = range(2 * N).map((p) => code(p, 2 * N)).filter(Boolean).flat();
    const max = Math.max(...vals.map(Math.abs));
    return { state: max <= 1 + TOL ? 'pass' : 'fail', key: 'largest', vars: { v: n4(max), p: 2 * N - 1 } };
  },
  offset(code, N) {
    const half = Math.max(2, N >> 1);
    const steps = [N, half].flatMap((L) => range(L - 1).map((p) => dist(code(p + 1, L), code(p, L))));
    const lo = Math.min(...steps);
    const hi = Math.max(...steps);
    return { state: hi - lo <= TOL ? 'pass' : 'fail', key: 'steps', vars: { lo: n4(lo), hi: n4(hi) } };
  },
  beyond(code, N) {
    const trained = range(N).map((p) => code(p, N));
    const fresh = range(N, N).map((p) => code(p, 2 * N));
    if (fresh.some((c) => c === null)) return { state: 'fail', key: 'noRow', vars: { p: N } };
    // A fresh code equal to a trained one means something else already.
    for (const [k, c] of fresh.entries()) {
      const q = trained.findIndex((t) => dist(t, c) <= TOL);
      if (q >= 0) return { state: 'fail', key: 'reused', vars: { p: N + k, q } };
    }
    const lo = trained[0].map((_, i) => Math.min(...trained.map((t) => t[i])));
    const hi = trained[0].map((_, i) => Math.max(...trained.map((t) => t[i])));
    const outside = lo.filter((_, i) => fresh.some((c) => c[i] < lo[i] - TOL || c[i] > hi[i] + TOL)).length;
    if (outside === 0) return { state: 'pass', key: 'inside', vars: {} };
    const bounded = fresh.flat().every((x) => Math.abs(x) <= 1 + TOL);
    return { state: bounded ? 'part' : 'fail', key: bounded ? 'unseenBounded' : 'unseen', vars: { k: outside, n: lo.length } };
  },
  positionOnly(code, N) {
    const half = Math.max(2, N >> 1);
    const p = 1;
    const [a, b] = [code(p, N, 1), code(p, half, 1)];
    const c = code(p, N, 2);
    if (dist(a, b) > TOL) return { state: 'fail', key: 'byLength', vars: { p, a: a.map(n4).join(', '), b: b.map(n4).join(', '), L: N, M: half } };
    if (dist(a, c) > TOL) return { state: 'fail', key: 'byRun', vars: { p, a: n4(a[0]), c: n4(c[0]) } };
    return { state: 'pass', key: 'same', vars: { p } };
  },
};

const MARK = { pass: '✓', part: '◐', fail: '✗' };

const el = (tag, attrs = {}, ...kids) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...kids);
  return node;
};

const fill = (s, vars) => s.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));

export async function mount(box) {
  const api = await init();
  const t = TEXT[pageLanguage()];
  const input = el('input', { type: 'number', min: '4', max: '64', step: '1', value: '16', id: 'checklist-n' });
  const posIn = el('input', { type: 'number', min: '0', max: '127', step: '1', value: '3', id: 'checklist-p' });
  const verdicts = el('table', { class: 'checklist' });
  const codes = el('table', { class: 'codes' });
  const summary = el('p', { class: 'checklist-summary', role: 'status' });
  box.replaceChildren(
    el('div', { class: 'row' },
      el('label', { for: 'checklist-n' }, t.trained), input,
      el('label', { for: 'checklist-p' }, t.lookAt), posIn),
    el('div', { class: 'scroll', tabindex: '0' }, verdicts), summary, el('div', { class: 'scroll', tabindex: '0' }, codes));
  const update = () => {
    const N = Math.min(64, Math.max(4, Math.round(Number(input.value)) || 16));
    const p = Math.min(4 * N - 1, Math.max(0, Math.round(Number(posIn.value)) || 0));
    const cand = candidates(api, N);
    const names = Object.keys(cand);
    const rows = Object.entries(TESTS).map(([req, test]) => [req, names.map((c) => test(cand[c], N))]);
    verdicts.replaceChildren(
      el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, t.requirement), ...names.map((c) => el('th', { scope: 'col' }, t.cand[c])))),
      el('tbody', {}, ...rows.map(([req, results]) => el('tr', {},
        el('th', { scope: 'row' }, t.req[req]),
        ...results.map((r) => el('td', { class: r.state, 'data-state': r.state },
          el('span', { class: 'mark', 'aria-label': t.state[r.state] }, MARK[r.state]), ' ', fill(t.why[r.key], r.vars)))))));
    const passes = names.map((c, i) => rows.filter(([, res]) => res[i].state === 'pass').length);
    summary.textContent = fill(t.summary, { N, s: passes[names.indexOf('sinusoid')], n: rows.length });
    codes.replaceChildren(
      el('caption', {}, fill(t.codesAt, { p, L: p < N ? N : 2 * N })),
      el('tbody', {}, ...names.map((c) => {
        const v = cand[c](p, p < N ? N : 2 * N);
        return el('tr', {}, el('th', { scope: 'row' }, t.cand[c]), el('td', {}, v ? `[${v.map(n4).join(', ')}]` : t.none));
      })));
  };
  input.addEventListener('input', update);
  posIn.addEventListener('input', update);
  update();
}
