// embed.html?view=heatmap&d=64&len=40&base=10000&preset=vaswani&lang=en, for
// iframes. Parameters are validated before anything is drawn; an impossible one
// is shown as a message (never a blank frame), a too-large one is clamped with a note.
import { WIDGETS } from '../widgets/index.js';
import { parseAll } from '../widgets/attrs.js';
import { el } from '../widgets/dom.js';
import { tr, initialLanguage, applyLanguage } from './i18n.js';

// Every registered widget is a view, named without its pe- prefix; two short names stay.
const VIEWS = {
  ...Object.fromEntries(Object.keys(WIDGETS).map((tag) => [tag.slice(3), tag])),
  dot: 'pe-dot-heatmap',
  toy: 'pe-toy-attention',
};
const ALIASES = { d: 'd-model', len: 'max-len' };

function show(lang) {
  const params = new URLSearchParams(location.search);
  const view = params.get('view') ?? '';
  const tag = VIEWS[view];
  const messages = [];
  if (!tag) return [el('p', { class: 'err', role: 'alert' }, tr(lang, 'badView', { raw: view, list: Object.keys(VIEWS).join(', ') }))];
  const spec = WIDGETS[tag].spec;
  const given = {};
  for (const [key, value] of params) {
    const name = ALIASES[key] ?? key;
    if (name in spec) given[name] = value;
    else if (key !== 'view' && key !== 'lang') messages.push(el('p', { class: 'note' }, tr(lang, 'ignored', { raw: key })));
  }
  const { values, notes, errors } = parseAll(spec, (n) => given[n] ?? null);
  const text = ([key, vars, name]) => tr(lang, key, { ...vars, name: Object.keys(ALIASES).find((k) => ALIASES[k] === name) ?? name });
  if (errors.length) return [...messages, ...errors.map((m) => el('p', { class: 'err', role: 'alert' }, text(m)))];
  messages.push(...notes.map((m) => el('p', { class: 'note', role: 'status' }, text(m))));
  const widget = document.createElement(tag);
  for (const name of Object.keys(given)) widget.setAttribute(name, Array.isArray(values[name]) ? values[name].join(',') : String(values[name]));
  widget.setAttribute('lang', lang);
  return [...messages, widget];
}

const lang = initialLanguage();
applyLanguage(lang);
document.title = tr(lang, 'embedTitle');
const root = document.getElementById('embed');
root.replaceChildren(...show(lang));
