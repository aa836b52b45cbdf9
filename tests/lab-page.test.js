// The tutorial's lab section says only what docs/lab.md's table shows: every
// number it quotes as "mean [min, max]" over seeds is a cell of that table
// (written by bench/lab-papers.mjs), in Chinese and in English alike. When
// the table is measured again and a number moves, this fails until the page
// is updated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { DEFAULT_STEPS } from '../web/widgets/lab-defaults.js';

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

test('the lab section says how the widget\'s default run differs from the table\'s settings, in both languages', () => {
  // The widget trains DEFAULT_STEPS steps with one seed; the table, the steps its headings name with 3 seeds.
  // A learner who compares the two must be told, and the numbers told must be the ones the table and the widget use.
  const doc = readFileSync(new URL('docs/lab.md', root), 'utf8');
  const steps = {};
  for (const [, task, n] of doc.matchAll(/^#### (who-did-what|shift|recency), \w+, trained on lengths [\d-]+, (\d+) steps/gm)) {
    assert.ok(!steps[task] || steps[task] === n, `${task}: one step count`);
    steps[task] = n;
  }
  assert.deepEqual(Object.keys(steps).sort(), ['recency', 'shift', 'who-did-what']);
  const section = labSection(readFileSync(new URL('web/site/index.html', root), 'utf8'));
  const en = section.match(/The widget starts at (\d+) steps and one seed[^<]*?\((\d+) for who did what, (\d+) for shift, (\d+) for recency\), 3 seeds/);
  assert.ok(en, 'the English text names the widget\'s default and the table\'s steps');
  const zh = section.match(/组件默认训练 (\d+) 步、1 个种子[^<]*?（“谁做了什么”(\d+) 步，“移位”(\d+) 步，“最近”(\d+) 步）和 3 个种子/);
  assert.ok(zh, 'the Chinese text names the widget\'s default and the table\'s steps');
  for (const m of [en, zh]) {
    assert.equal(Number(m[1]), DEFAULT_STEPS);
    assert.deepEqual(m.slice(2, 5), [steps['who-did-what'], steps.shift, steps.recency]);
  }
});

test('the lab section cites Haviv et al. 2022 and Ruoss et al. 2023, and both are in the references', () => {
  const html = readFileSync(new URL('web/site/index.html', root), 'utf8');
  const section = labSection(html);
  for (const [id, arxiv] of [['ref-haviv', '2203.16634'], ['ref-ruoss', '2305.16843']]) {
    assert.ok(section.includes(`href="#${id}"`), `the lab section links ${id}`);
    const entry = html.match(new RegExp(`<li id="${id}">[\\s\\S]*?</li>`));
    assert.ok(entry, `${id} is in the references`);
    assert.ok(entry[0].includes(`https://arxiv.org/abs/${arxiv}`), `${id} points at arXiv ${arxiv}`);
  }
});
