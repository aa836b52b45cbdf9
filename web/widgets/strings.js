// The text of the widgets and the site, one file per language
// (strings/en.json, strings/zh.json, with the same keys and the same {name}
// placeholders: tests/strings.test.js checks both, and scripts/string-keys.mjs
// stops the build when code uses a key a file lacks). Should a key still be
// missing at run time (a file edited after the build, a key made from an
// attribute), the reader gets the English text, or nothing, never the key.
import en from './strings/en.json' with { type: 'json' };
import zh from './strings/zh.json' with { type: 'json' };

const STRINGS = { en, zh };
const reported = new Set();

/** Says once per key what is missing: a console error fails the browser tests. */
function report(lang, key) {
  if (reported.has(`${lang}:${key}`)) return;
  reported.add(`${lang}:${key}`);
  console.error(`posenc widgets: no ${lang} text for "${key}"`);
}

function lookup(lang, key) {
  if (Object.hasOwn(STRINGS[lang] ?? {}, key)) return STRINGS[lang][key];
  report(lang, key);
  return Object.hasOwn(en, key) ? en[key] : '';
}

export function translate(lang, key, vars = {}) {
  return lookup(lang, key).replace(/\{(\w[\w-]*)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
}

/** The language files, for tests and tools. */
export { STRINGS };
