// One place that turns untrusted strings (element attributes, URL parameters)
// into validated values. Impossible values are errors; values past a limit are
// clamped and reported as a note, so nothing fails silently.

import { PRESET_NAMES } from '../lib/index.js';
import { PRESETS as PRESET_RULES } from '../lib/presets.js';
import { MIN_SIZE, BASE_ABOVE } from '../lib/minimums.js';

/** The library's presets: a preset added there is an attribute value here. */
export const PRESETS = PRESET_NAMES;
export const LANGS = ['en', 'zh'];

/** Largest table (rows × cols) a widget computes and draws. */
export const MAX_CELLS = 4 * 1024 * 1024;

/**
 * An integer in [min, max]; below min is an error, above max is clamped (to the
 * largest multiple of `multiple` when one is asked for, which an API needs, e.g. an even d-model).
 */
export const int = (min, max, def, multiple = 1) => ({ kind: 'int', min, max, def, multiple });
/** A finite number; below/at `above` is an error (below it only, when `inclusive`), above max is clamped. */
export const num = (above, max, def, inclusive = false) => ({ kind: 'num', above, max, def, inclusive });
/** One of a list of words; anything else is an error. */
export const oneOf = (values, def) => ({ kind: 'oneOf', values, def });
/** Free text, cut to max characters (shown only via textContent). */
export const text = (max, def) => ({ kind: 'text', max, def });
/** Present or "true"/"1"/"on" means true. */
export const bool = (def = false) => ({ kind: 'bool', def });
/** A comma-separated list of words from `values`, at least one, each once (the order of `values`); the first MAX_LIST are read. */
export const words = (values, def) => ({ kind: 'words', values, def });
/** A comma-separated list of integers in [0, max), for column choices: the first MAX_LIST are read. */
export const intList = (def) => ({ kind: 'intList', def });
export const MAX_LIST = 1024;

// \d+(\.\d*)?, not \d+\.?\d*: the two quantifiers of the latter share every digit, so a long run of them that fails
// at its end backtracked quadratically (40 000 digits and an x: 1.7 s; a 10^6-digit base attribute froze the tab for minutes)
export const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;

/**
 * The first MAX_LIST comma-separated entries of raw, trimmed, empty ones dropped, and the note when there were
 * more: a million entries froze the tab for 1.2 s (a widget draws 8).
 */
function entries(raw) {
  const all = raw.split(',', MAX_LIST + 1);
  const parts = all.slice(0, MAX_LIST).map((p) => p.trim()).filter(Boolean);
  return { parts, cut: all.length > MAX_LIST ? { note: ['cut', { max: MAX_LIST }] } : {} };
}

// Each parser returns { value } or { error } or { value, note }. Messages are
// message keys plus variables, so they can be shown in either language.
const PARSERS = {
  int(raw, s) {
    const t = raw.trim();
    if (!/^[+-]?\d+(\.0*)?$/.test(t)) return { error: ['notInt', { raw: t }] };
    const v = Number(t);
    if (v < s.min) return { error: ['tooSmall', { raw: t, min: s.min }] };
    const step = s.multiple ?? 1;
    if (v % step) return { error: ['notMultiple', { raw: t, step }] };
    if (v > s.max) return { value: s.max - (s.max % step), note: ['clamped', { raw: t, max: s.max - (s.max % step) }] };
    return { value: v };
  },
  num(raw, s) {
    const t = raw.trim();
    // decimal or exponent notation only: Number() also reads "0x10" as 16 and "0b1" as 1
    const v = DECIMAL.test(t) ? Number(t) : NaN;
    if (!Number.isFinite(v)) return { error: ['notNum', { raw: t }] };
    if (s.inclusive ? v < s.above : v <= s.above) return { error: [s.inclusive ? 'tooSmall' : 'notAbove', { raw: t, min: s.above }] };
    if (v > s.max) return { value: s.max, note: ['clamped', { raw: t, max: s.max }] };
    return { value: v };
  },
  oneOf(raw, s) {
    const t = raw.trim().toLowerCase();
    return s.values.includes(t) ? { value: t } : { error: ['notOneOf', { raw: raw.trim(), list: s.values.join(', ') }] };
  },
  text(raw, s) {
    // the first max characters (code points) only: a 20 MB attribute was spread into an array of every one (0.4 s)
    for (let i = 0, n = 0; i < raw.length; n++) {
      if (n === s.max) return { value: raw.slice(0, i), note: ['cut', { max: s.max }] };
      i += raw.codePointAt(i) > 0xffff ? 2 : 1;
    }
    return { value: raw };
  },
  words(raw, s) {
    const { parts: given, cut } = entries(raw);
    const parts = given.map((p) => p.toLowerCase());
    const bad = parts.find((p) => !s.values.includes(p));
    if (bad !== undefined || !parts.length) return { error: ['notWords', { raw: bad ?? raw.trim(), list: s.values.join(', ') }] };
    return { value: s.values.filter((v) => parts.includes(v)), ...cut };
  },
  bool(raw) {
    return { value: !['false', '0', 'off', 'no'].includes(raw.trim().toLowerCase()) };
  },
  intList(raw) {
    const { parts, cut } = entries(raw);
    // safe integers only: 400 nines read as Infinity, a column past any table
    if (!parts.every((p) => /^\d+$/.test(p) && Number.isSafeInteger(Number(p)))) return { error: ['notList', { raw: raw.trim() }] };
    return { value: parts.map(Number), ...cut };
  },
};

/** The most characters of a value a message quotes (the API's show() quotes as many). */
const SHOWN = 99;

/**
 * A value as a message quotes it: its first SHOWN characters, and … when there are more (an invalid or clamped
 * attribute of 10^7 characters was quoted whole: a message of 10 MB froze the tab for 1 to 3.6 s to lay it out).
 */
export function shown(raw) {
  const text = String(raw);
  if (text.length <= SHOWN) return text;
  return `${text.slice(0, /[\ud800-\udbff]/.test(text[SHOWN - 1]) ? SHOWN - 1 : SHOWN)}…`; // no half of a pair
}

/**
 * Reads every attribute of a spec from a getter (element attribute or URL param).
 * Returns { values, notes: [[key, vars, name]], errors: [[key, vars, name]] }; a message's raw value is shown().
 */
export function parseAll(spec, get) {
  const values = {};
  const notes = [];
  const errors = [];
  for (const [name, s] of Object.entries(spec)) {
    const raw = get(name);
    if (raw === null || raw === undefined) {
      values[name] = s.def;
      continue;
    }
    const r = PARSERS[s.kind](String(raw), s);
    for (const m of [r.error, r.note]) if (m && 'raw' in m[1]) m[1].raw = shown(m[1].raw);
    if (r.error) errors.push([...r.error, name]);
    else values[name] = r.value;
    if (r.note) notes.push([...r.note, name]);
  }
  errors.push(...presetRules(spec, values));
  return { values, notes, errors };
}

/**
 * What each preset attribute (preset, or <pe-conventions>' preset-a and preset-b) asks of
 * d-model, checked as the API checks it (presets.js's evenOnly), named as the attribute.
 */
function presetRules(spec, values) {
  const d = values['d-model'];
  if (!spec['d-model'] || d === undefined || !(d % 2)) return [];
  const presets = Object.keys(spec).filter((name) => spec[name].values === PRESETS).map((name) => values[name]);
  const preset = presets.find((p) => PRESET_RULES[p]?.evenOnly);
  return preset ? [['notEven', { raw: d, preset }, 'd-model']] : [];
}

/**
 * The base attribute: above the API's least (BASE_ABOVE); at most 1e12, the
 * widgets' choice (the API takes any finite base), default 10000.
 */
export const baseAttr = () => num(BASE_ABOVE, 1e12, 10000);

/**
 * The attributes every encoding widget understands. The least values are the
 * API's (web/lib/minimums.js); the largest d-model and max-len, 8192, are the
 * widgets' choice (a table a chart can draw), not the API's limit.
 */
export const encodingSpec = (dModel, maxLen) => ({
  'd-model': int(MIN_SIZE, 8192, dModel),
  'max-len': int(MIN_SIZE, 8192, maxLen),
  base: baseAttr(),
  preset: oneOf(PRESETS, 'vaswani'),
});

/** Keeps rows × cols within MAX_CELLS by lowering rows; returns [rows, note|null]. */
export function limitRows(rows, cols, name = 'max-len') {
  const most = Math.max(1, Math.floor(MAX_CELLS / cols));
  return rows <= most ? [rows, null] : [most, ['clamped', { raw: rows, max: most }, name]];
}
