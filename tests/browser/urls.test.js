// Any URL a reader pastes opens the tutorial: malformed percent escapes, a
// 10,000-character hash, unknown section ids, odd query strings and whatever
// storage holds must neither throw nor stop the page's scripts (issue 22,
// point 10: `#%E0%A4%A` used to throw in place.js and left the page without
// its placement logic).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, newPage, withPage } from './harness.js';

let h;
before(async () => {
  h = await open();
});
after(() => h?.close());

const SECTION = 's-table';
const long = 'x'.repeat(10000);
const URLS = [
  `en/index.html#%E0%A4%A`,
  `index.html#%`,
  `en/index.html#%E0%A4%A?lang=zh`,
  `en/index.html#${long}`,
  `en/index.html#${encodeURIComponent(`%${long}`)}`,
  `en/index.html#no-such-section`,
  `en/index.html#__proto__`,
  `en/index.html?lang=%E0%A4%A&x=%`,
  `index.html?lang=${long}#constructor`,
  `en/index.html?${long}=1`,
];

/** The page drew its first chart, and its in-page links still land (place.js is alive). */
async function pageWorks(page) {
  await page.waitForFunction(() => document.documentElement.dataset.firstChartMs, null, { timeout: 30000 });
  const link = page.locator(`nav a[href="#${SECTION}"]`).first();
  await link.click();
  await page.waitForFunction((id) => location.hash === `#${id}` && Math.abs(document.getElementById(id).getBoundingClientRect().top) < innerHeight / 2, SECTION, { timeout: 15000 });
}

test('malformed, overlong and unknown hashes and query strings open the page', async () => {
  for (const path of URLS) {
    await withPage(h, path, pageWorks, { width: 1000, height: 800 });
  }
});

test('going back to a malformed hash (popstate) throws nothing', async () => {
  await withPage(h, 'en/index.html', async (page) => {
    await page.waitForFunction(() => document.documentElement.dataset.firstChartMs, null, { timeout: 30000 });
    await page.evaluate(() => { location.hash = '%E0%A4%A'; });
    await page.evaluate(() => { location.hash = 'no-such-section'; });
    await page.goBack();
    await pageWorks(page);
  }, { width: 1000, height: 800 });
});

test('whatever storage holds, the page opens and lands on the hash', async () => {
  const junk = [
    'not json', '{"section":"s-table","child":"__proto__","frac":0}', '{"section":"s-table","child":1e308,"frac":0}',
    '{"section":"s-table","child":0,"frac":"NaN"}', 'null', '[]', '{"section":{"toString":1}}', long,
  ];
  for (const value of junk) {
    const { context, page, errors } = await newPage(h.browser, { width: 1000, height: 800 });
    try {
      await context.addInitScript(([v]) => {
        try {
          sessionStorage.setItem('posenc-place', v);
          localStorage.setItem('posenc-lang', v);
        } catch { /* storage may be off */ }
      }, [value]);
      await page.goto(h.url(`en/index.html#${SECTION}`));
      await pageWorks(page);
      assert.deepEqual(errors, [], `storage ${value.slice(0, 60)}`);
    } finally {
      await context.close();
    }
  }
});

test('embed.html: any number of unknown parameters gives a few notes and a count, a repeated one a note, and the chart draws', async () => {
  // 1500 parameters: the test server (Node, 16 KiB of header) takes no longer URL; a tab took one note each
  const junk = Array.from({ length: 1500 }, (_, i) => `p${i}=1`).join('&');
  await withPage(h, `embed.html?view=heatmap&lang=en&d=16&len=8&d=64&${junk}`, async (page) => {
    await page.waitForFunction(() => document.querySelector('pe-heatmap')?.dataset.state === 'ready', null, { timeout: 30000 });
    const notes = await page.locator('p.note').allTextContents();
    assert.equal(notes.length, 7, notes.join('\n'));
    assert.deepEqual(notes.slice(0, 2), ['Parameter "d" is given more than once: its first value is used.', 'Ignored unknown parameter "p0".']);
    assert.equal(notes.at(-1), 'Ignored 1495 more unknown parameters.');
    assert.equal(await page.locator('pe-heatmap').getAttribute('d-model'), '16');
  }, { width: 1000, height: 800 });
});
