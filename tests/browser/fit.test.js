// The widgets on any screen and in any frame (issue 11): charts follow their
// container both ways, nothing widens a phone's page, every embed view draws,
// the embed page reports its height to its host, keyboard users can read the
// heatmaps, colour scales fit the data, and file:// pages say why nothing loads.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { open, newPage, waitRendered, canvasStats, widgetText, withPage as withPageIn, addWidget, shot } from './harness.js';
import { ROOT } from '../../scripts/serve.js';

let h;
before(async () => {
  h = await open();
});
after(() => h?.close());
const withPage = (path, run) => withPageIn(h, path, run);

/** CSS size of every chart canvas of a widget. */
const canvasSizes = (page, id) => page.evaluate((i) => [...document.getElementById(i).shadowRoot.querySelectorAll('canvas')]
  .map((c) => [Math.round(c.getBoundingClientRect().width), Math.round(c.getBoundingClientRect().height)]), id);

/** Scrolls through the whole page so that every lazy widget draws; resolves when all have a state. */
async function renderAll(page) {
  const ids = await page.evaluate(() => [...document.querySelectorAll('*')].filter((n) => n.localName.startsWith('pe-'))
    .map((n, k) => { n.id ||= `w-${k}`; return n.id; }));
  for (const id of ids) {
    await page.locator(`#${id}`).scrollIntoViewIfNeeded();
    await waitRendered(page, id, 30000);
  }
  return ids;
}

/** The widest thing on the page, and what it is, when it is wider than the viewport. */
const overflow = (page) => page.evaluate(() => {
  const width = document.documentElement.clientWidth;
  const wide = [];
  const visit = (root, where) => {
    for (const n of root.querySelectorAll('*')) {
      const r = n.getBoundingClientRect();
      if (r.right > width + 1 && getComputedStyle(n).position !== 'fixed') {
        // Content scrolled inside its own box does not widen the page.
        let p = n.parentElement;
        let clipped = false;
        while (p) {
          const o = getComputedStyle(p).overflowX;
          if (o === 'auto' || o === 'scroll' || o === 'hidden') { clipped = p.getBoundingClientRect().right <= width + 1; break; }
          p = p.parentElement;
        }
        if (!clipped) wide.push(`${where}${n.localName}.${n.className} right=${Math.round(r.right)}`);
      }
      if (n.shadowRoot) visit(n.shadowRoot, `${n.localName} > `);
    }
  };
  visit(document, '');
  return { scrollWidth: document.documentElement.scrollWidth, width, wide: wide.slice(0, 5) };
});

test('charts follow their container both ways: 1366 → 390 → 1366 restores every size', async () => {
  const { context, page, errors } = await newPage(h.browser, { width: 1366, height: 900 });
  try {
    await page.goto(h.url('examples/blog.html'));
    const ids = ['blog-heatmap', 'blog-curves', 'blog-toy'];
    for (const id of ids) {
      await page.locator(`#${id}`).scrollIntoViewIfNeeded();
      assert.equal(await waitRendered(page, id), 'ready');
    }
    const wide = Object.fromEntries(await Promise.all(ids.map(async (id) => [id, await canvasSizes(page, id)])));
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(400);
    for (const id of ids) {
      const narrow = await canvasSizes(page, id);
      narrow.forEach(([w, ht], k) => {
        assert.ok(w < wide[id][k][0] && w <= 390, `${id} canvas ${k} shrank: ${w} px`);
        assert.ok(ht >= 180, `${id} canvas ${k} is ${ht} px tall on a phone`);
      });
    }
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.waitForTimeout(400);
    for (const id of ids) assert.deepEqual(await canvasSizes(page, id), wide[id], `${id} grew back`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a chart box has its height before the chart is drawn', async () => {
  await withPage('examples/blog.html', async (page) => {
    const id = await page.evaluate(() => {
      const w = document.createElement('pe-heatmap');
      w.id = 'far';
      document.querySelector('article').append(document.createElement('div'), w);
      return w.id;
    });
    // Not yet scrolled to: nothing drawn, but the box is reserved.
    const reserved = await page.evaluate((i) => document.getElementById(i).getBoundingClientRect().height, id);
    await page.locator(`#${id}`).scrollIntoViewIfNeeded();
    assert.equal(await waitRendered(page, id), 'ready');
    const drawn = await page.evaluate((i) => document.getElementById(i).getBoundingClientRect().height, id);
    assert.ok(reserved > 180, `reserved ${reserved} px`);
    assert.ok(Math.abs(drawn - reserved) < 0.25 * drawn, `reserved ${reserved} px, drawn ${drawn} px`);
  });
});

for (const [path, lang] of [['en/index.html', 'en'], ['index.html', 'zh'], ['examples/blog.html', 'en']]) {
  test(`360 px wide: ${path} is never wider than the screen, and its charts stay >= 180 px tall`, async () => {
    const { context, page, errors } = await newPage(h.browser, { width: 360, height: 740 });
    try {
      await page.goto(h.url(path));
      const ids = await renderAll(page);
      assert.ok(ids.length >= 3, lang);
      const o = await overflow(page);
      assert.ok(o.scrollWidth <= o.width, `page ${o.scrollWidth} px wide at ${o.width}: ${o.wide.join('; ')}`);
      assert.deepEqual(o.wide, []);
      for (const id of ids) {
        if (await page.evaluate((i) => document.getElementById(i).dataset.state, id) !== 'ready') continue;
        const charts = await page.evaluate((i) => [...document.getElementById(i).shadowRoot.querySelectorAll('.plot:not(.free) canvas')]
          .filter((c) => c.offsetParent).map((c) => c.getBoundingClientRect().height), id);
        for (const ht of charts) assert.ok(ht >= 180, `${id}: a chart ${ht} px tall`);
      }
      await shot(page, `phone-${path.replace(/\W+/g, '-')}.png`, { fullPage: true });
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}

// Every view of embed.html, with the parameters that used to break or stall it.
const VIEWS = [
  'heatmap', 'curves', 'circles', 'circles&attr-view=single', 'dot', 'dot-heatmap', 'toy', 'toy-attention', 'linear',
  'norms', 'attention', 'conventions', 'rope', 'alibi', 'precision', 'relative', 'relative&kind=shaw', 'binary', 'learned',
  'dot-heatmap&d=8191&len=8192', 'dot&preset=fairseq&d=8192&len=8192', 'heatmap&d=8192&len=8192', 'curves&d=8192&len=8192',
  'norms&d=8192&len=8192', 'conventions&d=8192&len=8192', 'alibi&heads=64&max-len=256', 'rope&d-model=1024&max-len=256',
];

test('embed.html: every view draws, whatever the parameters (too large ones are clamped with a note)', async () => {
  const { context, page, errors } = await newPage(h.browser, { width: 800, height: 700 });
  try {
    for (const view of VIEWS) {
      await page.goto(h.url(`embed.html?view=${view}&lang=en`));
      const id = await page.evaluate(() => { const w = document.querySelector('#embed > :not(p):not(h1)'); w.id = 'emb'; return w.localName; });
      assert.ok(id.startsWith('pe-'), view);
      assert.equal(await waitRendered(page, 'emb', 30000), 'ready', `${view}: ${await widgetText(page, 'emb')}`);
      const stats = await canvasStats(page, 'emb');
      assert.ok(stats.some((s) => s.ink > 500), `${view} drawn`);
      assert.equal(await page.locator('#embed > .err').count(), 0, view);
    }
    // The page's view never reaches the clock widget's own view attribute.
    await page.goto(h.url('embed.html?view=circles&attr-view=single&lang=en'));
    assert.equal(await page.evaluate(() => document.querySelector('pe-circles').getAttribute('view')), 'single');
    await page.goto(h.url('embed.html?view=dot-heatmap&d=8191&len=8192&lang=en'));
    await page.evaluate(() => { document.querySelector('pe-dot-heatmap').id = 'emb'; });
    await waitRendered(page, 'emb');
    assert.match(await widgetText(page, 'emb'), /no shortcut .* at most 256 positions/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('embed.html posts its height, and the documented host listener sizes the iframe to it', async () => {
  await withPage('examples/iframe.html', async (page) => {
    const frame = page.frameLocator('#frame');
    await frame.locator('pe-curves').waitFor();
    await page.waitForFunction(() => {
      const f = document.getElementById('frame');
      const inner = f.contentDocument?.documentElement;
      const w = f.contentDocument?.querySelector('pe-curves');
      return w?.dataset.state === 'ready' && f.clientHeight === Math.ceil(inner.getBoundingClientRect().height);
    }, null, { timeout: 15000 });
    const height = await page.evaluate(() => document.getElementById('frame').getBoundingClientRect().height);
    assert.ok(height > 300, `frame ${height} px tall`);
    // A message from another window is ignored (the listener checks the sender).
    await page.evaluate(() => window.postMessage({ type: 'posenc-embed-height', height: 5 }, '*'));
    await page.waitForTimeout(100);
    assert.equal(await page.evaluate(() => document.getElementById('frame').getBoundingClientRect().height), height);
  });
});

test('toy tokens named like Object.prototype members are ordinary words', async () => {
  await withPage('examples/blog.html', async (page) => {
    const id = await addWidget(page, 'pe-toy-attention', { 'sentence-a': 'constructor toString valueOf', 'sentence-b': '__proto__ hasOwnProperty constructor', lang: 'en' });
    assert.equal(await waitRendered(page, id), 'ready', await widgetText(page, id));
    const codes = await page.evaluate((i) => document.getElementById(i).exportData().rows.map((r) => [r[2], r[3]]), id);
    assert.deepEqual(Object.fromEntries(codes), { constructor: 4, toString: 5, valueOf: 6, ['__proto__']: 7, hasOwnProperty: 8 });
    // Given codes for them are used as they are.
    await page.evaluate((i) => document.getElementById(i).setAttribute('codes', '{"constructor":7,"__proto__":9}'), id);
    await page.waitForFunction((i) => document.getElementById(i).exportData().rows[0][3] === 7, id);
  });
});

test('heatmaps: the arrow keys move a focus cell and its value is announced; small maps have a table of values', async () => {
  await withPage('examples/blog.html', async (page) => {
    const id = await addWidget(page, 'pe-heatmap', { 'd-model': '8', 'max-len': '6', lang: 'en' });
    assert.equal(await waitRendered(page, id), 'ready');
    const canvas = page.locator(`#${id}`).locator('canvas');
    await canvas.focus();
    for (const key of ['ArrowDown', 'ArrowDown', 'ArrowRight', 'ArrowRight', 'ArrowRight']) await page.keyboard.press(key);
    const live = await page.evaluate((i) => document.getElementById(i).shadowRoot.querySelector('[aria-live]').textContent, id);
    assert.match(live, /position 2, column 3 \(cos\).*value 0\.98/);
    assert.ok(Math.abs(Number(live.match(/value (\S+)/)[1]) - Math.cos(2 * 10000 ** (-2 / 8))) < 1e-4, live);
    await page.keyboard.press('End');
    assert.match(await page.evaluate((i) => document.getElementById(i).shadowRoot.querySelector('[aria-live]').textContent, id), /position 2, column 7/);
    const cells = await page.evaluate((i) => document.getElementById(i).shadowRoot.querySelectorAll('.sr table td').length, id);
    assert.equal(cells, 48);
    assert.match(await canvas.getAttribute('aria-label'), /arrow keys/);
  });
});

test('colour scales fit the data: one-sided data has no red half, categorical bits have two colours', async () => {
  await withPage('examples/blog.html', async (page) => {
    const redPixels = (i) => page.evaluate((id) => {
      const c = document.getElementById(id).shadowRoot.querySelector('canvas');
      const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let red = 0;
      for (let k = 0; k < px.length; k += 4) if (px[k] > 150 && px[k] - px[k + 2] > 80 && px[k + 1] < 120) red++;
      return red;
    }, i);
    for (const [tag, attrs] of [['pe-attention', {}], ['pe-alibi', {}], ['pe-relative', {}]]) {
      const id = await addWidget(page, tag, attrs);
      assert.equal(await waitRendered(page, id), 'ready');
      assert.equal(await redPixels(id), 0, `${tag}: no red`);
    }
    // The two-sided table still uses both halves.
    const heat = await addWidget(page, 'pe-heatmap', { 'd-model': '16', 'max-len': '32' });
    assert.equal(await waitRendered(page, heat), 'ready');
    assert.ok(await redPixels(heat) > 100);
    const bits = await addWidget(page, 'pe-binary', { 'max-len': '16', bits: '4' });
    assert.equal(await waitRendered(page, bits), 'ready');
    assert.deepEqual(await page.evaluate((i) => document.getElementById(i).heats[0].categories, bits), [0, 1]);
  });
});

test('opened from file://, the blog and the embed page say why instead of staying blank', async () => {
  const { context, page } = await newPage(h.browser);
  try {
    await page.goto(pathToFileURL(`${ROOT}/examples/blog.html`).href);
    await page.waitForFunction(() => document.querySelectorAll('.pe-file-notice').length === 3);
    assert.match(await page.locator('#blog-heatmap').innerText(), /serve the page over http\(s\)/);
    assert.ok((await page.locator('#blog-heatmap').boundingBox()).height > 20, 'visible');
    await page.goto(pathToFileURL(`${ROOT}/embed.html`).href + '?view=heatmap');
    await page.waitForSelector('#embed .pe-file-notice');
  } finally {
    await context.close();
  }
});
