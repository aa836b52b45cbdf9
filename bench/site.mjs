// The tutorial's first screen, measured in Chromium: time from navigation to
// the first drawn chart (<html data-first-chart-ms>, set by web/site/first-screen.js)
// and the script bytes (gzip -9 of each file as built) the page fetched before
// it, median of several fresh loads at phone and desktop sizes. Targets (issue
// 12): first chart within 500 ms, first-screen script at most 60 kB gzipped;
// (issue 24) the first chart within 1.5x the time of a bare page that draws
// one Chart.js chart (bench/bare-chart/, bundled here) in the same language,
// loaded in turn with the tutorial's pages in the same run, so that the
// machine's load, which moves both, cancels in the ratio. The language
// matters: the first Chinese glyph makes Chromium load a CJK system font,
// which doubled the bare page's time here (244 -> 487 ms, one heading).
// Only `npm run bench` runs this; no test compares a time with a bound.
//
//   node bench/site.mjs [--loads=7]     this part alone (after bash build.sh)
import { readFileSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../scripts/chromium.mjs';
import { startServer, ROOT } from '../scripts/serve.js';
import { build } from '../scripts/bundle.mjs';

export const SITE_TARGETS = { firstChartMs: 500, scriptGzipBytes: 60 * 1024, vsBareChart: 1.5 };
const BARE = fileURLToPath(new URL('bare-chart/', import.meta.url));
/** Each tutorial page and the bare page in its language. */
const BARE_OF = { 'index.html': 'zh.html', 'en/index.html': 'index.html' };
const bareKey = (file) => `bare Chart.js page, ${file === 'zh.html' ? 'zh' : 'en'}`;

/** bench/bare-chart/ built into a temporary folder (its script minified by the project's esbuild settings). */
async function buildBarePage() {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-bare-chart-'));
  for (const file of Object.values(BARE_OF)) copyFileSync(join(BARE, file), join(dir, file));
  await build({ entryPoints: [join(BARE, 'main.js')], outfile: join(dir, 'main.js') });
  return dir;
}
const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1366, height: 900 } };

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const gz = (path) => gzipSync(readFileSync(path), { level: 9 }).length;

/** One fresh load: first-chart time and the files fetched before it. */
async function load(browser, url, viewport) {
  const context = await browser.newContext({ viewport });
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForFunction(() => globalThis.document.documentElement.dataset.firstChartMs, null, { timeout: 30000 });
    return await page.evaluate(() => {
      const ms = Number(globalThis.document.documentElement.dataset.firstChartMs);
      const files = performance.getEntriesByType('resource').filter((r) => r.startTime <= ms).map((r) => new URL(r.name).pathname);
      return { ms, files };
    });
  } finally {
    await context.close();
  }
}

export async function measureSite({ loads = 7, log = () => {} } = {}) {
  const bareDir = await buildBarePage();
  const server = await startServer();
  const bareServer = await startServer({ root: bareDir });
  const browser = await launchChromium();
  const results = {};
  try {
    for (const [name, viewport] of Object.entries(SIZES)) {
      const pages = [
        ...Object.keys(BARE_OF).map((path) => ({ path, root: ROOT, file: path, url: new URL(path, server.url).href })),
        ...Object.values(BARE_OF).map((file) => ({ path: bareKey(file), root: bareDir, file, url: new URL(file, bareServer.url).href, bare: true })),
      ].map((page) => ({ ...page, runs: [] }));
      // warm the servers and the disk cache, not the browser's (fresh context each time)
      for (const page of pages) await load(browser, page.url, viewport);
      // In turn, one load of each page per round: a burst of load on the machine hits them all.
      for (let i = 0; i < loads; i++) for (const page of pages) page.runs.push(await load(browser, page.url, viewport));
      for (const { path, root, file, runs, bare } of pages) {
        const files = [...new Set(runs.flatMap((r) => r.files))].sort();
        const scripts = files.filter((f) => f.endsWith('.js')).map((f) => ({ file: f, gzip: gz(join(root, resolve('/', f))) }));
        const key = `${name} ${path}`;
        results[key] = {
          firstChartMs: +median(runs.map((r) => r.ms)).toFixed(1),
          samplesMs: runs.map((r) => +r.ms.toFixed(0)),
          scriptGzipBytes: scripts.reduce((s, f) => s + f.gzip, 0),
          pageGzipBytes: gz(join(root, file)),
          scripts,
          ...(bare ? { bare: true } : {}),
        };
        log(`site ${key}: ${results[key].firstChartMs} ms, ${results[key].scriptGzipBytes} script bytes gzipped`);
      }
      for (const [path, file] of Object.entries(BARE_OF)) {
        const r = results[`${name} ${path}`];
        r.vsBareChart = +(r.firstChartMs / results[`${name} ${bareKey(file)}`].firstChartMs).toFixed(2);
      }
    }
  } finally {
    await browser.close();
    await server.close();
    await bareServer.close();
    rmSync(bareDir, { recursive: true, force: true });
  }
  return results;
}

/** Markdown lines and met/missed targets for bench/run.mjs. */
export function siteReport(results) {
  const lines = ['### Tutorial first screen (Chromium, fresh context per load, median)', '',
    '| viewport, page | first chart ms (median) | × the bare Chart.js page in its language | samples | first-screen script, gzip bytes | page HTML, gzip bytes |', '|---|--:|--:|---|--:|--:|'];
  for (const [key, r] of Object.entries(results)) {
    lines.push(`| ${key} | ${r.firstChartMs} | ${r.bare ? '1' : r.vsBareChart} | ${r.samplesMs.join(', ')} | ${r.scriptGzipBytes} | ${r.pageGzipBytes} |`);
  }
  const all = Object.values(results).filter((r) => !r.bare);
  const slowest = Math.max(...all.map((r) => r.firstChartMs));
  const heaviest = Math.max(...all.map((r) => r.scriptGzipBytes));
  const worstRatio = Math.max(...all.map((r) => r.vsBareChart));
  const targets = [
    { target: `tutorial: first chart within ${SITE_TARGETS.firstChartMs} ms of navigation`, met: slowest <= SITE_TARGETS.firstChartMs, detail: `slowest median ${slowest} ms` },
    { target: `tutorial: first-screen script <= ${SITE_TARGETS.scriptGzipBytes} bytes gzipped`, met: heaviest <= SITE_TARGETS.scriptGzipBytes, detail: `largest ${heaviest} bytes` },
    { target: `tutorial: first chart within ${SITE_TARGETS.vsBareChart}x a bare one-chart Chart.js page's (same run, viewport and language)`, met: worstRatio <= SITE_TARGETS.vsBareChart, detail: `at most ${worstRatio}x (${all.map((r) => r.vsBareChart).join(', ')})` },
  ];
  return { lines, targets };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const loads = Number(process.argv.find((a) => a.startsWith('--loads='))?.split('=')[1] ?? 7);
  const results = await measureSite({ loads, log: (l) => process.stderr.write(`${l}\n`) });
  const { lines, targets } = siteReport(results);
  console.log([...lines, '', ...targets.map((t) => `- [${t.met ? 'x' : ' '}] ${t.target}: ${t.detail}`)].join('\n'));
}
