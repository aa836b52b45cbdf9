// The tutorial's first screen, measured in Chromium: time from navigation to
// the first drawn chart (<html data-first-chart-ms>, set by web/site/first-screen.js)
// and the script bytes (gzip -9 of each file as built) the page fetched before
// it, median of several fresh loads at phone and desktop sizes. Targets (issue
// 12): first chart within 500 ms, first-screen script at most 60 kB gzipped.
// Only `npm run bench` runs this; no test compares a time with a bound.
//
//   node bench/site.mjs [--loads=7]     this part alone (after bash build.sh)
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../scripts/chromium.mjs';
import { startServer, ROOT } from '../scripts/serve.js';

export const SITE_TARGETS = { firstChartMs: 500, scriptGzipBytes: 60 * 1024 };
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
  const server = await startServer();
  const browser = await launchChromium();
  const results = {};
  try {
    for (const [name, viewport] of Object.entries(SIZES)) {
      for (const path of ['index.html', 'en/index.html']) {
        const url = new URL(path, server.url).href;
        await load(browser, url, viewport); // warm the server and the disk cache, not the browser's (fresh context each time)
        const runs = [];
        for (let i = 0; i < loads; i++) runs.push(await load(browser, url, viewport));
        const files = [...new Set(runs.flatMap((r) => r.files))].sort();
        const scripts = files.filter((f) => f.endsWith('.js')).map((f) => ({ file: f, gzip: gz(join(ROOT, resolve('/', f))) }));
        const key = `${name} ${path}`;
        results[key] = {
          firstChartMs: +median(runs.map((r) => r.ms)).toFixed(1),
          samplesMs: runs.map((r) => +r.ms.toFixed(0)),
          scriptGzipBytes: scripts.reduce((s, f) => s + f.gzip, 0),
          pageGzipBytes: gz(join(ROOT, path)),
          scripts,
        };
        log(`site ${key}: ${results[key].firstChartMs} ms, ${results[key].scriptGzipBytes} script bytes gzipped`);
      }
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return results;
}

/** Markdown lines and met/missed targets for bench/run.mjs. */
export function siteReport(results) {
  const lines = ['### Tutorial first screen (Chromium, fresh context per load, median)', '',
    '| viewport, page | first chart ms (median) | samples | first-screen script, gzip bytes | page HTML, gzip bytes |', '|---|--:|---|--:|--:|'];
  for (const [key, r] of Object.entries(results)) {
    lines.push(`| ${key} | ${r.firstChartMs} | ${r.samplesMs.join(', ')} | ${r.scriptGzipBytes} | ${r.pageGzipBytes} |`);
  }
  const all = Object.values(results);
  const slowest = Math.max(...all.map((r) => r.firstChartMs));
  const heaviest = Math.max(...all.map((r) => r.scriptGzipBytes));
  const targets = [
    { target: `tutorial: first chart within ${SITE_TARGETS.firstChartMs} ms of navigation`, met: slowest <= SITE_TARGETS.firstChartMs, detail: `slowest median ${slowest} ms` },
    { target: `tutorial: first-screen script <= ${SITE_TARGETS.scriptGzipBytes} bytes gzipped`, met: heaviest <= SITE_TARGETS.scriptGzipBytes, detail: `largest ${heaviest} bytes` },
  ];
  return { lines, targets };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const loads = Number(process.argv.find((a) => a.startsWith('--loads='))?.split('=')[1] ?? 7);
  const results = await measureSite({ loads, log: (l) => process.stderr.write(`${l}\n`) });
  const { lines, targets } = siteReport(results);
  console.log([...lines, '', ...targets.map((t) => `- [${t.met ? 'x' : ' '}] ${t.target}: ${t.detail}`)].join('\n'));
}
