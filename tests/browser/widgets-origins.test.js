// Issue 27, point 3: <pe-lab> trains wherever the other widgets draw. The
// bundle is served from a second origin (another loopback port, with the
// CORS header an npm CDN sends), as the docs' CDN tag loads it, and the lab is
// tried on a plain page, inside <iframe sandbox="allow-scripts">, and on a
// page whose CSP allows no blob: worker. Before the fix, Train threw an
// uncaught SecurityError (a worker must be same-origin) and nothing trained.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../scripts/serve.js';
import { launchChromium } from '../../scripts/chromium.mjs';
import { newPage } from './harness.js';

let cdn;
let plain;
let site;
let strict;
let browser;
let dir;

// A short run: two encodings, 50 steps.
const LAB = '<pe-lab id="lab" task="shift" encodings="none,rope" steps="50" d-model="16" layers="1"></pe-lab>';
// One model of 20 000 steps: many seconds of training, more than the test waits for.
const LONG_LAB = '<pe-lab id="lab" task="shift" encodings="none" steps="20000" d-model="16" layers="1"></pe-lab>';
const page = (script) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>lab</title>
<link rel="icon" href="favicon.svg" type="image/svg+xml"><script type="module" src="${script}"></script></head><body><article>${LAB}</article></body></html>`;

before(async () => {
  cdn = await startServer({ cors: true });
  plain = await startServer();
  dir = mkdtempSync(join(tmpdir(), 'posenc-origins-'));
  const bundle = new URL('posenc-widgets.js', cdn.url).href;
  writeFileSync(join(dir, 'lab.html'), page(bundle));
  writeFileSync(join(dir, 'long.html'), page(bundle).replace(LAB, LONG_LAB));
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>');
  writeFileSync(join(dir, 'framed.html'), '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>frame</title>'
    + '<link rel="icon" href="favicon.svg" type="image/svg+xml"></head>'
    + '<body><iframe sandbox="allow-scripts" src="lab.html" width="900" height="900" title="lab"></iframe></body></html>');
  for (const [name, server] of [['embed-plain.html', plain], ['embed-cors.html', cdn]]) {
    writeFileSync(join(dir, name), '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>embed</title>'
      + '<link rel="icon" href="favicon.svg" type="image/svg+xml"></head><body><iframe sandbox="allow-scripts" '
      + `src="${new URL('embed.html?view=curves&lang=en', server.url).href}" width="900" height="600" title="chart"></iframe></body></html>`);
  }
  // A blog host without a CSP of its own, and one whose CSP names the CDN but allows no blob: worker.
  site = await startServer({ root: dir, csp: null });
  strict = await startServer({ root: dir, csp: `default-src 'self'; script-src 'self' ${new URL(cdn.url).origin} 'wasm-unsafe-eval'` });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await Promise.all([cdn, plain, site, strict].map((s) => s?.close()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Presses Train in the lab of `frame` and waits for the run to end; returns its state, where it ran, and its curves. */
async function train(frame) {
  await frame.waitForFunction(() => document.getElementById('lab')?.dataset.state === 'idle');
  await frame.evaluate(() => document.getElementById('lab').shadowRoot.querySelector('button').click());
  await frame.waitForFunction(() => ['trained', 'error'].includes(document.getElementById('lab').dataset.state), null, { timeout: 180000 });
  return frame.evaluate(() => {
    const w = document.getElementById('lab');
    return { state: w.dataset.state, where: w.where, sets: w.lossChart.data.datasets.length,
      status: w.shadowRoot.querySelector('p[role=status]').textContent };
  });
}

/**
 * Opens `path` of `server` in a fresh page and runs `run` on the page, or on
 * its iframe when `framed`; the console must stay clean but for what `expected` matches.
 */
async function visit(server, path, run, { framed = false, expected = null } = {}) {
  const { context, page: p, errors } = await newPage(browser);
  try {
    await p.goto(new URL(path, server.url).href);
    await run(framed ? await (await p.waitForSelector('iframe')).contentFrame() : p);
    assert.deepEqual(errors.filter((e) => !expected?.test(e)), []);
  } finally {
    await context.close();
  }
}

test('from a CDN origin: the lab trains in a worker started from a Blob URL', { timeout: 240000 }, async () => {
  await visit(site, 'lab.html', async (p) => {
    const run = await train(p);
    assert.deepEqual({ state: run.state, where: run.where, sets: run.sets }, { state: 'trained', where: 'worker', sets: 2 }, run.status);
  });
});

test('inside <iframe sandbox="allow-scripts">: the lab trains', { timeout: 240000 }, async () => {
  await visit(site, 'framed.html', async (frame) => {
    const run = await train(frame);
    assert.deepEqual({ state: run.state, sets: run.sets }, { state: 'trained', sets: 2 }, run.status);
  }, { framed: true });
});

test('where the CSP allows no blob: worker, the page trains the models itself and says so', { timeout: 240000 }, async () => {
  // The browser reports the refused worker itself; nothing else may go wrong.
  await visit(strict, 'lab.html', async (p) => {
    const run = await train(p);
    assert.deepEqual({ state: run.state, where: run.where, sets: run.sets }, { state: 'trained', where: 'page', sets: 2 }, run.status);
    assert.match(run.status, /No background thread could start here/);
  }, { expected: /Content Security Policy|worker/i });
});

test('where the page trains, it answers while a model trains: Stop ends the run in the middle of the model', { timeout: 240000 }, async () => {
  // Before lab.trainAsync, the page trained a whole model in one task: the
  // reports could not be seen and Stop could not be pressed until its 20 000
  // steps were done, and the run then ended 'trained'.
  await visit(strict, 'long.html', async (p) => {
    await p.waitForFunction(() => document.getElementById('lab')?.dataset.state === 'idle');
    await p.evaluate(() => document.getElementById('lab').trainBtn.click());
    await p.waitForFunction(() => document.getElementById('lab').lossChart.data.datasets[0]?.data.length >= 2, null, { timeout: 180000 });
    const run = await p.evaluate(() => {
      const w = document.getElementById('lab');
      w.stopBtn.click();
      return { state: w.dataset.state, where: w.where, reports: w.lossChart.data.datasets[0].data.length };
    });
    assert.equal(run.where, 'page');
    assert.equal(run.state, 'stopped');
    assert.ok(run.reports < 20000 / 25, `${run.reports} reports of 800`);
    // the stopped trainer posts nothing more: the curves stay as they were
    await p.waitForTimeout(500);
    assert.equal(await p.evaluate(() => document.getElementById('lab').lossChart.data.datasets[0].data.length), run.reports);
  }, { expected: /Content Security Policy|worker/i });
});

test('embed.html in <iframe sandbox="allow-scripts"> says why it cannot start, and starts where the server sends CORS', { timeout: 120000 }, async () => {
  // The refused module is the browser's own console message, the reason shown in the frame.
  await visit(site, 'embed-plain.html', async (frame) => {
    await frame.waitForSelector('#embed .pe-module-notice');
    const text = await frame.locator('#embed').textContent();
    assert.match(text, /sandboxed iframe without allow-same-origin/);
    assert.match(text, /sandbox="allow-scripts allow-same-origin"/);
    assert.match(text, /沙箱 iframe/);
  }, { framed: true, expected: /CORS|Access-Control-Allow-Origin|Failed to load resource/ });
  await visit(site, 'embed-cors.html', async (frame) => {
    await frame.waitForFunction(() => document.querySelector('pe-curves')?.dataset.state === 'ready');
    assert.equal(await frame.locator('.pe-module-notice').count(), 0);
  }, { framed: true });
});
