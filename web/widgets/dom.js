// Builds DOM without ever parsing HTML: user text only goes in via textContent.

/** el('p', { class: 'x', 'aria-label': 'y' }, 'text', child...) */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key === 'value') node.value = value;
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child);
  }
  return node;
}

let uid = 0;
/** A document-unique id for label/for pairs inside one shadow root. */
export const nextId = (prefix) => `${prefix}-${++uid}`;

/** A labelled control: <label>text <input|select></label>, returning both. */
export function labelled(text, control) {
  const label = el('label', {}, el('span', { class: 'lbl' }, text), control);
  return { label, control };
}

/** Replaces a table's content with header + rows, all as text. */
export function fillTable(table, header, rows) {
  const head = el('tr', {}, header.map((h) => el('th', { scope: 'col' }, h)));
  const body = rows.map((row) =>
    el('tr', {}, row.map((cell, i) => (i === 0 ? el('th', { scope: 'row' }, cell) : el('td', {}, cell)))),
  );
  table.replaceChildren(el('thead', {}, head), el('tbody', {}, body));
}

/** Numbers for people: 4 significant digits, no "-0". */
export function fmt(x, digits = 4) {
  if (!Number.isFinite(x)) return String(x);
  if (Object.is(x, -0) || Math.abs(x) < 1e-12) return '0';
  const a = Math.abs(x);
  if (a >= 1e6 || a < 1e-3) return x.toExponential(digits - 1);
  return String(Number(x.toPrecision(digits)));
}
