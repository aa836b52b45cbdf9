// The "Beyond 2017" part of the tutorial and its widgets (<pe-rope>, <pe-alibi>,
// <pe-precision>, <pe-relative>, <pe-learned>, <pe-binary>) in headless Chromium
// under the strict CSP: drawn lazily, redrawn in place, bilingual, standalone,
// errors in place, and the numbers they show and export equal the API's in Node.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { open, waitRendered, canvasStats, widgetText, withPage as withPageIn, addWidget, errorText, shot } from './harness.js';
import { init } from '../../web/lib/variants/index.js'; // these widgets' numbers are all the variants'

const SECTIONS = ['s-beyond', 's-rope', 's-models', 's-alibi', 's-relative', 's-learned', 's-binary', 's-precision'];
const TAGS = ['pe-rope', 'pe-alibi', 'pe-precision', 'pe-relative', 'pe-learned', 'pe-binary'];

let h;
let api;
before(async () => {
  [h, api] = await Promise.all([open(), init()]);
});
after(() => h?.close());
const withPage = (path, run) => withPageIn(h, path, run);

const renders = (page, id) => page.evaluate((i) => document.getElementById(i).renders, id);
const waitMoreRenders = (page, id, n) =>
  page.waitForFunction(([i, k]) => document.getElementById(i).renders > k, [id, n], { timeout: 10000 });
const exported = (page, id) => page.evaluate((i) => JSON.parse(JSON.stringify(document.getElementById(i).exportData())), id);
const shown = async (page, id) => {
  await page.locator(`#${id}`).scrollIntoViewIfNeeded();
  return waitRendered(page, id);
};

/** Clicks a widget's export button and returns the downloaded bytes. */
async function download(page, id, label) {
  const [dl] = await Promise.all([
    page.waitForEvent('download', { timeout: 10000 }),
    page.locator(`#${id} .export button`, { hasText: label }).click(),
  ]);
  return readFile(await dl.path());
}

test('the new part is drawn lazily: nothing below the first screen renders before it is scrolled to', async () => {
  await withPage('en/index.html', async (page) => {
    await page.waitForFunction(() => document.documentElement.dataset.firstChartMs);
    const states = await page.evaluate(() => ['w-rope', 'w-alibi', 'w-precision'].map((i) => document.getElementById(i).dataset.state ?? 'none'));
    assert.deepEqual(states, ['none', 'none', 'none']);
    assert.equal(await shown(page, 'w-alibi'), 'ready');
  });
});

test('every new section renders non-blank charts with text alternatives; screenshots saved', async () => {
  await withPage('en/index.html', async (page) => {
    await page.evaluate(() => { document.getElementById('controls').style.position = 'static'; });
    const toc = await page.evaluate(() => [...document.querySelectorAll('.toc a')].map((a) => a.getAttribute('href')));
    for (const id of SECTIONS) assert.ok(toc.includes(`#${id}`), `${id} is in the table of contents`);
    // The sections of the first part come first, then the new part, in order and together.
    const order = await page.evaluate(() => [...document.querySelectorAll('main > section')].map((s) => s.id));
    const at = order.indexOf(SECTIONS[0]);
    assert.ok(at > order.indexOf('s-conventions'));
    assert.deepEqual(order.slice(at, at + SECTIONS.length), SECTIONS);
    for (const id of SECTIONS) {
      const section = page.locator(`#${id}`);
      await section.scrollIntoViewIfNeeded();
      const widgets = await page.evaluate((s) => [...document.querySelectorAll(`#${s} [id^=w-]`)].map((w) => w.id), id);
      if (id !== 's-beyond') assert.ok(widgets.length > 0, `${id} has a widget`);
      for (const w of widgets) {
        assert.equal(await shown(page, w), 'ready', `${w} rendered`);
        const stats = await canvasStats(page, w);
        assert.ok(stats.length > 0, `${w} has a canvas`);
        for (const s of stats) assert.ok(s.ink > 1000, `${w}: canvas ${s.width}×${s.height} has only ${s.ink} drawn pixels`);
        const alt = await page.evaluate((i) => [...document.getElementById(i).shadowRoot.querySelectorAll('canvas')].map((c) => c.getAttribute('aria-label') || ''), w);
        for (const a of alt) assert.ok(a.length > 40, `${w}: every canvas has a text alternative (${a})`);
        const labels = await page.evaluate((i) => [...document.getElementById(i).shadowRoot.querySelectorAll('input, select')]
          .filter((c) => c.offsetParent !== null).map((c) => c.closest('label')?.textContent.trim() || c.getAttribute('aria-label') || ''), w);
        for (const l of labels) assert.ok(l.length > 0, `${w}: every control has a label`);
      }
      await shot(section, `section-${id}.png`);
    }
  });
});

test('RoPE: changing the scaling redraws the same charts; q·k is constant along diagonals in the exported JSON', async () => {
  await withPage('en/index.html', async (page) => {
    const id = 'w-rope';
    assert.equal(await shown(page, id), 'ready');
    const json = JSON.parse((await download(page, id, 'JSON')).toString());
    assert.equal(json.name, 'pe-rope');
    const n = json.rows.length;
    assert.equal(n, 48);
    const s = (m, k) => json.rows[m][k + 1];
    let spread = 0;
    let between = 0;
    for (let diff = -(n - 1); diff < n; diff++) {
      const diag = [];
      for (let m = Math.max(0, diff); m < Math.min(n, n + diff); m++) diag.push(s(m, m - diff));
      spread = Math.max(spread, Math.max(...diag) - Math.min(...diag));
      between = Math.max(between, Math.abs(diag[0] - s(0, 0)));
    }
    assert.ok(spread < 1e-9, `each diagonal is constant (spread ${spread})`);
    assert.ok(between > 1, `the diagonals differ from each other (${between}): the check is not vacuous`);
    const csv = (await download(page, id, 'CSV')).toString().trim().split('\n');
    assert.equal(csv.length, 49);
    assert.match(csv[0], /^m,n0,n1,/);
    const png = await download(page, id, 'PNG');
    assert.deepEqual([...png.subarray(1, 4)], [0x50, 0x4e, 0x47]);

    const before = await canvasStats(page, id);
    await page.evaluate((i) => { const w = document.getElementById(i); window.__charts = [w.heat.chart, w.pairChart, w.freqChart]; }, id);
    const r = await renders(page, id);
    await page.locator(`#${id} select`).first().selectOption('linear');
    await waitMoreRenders(page, id, r);
    assert.equal(await page.evaluate((i) => document.getElementById(i).getAttribute('scaling'), id), 'linear');
    const after = await canvasStats(page, id);
    for (const k of [0, 2]) assert.notEqual(after[k].hash, before[k].hash, `canvas ${k} changed`);
    const same = await page.evaluate((i) => { const w = document.getElementById(i); return [w.heat.chart, w.pairChart, w.freqChart].every((c, k) => c === window.__charts[k]); }, id);
    assert.equal(same, true, 'the same Chart objects were updated');
    // Linear scaling by 4 divides every θ_i by 4: the caption says so, from the API.
    assert.match(await widgetText(page, id), /θ_0 is 0\.25 times the unscaled one and the last θ is 0\.25 times/);
    // Still Toeplitz after scaling.
    const scaled = await exported(page, id);
    assert.ok(Math.abs(scaled.rows[10][1 + 3] - scaled.rows[20][1 + 13]) < 1e-9);
    assert.ok(Math.abs(scaled.rows[10][1 + 3] - json.rows[10][1 + 3]) > 1e-6, 'scaling changed the scores');
    // Both pairings agree once q is permuted, and not without.
    assert.match(await widgetText(page, id), /to within 0; without the permutation the two differ by up to [1-9]/);
    // The pair chart plots the columns each pairing rotates together: i and i + d/2 (half), 2i and 2i + 1.
    const pairDims = () => page.evaluate((i) => document.getElementById(i).pairChart.data.datasets
      .map((set) => set.label.match(/pair (\d+) \(dims (\d+), (\d+)\)/).slice(1).map(Number)), id);
    const half = await pairDims();
    const d = 2 * (half.at(-1)[0] + 1);
    assert.ok(half.length >= 3 && half.every(([i, a, b]) => a === i && b === i + d / 2), JSON.stringify(half));
    const r2 = await renders(page, id);
    await page.locator(`#${id} select`).filter({ has: page.locator('option[value=interleaved]') }).selectOption('interleaved');
    await waitMoreRenders(page, id, r2);
    const inter = await pairDims();
    assert.ok(inter.every(([i, a, b]) => a === 2 * i && b === 2 * i + 1), JSON.stringify(inter));
  });
});

test('ALiBi: slopes 1/2 … 1/256 for 8 heads, bias equal to the API, head slider works from the keyboard', async () => {
  await withPage('en/index.html', async (page) => {
    const id = 'w-alibi';
    assert.equal(await shown(page, id), 'ready');
    const cells = await page.evaluate((i) => [...document.getElementById(i).shadowRoot.querySelectorAll('table.slopes tbody tr:first-child td')].map((c) => c.textContent), id);
    assert.deepEqual(cells, ['1/2', '1/4', '1/8', '1/16', '1/32', '1/64', '1/128', '1/256']);
    const json = JSON.parse((await download(page, id, 'JSON')).toString());
    const ref = api.alibiBias(8, 24, { dtype: 'float64' });
    assert.deepEqual([...new Set(json.rows.map((r) => r[1]))], Array.from(ref.slopes));
    assert.deepEqual(Array.from(ref.slopes), [1, 2, 3, 4, 5, 6, 7, 8].map((k) => 2 ** -k));
    for (const [head, slope, i, ...row] of json.rows) {
      row.forEach((b, j) => {
        const want = ref.data[((head - 1) * 24 + i) * 24 + j];
        assert.equal(b, want === -Infinity ? null : want, `head ${head} (${slope}) i ${i} j ${j}`);
      });
    }
    const before = await canvasStats(page, id);
    await page.evaluate((i) => { window.__chart = document.getElementById(i).heat.chart; }, id);
    const r = await renders(page, id);
    await page.locator(`#${id} input[type=range]`).focus();
    await page.keyboard.press('ArrowRight');
    await waitMoreRenders(page, id, r);
    assert.equal(await page.evaluate((i) => document.getElementById(i).getAttribute('head'), id), '2');
    assert.notEqual((await canvasStats(page, id))[0].hash, before[0].hash, 'the heatmap shows head 2');
    assert.equal(await page.evaluate((i) => window.__chart === document.getElementById(i).heat.chart, id), true);
    assert.match(await widgetText(page, id), /Head 2 of 8, slope m = 1\/4/);
    // Six heads: not a power of two, Press et al.'s interleaving.
    await page.evaluate((i) => document.getElementById(i).setAttribute('heads', '6'), id);
    await page.waitForFunction((i) => document.getElementById(i).shadowRoot.textContent.includes('6 is not a power of two'), id);
    const six = await page.evaluate((i) => [...document.getElementById(i).shadowRoot.querySelectorAll('table.slopes tbody tr:first-child td')].map((c) => c.textContent), id);
    assert.deepEqual(six, Array.from(api.alibiSlopes(6), (m) => `1/${1 / m}`));
    assert.deepEqual(six, ['1/4', '1/16', '1/64', '1/256', '1/2', '1/8']);
  });
});

test('relative positions, learned table, binary counter and precision show the API\'s numbers', async () => {
  await withPage('en/index.html', async (page) => {
    assert.equal(await shown(page, 'w-t5'), 'ready');
    const t5 = await exported(page, 'w-t5');
    const ref = api.t5BucketMatrix(48);
    assert.deepEqual(t5.rows.flatMap((r) => r.slice(1)), Array.from(ref.data));
    assert.match(await widgetText(page, 'w-t5'), /distances 0 to 7 get a bucket each/);
    assert.equal(await shown(page, 'w-shaw'), 'ready');
    const shaw = await exported(page, 'w-shaw');
    assert.deepEqual(shaw.rows.flatMap((r) => r.slice(1)), Array.from(api.shawClip(24, { maxRelativePosition: 4 }).data));
    assert.deepEqual(shaw.rows[0].slice(1, 8), [0, 1, 2, 3, 4, 4, 4]);

    assert.equal(await shown(page, 'w-learned'), 'ready');
    let message = '';
    try {
      api.learnedRows([32], 32, 32, { dtype: 'float64' });
    } catch (e) {
      message = `${e.name}: ${e.message}`;
    }
    assert.match(message, /no row exists past the trained length/);
    assert.ok((await widgetText(page, 'w-learned')).includes(message), 'the API\'s RangeError is shown as it is');
    // A row that exists is shown instead, without an error.
    const r = await renders(page, 'w-learned');
    await page.locator('#w-learned input[type=number]').nth(1).fill('31');
    await waitMoreRenders(page, 'w-learned', r);
    const text = await widgetText(page, 'w-learned');
    assert.doesNotMatch(text, /RangeError/);
    assert.match(text, /Row 31 exists; it starts -?\d/);
    const table = await exported(page, 'w-learned');
    assert.deepEqual(table.rows[31].slice(1), Array.from(api.learnedRows([31], 32, 32, { dtype: 'float64' }).data));

    assert.equal(await shown(page, 'w-binary'), 'ready');
    const bin = await exported(page, 'w-binary');
    const bits = api.binaryTable(64, 8, { dtype: 'float64' });
    assert.deepEqual(bin.rows.flatMap((row) => row.slice(1, 9)), Array.from(bits.data));
    assert.deepEqual(bin.rows[6].slice(1, 9), [0, 1, 1, 0, 0, 0, 0, 0], '6 = 011 LSB first');
    assert.match(await widgetText(page, 'w-binary'), /from 31 to 32, 6 bits flip at once/);

    assert.equal(await shown(page, 'w-precision'), 'ready');
    const prec = await exported(page, 'w-precision');
    const positions = prec.rows.map((row) => row[0]);
    assert.ok(positions.includes(10000) && positions.includes(65520));
    prec.header.slice(1).forEach((name, c) => {
      const [format, mode] = name.split('_');
      const want = api.precisionError(128, { positions, format, mode });
      prec.rows.forEach((row, k) => assert.equal(row[c + 1], Number.isFinite(want[k]) ? want[k] : null, `${name} at ${row[0]}`));
    });
    const at = (p, name) => prec.rows.find((row) => row[0] === p)[prec.header.indexOf(name)];
    // Angles in float16 overflow at 65520; a rounded result never does; the angle error grows with position.
    assert.equal(at(65520, 'float16_angle'), null);
    assert.ok(at(65520, 'float16_result') < 1e-3);
    assert.ok(at(10000, 'float32_angle') > 100 * at(10000, 'float32_result'));
    const [r1, r2, r3] = api.roundTo([65519, 65520, 40001], 'float16');
    assert.deepEqual([r1, r2, r3], [65504, Infinity, 40000]);
    assert.match(await widgetText(page, 'w-precision'), /65519 rounds to 65504 and 65520 to Infinity.*40001 becomes 40000/);
    // The y axis is logarithmic.
    assert.equal(await page.evaluate(() => document.getElementById('w-precision').chart.scales.y.type), 'logarithmic');
  });
});

test('the new prose and the new widgets are in the page\'s language', async () => {
  await withPage('en/index.html', async (page) => {
    assert.equal(await shown(page, 'w-rope'), 'ready');
    const title = () => page.evaluate(() => document.getElementById('w-rope').shadowRoot.querySelector('.title').textContent);
    assert.match(await title(), /^RoPE: rotate q and k/);
    assert.match(await page.locator('#s-alibi p').first().textContent(), /Attention with Linear Biases/);
  });
  await withPage('index.html', async (page) => {
    const prose = () => page.locator('#s-alibi p').first().textContent();
    await shown(page, 'w-rope');
    await page.waitForFunction(() => document.getElementById('w-rope').shadowRoot.querySelector('.title').textContent.startsWith('RoPE：旋转'));
    assert.match(await prose(), /斜率/);
    for (const id of ['w-alibi', 'w-precision', 'w-t5', 'w-learned', 'w-binary']) {
      await shown(page, id);
      await page.waitForFunction((i) => document.getElementById(i).language === 'zh', id);
      const cjk = ((await widgetText(page, id)).match(/[\u4e00-\u9fff]/g) || []).length;
      assert.ok(cjk > 30, `${id} speaks Chinese (${cjk} CJK characters)`);
    }
    assert.equal(await page.locator('.en').count(), 0, 'no English prose on the Chinese page');
    assert.match(await widgetText(page, 'w-learned'), /API 的回答是：\s?RangeError: posenc\.learnedRows/);
    await shot(page.locator('#s-precision'), 'section-s-precision-zh.png');
  });
});

test('each new widget works standalone from the one blog script, several per page', async () => {
  await withPage('examples/blog.html', async (page) => {
    const ids = [];
    for (const tag of TAGS) {
      const id = await addWidget(page, tag, { lang: 'en' });
      ids.push(id);
      assert.equal(await waitRendered(page, id), 'ready', `${tag} rendered`);
      for (const s of await canvasStats(page, id)) assert.ok(s.ink > 1000, `${tag} drawn`);
      await shot(page.locator(`#${id}`), `standalone-${tag}.png`);
    }
    // A second <pe-alibi> with other attributes is independent of the first.
    const other = await addWidget(page, 'pe-alibi', { heads: '4', mode: 'symmetric', lang: 'zh' });
    assert.equal(await waitRendered(page, other), 'ready');
    assert.match(await widgetText(page, other), /4 个头中的第 1 个，斜率 m = 1\/4/);
    assert.match(await widgetText(page, ids[1]), /Head 1 of 8, slope m = 1\/2/);
  });
});

test('bad attributes show an error in place, clamped ones a note; fixing them recovers', async () => {
  await withPage('examples/blog.html', async (page) => {
    const odd = await addWidget(page, 'pe-rope', { 'd-model': '7' });
    assert.equal(await waitRendered(page, odd), 'error');
    assert.match(await errorText(page, odd), /d-model must be a multiple of 2; got 7/);
    assert.equal(await page.evaluate((i) => document.getElementById(i).canvases().length, odd), 0);
    const word = await addWidget(page, 'pe-precision', { base: 'ten', lang: 'zh' });
    assert.equal(await waitRendered(page, word), 'error');
    assert.match(await errorText(page, word), /base 必须是数字/);
    const zero = await addWidget(page, 'pe-alibi', { heads: '0' });
    assert.equal(await waitRendered(page, zero), 'error');
    assert.match(await errorText(page, zero), /heads must be at least 1; got 0/);
    const kind = await addWidget(page, 'pe-relative', { kind: 't6' });
    assert.equal(await waitRendered(page, kind), 'error');
    assert.match(await errorText(page, kind), /kind must be one of: t5, shaw; got "t6"/);
    const few = await addWidget(page, 'pe-relative', { 'num-buckets': '2' });
    assert.equal(await waitRendered(page, few), 'error');
    assert.match(await errorText(page, few), /num-buckets must be at least 4; got 2/);
    const scaling = await addWidget(page, 'pe-rope', { scaling: 'ntk', factor: '-2' });
    assert.equal(await waitRendered(page, scaling), 'error');
    assert.match(await errorText(page, scaling), /factor must be at least 0.001; got -2/);
    // Too large is clamped with a visible note, and drawn.
    const big = await addWidget(page, 'pe-alibi', { heads: '8', head: '12', 'max-len': '9999' });
    assert.equal(await waitRendered(page, big), 'ready');
    const text = await widgetText(page, big);
    assert.match(text, /head = 12 is more than this view draws; using 8/);
    assert.match(text, /max-len = 9999 is more than this view draws; using 256/);
    const wrap = await addWidget(page, 'pe-binary', { bits: '4', 'max-len': '40' });
    assert.equal(await waitRendered(page, wrap), 'ready');
    assert.match(await widgetText(page, wrap), /max-len = 40 is more than 2\^4 = 16/);
    // Fixing an attribute brings the charts back.
    await page.locator(`#${odd}`).scrollIntoViewIfNeeded(); // off-screen widgets wait until seen
    await page.evaluate((i) => document.getElementById(i).setAttribute('d-model', '8'), odd);
    await page.waitForFunction((i) => document.getElementById(i).dataset.state === 'ready', odd);
    for (const s of await canvasStats(page, odd)) assert.ok(s.ink > 1000);
  });
});
