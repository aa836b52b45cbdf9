// embed.html?view=heatmap&d=64&len=40&base=10000&preset=vaswani&lang=en, for
// iframes. Parameters are validated before anything is drawn; an impossible one
// is shown as a message (never a blank frame), a too-large one is clamped with a note.
// The page's own parameters (view, lang) are never passed on as attributes: a
// widget attribute with the same name is written attr-<name> (attr-view=single
// for <pe-circles view="single">); any attribute may take that prefix.
// The page posts its height to the parent window, so a host can size the iframe
// to its content (docs/widgets.md has the two-line listener).
import { WIDGETS } from '../widgets/index.js';
import { parseAll, oneOf, LANGS, shown } from '../widgets/attrs.js';
import { el } from '../widgets/dom.js';
import { tr, initialLanguage, applyLanguage } from './i18n.js';

// Every registered widget is a view, named without its pe- prefix; two short names stay.
const VIEWS = {
  ...Object.fromEntries(Object.keys(WIDGETS).map((tag) => [tag.slice(3), tag])),
  dot: 'pe-dot-heatmap',
  toy: 'pe-toy-attention',
};
const PAGE = ['view', 'lang'];
const ALIASES = { d: 'd-model', len: 'max-len' };
const PREFIX = 'attr-';
const MAX_NAMED = 5;

/** The widget attribute a URL parameter names, or null when it names none. */
export function attributeOf(key, spec) {
  if (key.startsWith(PREFIX)) return Object.hasOwn(spec, key.slice(PREFIX.length)) ? key.slice(PREFIX.length) : null;
  if (PAGE.includes(key)) return null;
  const name = ALIASES[key] ?? key;
  return Object.hasOwn(spec, name) ? name : null;
}

function show(lang, params) {
  const view = params.get('view') ?? '';
  const tag = Object.hasOwn(VIEWS, view) ? VIEWS[view] : null;
  const messages = [];
  if (!tag) return [el('p', { class: 'err', role: 'alert' }, tr(lang, 'badView', { raw: shown(view), list: Object.keys(VIEWS).join(', ') }))];
  // lang is every element's attribute too, reached as attr-lang (plain lang is the page's).
  const spec = { ...WIDGETS[tag].spec, lang: oneOf(LANGS, undefined) };
  const given = {};
  const keyOf = {};
  const unknown = new Set();
  const repeated = new Set(); // keys of the spec (or attr-, aliases): a few at most
  for (const [key, value] of params) {
    const name = attributeOf(key, spec);
    // The first value, as params.get() reads it, and said so: a later one silently winning hid a typo.
    if (name && Object.hasOwn(given, name)) repeated.add(key);
    else if (name) {
      given[name] = value;
      keyOf[name] = key;
    } else if (!PAGE.includes(key)) unknown.add(key);
  }
  // A link may carry any number of parameters: a few are named, the rest counted (one note each froze the tab).
  messages.push(...[...repeated].map((raw) => el('p', { class: 'note' }, tr(lang, 'repeated', { raw: shown(raw) }))));
  const named = [...unknown].slice(0, MAX_NAMED);
  messages.push(...named.map((raw) => el('p', { class: 'note' }, tr(lang, 'ignored', { raw: shown(raw) }))));
  if (unknown.size > MAX_NAMED) messages.push(el('p', { class: 'note' }, tr(lang, 'ignoredMore', { count: unknown.size - MAX_NAMED })));
  const { values, notes, errors } = parseAll(spec, (n) => given[n] ?? null);
  // Messages name the parameter as it was written in the URL (d, len, attr-view...).
  const text = ([key, vars, name]) => tr(lang, key, { ...vars, name: keyOf[name] ?? name });
  if (errors.length) return [...messages, ...errors.map((m) => el('p', { class: 'err', role: 'alert' }, text(m)))];
  messages.push(...notes.map((m) => el('p', { class: 'note', role: 'status' }, text(m))));
  const widget = document.createElement(tag);
  for (const name of Object.keys(given)) widget.setAttribute(name, Array.isArray(values[name]) ? values[name].join(',') : String(values[name]));
  if (!Object.hasOwn(given, 'lang')) widget.setAttribute('lang', lang);
  return [...messages, widget];
}

/** Tells the parent window the page's height whenever it changes ({ type: 'posenc-embed-height', height }). */
function postHeight() {
  if (window.parent === window) return;
  let last = -1;
  new ResizeObserver(() => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    // The height is not a secret, and the host checks the message's origin: any target may read it.
    window.parent.postMessage({ type: 'posenc-embed-height', height, href: location.href }, '*');
  }).observe(document.documentElement);
}

const lang = initialLanguage();
applyLanguage(lang);
const params = new URLSearchParams(location.search);
document.title = tr(lang, 'embedTitle');
const heading = el('h1', { class: 'visually-hidden' }, tr(lang, 'embedHeading', { view: shown(params.get('view') ?? '') }));
document.getElementById('embed').replaceChildren(heading, ...show(lang, params));
postHeight();
