// The widgets as a blogger uses them (examples/blog.html, one script tag) and the
// iframe page embed.html: independent widgets, attribute changes, impossible
// attributes shown in place, API errors shown, URL parameters validated.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, waitRendered, canvasStats, widgetText, withPage as withPageIn, addWidget, errorText, shot } from './harness.js';

let h;
before(async () => {
  h = await open();
});
after(() => h?.close());
const withPage = (path, run) => withPageIn(h, path, run);

test('blog.html: three widgets from one script, each drawn and independent', async () => {
  await withPage('examples/blog.html', async (page) => {
    const modules = await page.evaluate(() => [...document.scripts].filter((s) => s.type === 'module').map((s) => s.getAttribute('src')));
    assert.deepEqual(modules, ['../posenc-widgets.js']);
    const ids = ['blog-heatmap', 'blog-curves', 'blog-toy'];
    for (const id of ids) {
      await page.locator(`#${id}`).scrollIntoViewIfNeeded();
      assert.equal(await waitRendered(page, id), 'ready');
      for (const s of await canvasStats(page, id)) assert.ok(s.ink > 1000, `${id} drawn`);
    }
    // lang is per widget: the toy speaks Chinese, the heatmap English.
    assert.match(await widgetText(page, 'blog-toy'), /句子 A/);
    assert.match(await widgetText(page, 'blog-heatmap'), /positional-encoding table/);
    // Changing one widget's attribute redraws it and leaves the others alone.
    const curves = await canvasStats(page, 'blog-curves');
    const heat = await canvasStats(page, 'blog-heatmap');
    await page.locator('#blog-heatmap').scrollIntoViewIfNeeded();
    await page.evaluate(() => document.getElementById('blog-heatmap').setAttribute('d-model', '16'));
    await page.waitForFunction(() => document.getElementById('blog-heatmap').heat.cols === 16);
    assert.notEqual((await canvasStats(page, 'blog-heatmap'))[0].hash, heat[0].hash);
    assert.equal((await canvasStats(page, 'blog-curves'))[0].hash, curves[0].hash);
    await shot(page, 'blog.png', { fullPage: true });
  });
});

test('impossible attributes show an error in place; the page keeps working and recovers', async () => {
  await withPage('examples/blog.html', async (page) => {
    const bad = await addWidget(page, 'pe-heatmap', { 'd-model': '-3' });
    assert.equal(await waitRendered(page, bad), 'error');
    assert.match(await errorText(page, bad), /d-model must be at least 1; got -3/);
    const canvasesShown = await page.evaluate((i) => document.getElementById(i).canvases().length, bad);
    assert.equal(canvasesShown, 0);
    const word = await addWidget(page, 'pe-curves', { base: 'ten', lang: 'zh' });
    assert.equal(await waitRendered(page, word), 'error');
    assert.match(await errorText(page, word), /base 必须是数字/);
    // What a preset asks of d-model is checked as the API checks it, and named as the attribute.
    const odd = await addWidget(page, 'pe-heatmap', { preset: 'tf-tutorial', 'd-model': '5', 'max-len': '4' });
    assert.equal(await waitRendered(page, odd), 'error');
    assert.match(await errorText(page, odd), /d-model must be even with preset tf-tutorial; got 5/);
    // Too large is clamped with a visible note, not refused.
    const big = await addWidget(page, 'pe-dot-heatmap', { 'max-len': '100000', 'd-model': '8' });
    assert.equal(await waitRendered(page, big), 'ready');
    assert.match(await widgetText(page, big), /max-len = 100000 .* using 1024/);
    // Fixing the attribute brings the chart back.
    await page.evaluate((i) => document.getElementById(i).setAttribute('d-model', '8'), bad);
    await page.waitForFunction((i) => document.getElementById(i).dataset.state === 'ready', bad);
    for (const s of await canvasStats(page, bad)) assert.ok(s.ink > 1000);
    // The blog's own widgets were never disturbed.
    assert.equal(await page.evaluate(() => document.getElementById('blog-heatmap').dataset.state), 'ready');
  });
});

test('embed.html draws a valid view', async () => {
  await withPage('embed.html?view=dot&d=64&len=20&lang=en', async (page) => {
    const id = await page.evaluate(() => { const w = document.querySelector('pe-dot-heatmap'); w.id = 'embedded'; return w.id; });
    assert.equal(await waitRendered(page, id), 'ready');
    for (const s of await canvasStats(page, id)) assert.ok(s.ink > 1000);
    assert.equal(await page.evaluate(() => document.querySelector('pe-dot-heatmap').getAttribute('d-model')), '64');
    await shot(page, 'embed-dot.png');
  });
});

test('a widget not drawn yet names its export buttons (twenty-fourth pass)', async () => {
  // The bar shows under the placeholder before the first render (a chart scrolled to by Tab, its module loading):
  // its three buttons had no text and no label, and a screen reader said "button" three times.
  await withPage('embed.html?view=dot&d=64&len=20&lang=en', async (page) => {
    const names = await page.evaluate(() => [...document.createElement('pe-circles').shadowRoot.querySelectorAll('.export button')]
      .map((b) => [b.textContent, b.getAttribute('aria-label')]));
    assert.deepEqual(names.map(([text]) => text), ['CSV', 'JSON', 'PNG']);
    for (const [, label] of names) assert.match(label, /^(CSV|JSON|PNG): /);
  });
});

test('embed.html shows a message, not a blank frame, for bad parameters', async () => {
  await withPage('embed.html?view=heatmap&d=-3', async (page) => {
    const msg = await page.locator('#embed .err').textContent();
    assert.match(msg, /d must be at least 1; got -3/);
    assert.equal(await page.locator('pe-heatmap').count(), 0);
  });
  await withPage('embed.html?view=nope&lang=zh', async (page) => {
    assert.match(await page.locator('#embed .err').textContent(), /未知或缺少 view "nope"/);
  });
  await withPage('embed.html?view=heatmap&len=99999&d=8&evil=%3Cb%3Ex%3C/b%3E', async (page) => {
    const notes = await page.locator('#embed .note').allTextContents();
    assert.ok(notes.some((n) => /len = 99999 .* using 8192/.test(n)), notes.join(' | '));
    assert.ok(notes.some((n) => n.includes('"evil"')), 'unknown parameter reported');
    assert.equal(await page.locator('#embed b').count(), 0);
    await page.evaluate(() => { document.querySelector('pe-heatmap').id = 'emb'; });
    assert.equal(await waitRendered(page, 'emb'), 'ready');
  });
});

test('embed.html offers every widget as a view, the newer ones included', async () => {
  for (const [view, tag] of [['rope', 'pe-rope'], ['alibi', 'pe-alibi'], ['precision', 'pe-precision']]) {
    await withPage(`embed.html?view=${view}&lang=en`, async (page) => {
      await page.evaluate((t) => { document.querySelector(t).id = 'emb'; }, tag);
      assert.equal(await waitRendered(page, 'emb'), 'ready', view);
      for (const s of await canvasStats(page, 'emb')) assert.ok(s.ink > 500, `${view} drawn`);
    });
  }
});

test('PNG pressed before a chart is drawn saves nothing and throws nothing', async () => {
  // The export bar shows under the placeholder before the first render: its PNG
  // stacked no canvas, and download(null) threw "Failed to execute
  // 'createObjectURL'" uncaught in the page, for every element (sixth adversarial pass, issue 22).
  const { WIDGETS } = await import('../../web/widgets/index.js');
  await withPage('examples/blog.html', async (page) => {
    const result = await page.evaluate(async (tags) => {
      const thrown = [];
      addEventListener('unhandledrejection', (e) => thrown.push(String(e.reason?.message ?? e.reason)));
      addEventListener('error', (e) => thrown.push(e.message));
      let downloads = 0;
      const click = HTMLAnchorElement.prototype.click;
      HTMLAnchorElement.prototype.click = function () { if (this.download) downloads++; else click.call(this); };
      const turn = () => new Promise((resolve) => setTimeout(resolve));
      for (const tag of tags) {
        const w = document.createElement(tag);
        document.querySelector('article').append(w);
        [...w.shadowRoot.querySelectorAll('.export button')][2].click(); // before its first render
        await turn();
        await turn();
        w.remove();
      }
      HTMLAnchorElement.prototype.click = click;
      return { thrown, downloads };
    }, Object.keys(WIDGETS));
    assert.deepEqual(result, { thrown: [], downloads: 0 });
  });
});
