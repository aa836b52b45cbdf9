// The widgets as a blogger gets them: the packed tarball installed in a scratch
// site, a Markdown post built by a real static-site generator (Eleventy), the
// standalone bundle copied into the site by the generator, the site served under
// a strict CSP (with Trusted Types), and the post opened in headless Chromium:
// every widget must draw, and the console must stay free of errors.
/* global document -- page.evaluate callbacks run in the browser */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium } from '../scripts/chromium.mjs';
import { installPacked, run, ROOT } from './helpers/consumer.js';
import { startServer } from '../scripts/serve.js';

let dir;
let server;
let browser;

// The layout: the one script tag of docs/widgets.md, and a CSP as strict as a careful blog's.
const LAYOUT = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; require-trusted-types-for 'script'; trusted-types 'none'">
<title>{{ title }}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<script type="module" src="/js/posenc-widgets.js"></script>
</head>
<body><main><article><h1>{{ title }}</h1>
{{ content | safe }}
</article></main></body>
</html>
`;

const POST = `---
layout: post.njk
title: Positions, drawn
---
Attention has no idea of order, so the Transformer adds a **position vector** to each word.

<pe-heatmap id="heat" d-model="32" max-len="24">An interactive chart of the positional-encoding table.</pe-heatmap>

The same idea rotates queries and keys in RoPE:

<pe-rope id="rope" d-model="16" max-len="12" lang="zh"></pe-rope>

And attention weights, which are one-sided:

<pe-attention id="attn" sentence="the dog saw the cat"></pe-attention>
`;

// Copies the standalone bundle from the installed package into the built site.
const CONFIG = `export default function (eleventyConfig) {
  eleventyConfig.addPassthroughCopy({ 'node_modules/posenc/dist/posenc-widgets.js': 'js/posenc-widgets.js' });
  eleventyConfig.addPassthroughCopy({ 'src/favicon.svg': 'favicon.svg' });
  return { dir: { input: 'src', output: '_site' } };
}
`;

before(async () => {
  ({ dir } = installPacked('posenc-blog-'));
  mkdirSync(join(dir, 'src/_includes'), { recursive: true });
  mkdirSync(join(dir, 'src/posts'), { recursive: true });
  writeFileSync(join(dir, 'src/_includes/post.njk'), LAYOUT);
  writeFileSync(join(dir, 'src/posts/positions.md'), POST);
  writeFileSync(join(dir, 'eleventy.config.js'), CONFIG);
  writeFileSync(join(dir, 'src/favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>');
  run(process.execPath, [join(ROOT, 'node_modules/@11ty/eleventy/cmd.cjs'), '--quiet'], dir);
  server = await startServer({ root: join(dir, '_site') });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('Eleventy builds the post with the widgets as they were written, and copies the bundle from the package', () => {
  const html = readFileSync(join(dir, '_site/posts/positions/index.html'), 'utf8');
  assert.match(html, /<pe-heatmap id="heat" d-model="32" max-len="24">/);
  assert.match(html, /<pe-rope id="rope" d-model="16" max-len="12" lang="zh">/);
  assert.match(html, /<strong>position vector<\/strong>/);
  assert.ok(existsSync(join(dir, '_site/js/posenc-widgets.js')));
  assert.deepEqual(readFileSync(join(dir, '_site/js/posenc-widgets.js')), readFileSync(join(ROOT, 'dist/posenc-widgets.js')));
});

test('the post draws every widget under a strict CSP with Trusted Types, with no console error', async () => {
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    const response = await page.goto(new URL('posts/positions/', server.url).href);
    assert.match(response.headers()['content-security-policy'], /script-src 'self' 'wasm-unsafe-eval'/);
    for (const id of ['heat', 'rope', 'attn']) {
      await page.locator(`#${id}`).scrollIntoViewIfNeeded();
      const state = await page.waitForFunction((i) => document.getElementById(i).dataset.state, id, { timeout: 20000 }).then((h) => h.jsonValue());
      assert.equal(state, 'ready', id);
      const ink = await page.evaluate((i) => [...document.getElementById(i).shadowRoot.querySelectorAll('canvas')].map((c) => {
        const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let k = 0; k < px.length; k += 4) if (px[k + 3] && (px[k] !== px[0] || px[k + 1] !== px[1] || px[k + 2] !== px[2])) n++;
        return n;
      }), id);
      assert.ok(ink.length > 0 && ink.every((n) => n > 500), `${id} drew: ${ink}`);
    }
    // The fallback sentence inside the element is not shown once it is drawn; lang="zh" is honoured.
    assert.equal(await page.locator('#heat').evaluate((e) => e.shadowRoot.querySelector('slot')), null);
    assert.match(await page.evaluate(() => document.getElementById('rope').shadowRoot.textContent), /旋转/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
