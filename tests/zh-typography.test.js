// Chinese typography in every Chinese text this repository ships: the widgets'
// strings (titles, captions, notes, errors), the site's own text tables, and
// the Chinese page as the build writes it. The rules are in
// tests/helpers/zh-typography.js; tests/browser/site.test.js applies them to
// the text Chromium renders, widgets included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { typographyErrors } from './helpers/zh-typography.js';
import { STRINGS } from '../web/widgets/strings.js';
import { SITE } from '../web/site/i18n.js';
import { TEXT } from '../web/site/checklist-text.js';
import { PAGES, languagePage } from '../scripts/site-pages.mjs';

/** Every string in a nested table, with its path. */
const strings = (o, path = '') => Object.entries(o).flatMap(([k, v]) => (typeof v === 'object' ? strings(v, `${path}${k}.`) : [[`${path}${k}`, v]]));
const check = (table) => strings(table).flatMap(([k, v]) => typographyErrors(v).map((e) => `${k}: ${e}`));

test('the rules catch what they are for, and pass what is right', () => {
  for (const wrong of ['顺序为何重要:我打你', '我打你,你打我', '维度(列)', '用RoPE旋转', '第2节', 'x = [1, 2, 3],"你打我"', '前后两半（rotate_half:GPT-NeoX）', '都判为"高兴"']) {
    assert.notDeepEqual(typographyErrors(wrong), [], wrong);
  }
  assert.deepEqual(typographyErrors('顺序为何重要：我打你，你打我（第 2 节）；用 RoPE 旋转 (x_0, x_1)，1,000 个位置，都判为“高兴”，例如 {"我":1}'), []);
  assert.deepEqual(typographyErrors('English only: a, b; (c)'), []);
});

test("the widgets' Chinese strings", () => {
  assert.deepEqual(check(STRINGS.zh), []);
});

test("the site's Chinese text tables", () => {
  assert.deepEqual([...check(SITE.zh), ...check(TEXT.zh)], []);
});

test('the Chinese page, as built (code blocks aside)', () => {
  const html = languagePage(readFileSync(new URL('../web/site/index.html', import.meta.url), 'utf8'), PAGES.find((p) => p.lang === 'zh'));
  // Block elements end a line; inline ones (b, a, sub) join their text to the words around them.
  const text = html.replace(/<(code|pre|script|style)\b[\s\S]*?<\/\1>/g, ' ')
    .replace(/<\/?(p|li|ol|ul|summary|details|h\d|td|th|tr|div|section|figcaption|text|title|br)\b[^>]*>/g, '\n')
    .replace(/<[^>]*>/g, '').replace(/&[#\w]+;/g, ' ');
  assert.deepEqual(typographyErrors(text), []);
});

test('the English page, as built, uses no Chinese punctuation outside quoted Chinese', () => {
  const html = languagePage(readFileSync(new URL('../web/site/index.html', import.meta.url), 'utf8'), PAGES.find((p) => p.lang === 'en'));
  const text = html.replace(/<cite lang="zh-CN">[^<]*<\/cite>/g, '').replace(/<[^>]*>/g, '');
  const stray = [...text.matchAll(/.{0,20}[，：；（）].{0,20}/g)].map((m) => m[0]).filter((s) => !/[\u3400-\u9fff]/.test(s));
  assert.deepEqual(stray, []);
});
