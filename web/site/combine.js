// Add or concatenate, with numbers: two words with made-up 4-number vectors at
// positions the reader picks, their sinusoidal codes (d = 4), the vector each
// way of combining gives, and how the dot product of two such vectors splits.
import { init } from '../lib/index.js';
import { pageLanguage } from './i18n.js';

const WORDS = { 书: [0.5, -0.3, 0.8, 0.1], 我: [-0.2, 0.7, 0.4, -0.6] };
const D = 4;

const TEXT = {
  en: { posOf: 'position of {w}', word: 'word vector e', code: 'position code p', add: 'added: e + p (4 numbers)', cat: 'concatenated: [e; p] (8 numbers)',
    dotAdd: 'Score with addition: (e₁ + p₁)·(e₂ + p₂) = e₁·e₂ + e₁·p₂ + p₁·e₂ + p₁·p₂ = {ee} + {ep} + {pe} + {pp} = {sum}',
    dotCat: 'Score with concatenation: [e₁; p₁]·[e₂; p₂] = e₁·e₂ + p₁·p₂ = {ee} + {pp} = {cat}' },
  zh: { posOf: '{w} 的位置', word: '词向量 e', code: '位置编码 p', add: '相加：e + p（4 个数）', cat: '拼接：[e; p]（8 个数）',
    dotAdd: '相加时的得分：(e₁ + p₁)·(e₂ + p₂) = e₁·e₂ + e₁·p₂ + p₁·e₂ + p₁·p₂ = {ee} + {ep} + {pe} + {pp} = {sum}',
    dotCat: '拼接时的得分：[e₁; p₁]·[e₂; p₂] = e₁·e₂ + p₁·p₂ = {ee} + {pp} = {cat}' },
};

const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
const f = (x) => (Math.abs(x) < 5e-5 ? 0 : x).toFixed(4);
const vec = (v) => `[${v.map(f).join(', ')}]`;
const fill = (s, vars) => s.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));

export async function mount(box) {
  const api = await init();
  const t = TEXT[pageLanguage()];
  const words = Object.keys(WORDS);
  const inputs = words.map((w, k) => {
    const input = Object.assign(document.createElement('input'), { type: 'number', min: 0, max: 999, step: 1, value: k ? 5 : 2, id: `combine-${k}` });
    const label = Object.assign(document.createElement('label'), { htmlFor: input.id, textContent: fill(t.posOf, { w }) });
    return { input, label };
  });
  const tbl = document.createElement('table');
  tbl.className = 'combine';
  const out = [document.createElement('p'), document.createElement('p')];
  const row = document.createElement('div');
  row.className = 'row';
  row.append(...inputs.flatMap(({ label, input }) => [label, input]));
  const scroll = document.createElement('div');
  scroll.className = 'scroll';
  scroll.tabIndex = 0; // a region that scrolls sideways must be reachable by keyboard
  scroll.append(tbl);
  box.replaceChildren(row, scroll, ...out);
  const update = () => {
    const pos = inputs.map(({ input }) => Math.min(999, Math.max(0, Math.round(Number(input.value)) || 0)));
    const codes = pos.map((p) => Array.from(api.table(p + 1, D, { dtype: 'float64' }).data.subarray(p * D)));
    const es = words.map((w) => WORDS[w]);
    tbl.replaceChildren();
    const head = tbl.createTHead().insertRow();
    for (const h of ['', t.word, t.code, t.add, t.cat]) head.append(Object.assign(document.createElement('th'), { textContent: h }));
    const body = tbl.createTBody();
    words.forEach((w, k) => {
      const tr = body.insertRow();
      tr.append(Object.assign(document.createElement('th'), { textContent: `${w} @ ${pos[k]}`, scope: 'row' }));
      for (const v of [es[k], codes[k], es[k].map((x, i) => x + codes[k][i]), [...es[k], ...codes[k]]]) tr.insertCell().textContent = vec(v);
    });
    const [e1, e2] = es;
    const [p1, p2] = codes;
    const terms = { ee: f(dot(e1, e2)), ep: f(dot(e1, p2)), pe: f(dot(p1, e2)), pp: f(dot(p1, p2)) };
    out[0].textContent = fill(t.dotAdd, { ...terms, sum: f(dot(e1.map((x, i) => x + p1[i]), e2.map((x, i) => x + p2[i]))) });
    out[1].textContent = fill(t.dotCat, { ...terms, cat: f(dot([...e1, ...p1], [...e2, ...p2])) });
  };
  for (const { input } of inputs) input.addEventListener('input', update);
  update();
}
