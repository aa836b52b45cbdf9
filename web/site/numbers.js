// The 5 × 6 table as numbers. Hovering or focusing a cell writes the formula
// with pos and i filled in. data-variant="errata" shows the quoted article's
// table (exponent doubled) beside the correct one, with the cells that differ
// marked. Doubling the exponent, base^(−2·2i/d), is the same as squaring the
// base, so the wrong table comes from the same API with base = 10000².
import { init } from '../lib/index.js';
import { pageLanguage } from './i18n.js';

const ROWS = 5;
const D = 6;
const BASE = 10000;

const TEXT = {
  en: { correct: 'Correct (the paper’s formula)', doubled: 'The article’s listing (exponent doubled)', pos: 'pos', col: 'column',
    hint: 'Hover or focus a number to see the formula with pos and i filled in.', differs: 'differs from the correct value',
    wrong: 'wrong: the exponent is doubled, which is the same as base 10000² = 10⁸' },
  zh: { correct: '正确（论文公式）', doubled: '原文的代码（指数翻倍）', pos: 'pos', col: '列',
    hint: '把鼠标移到数字上或用 Tab 聚焦，就能看到代入 pos 和 i 之后的公式。', differs: '与正确值不同',
    wrong: '错误：指数被乘了两次，相当于把底数换成 10000² = 10⁸' },
};

const f4 = (x) => (Math.abs(x) < 5e-5 ? 0 : x).toFixed(4);

/** "PE(1, 2) = sin(1 · 10000^(−2/6)) = sin(0.046416) = 0.0464", for the correct or doubled exponent. */
export function formula(pos, col, value, doubled = false) {
  const i = Math.floor(col / 2);
  const fn = col % 2 ? 'cos' : 'sin';
  const num = doubled ? 4 * i : 2 * i;
  const w = BASE ** (-num / D);
  return `PE(${pos}, ${col}) = ${fn}(${pos} · 10000^(−${num}/${D})) = ${fn}(${(pos * w).toPrecision(6)}) = ${f4(value)}`;
}

function table(api, base) {
  return api.table(ROWS, D, { base, dtype: 'float64' }).data;
}

function grid(data, caption, t, { doubled = false, against = null } = {}) {
  const tbl = document.createElement('table');
  tbl.className = 'numbers';
  const cap = tbl.createCaption();
  cap.textContent = caption;
  const head = tbl.createTHead().insertRow();
  head.append(Object.assign(document.createElement('th'), { textContent: `${t.pos} \\ ${t.col}` }));
  for (let c = 0; c < D; c++) head.append(Object.assign(document.createElement('th'), { textContent: String(c), scope: 'col' }));
  const body = tbl.createTBody();
  for (let r = 0; r < ROWS; r++) {
    const tr = body.insertRow();
    tr.append(Object.assign(document.createElement('th'), { textContent: String(r), scope: 'row' }));
    for (let c = 0; c < D; c++) {
      const v = data[r * D + c];
      const td = tr.insertCell();
      td.textContent = f4(v);
      td.tabIndex = 0;
      td.dataset.formula = formula(r, c, v, doubled);
      if (against && f4(against[r * D + c]) !== f4(v)) {
        td.classList.add('differs');
        td.title = t.differs;
      }
    }
  }
  return tbl;
}

export async function mount(box) {
  const api = await init();
  const t = TEXT[pageLanguage()];
  const good = table(api, BASE);
  const readout = document.createElement('p');
  readout.className = 'formula-readout';
  readout.setAttribute('aria-live', 'polite');
  readout.textContent = t.hint;
  const tables = document.createElement('div');
  tables.className = 'numbers-pair';
  if (box.dataset.variant === 'errata') {
    const bad = table(api, BASE * BASE);
    tables.append(grid(good, t.correct, t), grid(bad, t.doubled, t, { doubled: true, against: good }));
  } else {
    tables.append(grid(good, t.correct, t));
  }
  const show = (e) => {
    const td = e.target.closest('td[data-formula]');
    if (!td) return;
    readout.textContent = td.dataset.formula + (td.classList.contains('differs') ? `  (${t.wrong})` : '');
  };
  tables.addEventListener('mouseover', show);
  tables.addEventListener('focusin', show);
  box.replaceChildren(tables, readout);
}
