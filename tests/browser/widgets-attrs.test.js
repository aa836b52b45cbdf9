// Issue 27, point 7: a documented attribute value always draws. For every
// element, every attribute of its spec is set alone to its smallest allowed
// value, its largest, and each of its words, and the element must reach
// "ready" (the lab: "idle"). Combinations the API refuses must be refused by
// the attribute check, with a message naming the attribute. Before the fix
// <pe-relative num-buckets="1"> showed "numBuckets must be at least 4", and
// six more documented values failed the same way. embed.html passes
// attr-<name> for every attribute, lang included.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, newPage, withPage } from './harness.js';
import { readFileSync } from 'node:fs';
import { WIDGETS } from '../../web/widgets/index.js';
import initVariants from '../../web/lib/variants/index.js';

let h;
before(async () => { h = await open(); });
after(() => h?.close());

// Elements that draw nothing without input of the reader's get it with every
// case: <pe-model> a published config.json with layer types and per-layer RoPE
// (Gemma 3), and its layer-type menu's words are that config's layer types, as
// ropeFromConfig reads them.
const GEMMA = readFileSync(new URL('../fixtures/configs/gemma-3-4b.json', import.meta.url), 'utf8');
const INPUT = { 'pe-model': { config: GEMMA } };
const WORDS = { 'pe-model': { 'layer-type': [...new Set((await initVariants()).ropeFromConfig(JSON.parse(GEMMA)).layerTypes)] } };

/** The smallest number a `num` spec takes: just above its bound. */
const justAbove = (x) => x + 1e-9 * Math.max(1, Math.abs(x));

/** [tag, attrs] cases: each attribute alone at its documented ends and words. */
function cases() {
  const out = [];
  for (const [tag, cls] of Object.entries(WIDGETS)) {
    for (const [name, s] of Object.entries(cls.spec)) {
      const values = WORDS[tag]?.[name] ?? {
        int: () => [s.min, s.max - (s.max % (s.multiple ?? 1))],
        num: () => [justAbove(s.above), s.max],
        oneOf: () => s.values,
        words: () => s.values,
        bool: () => ['true', 'false'],
      }[s.kind]?.() ?? [];
      for (const v of values) out.push([tag, { ...INPUT[tag], [name]: String(v) }]);
    }
  }
  return out;
}

/** Draws each case on one page (one element at a time); returns [tag, attrs, state, error] for every case. */
function sweep(page, list) {
  return page.evaluate(async (all) => {
    const results = [];
    for (const [tag, attrs] of all) {
      const w = document.createElement(tag);
      for (const [k, v] of Object.entries(attrs)) w.setAttribute(k, v);
      const rendered = new Promise((resolve) => {
        w.addEventListener('pe-render', (e) => resolve(e.detail), { once: true });
        setTimeout(() => resolve({ state: 'no pe-render' }), 30000);
      });
      document.querySelector('article').append(w);
      w.scrollIntoView();
      const { state, error } = await rendered;
      results.push([tag, attrs, state, error ?? '']);
      w.remove();
    }
    return results;
  }, list);
}

test('every documented minimum, maximum and word of every element draws', { timeout: 600000 }, async () => {
  const all = cases();
  assert.ok(all.length > 150, `${all.length} cases`);
  const { context, page, errors } = await newPage(h.browser);
  try {
    await page.goto(h.url('examples/blog.html'));
    const results = await sweep(page, all);
    const failed = results.filter(([tag, , state]) => state !== (tag === 'pe-lab' ? 'idle' : 'ready'));
    assert.deepEqual(failed.map(([tag, attrs, state, error]) => `<${tag} ${JSON.stringify(attrs)}>: ${state} ${error}`), []);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('combinations of documented values draw, adjusted with a note where one limits another', async () => {
  const drawn = [
    ['pe-rope', { 'd-model': '4', scaling: 'ntk' }],
    ['pe-rope', { factor: '0.001', scaling: 'linear' }],
    ['pe-relative', { 'num-buckets': '4', 'max-distance': '1', bidirectional: 'false' }],
    ['pe-relative', { 'max-distance': '1' }],
    ['pe-timestep', { 'max-period': '1', shift: '0', 'd-model': '4' }],
    ['pe-heatmap', { preset: 'tf-tutorial', 'd-model': '2' }],
  ];
  const { context, page, errors } = await newPage(h.browser);
  try {
    await page.goto(h.url('examples/blog.html'));
    const results = await sweep(page, drawn);
    assert.deepEqual(results.filter(([, , state]) => state !== 'ready'), []);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('combinations the API refuses are refused by the attribute, naming it and what it allows', async () => {
  const refused = [
    ['pe-heatmap', { preset: 'tf-tutorial', 'd-model': '5' }, /d-model must be even with preset tf-tutorial; got 5/],
    ['pe-rope', { 'd-model': '7' }, /d-model must be a multiple of 2; got 7/],
    ['pe-rope', { 'd-model': '2', scaling: 'ntk' }, /d-model must be at least 4 with scaling="ntk"; got 2/],
    ['pe-rope', { factor: '1e-9' }, /factor must be at least 0.001; got 1e-9/],
  ];
  const { context, page, errors } = await newPage(h.browser);
  try {
    await page.goto(h.url('examples/blog.html'));
    const results = await sweep(page, refused.map(([tag, attrs]) => [tag, attrs]));
    results.forEach(([tag, , state, error], i) => {
      assert.equal(state, 'error', tag);
      assert.match(error, refused[i][2]);
      assert.doesNotMatch(error, /RangeError|dModel/, 'the message names the attribute, not the API parameter');
    });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('embed.html: attr-<name> works for every attribute, lang included', async () => {
  await withPage(h, 'embed.html?view=circles&attr-view=single&attr-lang=zh&lang=en', async (page) => {
    await page.waitForFunction(() => document.querySelector('pe-circles')?.dataset.state);
    const w = await page.evaluate(() => {
      const el = document.querySelector('pe-circles');
      return { view: el.getAttribute('view'), lang: el.getAttribute('lang'), state: el.dataset.state, title: el.shadowRoot.querySelector('.title').textContent };
    });
    assert.deepEqual({ view: w.view, lang: w.lang, state: w.state }, { view: 'single', lang: 'zh', state: 'ready' });
    assert.match(w.title, /[\u4e00-\u9fff]/);
  });
  await withPage(h, 'embed.html?view=heatmap&attr-lang=fr', async (page) => {
    const msg = await page.locator('#embed .err').textContent();
    assert.match(msg, /attr-lang must be one of: en, zh; got "fr"/);
  });
});

test('<pe-circles> Play moves on from the position drawn, and leaves an invalid pos and its error alone (nineteenth pass)', async () => {
  // Play read the attribute with Number(): pos="0x10" became 17 and "1e2" 103 on the next tick, and "abc" was written
  // back as "NaN", which the error then quoted instead of what was written.
  await withPage(h, 'examples/blog.html', async (page) => {
    const seen = await page.evaluate(async () => {
      const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
      const w = document.createElement('pe-circles');
      w.setAttribute('pos', '5');
      document.querySelector('article').prepend(w);
      w.scrollIntoView();
      await new Promise((resolve) => w.addEventListener('pe-render', resolve, { once: true }));
      w.play.click();
      await sleep(450);
      const moved = Number(w.getAttribute('pos'));
      const out = [moved > 5 && moved < 9];
      for (const bad of ['abc', '0x10', '1e2']) {
        w.setAttribute('pos', bad);
        await sleep(800);
        out.push([w.getAttribute('pos'), w.dataset.state]);
      }
      w.play.click();
      return out;
    });
    assert.deepEqual(seen, [true, ['abc', 'error'], ['0x10', 'error'], ['1e2', 'error']]);
  });
});

test('a lang note quotes the attribute by its first 99 characters (nineteenth pass)', async () => {
  // A lang of 10^7 characters was quoted whole: a 10 MB note took 1.3 s to lay out.
  await withPage(h, 'examples/blog.html', async (page) => {
    const text = await page.evaluate(async () => {
      const w = document.createElement('pe-heatmap');
      w.setAttribute('lang', 'x'.repeat(10 ** 6));
      document.querySelector('article').prepend(w);
      w.scrollIntoView();
      await new Promise((resolve) => w.addEventListener('pe-render', resolve, { once: true }));
      return w.shadowRoot.textContent;
    });
    assert.match(text, new RegExp(`lang must be one of: en, zh; got "${'x'.repeat(99)}…"`));
    assert.ok(text.length < 2000, `${text.length} characters`);
  });
});

test('<pe-toy-attention> codes are JSON numbers and position-codes decimal numbers (nineteenth pass)', async () => {
  // codes read each value with Number(): the strings "0x10" and "" were 16 and 0, true 1, null 0 and [7] 7;
  // position-codes read "0x10" as 16 and "0b1" as 1. Each is the attribute's error now.
  await withPage(h, 'examples/blog.html', async (page) => {
    const seen = await page.evaluate(async () => {
      const out = [];
      const cases = [['codes', '{"我":"0x10"}'], ['codes', '{"我":""}'], ['codes', '{"我":true}'], ['codes', '{"我":null}'], ['codes', '{"我":[7]}'],
        ['position-codes', '0x10,1'], ['position-codes', '1,0b1'], ['position-codes', '0o7'], ['codes', '{"我":1.5,"打":-2e0}'], ['position-codes', '+1, .5 ,2e1']];
      for (const [name, value] of cases) {
        const w = document.createElement('pe-toy-attention');
        w.setAttribute('pe', 'custom');
        w.setAttribute(name, value);
        document.querySelector('article').prepend(w);
        w.scrollIntoView();
        await new Promise((resolve) => w.addEventListener('pe-render', resolve, { once: true }));
        out.push(w.dataset.state);
        w.remove();
      }
      return out;
    });
    assert.deepEqual(seen, [...Array(8).fill('error'), 'ready', 'ready']);
  });
});
