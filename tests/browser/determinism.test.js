// Determinism: the same calls give byte-identical results in Node and in
// Chromium. A tiny node:http server (127.0.0.1, random port) serves the repo
// root and a test page under the strict CSP; the page's module script imports
// /web/lib/index.js and /web/lib/variants/index.js as native ES modules (no
// bundler: this also proves the unbundled sources load in a browser), runs a
// set of configurations and reports the SHA-256 (crypto.subtle) of each
// result's bytes. Node computes the same digests with node:crypto; they must
// be equal.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../../scripts/chromium.mjs';
import { init } from '../../web/lib/index.js';
import { init as initVariants } from '../../web/lib/variants/index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";

// One module, run by Node (from a data: URL) and by the page (served below).
// Each configuration gets the core API (pe) and the variants' (pv).
// Inputs are exact rationals, never Math.sin and friends: JS engines do not
// agree on those (Node 20 and Chromium 156 differ in the last bit of
// Math.sin(n) for 22 of the integers below 703), and the point here is the
// WebAssembly core, whose libm is compiled in.
const CONFIGS = String.raw`
const mk = (rows, cols, f) => ({ rows, cols, data: Float64Array.from({ length: rows * cols }, (_, i) => f(i)) });
const wave = (i, k) => (((i * k) % 29) - 14) / 8;
export const configs = [
  ['table 64x64 vaswani float32', (pe) => pe.table(64, 64)],
  ['table 100x33 fairseq float64', (pe) => pe.table(100, 33, { preset: 'fairseq', dtype: 'float64' })],
  ['table 16x512 offset 1e6', (pe) => pe.table(16, 512, { offset: 1e6, dtype: 'float64' })],
  ['table 300x128 marian base 500 offset -7.25', (pe) => pe.table(300, 128, { preset: 'marian', base: 500, offset: -7.25, dtype: 'float64' })],
  ['frequencies 1024 tensor2tensor', (pe) => pe.frequencies(1024, { preset: 'tensor2tensor' })],
  ['tableGram 50x64 cosine', (pe) => pe.tableGram(50, 64, { cosine: true, dtype: 'float64' })],
  ['tableGram 40x31 (direct)', (pe) => pe.tableGram(40, 31, { dtype: 'float64' })],
  ['gram 37x19', (pe) => pe.gram(mk(37, 19, (i) => wave(i, 7)), { cosine: true })],
  ['rotation k=3.5 d=16', (pe) => pe.rotation(3.5, 16)],
  ['attention 9x11 causal', (pe) => pe.attention(mk(9, 5, (i) => wave(i, 3)), mk(11, 5, (i) => wave(i, 11)), mk(11, 4, (i) => i % 5), { causal: true })],
  ['ropeCache yarn', (pe, pv) => pv.ropeCache(32, 64, { scaling: { type: 'yarn', factor: 4, originalMaxPosition: 2048 }, dtype: 'float64' })],
  ['ropeApply llama3', (pe, pv) => pv.ropeApply(mk(6, 16, (i) => (i % 9) - 4), { headDim: 8, scaling: 'llama3', offset: 100 })],
  ['alibiBias 8x16', (pe, pv) => pv.alibiBias(8, 16, { mode: 'symmetric', dtype: 'float64' })],
  ['t5BucketMatrix 24x24', (pe, pv) => pv.t5BucketMatrix(24)],
  ['learnedTable 16x32 seed 42', (pe, pv) => pv.learnedTable(16, 32, { seed: 42, dtype: 'float64' })],
  ['precisionError 64 bfloat16', (pe, pv) => pv.precisionError(64, { count: 64, format: 'bfloat16', mode: 'both' })],
];

/** The bytes of a result: its typed arrays, in a fixed order. */
export function bytesOf(result) {
  const arrays = [];
  const walk = (x) => {
    if (ArrayBuffer.isView(x)) arrays.push(new Uint8Array(x.buffer, x.byteOffset, x.byteLength));
    else if (x && typeof x === 'object') for (const key of Object.keys(x).sort()) walk(x[key]);
  };
  walk(result);
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) { out.set(a, at); at += a.length; }
  return out;
}
`;

const PAGE_JS = `
import init from '/web/lib/index.js';
import initVariants from '/web/lib/variants/index.js';
import { configs, bytesOf } from '/__determinism__/configs.js';
const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');
try {
  const [pe, pv] = await Promise.all([init(), initVariants()]);
  const digests = {};
  for (const [name, run] of configs) digests[name] = hex(await crypto.subtle.digest('SHA-256', bytesOf(run(pe, pv))));
  window.__determinism = { ok: true, digests };
} catch (e) {
  window.__determinism = { ok: false, error: String((e && e.stack) || e) };
}
`;

const PAGE_HTML = `<!doctype html><meta charset="utf-8"><title>posenc determinism</title>
<script type="module" src="/__determinism__/page.js"></script>`;

// A second page that loads posenc, then tries what the CSP must stop.
const CSP_JS = `
const blocked = [];
document.addEventListener('securitypolicyviolation', (e) => blocked.push(e.blockedURI));
import init from '/web/lib/index.js';
import initVariants from '/web/lib/variants/index.js';
const [pe, pv] = await Promise.all([init(), initVariants()]);
let evalRan = false;
try { evalRan = (0, eval)('true'); } catch { /* refused by the CSP */ }
let functionRan = false;
try { functionRan = new Function('return true')(); } catch { /* refused */ }
const s = document.createElement('script');
s.textContent = 'window.__inlineRan = true';
document.head.append(s);
await new Promise((resolve) => setTimeout(resolve, 50)); // violation events are queued
window.__csp = { loaded: pe.table(2, 2).data[1] === 1 && pv.binaryTable(2, 1).data[1] === 1, evalRan, functionRan, inlineRan: window.__inlineRan === true, blocked };
`;
const CSP_HTML = `<!doctype html><meta charset="utf-8"><title>posenc CSP</title>
<script>window.__inlineRan = true</script>
<script type="module" src="/__determinism__/csp.js"></script>`;

const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.html': 'text/html', '.json': 'application/json', '.wasm': 'application/wasm' };

function startServer() {
  const routes = {
    '/__determinism__/index.html': ['text/html', PAGE_HTML],
    '/__determinism__/page.js': ['text/javascript', PAGE_JS],
    '/__determinism__/configs.js': ['text/javascript', CONFIGS],
    '/__determinism__/csp.html': ['text/html', CSP_HTML],
    '/__determinism__/csp.js': ['text/javascript', CSP_JS],
  };
  const server = createServer(async (req, res) => {
    const send = (code, type, body) => {
      res.writeHead(code, { 'Content-Type': `${type}; charset=utf-8`, 'Content-Security-Policy': CSP, 'Cache-Control': 'no-store' });
      res.end(body);
    };
    try {
      const { pathname } = new URL(req.url, 'http://127.0.0.1');
      if (routes[pathname]) return send(200, ...routes[pathname]);
      if (pathname === '/favicon.ico') return send(204, 'image/x-icon', '');
      const file = path.resolve(ROOT, `.${decodeURIComponent(pathname)}`);
      if (!file.startsWith(`${ROOT}${path.sep}`) || !(await stat(file)).isFile()) return send(404, 'text/plain', 'not found');
      send(200, TYPES[path.extname(file)] ?? 'application/octet-stream', await readFile(file));
    } catch {
      send(404, 'text/plain', 'not found');
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let server;
let browser;
before(async () => {
  server = await startServer();
  browser = await launchChromium();
});
after(async () => {
  await browser?.close().catch(() => {});
  await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
});

async function nodeDigests() {
  const { configs, bytesOf } = await import(`data:text/javascript;base64,${Buffer.from(CONFIGS).toString('base64')}`);
  const [pe, pv] = await Promise.all([init(), initVariants()]);
  const digests = {};
  for (const [name, run] of configs) digests[name] = createHash('sha256').update(bytesOf(run(pe, pv))).digest('hex');
  return digests;
}

test('Chromium and Node produce byte-identical results (SHA-256 of the result bytes)', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  try {
    const { port } = server.address();
    const response = await page.goto(`http://127.0.0.1:${port}/__determinism__/index.html`);
    assert.equal(response.headers()['content-security-policy'], CSP);
    await page.waitForFunction(() => window.__determinism, null, { timeout: 30000 });
    const result = await page.evaluate(() => window.__determinism);
    assert.ok(result.ok, `the page failed: ${result.error}`);
    assert.deepEqual(errors, [], 'console errors (a CSP violation would show here)');
    const mine = await nodeDigests();
    assert.equal(Object.keys(mine).length, 16);
    assert.equal(new Set(Object.values(mine)).size, 16, 'two configurations gave the same bytes');
    for (const [name, digest] of Object.entries(mine)) {
      assert.match(digest, /^[0-9a-f]{64}$/);
      assert.equal(result.digests[name], digest, `${name}: Chromium ${result.digests[name]} != Node ${digest}`);
    }
    console.log(`# ${Object.keys(mine).length} configurations byte-identical in Chromium and Node`);
  } finally {
    await context.close();
  }
});

test('under that CSP both entries load and run, while eval, new Function and inline scripts are refused', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const violations = [];
  page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) violations.push(m.text()); });
  try {
    const { port } = server.address();
    await page.goto(`http://127.0.0.1:${port}/__determinism__/csp.html`);
    await page.waitForFunction(() => window.__csp, null, { timeout: 30000 });
    const { blocked, ...ran } = await page.evaluate(() => window.__csp);
    assert.deepEqual(ran, { loaded: true, evalRan: false, functionRan: false, inlineRan: false });
    // the policy itself refused them (not some other error): eval twice, the inline script once
    assert.deepEqual(blocked.sort(), ['eval', 'eval', 'inline']);
    assert.ok(violations.length >= 1, 'Chromium reported no CSP violation on the console');
  } finally {
    await context.close();
  }
});
