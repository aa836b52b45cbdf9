// The "RoPE in real models" section and <pe-model> (issue 23 point 6) in
// headless Chromium under the strict CSP: the gallery loads a published config
// into the widget, the wavelengths, Qwen2-VL's three position rows and FLUX's
// ids are drawn, both languages at phone width, a pasted config works, and a
// bad one is shown in place.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { open, waitRendered, canvasStats, widgetText, withPage as withPageIn, addWidget, errorText, shot } from './harness.js';

let h;
before(async () => {
  h = await open();
});
after(() => h?.close());
const withPage = (path, run, options) => withPageIn(h, path, run, options);
const config = (name) => readFile(new URL(`../fixtures/configs/${name}.json`, import.meta.url), 'utf8');

const shown = async (page, id) => {
  await page.locator(`#${id}`).scrollIntoViewIfNeeded();
  return waitRendered(page, id);
};

test('the page\'s first config is the gallery\'s Qwen2-VL 7B file, so the widget draws fully before the gallery loads', async () => {
  const html = await readFile(new URL('../../web/site/index.html', import.meta.url), 'utf8');
  const attr = html.match(/<pe-model id="w-model" config='([^']*)'>/);
  assert.ok(attr, 'w-model carries a config');
  assert.deepEqual(JSON.parse(attr[1]), JSON.parse(await config('qwen2-vl-7b')));
});

for (const [path, lang] of [['en/index.html', 'en'], ['index.html', 'zh']]) {
  test(`the gallery loads Qwen2-VL into <pe-model> and switching models redraws it (${lang}, phone width)`, async () => {
    await withPage(path, async (page) => {
      await page.locator('#m-model-gallery').scrollIntoViewIfNeeded();
      await page.waitForFunction(() => document.getElementById('w-model').getAttribute('config')?.includes('mrope_section'));
      assert.equal(await shown(page, 'w-model'), 'ready');
      const stats = await canvasStats(page, 'w-model');
      assert.ok(stats.length >= 2 && stats.every((s) => s.ink > 500), 'wavelengths and position rows drawn');
      const text = await widgetText(page, 'w-model');
      assert.match(text, lang === 'en' ? /rope delta -/ : /rope delta 为 -/);
      assert.match(text, lang === 'en' ? /16 read the time row, 24 the height row and 24 the width row/ : /16 个读时间行，24 个读高度行，24 个读宽度行/);
      const width = await page.evaluate(() => document.getElementById('w-model').getBoundingClientRect().width);
      assert.ok(width <= 390, `fits the phone: ${width}`);
      await shot(page, `model-${lang}.png`, { fullPage: false });
      // Llama 3.1 (θ 500000, d 128, L 8192, factor 8, low 1, high 4): wavelengths 2π·500000^(i/64) under
      // L/4 = 2048 are kept (i ≤ 28), over L = 8192 divided by 8 (i ≥ 35), the 6 between blended
      const renders = await page.evaluate(() => document.getElementById('w-model').renders);
      await page.locator('#m-model-gallery select').selectOption('llama-3.1-8b');
      await page.waitForFunction((n) => document.getElementById('w-model').renders > n, renders);
      const llama = await widgetText(page, 'w-model');
      assert.match(llama, lang === 'en' ? /type llama3, θ = 500000/ : /类型 llama3，θ = 500000/);
      assert.match(llama, lang === 'en' ? /29 keep their frequency, 29 are slowed by the full factor 8 \(interpolated\) and 6 lie on the ramp/
        : /29 个保持原频率，29 个按完整倍数 8 减慢（插值），6 个位于/);
    }, { width: 390, height: 844 });
  });
}

test('<pe-model> standalone: FLUX ids, a layer without RoPE, a pasted config, bad JSON in place', async () => {
  await withPage('examples/blog.html', async (page) => {
    const flux = await addWidget(page, 'pe-model', { config: await config('flux.1-dev'), grid: '4' });
    assert.equal(await waitRendered(page, flux), 'ready');
    assert.match(await widgetText(page, flux), /FLUX ids of a 4 × 4 latent grid/);
    const scout = await addWidget(page, 'pe-model', { config: await config('llama-4-scout') });
    assert.equal(await waitRendered(page, scout), 'ready');
    assert.match(await widgetText(page, scout), /36 of 48 layers use RoPE/);
    // Llama 4 Scout: every fourth layer (3, 7, ...) has no RoPE
    const none = await addWidget(page, 'pe-model', { config: await config('llama-4-scout'), layer: '3' });
    assert.equal(await waitRendered(page, none), 'ready');
    assert.match(await widgetText(page, none), /Layer 3 has no RoPE/);
    const wrong = await addWidget(page, 'pe-model', { config: await config('gemma-3-4b'), 'layer-type': 'nope' });
    assert.equal(await waitRendered(page, wrong), 'error');
    assert.match(await errorText(page, wrong), /layerType/);
    const bad = await addWidget(page, 'pe-model', { config: '{"rope_theta": 10000,' });
    assert.equal(await waitRendered(page, bad), 'error');
    assert.match(await errorText(page, bad), /config is not valid JSON/);
    const empty = await addWidget(page, 'pe-model', {});
    assert.equal(await waitRendered(page, empty), 'error');
    assert.match(await errorText(page, empty), /config\.json/);
    // fixing the attribute brings the charts back
    await page.evaluate((i) => document.getElementById(i).setAttribute('config', '{"rope_theta": 10000, "head_dim": 64, "max_position_embeddings": 2048}'), bad);
    await page.waitForFunction((i) => document.getElementById(i).dataset.state === 'ready', bad);
    assert.match(await widgetText(page, bad), /All 32 pairs keep the unscaled frequencies/);
  });
});
