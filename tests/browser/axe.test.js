// axe-core (the npm package, injected into the page as a script) on every page
// a reader sees: the tutorial in both languages at desktop and phone widths,
// light and dark, the example blog and the embed page. No serious or critical
// violation is allowed. Every lazy widget is scrolled to and drawn first, so
// the audit covers their shadow roots as they are when read. axe does not ask
// a <canvas> for a text alternative; we do: every chart, the lab's included,
// carries a label that says what it shows.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { open, waitRendered } from './harness.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let h;
before(async () => {
  h = await open();
});
after(() => h?.close());

/** Serious and critical violations on `path` at this viewport, one line each. */
async function audit(path, viewport, colorScheme = 'light') {
  // The page's CSP forbids inline scripts; only the audit's own script is let through.
  const context = await h.browser.newContext({ viewport, bypassCSP: true, colorScheme });
  const page = await context.newPage();
  page.setDefaultTimeout(20000);
  try {
    await page.goto(h.url(path));
    const ids = await page.evaluate(() => [...document.querySelectorAll('*')].filter((n) => n.localName.startsWith('pe-'))
      .map((n, k) => { n.id ||= `axe-${k}`; return n.id; }));
    for (const id of ids) {
      await page.locator(`#${id}`).scrollIntoViewIfNeeded();
      await waitRendered(page, id, 30000);
    }
    await page.addScriptTag({ content: AXE });
    const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations);
    return [...violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.impact} ${v.id} (${v.nodes.length}): ${v.help} e.g. ${v.nodes[0].target.join(' ')}`), ...await unlabelledCanvases(page)];
  } finally {
    await context.close();
  }
}

/** Canvases, in the page and in every shadow root, without a text alternative of a few words. */
function unlabelledCanvases(page) {
  return page.evaluate(() => {
    const out = [];
    const label = (c) => {
      const root = c.getRootNode();
      const by = (c.getAttribute('aria-labelledby') ?? '').split(/\s+/).filter(Boolean).map((id) => root.getElementById?.(id) ?? document.getElementById(id));
      return (c.getAttribute('aria-label') ?? '') + by.map((n) => n?.textContent ?? '').join(' ');
    };
    const walk = (root, where) => {
      for (const n of root.querySelectorAll('*')) {
        if (n.localName === 'canvas' && n.getAttribute('aria-hidden') !== 'true' && label(n).trim().length < 15) {
          out.push(`canvas without a text alternative in ${where}: "${label(n)}"`);
        }
        if (n.shadowRoot) walk(n.shadowRoot, n.id || n.localName);
      }
    };
    walk(document, 'the page');
    return out;
  });
}

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

for (const [path, viewport, name, scheme] of [
  ['index.html', DESKTOP, 'the tutorial in Chinese, desktop'],
  ['index.html', PHONE, 'the tutorial in Chinese, phone'],
  ['en/index.html', DESKTOP, 'the tutorial in English, desktop'],
  ['en/index.html', PHONE, 'the tutorial in English, phone'],
  ['index.html', DESKTOP, 'the tutorial in Chinese, desktop, dark', 'dark'],
  ['index.html', PHONE, 'the tutorial in Chinese, phone, dark', 'dark'],
  ['en/index.html', DESKTOP, 'the tutorial in English, desktop, dark', 'dark'],
  ['en/index.html', PHONE, 'the tutorial in English, phone, dark', 'dark'],
  ['examples/blog.html', DESKTOP, 'the example blog, desktop'],
  ['examples/blog.html', PHONE, 'the example blog, phone'],
  ['embed.html?view=heatmap&lang=en', DESKTOP, 'embed.html, heatmap'],
  ['embed.html?view=alibi&lang=zh', PHONE, 'embed.html, ALiBi in Chinese on a phone'],
  ['embed.html?view=nope', DESKTOP, 'embed.html showing an error'],
]) {
  test(`axe-core: no serious or critical violation on ${name} (${path})`, async () => {
    assert.deepEqual(await audit(path, viewport, scheme), []);
  });
}
