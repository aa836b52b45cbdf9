// The tutorial's lab section says only what docs/lab.md's table shows: every
// number it quotes as "mean [min, max]" over seeds is a cell of that table
// (written by bench/lab-papers.mjs), in Chinese and in English alike. When
// the table is measured again and a number moves, this fails until the page
// is updated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const RANGE = /\d\.\d\d \[\d\.\d\d, \d\.\d\d\]/g;

const labSection = (html) => {
  const start = html.indexOf('<section id="s-lab"');
  assert.ok(start >= 0, 'the page has a lab section');
  return html.slice(start, html.indexOf('</section>', start));
};

test('every seed range the lab section quotes, in both languages, is in docs/lab.md\'s table', () => {
  const doc = readFileSync(new URL('docs/lab.md', root), 'utf8');
  const table = doc.slice(doc.indexOf('<!-- lab-papers:start'), doc.indexOf('<!-- lab-papers:end'));
  const cells = new Set(table.match(RANGE));
  const section = labSection(readFileSync(new URL('web/site/index.html', root), 'utf8'));
  for (const lang of ['zh', 'en']) {
    const text = [...section.matchAll(new RegExp(`<p class="${lang}">([\\s\\S]*?)</p>`, 'g'))].map((m) => m[1]).join('\n');
    const quoted = text.match(RANGE) ?? [];
    assert.ok(quoted.length >= 20, `${lang}: ${quoted.length} ranges quoted`);
    const missing = quoted.filter((r) => !cells.has(r));
    assert.deepEqual(missing, [], `${lang}: quoted but not in docs/lab.md`);
  }
});
