// The text of the widgets and the site, one file per language
// (strings/en.json, strings/zh.json, with the same keys and the same {name}
// placeholders: tests/strings.test.js checks both). A key missing from a
// language is shown as the visible marker ⟦lang:key⟧, never as another
// language's text.
import en from './strings/en.json' with { type: 'json' };
import zh from './strings/zh.json' with { type: 'json' };

const STRINGS = { en, zh };

export function translate(lang, key, vars = {}) {
  const s = Object.hasOwn(STRINGS[lang] ?? {}, key) ? STRINGS[lang][key] : `⟦${lang}:${key}⟧`;
  return s.replace(/\{(\w[\w-]*)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
}

/** The language files, for tests and tools. */
export { STRINGS };
