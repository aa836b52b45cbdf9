// The widgets' and the site's text: one file per language with exactly the
// same keys and, for each key, the same {placeholders}; and no fallback to
// another language for a key that is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STRINGS, translate } from '../web/widgets/strings.js';

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

test('a missing key shows a marker, not another language', () => {
  assert.equal(translate('zh', 'no-such-key'), '⟦zh:no-such-key⟧');
  assert.match(translate('en', 'clamped', { raw: 12345, max: 8, name: 'x' }), /12345/);
  assert.notEqual(translate('zh', 'heatmapTitle'), translate('en', 'heatmapTitle'));
});
