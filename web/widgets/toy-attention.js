// <pe-toy-attention>: the "我打你 / 你打我" toy. Each token has a number code,
// x = code + position code, y_i = x_i · Σ_j x_j. The sum head says "happy" when
// Σy > 30; since Σy = (Σx)², no reordering can change it. A head that weights
// positions (Σ i·y_i) can. Token text is user input: it is only ever textContent.
import { tokenize } from './tokens.js';
import { PeWidget } from './base.js';
import { text, oneOf, DECIMAL } from './attrs.js';
import { barChart, barSet, setSeries } from './charts.js';
import { el, fillTable, fmt } from './dom.js';

const MAX_TOKENS = 12;
const MODES = ['none', 'absolute', 'sinusoidal', 'scaled', 'custom'];
const DEFAULT_CODES = '{"我":1,"打":2,"你":3}';

export class PeToyAttention extends PeWidget {
  static spec = {
    'sentence-a': text(200, '我打你'),
    'sentence-b': text(200, '你打我'),
    codes: text(4000, DEFAULT_CODES),
    pe: oneOf(MODES, 'absolute'),
    'position-codes': text(400, ''),
  };
  static titleKey = 'toyTitle';
  static aspect = 2.4;

  async render(api, v) {
    const empty = ['sentence-a', 'sentence-b'].filter((k) => !tokenize(v[k]).length);
    if (empty.length) return this.showEmpty(v, empty);
    const [a, b] = [this.tokens(v['sentence-a'], 'sentence-a'), this.tokens(v['sentence-b'], 'sentence-b')];
    // The title names the sentences the reader typed, not the defaults.
    this.titleEl.textContent = this.t('toyTitleOf', { a: v['sentence-a'].trim(), b: v['sentence-b'].trim() });
    const codes = this.codeBook(v.codes, [...a, ...b]);
    const n = Math.max(a.length, b.length);
    const pc = this.positionCodes(api, v, n, codes);
    this.controls(v, codes, pc);
    const results = [a, b].map((tok) => ({ tok, ...api.toyAttention(tok.map((w) => codes[w]), pc && pc.slice(0, tok.length)) }));
    this.showTables(results, pc);
    this.showVerdicts(results, codes, pc);
    await this.pause(); // the tables' layout, then the chart's, each in a task of its own
    this.chart ??= barChart(this.newCanvas(), { aspect: 2.4 });
    // Through the strings, so each language gets its own punctuation (y（我打你） in Chinese).
    const labels = Array.from({ length: n }, (_, i) => this.t('toyBarLabel', { i: i + 1, a: a[i] ?? '–', b: b[i] ?? '–' }));
    setSeries(this.chart, results.map((r, i) => barSet(this.t('toySeries', { s: r.tok.join('') }), r.y, i)), { x: this.t('position'), y: 'y' }, labels);
    this.chart.canvas.sub.textContent = this.t('toyChart');
    this.chart.canvas.setAttribute('aria-label', this.t('toyChartAlt', {
      a: results[0].y.map((y) => fmt(y)).join(', '), b: results[1].y.map((y) => fmt(y)).join(', '),
    }));
    this.data = () => ({
      header: ['sentence', 'position', 'token', 'code', 'position_code', 'x', 'y'],
      rows: results.flatMap((r, s) => r.tok.map((w, i) => [s ? 'B' : 'A', i + 1, w, codes[w], pc ? pc[i] : 0, r.x[i], r.y[i]])),
    });
  }

  /** An empty sentence is a state to explain, not an error: say so and clear the stale results. */
  showEmpty(v, names) {
    for (const name of names) this.note('emptySentence', {}, name);
    this.controls(v, this.codeBook(v.codes, []), null);
    this.tables?.replaceChildren();
    this.verdicts?.replaceChildren();
    if (this.chart) setSeries(this.chart, [], {}, []);
    this.captionEl.textContent = this.t('emptyShown');
    this.data = () => ({ header: [], rows: [] });
  }

  tokens(s, name) {
    const tok = tokenize(s);
    if (!tok.length) throw new RangeError(this.t('emptySentence', { name }));
    if (tok.length > MAX_TOKENS) this.note('cut', { max: MAX_TOKENS }, name);
    return tok.slice(0, MAX_TOKENS);
  }

  /** The code of every token: the attribute's JSON, plus fresh integers for new tokens. */
  codeBook(json, tokens) {
    let given;
    try {
      given = JSON.parse(json);
    } catch {
      throw new TypeError(this.t('badCodes'));
    }
    if (!given || typeof given !== 'object' || Array.isArray(given)) throw new TypeError(this.t('badCodes'));
    const codes = Object.create(null);
    let next = 0;
    for (const w of Object.keys(given)) {
      // JSON numbers only: Number() took the strings "0x10" as 16 and "" as 0, true as 1, null as 0 and [7] as 7
      const c = given[w];
      if (typeof c !== 'number' || !Number.isFinite(c)) throw new TypeError(this.t('badCodes'));
      next = Math.max(next, Math.floor(c));
    }
    // Object.hasOwn, not `in`: a token named toString or __proto__ is an ordinary word, not a key of Object.prototype.
    for (const w of tokens) {
      if (!Object.hasOwn(codes, w)) codes[w] = Object.hasOwn(given, w) ? given[w] : ++next;
    }
    return codes;
  }

  positionCodes(api, v, n, codes) {
    if (v.pe === 'none') return null;
    const absolute = Array.from({ length: n }, (_, i) => 10 * (i + 1));
    if (v.pe === 'absolute') return absolute;
    if (v.pe === 'sinusoidal') return Array.from(api.table(n, 1, { offset: 1, dtype: 'float64' }).data);
    if (v.pe === 'scaled') {
      const vals = Object.values(codes);
      const meanCode = vals.reduce((s, c) => s + Math.abs(c), 0) / vals.length;
      return absolute.map((p) => p * (meanCode / (5 * (n + 1))));
    }
    // decimal or exponent notation, as every number attribute: Number() read "0x10" as 16 and "0b1" as 1
    const words = v['position-codes'].split(',').map((s) => s.trim()).filter(Boolean);
    const list = words.map((s) => (DECIMAL.test(s) ? Number(s) : NaN));
    if (list.some((x) => !Number.isFinite(x))) throw new TypeError(this.t('badPositionCodes'));
    if (list.length < n) this.note('positionCodesMissing', { from: list.length + 1, to: n });
    return Array.from({ length: n }, (_, i) => list[i] ?? 0);
  }

  controls(v, codes, pc) {
    this.control('sentence-a', 'sentenceA', v['sentence-a'], { kind: 'text', maxlength: 200 });
    this.control('sentence-b', 'sentenceB', v['sentence-b'], { kind: 'text', maxlength: 200 });
    this.control('pe', 'peMode', v.pe, { kind: 'select', options: MODES.map((m) => [m, `pe_${m}`]) });
    this.codesBox ??= this.controlsEl.appendChild(el('div', { class: 'controls' }));
    this.posBox ??= this.controlsEl.appendChild(el('div', { class: 'controls' }));
    this.numberRow(this.codesBox, 'tokenCodes', Object.entries(codes), (w) => this.t('codeOf', { w }), (w, value) => {
      this.setAttribute('codes', JSON.stringify({ ...codes, [w]: value }));
    });
    const pcs = (pc ?? []).map((p, i) => [i + 1, p]);
    this.numberRow(this.posBox, 'positionCodesLabel', pcs, (i) => this.t('posCodeOf', { i }), (i, value) => {
      const list = pc.map((p, k) => (k === i - 1 ? value : p));
      this.setAttribute('position-codes', list.map((p) => fmt(p, 6)).join(','));
      this.setAttribute('pe', 'custom');
    });
  }

  /** A row of labelled number inputs, rebuilt only when its keys change (so typing keeps focus). */
  numberRow(box, titleKey, entries, labelOf, onInput) {
    const key = JSON.stringify(entries.map(([k]) => k));
    if (box.dataset.key !== key) {
      box.dataset.key = key;
      box.replaceChildren(el('span', { class: 'lbl' }), ...entries.map(([k]) => el('label', {},
        el('span', {}, String(k)),
        el('input', { type: 'number', step: 'any', 'data-k': String(k), oninput: (e) => {
          const value = Number(e.target.value);
          if (e.target.value !== '' && Number.isFinite(value)) onInput(k, value);
        } }))));
    }
    box.firstChild.textContent = entries.length ? this.t(titleKey) : '';
    const inputs = box.querySelectorAll('input');
    entries.forEach(([k, value], i) => {
      inputs[i].setAttribute('aria-label', labelOf(k));
      this.sync(inputs[i], fmt(value, 6));
    });
  }

  showTables(results, pc) {
    this.tables ??= this.extraEl.appendChild(el('div', { class: 'tables' }));
    this.tables.replaceChildren(...results.map((r, s) => {
      const table = el('table');
      fillTable(table, [this.t('position'), ...r.tok.map((_, i) => String(i + 1))], [
        [this.t('token'), ...r.tok],
        [this.t('code'), ...r.x.map((x, i) => fmt(x - (pc ? pc[i] : 0)))],
        [this.t('positionCode'), ...r.tok.map((_, i) => fmt(pc ? pc[i] : 0))],
        ['x', ...r.x.map((x) => fmt(x))],
        ['y', ...r.y.map((y) => fmt(y))],
      ]);
      table.prepend(el('caption', {}, `${this.t(s ? 'sentenceB' : 'sentenceA')}: ${r.tok.join(' ')}`));
      return table;
    }));
  }

  /** Positions of one sentence whose x coincide (to 12 digits): the toy cannot tell them apart. */
  collisions(r) {
    const groups = new Map();
    r.x.forEach((x, i) => groups.set(fmt(x, 12), [...(groups.get(fmt(x, 12)) ?? []), i]));
    return [...groups.values()].filter((g) => g.length > 1)
      .map((g) => ({ where: g.map((i) => `${r.tok[i]} (${i + 1})`).join(', '), x: fmt(r.x[g[0]]) }));
  }

  showVerdicts(results, codes, pc) {
    const [A, B] = results;
    const same = (p, q) => Math.abs(p - q) <= 1e-9 * Math.max(1, Math.abs(p), Math.abs(q));
    const verdict = (cls, text) => el('p', { class: `verdict ${cls}` }, text);
    const label = (r) => this.t(r.label);
    const lines = [
      verdict('', this.t('sumLine', { a: fmt(A.sum, 8), b: fmt(B.sum, 8), la: label(A), lb: label(B) })),
      same(A.sum, B.sum) && A.label === B.label ? verdict('bad', this.t('sumSame')) : verdict('good', this.t('sumDiffers')),
      verdict('', this.t('weightedLine', { a: fmt(A.weighted, 8), b: fmt(B.weighted, 8) })),
      same(A.weighted, B.weighted) ? verdict('bad', this.t('weightedSame')) : verdict('good', this.t('weightedDiffers')),
      verdict('', this.t('weightedIsPosition')),
      ...results.flatMap((r, k) => this.collisions(r).map((where) => verdict('bad', this.t('collision', { s: this.t(k ? 'sentenceB' : 'sentenceA'), ...where })))),
      ...results.map((r, k) => verdict('', this.t('codesUsed', {
        s: this.t(k ? 'sentenceB' : 'sentenceA'),
        tokens: [...new Set(r.tok)].map((w) => `${w} = ${fmt(codes[w])}`).join(', '),
        positions: pc ? `[${pc.slice(0, r.tok.length).map((p) => fmt(p)).join(', ')}]` : '—',
      }))),
    ];
    const tokenMass = A.x.reduce((s, x, i) => s + Math.abs(x - (pc ? pc[i] : 0)), 0);
    const share = tokenMass / A.x.reduce((s, x, i) => s + Math.abs(x - (pc ? pc[i] : 0)) + Math.abs(pc ? pc[i] : 0), 0);
    lines.push(verdict(share < 0.25 ? 'bad' : '', this.t(share < 0.25 ? 'swamped' : 'share', { pct: fmt(100 * share, 3) })));
    this.verdicts ??= this.extraEl.appendChild(el('div'));
    this.verdicts.replaceChildren(...lines);
    this.captionEl.textContent = this.t('toyCaption');
  }
}
