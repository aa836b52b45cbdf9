// Section 20 of the tutorial ("Beyond sequences") and its widgets <pe-timestep>,
// <pe-patch-grid>, <pe-nerf> in headless Chromium under the strict CSP: drawn
// when scrolled to, non-blank, labelled, bilingual, redrawn by their switches,
// standalone in embed.html, and the numbers they export are the API's in Node.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, waitRendered, canvasStats, widgetText, withPage as withPageIn, shot } from './harness.js';
import { init } from '../../web/lib/fields/index.js';

const WIDGETS = ['w-timestep', 'w-patch-grid', 'w-nerf'];

let h;
let fields;
before(async () => {
  [h, fields] = await Promise.all([open(), init()]);
});
after(() => h?.close());
const withPage = (path, run) => withPageIn(h, path, run);
// Every widget above draws at its reserved height (tutorial.test.js checks
// it), so one scroll brings this one into view for good, once the sections
// off the first screen are laid out (first-screen.js).
const shown = async (page, id) => {
  await page.waitForFunction(() => !document.documentElement.dataset.firstScreen);
  await page.locator(`#${id}`).scrollIntoViewIfNeeded();
  return waitRendered(page, id);
};
const exported = (page, id) => page.evaluate((i) => JSON.parse(JSON.stringify(document.getElementById(i).exportData())), id);
const renders = (page, id) => page.evaluate((i) => document.getElementById(i).renders, id);

/** Sets attributes as a control would, and waits for the redraw (the widget must be in view to redraw). */
async function change(page, id, attrs) {
  const r0 = await renders(page, id);
  await page.locator(`#${id}`).evaluate((w, a) => { for (const [k, v] of Object.entries(a)) w.setAttribute(k, v); }, attrs);
  await page.locator(`#${id}`).scrollIntoViewIfNeeded();
  await page.waitForFunction(([i, k]) => document.getElementById(i).renders > k, [id, r0]);
}

async function assertDrawn(page, id) {
  assert.equal(await shown(page, id), 'ready', `${id} rendered`);
  const stats = await canvasStats(page, id);
  assert.ok(stats.length >= 1, `${id} has its charts`);
  for (const s of stats) assert.ok(s.ink > 1000, `${id}: canvas ${s.width}×${s.height} has only ${s.ink} drawn pixels`);
  const alt = await page.evaluate((i) => [...document.getElementById(i).shadowRoot.querySelectorAll('canvas')].map((c) => c.getAttribute('aria-label') || ''), id);
  for (const a of alt) assert.ok(a.length > 40, `${id}: every canvas has a text alternative (${a})`);
}

test('section 20 is in the table of contents, before the errata, and each of its widgets draws', async () => {
  await withPage('en/index.html', async (page) => {
    const toc = await page.evaluate(() => [...document.querySelectorAll('.toc a')].map((a) => a.getAttribute('href')));
    assert.ok(toc.indexOf('#s-fields') >= 0 && toc.indexOf('#s-fields') < toc.indexOf('#s-errata'));
    assert.equal(await page.evaluate(() => document.getElementById('w-nerf').dataset.state ?? 'none'), 'none', 'drawn only when scrolled to');
    for (const id of WIDGETS) await assertDrawn(page, id);
    const rows = await page.evaluate(() => [...document.querySelectorAll('#s-fields table.conventions tbody tr')].map((r) => r.textContent));
    for (const name of ['diffusers', 'ddpm', 'stable-diffusion', 'dit', 'mae', 'big-vision', 'nerf-paper', 'nerf-pytorch']) {
      assert.ok(rows.some((r) => r.includes(name)), `the conventions table names ${name}`);
    }
    await shot(page.locator('#s-fields'), 'section-s-fields.png');
  });
});

test('timestep: the exported table is the API\'s; the flip switch redraws as cos first, and the caption names the library', async () => {
  await withPage('en/index.html', async (page) => {
    const id = 'w-timestep';
    await assertDrawn(page, id);
    const json = await exported(page, id);
    const t = json.rows.map((r) => r[0]);
    const want = fields.timestepEmbedding(t, 32, { dtype: 'float64' });
    json.rows.forEach((r, i) => r.slice(1).forEach((x, c) => assert.equal(x, want.data[i * 32 + c])));
    assert.match(await widgetText(page, id), /DDPM and diffusers' defaults/);
    await change(page, id, { flip: 'true', shift: '0' });
    assert.match(await widgetText(page, id), /Stable Diffusion UNet and DiT/);
    const flipped = await exported(page, id);
    const dit = fields.timestepEmbedding(t, 32, { preset: 'dit', dtype: 'float64' });
    flipped.rows.forEach((r, i) => r.slice(1).forEach((x, c) => assert.equal(x, dit.data[i * 32 + c])));
  });
});

test('patch grid: each block peaks at its own patch, and the export is the API\'s cosine similarity', async () => {
  await withPage('en/index.html', async (page) => {
    const id = 'w-patch-grid';
    await assertDrawn(page, id);
    const { rows } = await exported(page, id);
    assert.equal(rows.length, 64 * 64);
    for (const [r, c, r2, c2, cos] of rows) if (r === r2 && c === c2) assert.ok(Math.abs(cos - 1) < 1e-12);
    const table = fields.sincos2d(8, 8, 64, { dtype: 'float64' });
    const code = (p) => table.data.subarray(p * 64, (p + 1) * 64);
    const norm = (a) => Math.hypot(...a);
    const [r, c, r2, c2, cos] = rows.find((x) => x[0] === 2 && x[1] === 5 && x[2] === 6 && x[3] === 1);
    const a = code(r * 8 + c);
    const b = code(r2 * 8 + c2);
    const want = a.reduce((s, x, k) => s + x * b[k], 0) / norm(a) / norm(b);
    assert.ok(Math.abs(cos - want) < 1e-12, `${cos} vs ${want}`);
  });
});

test('NeRF bands: the π switch changes the numbers exactly as the API does', async () => {
  await withPage('en/index.html', async (page) => {
    const id = 'w-nerf';
    await assertDrawn(page, id);
    const before = await exported(page, id);
    const x = before.rows.map((r) => r[0]);
    const want = fields.fourierFeatures(x, { levels: 6, pi: true, includeInput: false, dtype: 'float64' });
    before.rows.forEach((r, i) => r.slice(1).forEach((v, c) => assert.equal(v, want.data[i * 12 + c])));
    await change(page, id, { pi: 'false' });
    const after = await exported(page, id);
    assert.equal(after.rows[200][1], Math.sin(x[200]));
    assert.match(await widgetText(page, id), /leave out the π/);
  });
});

test('Chinese page: the section and the widgets speak Chinese', async () => {
  await withPage('index.html', async (page) => {
    assert.equal(await shown(page, 'w-timestep'), 'ready');
    assert.match(await widgetText(page, 'w-timestep'), /时间步/);
    assert.match(await page.locator('#h-fields').textContent(), /序列之外/);
  });
});

test('embed.html draws each new view on its own', async () => {
  for (const [view, tag] of [['timestep', 'pe-timestep'], ['patch-grid', 'pe-patch-grid'], ['nerf', 'pe-nerf']]) {
    await withPage(`embed.html?view=${view}&lang=en`, async (page) => {
      const id = await page.evaluate((t) => { const w = document.querySelector(t); w.id = 'embedded'; return w.id; }, tag);
      assert.equal(await waitRendered(page, id), 'ready', view);
      for (const s of await canvasStats(page, id)) assert.ok(s.ink > 1000, `${view}: ${s.ink}`);
      await shot(page, `embed-${view}.png`);
    });
  }
});
