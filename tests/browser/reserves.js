// Reserved heights of the tutorial's lazily loaded parts (every <pe-*> widget
// and every [data-module] box): how tall each is before its code has loaded
// (its reserve, with scripts off: nothing is defined or mounted) and how tall
// its content is once it has drawn, at its first render. Used by
// scripts/measure-reserves.mjs (which writes site.css's reserves) and by
// tests/browser/tutorial.test.js (which checks that they agree).
import { newPage } from './harness.js';

/** Largest allowed difference between a part's drawn height and its reserve, in CSS px. */
export const TOLERANCE = 16;
export const SIZES = [{ width: 1366, height: 900 }, { width: 390, height: 844 }];
export const PAGES = ['index.html', 'en/index.html'];

const parts = () => [...document.querySelectorAll('main *')]
  .filter((n) => n.id && (n.localName.startsWith('pe-') || n.dataset.module))
  .map((n) => n.id);

/** Height of each part before anything loads: the page with scripts off. */
export async function heightsBefore(h, path, size) {
  const context = await h.browser.newContext({ viewport: size, javaScriptEnabled: false });
  try {
    const page = await context.newPage();
    await page.goto(h.url(path));
    return await page.evaluate((ids) => Object.fromEntries(ids.map((id) => [id, document.getElementById(id).getBoundingClientRect().height])),
      await page.evaluate(parts));
  } finally {
    await context.close();
  }
}

/**
 * Scrolls once through an open page, part by part; as each has drawn
 * (data-state set, two frames later) records the height of its content,
 * without the reserve (min-height) that holds it open.
 */
export async function heightsAfter(page) {
  await page.waitForFunction(() => !document.documentElement.dataset.firstScreen, null, { timeout: 30000 });
  const after = {};
  for (const id of await page.evaluate(parts)) {
    await page.evaluate((i) => window.scrollTo(0, scrollY + document.getElementById(i).getBoundingClientRect().top - 80), id);
    await page.waitForFunction((i) => document.getElementById(i).dataset.state, id, { timeout: 30000 });
    after[id] = await page.evaluate((i) => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => {
      const node = document.getElementById(i);
      node.style.minHeight = '0px';
      const height = node.getBoundingClientRect().height;
      node.style.minHeight = '';
      ok(height);
    }))), id);
  }
  return after;
}

/** [{ id, before, after }] in page order; `after` as heightsAfter measured them. */
export const compare = (before, after) => Object.keys(after).map((id) => ({ id, before: before[id], after: after[id] }));

/** The rows of compare() for one page at one viewport size, and the page's console errors. */
export async function measure(h, path, size) {
  const before = await heightsBefore(h, path, size);
  const { context, page, errors } = await newPage(h.browser, size);
  try {
    await page.goto(h.url(path));
    return { rows: compare(before, await heightsAfter(page)), errors };
  } finally {
    await context.close();
  }
}
