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

/** The id view of a <pe-model>: the strip's chips, the resume sentence, and each table's caption and cells. */
const idView = (page, id) => page.evaluate((i) => {
  const root = document.getElementById(i).shadowRoot;
  return {
    strip: [...root.querySelectorAll('.strip li')].map((li) => li.textContent),
    text: root.querySelector('.ids')?.textContent ?? '',
    label: root.querySelector('.ids')?.getAttribute('aria-label') ?? '',
    tables: [...root.querySelectorAll('table.idgrid')].map((t) => ({
      caption: t.caption.textContent,
      cols: [...t.tHead.rows[0].cells].slice(1).map((c) => c.textContent),
      rows: [...t.tBodies[0].rows].map((r) => [...r.cells].slice(1).map((c) => Number(c.textContent))),
    })),
  };
}, id);
/** An h × w table of f(y, x). */
const table = (h, w, f) => Array.from({ length: h }, (_, y) => Array.from({ length: w }, (_, x) => f(y, x)));
/** The menu of a control, or null: its options' values and texts, and the selected value. */
const menu = (page, id) => page.evaluate((i) => {
  const s = document.getElementById(i).shadowRoot.querySelector('.controls select');
  return s && { values: [...s.options].map((o) => o.value), texts: [...s.options].map((o) => o.textContent), value: s.value };
}, id);

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
      assert.ok(stats.length >= 1 && stats.every((s) => s.ink > 500), 'wavelengths drawn');
      // Qwen2-VL's get_rope_index on the image grid: 4 text tokens at 0..3; the 6 × 6 merged image from s = 4 takes
      // time 4, height 4 + row, width 4 + column; the 5 text tokens after it resume at the largest id (9) + 1 = 10
      const ids = await idView(page, 'w-model');
      assert.deepEqual(ids.strip.filter((c) => /^\d+$/.test(c)), ['0', '1', '2', '3', '10', '11', '12', '13', '14']);
      assert.equal(ids.strip.length, 10, 'one chip for the image between the text tokens');
      assert.match(ids.strip[4], lang === 'en' ? /image: 36 tokens \(6 × 6\)/ : /图像：36 个词元（6 × 6）/);
      assert.deepEqual(ids.tables.map((t) => t.rows), [table(6, 6, () => 4), table(6, 6, (y) => 4 + y), table(6, 6, (y, x) => 4 + x)]);
      assert.deepEqual(ids.tables.map((t) => t.caption), lang === 'en' ? ['time ids (4 to 4)', 'height ids (4 to 9)', 'width ids (4 to 9)']
        : ['时间编号（4 到 4）', '高度编号（4 到 9）', '宽度编号（4 到 9）']);
      assert.match(ids.text, lang === 'en' ? /resumes at id 10: the largest image id, 9, plus 1, not its token index 40/ : /从编号 10 接着开始：即图像的最大编号 9 加 1，而不是它的词元序号 40/);
      assert.match(ids.label, lang === 'en' ? /rope delta -30/ : /rope delta 为 -30/);
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
      // a layer type picked for Gemma 3 goes with it when the gallery loads another model
      const next = async (run) => {
        const n = await page.evaluate(() => document.getElementById('w-model').renders);
        await run();
        await page.locator('#w-model').scrollIntoViewIfNeeded();
        await page.waitForFunction((k) => document.getElementById('w-model').renders > k, n);
      };
      await next(() => page.locator('#m-model-gallery select').selectOption('gemma-3-4b'));
      await next(() => page.locator('#w-model select').selectOption('sliding_attention'));
      assert.match(await widgetText(page, 'w-model'), /θ = 10000[，,]/);
      await next(() => page.locator('#m-model-gallery select').selectOption('llama-3.1-8b'));
      assert.equal(await page.evaluate(() => document.getElementById('w-model').dataset.state), 'ready');
      assert.equal(await page.evaluate(() => document.getElementById('w-model').hasAttribute('layer-type')), false);
    }, { width: 390, height: 844 });
  });
}

test('the gallery draws the model chosen last, whatever order the files arrive in (nineteenth pass)', async () => {
  // Two picks in quick succession whose files arrived out of order drew the first model under a select naming the second.
  await withPage('en/index.html', async (page) => {
    await page.locator('#m-model-gallery').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.getElementById('w-model').getAttribute('config')?.includes('mrope_section'));
    await page.route('**/models/gemma-3-4b.json', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.continue();
    });
    await page.locator('#m-model-gallery select').selectOption('gemma-3-4b');
    await page.locator('#m-model-gallery select').selectOption('llama-3.1-8b');
    await page.waitForFunction(() => document.getElementById('w-model').getAttribute('config')?.includes('"llama3"'));
    await page.waitForTimeout(2500); // past the delayed gemma file
    const config = await page.evaluate(() => document.getElementById('w-model').getAttribute('config'));
    assert.equal(JSON.parse(config).model_type, 'llama');
  });
});

test('<pe-model> standalone: FLUX ids, a layer without RoPE, a pasted config, bad JSON in place', async () => {
  await withPage('examples/blog.html', async (page) => {
    const flux = await addWidget(page, 'pe-model', { config: await config('flux.1-dev'), grid: '4' });
    assert.equal(await waitRendered(page, flux), 'ready');
    assert.match(await widgetText(page, flux), /FLUX ids of a 4 × 4 latent grid/);
    assert.match(await widgetText(page, flux), /All 64 pairs keep the unscaled frequencies; the config names no context length/);
    // FLUX's img_ids on the 4 × 4 latent grid: (0, row, column)
    const fluxIds = await idView(page, flux);
    assert.deepEqual(fluxIds.tables.map((t) => t.rows), [table(4, 4, () => 0), table(4, 4, (y) => y), table(4, 4, (y, x) => x)]);
    assert.deepEqual(fluxIds.strip, []);
    assert.equal(await menu(page, flux), null, 'FLUX has no layer types: no menu');
    // the export holds each pair's θ_i and wavelength: FLUX's first axis (16 wide) starts at θ 1 and 10000^(-2/16)
    const exported = await page.evaluate((i) => document.getElementById(i).exportData(), flux);
    assert.deepEqual(exported.header, ['pair', 'inv_freq', 'wavelength', 'unscaled_wavelength', 'attention_factor']);
    assert.equal(exported.rows.length, 64);
    assert.ok(Math.abs(exported.rows[1][1] - 10000 ** (-2 / 16)) < 1e-15 && exported.rows[0][1] === 1 && exported.rows[8][1] === 1, 'each axis starts again at θ 1');
    // Qwen3-VL (its text_config, interleaved M-RoPE [24, 20, 20], a merge of 2 in vision_config): the same grids, 3 × 3 here
    const qwen3 = { model_type: 'qwen3_vl', vision_config: { spatial_merge_size: 2 }, text_config: { model_type: 'qwen3_vl_text', head_dim: 128,
      hidden_size: 4096, num_attention_heads: 32, rope_theta: 5000000, rope_scaling: { rope_type: 'default', mrope_section: [24, 20, 20], mrope_interleaved: true } } };
    const q3 = await addWidget(page, 'pe-model', { config: JSON.stringify(qwen3), grid: '3' });
    assert.equal(await waitRendered(page, q3), 'ready');
    assert.match(await widgetText(page, q3), /24 read the time row, 20 the height row and 20 the width row/);
    assert.deepEqual((await idView(page, q3)).tables.map((t) => t.rows), [table(3, 3, () => 4), table(3, 3, (y) => 4 + y), table(3, 3, (y, x) => 4 + x)]);
    // Which axis each pair reads comes from one position: the prompt's cache (grid² × head_dim) passed 1 GiB at
    // head_dim 2^18 and grid 32, an error after the wavelengths were drawn (seventeenth pass)
    const wide = { model_type: 'qwen2_vl', vision_config: { spatial_merge_size: 2 }, hidden_size: 2 ** 18, num_attention_heads: 1, rope_theta: 10000,
      max_position_embeddings: 4096, rope_scaling: { type: 'mrope', mrope_section: [2 ** 15, 3 * 2 ** 14, 3 * 2 ** 14] } };
    const qw = await addWidget(page, 'pe-model', { config: JSON.stringify(wide), grid: '32' });
    assert.equal(await waitRendered(page, qw), 'ready');
    assert.match(await widgetText(page, qw), /32768 read the time row, 49152 the height row and 49152 the width row/);
    // head_dim 2^20 (the most a config may give): the chart draws every step-th of its 2^19 pairs and the last, 4097
    // points a series; each of the 2^19 was a point and the page froze for 5 s (seventeenth pass). The export has them all.
    const huge = { head_dim: 2 ** 20, hidden_size: 2 ** 20, num_attention_heads: 1, rope_theta: 10000, max_position_embeddings: 4096 };
    const hw = await addWidget(page, 'pe-model', { config: JSON.stringify(huge) });
    assert.equal(await waitRendered(page, hw), 'ready');
    const drawn = await page.evaluate((i) => {
      const e = document.getElementById(i);
      return { series: e.waveChart.data.datasets.slice(0, 2).map((d) => [d.data.length, d.data[1].x, d.data.at(-1).x]), rows: e.exportData().rows.length };
    }, hw);
    assert.deepEqual(drawn, { series: [[4097, 128, 2 ** 19 - 1], [4097, 128, 2 ** 19 - 1]], rows: 2 ** 19 });
    // an axial config of 1 or 4 axes: its wavelengths, and no ids (ropeGridIds makes 2 or 3 axes); its "axes must be
    // an integer from 2 to 3" failed the whole drawing (seventeenth pass)
    for (const axes of [[16], [16, 16, 16, 16]]) {
      const odd = await addWidget(page, 'pe-model', { config: JSON.stringify({ _class_name: 'FluxTransformer2DModel', axes_dims_rope: axes, theta: 10000 }) });
      assert.equal(await waitRendered(page, odd), 'ready', String(axes));
      assert.equal(await page.evaluate((i) => document.getElementById(i).shadowRoot.querySelectorAll('table.idgrid').length, odd), 0);
    }
    // an M-RoPE config whose vision_config.spatial_merge_size mropePositions does not take (1 to 8): its wavelengths,
    // no ids, and a note naming the config's key; its "spatialMergeSize must be an integer from 1 to 8" failed the
    // whole drawing (eighteenth pass)
    const qwen = JSON.parse(await config('qwen2-vl-7b'));
    for (const merge of [9, 0, 2.5, '2']) {
      const id = await addWidget(page, 'pe-model', { config: JSON.stringify({ ...qwen, vision_config: { ...qwen.vision_config, spatial_merge_size: merge } }) });
      assert.equal(await waitRendered(page, id), 'ready', String(merge));
      assert.equal(await page.evaluate((i) => document.getElementById(i).shadowRoot.querySelectorAll('table.idgrid').length, id), 0);
      assert.match(await widgetText(page, id), new RegExp(`vision_config\\.spatial_merge_size is ${JSON.stringify(merge).replace('.', '\\.')}: the image's position ids are drawn for a merge of 1 to 8`));
    }
    // a layer of a config without per-layer RoPE (every layer has the same): drawn, with a note naming `layer`; its
    // "layerIndex needs a config with per-layer RoPE" failed the whole drawing (eighteenth pass)
    for (const layer of ['3', '1048576']) {
      const same = await addWidget(page, 'pe-model', { config: await config('llama-3.1-8b'), layer });
      assert.equal(await waitRendered(page, same), 'ready', layer);
      const text = await widgetText(page, same);
      assert.match(text, new RegExp(`layer = ${layer}: this config gives every layer the same RoPE`));
      assert.match(text, /RoPE type llama3/);
    }
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

test('<pe-model> layer type: a menu of the config\'s own layer types, absent without them; the layer clamped to the config\'s layers', async () => {
  await withPage('examples/blog.html', async (page) => {
    // Gemma 3 4B: 34 layers, every sixth global (θ 1e6, linear 8), the others sliding (θ 1e4, unscaled)
    const gemma = await addWidget(page, 'pe-model', { config: await config('gemma-3-4b'), layer: '5' });
    assert.equal(await waitRendered(page, gemma), 'ready');
    assert.deepEqual(await menu(page, gemma), {
      values: ['sliding_attention', 'full_attention'], texts: ['sliding_attention (29 layers)', 'full_attention (5 layers)'], value: 'full_attention',
    });
    assert.match(await widgetText(page, gemma), /type linear, θ = 1000000/);
    const renders = await page.evaluate((i) => document.getElementById(i).renders, gemma);
    // (widgets above it grow as they draw: scroll it back into view, or it waits, unseen, to draw)
    await page.locator(`#${gemma}`).locator('select').scrollIntoViewIfNeeded();
    await page.locator(`#${gemma}`).locator('select').selectOption('sliding_attention');
    await page.waitForFunction(([i, n]) => document.getElementById(i).renders > n, [gemma, renders]);
    assert.equal(await page.evaluate((i) => document.getElementById(i).getAttribute('layer-type'), gemma), 'sliding_attention');
    assert.equal(await page.evaluate((i) => document.getElementById(i).hasAttribute('layer'), gemma), false, 'picking a type clears the layer');
    assert.match(await widgetText(page, gemma), /type default, θ = 10000,/);
    assert.equal((await menu(page, gemma)).value, 'sliding_attention');
    // another config, without layer types, pasted into the field: the layer type goes with the old model, and the menu and the layer field go
    await page.locator(`#${gemma}`).locator('input[type=text]').fill(await config('llama-3.1-8b'));
    await page.locator(`#${gemma}`).scrollIntoViewIfNeeded();
    await page.waitForFunction(([i, n]) => document.getElementById(i).renders > n + 1, [gemma, renders]);
    assert.equal(await menu(page, gemma), null);
    assert.equal(await page.evaluate((i) => document.getElementById(i).shadowRoot.querySelectorAll('.controls input').length, gemma), 1, 'the config field only (no grid for a text model)');
    // a layer past the config's last is the last, with a note (the attribute allows up to 1048576)
    const far = await addWidget(page, 'pe-model', { config: await config('gemma-3-4b'), layer: '1048576' });
    assert.equal(await shown(page, far), 'ready');
    const farText = await widgetText(page, far);
    assert.match(farText, /layer = 1048576 .*using 33/);
    assert.match(farText, /shown: sliding_attention/);
    // the largest grid (32 × 32 merged patches) scrolls inside its own box, reachable by keyboard; the page stays 390 px wide
    const big = await addWidget(page, 'pe-model', { config: await config('qwen2-vl-7b'), grid: '32' });
    assert.equal(await shown(page, big), 'ready');
    const box = await page.evaluate((i) => {
      const e = document.getElementById(i);
      const t = e.shadowRoot.querySelector('.ids .tables');
      return { width: e.getBoundingClientRect().width, page: document.documentElement.scrollWidth, scrolls: t.scrollWidth > t.clientWidth, tab: t.getAttribute('tabindex'),
        cells: e.shadowRoot.querySelectorAll('table.idgrid td').length };
    }, big);
    assert.deepEqual(box, { width: box.width, page: 390, scrolls: true, tab: '0', cells: 3 * (32 * 32 + 1) });
    assert.ok(box.width <= 390, `${box.width}`);
  }, { width: 390, height: 844 });
});

// Twenty-third pass: a config of 30 000 layer types (180 kB, within the attribute's 200 000 characters) made a
// menu of 30 000 options and a caption of 270 kB; the charts' theme, read through that shadow tree, froze the tab
// 1.5 s a render. The menu and the caption name the first 64 types (the caption counts the rest); the type shown is
// in the menu wherever it comes in the config, and the layer index reaches every layer.
test('<pe-model> with 30 000 layer types names 64 of them, and the one shown', async () => {
  await withPage('examples/blog.html', async (page) => {
    const types = Array.from({ length: 30000 }, (_, i) => i.toString(36)); // 0, 1, ... n5b
    const many = JSON.stringify({ model_type: 'llama', head_dim: 64, rope_theta: 10000, max_position_embeddings: 4096, num_hidden_layers: 30000, layer_types: types });
    const id = await addWidget(page, 'pe-model', { config: many, layer: '29999' });
    assert.equal(await waitRendered(page, id, 60000), 'ready');
    const m = await menu(page, id);
    assert.deepEqual({ n: m.values.length, first: m.values.slice(0, 2), last: m.values.at(-1), value: m.value },
      { n: 65, first: ['0', '1'], last: 'n5b', value: 'n5b' });
    assert.equal(m.texts.at(-1), 'n5b (1 layers)');
    const text = await widgetText(page, id);
    assert.match(text, /1q × 1, 1r × 1, … \(\+29936\); shown: n5b\./);
    assert.ok(text.length < 5000, `${text.length} characters`);
  });
});

for (const [path, lang] of [['index.html', 'zh'], ['en/index.html', 'en']]) {
  test(`<pe-model> on the page (${lang}, 390 px): sentences join as the language does, max_position_embeddings is not called the trained context, and the element shrinks to a smaller model`, async () => {
    await withPage(path, async (page) => {
      await page.locator('#m-model-gallery').scrollIntoViewIfNeeded();
      await page.waitForFunction(() => document.getElementById('w-model').getAttribute('config')?.includes('mrope_section'));
      assert.equal(await shown(page, 'w-model'), 'ready');
      const reserve = await page.evaluate(() => parseFloat(getComputedStyle(document.getElementById('w-model')).getPropertyValue('--reserve')));
      const pick = async (name) => {
        const n = await page.evaluate(() => document.getElementById('w-model').renders);
        await page.locator('#m-model-gallery select').selectOption(name);
        await page.locator('#w-model').scrollIntoViewIfNeeded();
        await page.waitForFunction((k) => document.getElementById('w-model').renders > k, n);
        return page.evaluate(() => document.getElementById('w-model').shadowRoot.querySelector('p.caption').textContent);
      };
      // Gemma 3 4B names only max_position_embeddings (131072, its extended length after linear ×8)
      const gemma = await pick('gemma-3-4b');
      assert.ok(gemma.length > 100, gemma);
      if (lang === 'zh') {
        assert.doesNotMatch(gemma, /[。；] /, 'no space after a Chinese full stop');
        assert.match(gemma, /在配置给出的上下文 max_position_embeddings（131072 个位置）内/);
      } else {
        assert.match(gemma, /within the config's context, max_position_embeddings \(131072 positions\)/);
      }
      assert.doesNotMatch(gemma, /trained context|训练上下文/);
      // Llama 3.1 names its pretraining length: that one is the trained context
      assert.match(await pick('llama-3.1-8b'), lang === 'zh' ? /训练上下文（8192 个位置）/ : /the trained context \(8192 positions\)/);
      // FLUX: the grid is a latent grid of tokens, and the element is as tall as its drawing, not the reserve of Qwen2-VL's
      const flux = await pick('flux.1-dev');
      assert.doesNotMatch(flux, lang === 'zh' ? /[。；] / : /^$/);
      const box = await page.evaluate(() => {
        const e = document.getElementById('w-model');
        return { height: e.getBoundingClientRect().height, label: [...e.shadowRoot.querySelectorAll('.controls label')].map((l) => l.textContent).join(' | ') };
      });
      assert.match(box.label, lang === 'zh' ? /潜空间网格边长（词元数）/ : /latent grid side \(tokens\)/);
      assert.ok(reserve > 1000 && box.height < reserve - 200, `FLUX drawn ${box.height} px under a reserve of ${reserve} px`);
    }, { width: 390, height: 844 });
  });
}
