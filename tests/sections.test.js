// Section numbers on the tutorial come from one source, the order of the
// sections: headings, the contents and every "section N" are written by
// scripts/site-pages.mjs at build time, so moving a section cannot leave a
// stale number. These tests read the bilingual source and the two pages the
// build makes from it; no browser, no build needed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PAGES, languagePage, numberSections, sectionNumbers } from '../scripts/site-pages.mjs';

const SOURCE = readFileSync(new URL('../web/site/index.html', import.meta.url), 'utf8');
const pages = PAGES.map((page) => ({ page, html: languagePage(SOURCE, page) }));
const text = (html) => html.replace(/<[^>]*>/g, '');

test('no section number is typed by hand in the source', () => {
  // Cross-references are empty <a href="#s-..." data-sec></a>; drop them, and no number may follow "section".
  const prose = text(SOURCE.replace(/<a href="#[^"]+" data-sec><\/a>/g, '@'));
  const typed = [...prose.matchAll(/\bsections?\s+\d+|第\s*\d+(\s*[、–-]\s*\d+)*\s*节/giu)].map((m) => m[0]);
  assert.deepEqual(typed, []);
  assert.doesNotMatch(SOURCE, /<h2[^>]*>(<span[^>]*>)?\d+\./, 'headings carry no typed number');
});

for (const { page, html } of pages) {
  test(`${page.path}: headings are numbered 1, 2, 3, ... in document order`, () => {
    const numbers = sectionNumbers(html);
    const headings = [...html.matchAll(/<section\b[^>]*\bid="([^"]+)"[^>]*>\s*<h2\b[^>]*>([^<]*)/g)];
    let expected = 1;
    for (const [, id, start] of headings) {
      if (!numbers.has(id)) {
        assert.doesNotMatch(start, /\d/, `${id} is a part and takes no number`);
        continue;
      }
      assert.equal(start, `${expected}. `, `${id}'s heading`);
      expected += 1;
    }
    assert.ok(expected > 20, `${expected - 1} numbered sections`);
  });

  test(`${page.path}: the contents list every section, in order, with its heading's number`, () => {
    const sections = [...html.matchAll(/<section\b[^>]*\bid="([^"]+)"/g)].map((m) => m[1]);
    const nav = html.match(/<nav class="toc"[\s\S]*?<\/nav>/)[0];
    const entries = [...nav.matchAll(/<a href="#([^"]+)">([\s\S]*?)<\/a>/g)].map(([, id, inner]) => [id, text(inner)]);
    assert.deepEqual(entries.map(([id]) => id), sections);
    const numbers = sectionNumbers(html);
    for (const [id, label] of entries) {
      assert.equal(label.match(/^(\d+)\. /)?.[1], numbers.has(id) ? String(numbers.get(id)) : undefined, `${id}: "${label}"`);
    }
  });

  test(`${page.path}: every cross-reference names the number of the section it links to`, () => {
    const numbers = sectionNumbers(html);
    const refs = [...html.matchAll(/<a href="#([^"]+)" class="xref">(\d+)<\/a>/g)];
    assert.ok(refs.length >= 15, `${refs.length} references`);
    for (const [, id, n] of refs) assert.equal(Number(n), numbers.get(id), `reference to #${id}`);
    assert.doesNotMatch(html, /data-sec/, 'no reference left unresolved');
  });

  test(`${page.path}: the lab is the capstone, after every encoding and before the errata`, () => {
    const numbers = sectionNumbers(html);
    for (const id of ['s-attention', 's-rope', 's-alibi', 's-relative', 's-learned', 's-longer']) {
      assert.ok(numbers.get('s-lab') > numbers.get(id), `the lab comes after ${id}`);
    }
    assert.equal(numbers.get('s-errata'), numbers.get('s-lab') + (numbers.has('s-end') ? 2 : 1));
  });
}

test('moving a section renumbers its heading, its entry and the references to it', () => {
  const section = (id, body = '') => `<section id="${id}"><h2 id="h-${id}">${id}</h2>${body}</section>`;
  const nav = '<nav class="toc"><a href="#a">A</a><a href="#b">B</a></nav>';
  const ref = 'see <a href="#b" data-sec></a>';
  const before = numberSections(nav + section('a', ref) + section('b'));
  const after = numberSections(nav + section('b') + section('a', ref));
  assert.match(before, /see <a href="#b" class="xref">2<\/a>/);
  assert.match(after, /see <a href="#b" class="xref">1<\/a>/);
  assert.match(after, /<h2 id="h-b">1\. b/);
  assert.match(after, /<a href="#a">2\. A<\/a><a href="#b">1\. B/, 'entries take their section\'s number');
});

test('a reference to a section that does not exist stops the build', () => {
  assert.throws(() => numberSections('<section id="a"><h2>a</h2></section><a href="#gone" data-sec></a>'), /#gone/);
});

for (const { page, html } of pages) {
  test(`${page.path}: sources are cited by title, never as "seed articles", and every citation lands on a reference`, () => {
    const shown = text(html.replace(/<(script|style)\b[\s\S]*?<\/\1>/g, ''));
    assert.doesNotMatch(shown, /seed articles?|\bseed \d|种子文章|种子 ?\d/i);
    const ids = new Set([...html.matchAll(/\bid="([^"]+)"/g)].map((m) => m[1]));
    const missing = [...html.matchAll(/href="#(ref-[^"]+)"/g)].map((m) => m[1]).filter((id) => !ids.has(id));
    assert.deepEqual(missing, []);
    // Each Chinese article the tutorial draws on is listed with its title.
    for (const id of ['ref-intuition', 'ref-kongzifu', 'ref-intro', 'ref-details', 'ref-d2l']) {
      assert.match(html, new RegExp(`<li id="${id}">[^\\n]*<cite lang="zh-CN">[^<]{4,}</cite>`), id);
    }
  });
}

test('the widgets and the site say "seed" only of random seeds', async () => {
  const { STRINGS } = await import('../web/widgets/strings.js');
  const site = ['numbers.js', 'checklist-text.js', 'combine.js', 'code-blocks.js', 'i18n.js']
    .map((f) => readFileSync(new URL(`../web/site/${f}`, import.meta.url), 'utf8').replace(/^\s*(\/\/|\*|\/\*).*$/gm, ''));
  for (const source of [...Object.values(STRINGS).flatMap((t) => Object.values(t)), ...site]) {
    assert.doesNotMatch(source, /seed articles?|种子文章|种子 ?\d/i);
  }
});

for (const { page, html } of pages) {
  test(`${page.path}: the page ends with a summary and a self-test of 8 to 12 questions, answers on demand`, () => {
    const end = html.match(/<section id="s-end"[\s\S]*?<\/section>/)?.[0];
    assert.ok(end, 'the closing section exists');
    const numbers = sectionNumbers(html);
    assert.equal(numbers.get('s-end'), numbers.get('s-lab') + 1, 'it follows the lab');
    assert.ok((end.match(/<ul class="summary">[\s\S]*?<\/ul>/)?.[0].match(/<li>/g) ?? []).length >= 5, 'five summary points');
    const questions = end.match(/<ol class="quiz">[\s\S]*?<\/ol>/)[0].split(/<li>/).slice(1);
    assert.ok(questions.length >= 8 && questions.length <= 12, `${questions.length} questions`);
    for (const q of questions) assert.match(q, /<details><summary>[^<]*\S[\s\S]*<\/summary>[\s\S]*\S[\s\S]*<\/details>/, 'each answer is behind a <details>');
    const handsOn = questions.filter((q) => /<b>(动手|Hands on)/.test(q));
    assert.ok(handsOn.length >= 4, `${handsOn.length} questions are answered by moving a widget`);
  });
}

for (const { page, html } of pages) {
  test(`${page.path}: the hero says it is a fixed 40 × 64 illustration, so the settings bar's other sizes are no contradiction`, () => {
    const caption = text(html.match(/<figcaption id="hero-caption">[\s\S]*?<\/figcaption>/)[0]);
    assert.match(caption, page.lang === 'zh' ? /固定的示意图，不随下面的参数变化/ : /fixed illustration that does not follow the settings below/);
    assert.match(caption, /40 [^×]*× 64/);
    const hero = readFileSync(new URL('../web/site/hero.js', import.meta.url), 'utf8');
    assert.match(hero, /const ROWS = 40;\nconst COLS = 64;/, 'the caption names the size hero.js draws');
  });
}
