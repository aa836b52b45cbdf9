// The widgets' and the site's text: one file per language with exactly the
// same keys and, for each key, the same {placeholders}; every key the code uses
// exists in both; and a key missing at run time shows English, never the key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { STRINGS, translate } from '../web/widgets/strings.js';
import { missingKeys, usedKeys } from '../scripts/string-keys.mjs';
import { SITE } from '../web/site/i18n.js';
import { TEXT } from '../web/site/checklist-text.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const placeholders = (s) => [...s.matchAll(/\{(\w[\w-]*)\}/g)].map((m) => m[1]).sort();

test('every language file has the same keys', () => {
  const [first, ...rest] = Object.keys(STRINGS);
  assert.ok(Object.keys(STRINGS[first]).length > 100);
  for (const lang of rest) {
    assert.deepEqual(Object.keys(STRINGS[lang]).sort(), Object.keys(STRINGS[first]).sort(), `${lang} vs ${first}`);
  }
});

test('every key has the same placeholders in every language', () => {
  const bad = [];
  for (const key of Object.keys(STRINGS.en)) {
    for (const lang of Object.keys(STRINGS)) {
      if (typeof STRINGS[lang][key] !== 'string' || STRINGS[lang][key].trim() === '') bad.push(`${lang}:${key} is empty`);
      else if (placeholders(STRINGS[lang][key]).join() !== placeholders(STRINGS.en[key]).join()) {
        bad.push(`${lang}:${key} has {${placeholders(STRINGS[lang][key])}}, en has {${placeholders(STRINGS.en[key])}}`);
      }
    }
  }
  assert.deepEqual(bad, []);
});

test('every key a widget or the site uses exists in both languages', async () => {
  assert.deepEqual(await missingKeys(ROOT, STRINGS), []);
});

test('the key scan finds each way the code names a key', () => {
  const source = [
    "static titleKey = 'aTitle';",
    "this.t('aCaption', { n }); tr(lang, 'aSite'); translate(this.lang, 'aDirect');",
    "this.control('mode', 'aLabel', v.mode, { kind: 'select', options: [['x', 'aX'], ['y', 'aY']] });",
    "this.numberRow(box, 'aRow', entries); this.t(`pe_${v.pe}`);",
    "oneOf(['causal', 'symmetric'], 'causal'); el('p', {}, 'not a key');",
  ].join('\n');
  const { keys, prefixes } = usedKeys(source);
  assert.deepEqual(keys.map((k) => k.key).sort(), ['aCaption', 'aDirect', 'aLabel', 'aRow', 'aSite', 'aTitle', 'aX', 'aY']);
  assert.deepEqual(prefixes.map((p) => p.prefix), ['pe_']);
  const lab = "t(key, vars) { return translate(this.lang, `lab_${key}`, vars); }\nthis.t('status'); this.t(`enc_${k}`);";
  assert.deepEqual(usedKeys(lab).keys.map((k) => k.key), ['lab_status']);
  assert.deepEqual(usedKeys(lab).prefixes.map((p) => p.prefix), ['lab_enc_']);
});

test('a key missing at run time shows the English text, never the key', (t) => {
  const errors = t.mock.method(console, 'error', () => {});
  const zhOnly = STRINGS.zh.heatmapTitle;
  delete STRINGS.zh.heatmapTitle;
  try {
    assert.equal(translate('zh', 'heatmapTitle'), STRINGS.en.heatmapTitle);
  } finally {
    STRINGS.zh.heatmapTitle = zhOnly;
  }
  assert.equal(translate('zh', 'no-such-key'), '', 'a key no language has shows nothing');
  assert.equal(errors.mock.callCount(), 2, 'and each miss is reported, so a browser test fails on it');
  assert.match(translate('en', 'clamped', { raw: 12345, max: 8, name: 'x' }), /12345/);
  assert.notEqual(translate('zh', 'heatmapTitle'), translate('en', 'heatmapTitle'));
});

/** The shape of a nested text table: its keys, and its nested tables' keys. */
const shape = (o) => Object.fromEntries(Object.entries(o).sort().map(([k, v]) => [k, typeof v === 'object' ? shape(v) : typeof v]));

test("the site's own text tables have the same keys in both languages", () => {
  assert.deepEqual(shape(SITE.zh), shape(SITE.en));
  assert.deepEqual(shape(TEXT.zh), shape(TEXT.en));
});
