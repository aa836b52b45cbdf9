// Shared set-up for the browser suites: Debian's chromium through playwright-core,
// the site served in-process by scripts/serve.js (with its strict CSP), console
// and page errors collected per page, and canvas pixel probes.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { startServer, ROOT } from '../../scripts/serve.js';
import { launchChromium } from '../../scripts/chromium.mjs';

export const SHOTS = new URL('../../dist/screenshots/', import.meta.url).pathname;

/**
 * Saves a screenshot (a page or a locator) into dist/screenshots for people to
 * look at; no test reads it. A full-page shot of the tutorial at phone width
 * took over 15 s (the default limit) beside two CPU hogs, so shots get two
 * minutes: a slow machine must not turn a picture into a failure.
 */
export const shot = (target, name, options = {}) => target.screenshot({ path: `${SHOTS}${name}`, timeout: 120000, ...options });

/** Starts the server and the browser; call close() in after(). */
export async function open() {
  if (!existsSync(`${ROOT}/index.html`)) throw new Error('dist/web is missing: run node scripts/build-site.mjs first');
  await mkdir(SHOTS, { recursive: true });
  const server = await startServer();
  const browser = await launchChromium();
  return {
    server,
    browser,
    url: (path) => new URL(path, server.url).href,
    async close() {
      await browser.close().catch(() => {});
      await server.close();
    },
  };
}

/**
 * A fresh context and page whose console errors and page errors land in `errors`;
 * options other than the size go to the context (javaScriptEnabled, colorScheme, ...).
 */
export async function newPage(browser, { width = 1280, height = 800, ...contextOptions } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, acceptDownloads: true, ...contextOptions });
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('dialog', (d) => { errors.push(`dialog: ${d.message()}`); d.dismiss().catch(() => {}); });
  return { context, page, errors };
}

/** Waits until the widget with this id has rendered (or failed); returns its state. */
export function waitRendered(page, id, timeout = 15000) {
  return page.waitForFunction((i) => document.getElementById(i)?.dataset.state, id, { timeout }).then((h) => h.jsonValue());
}

/**
 * Pixel statistics of every canvas inside a widget's shadow root: how many
 * pixels differ from the top-left (background) pixel, and a cheap hash of all.
 */
export function canvasStats(page, id) {
  return page.evaluate((i) => {
    const host = document.getElementById(i);
    return [...host.shadowRoot.querySelectorAll('canvas')].map((c) => {
      if (!c.width || !c.height) return { width: 0, height: 0, ink: 0, hash: 0 };
      const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let ink = 0;
      let hash = 0;
      for (let k = 0; k < px.length; k += 4) {
        const opaque = px[k + 3] > 0;
        const bg = px[k] === px[0] && px[k + 1] === px[1] && px[k + 2] === px[2] && px[k + 3] === px[3];
        if (opaque && !bg) ink++;
        hash = (Math.imul(hash, 31) + px[k] + 7 * px[k + 1] + 13 * px[k + 2]) | 0;
      }
      return { width: c.width, height: c.height, ink, hash };
    });
  }, id);
}

/** Text of a widget's shadow root (what a reader sees, including captions). */
export function widgetText(page, id) {
  return page.evaluate((i) => document.getElementById(i).shadowRoot.textContent, id);
}

/** Opens `path` in a fresh context (newPage's options); `run(page)` does the checks; the console must stay clean. */
export async function withPage(h, path, run, options) {
  const { context, page, errors } = await newPage(h.browser, options);
  try {
    await page.goto(h.url(path));
    await run(page);
    assert.deepEqual(errors, [], 'console errors');
  } finally {
    await context.close();
  }
}

/**
 * Adds a widget to the page's <article> the way a blogger would write it and
 * scrolls to it; returns its id. Playwright does the scrolling: an in-page
 * scrollIntoView() right after load was sometimes undone (scrollY back to 0),
 * and a lazy widget that is never seen never draws.
 */
export async function addWidget(page, tag, attrs = {}) {
  const id = await page.evaluate(([t, a]) => {
    const w = document.createElement(t);
    w.id = `added-${document.querySelectorAll('[id^=added-]').length}`;
    for (const [k, v] of Object.entries(a)) w.setAttribute(k, v);
    document.querySelector('article').append(w);
    return w.id;
  }, [tag, attrs]);
  await page.locator(`#${id}`).scrollIntoViewIfNeeded();
  return id;
}

/** The error a widget shows in place. */
export function errorText(page, id) {
  return page.evaluate((i) => document.getElementById(i).shadowRoot.querySelector('.err').textContent, id);
}
