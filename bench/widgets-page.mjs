// A long page of widgets in Chromium (issue 27, point 2): the 200 elements of
// tests/browser/budget-page.js scrolled end to end a screen at a time. Reports
// the main thread's long tasks (PerformanceObserver 'longtask', wall time:
// what a reader feels), the CPU time of the longest task by CPU (the same
// tasks from a Chromium trace: what the page itself costs, whatever else the
// machine runs), and the renderer's memory peak, with the load average, since
// on a shared machine the wall time of a task is its CPU time plus the time
// the thread waited for a core. Targets: no task over 100 ms, at most 600 MB.
// Only `npm run bench` runs this; the test counts work (one chart per task).
//
//   node bench/widgets-page.mjs [--runs=1]     this part alone (after bash build.sh)
import { loadavg, cpus } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open, newPage } from '../tests/browser/harness.js';
import { scrollBudgetPage, COUNT } from '../tests/browser/budget-page.js';

export const PAGE_TARGETS = { longestTaskMs: 100, peakBytes: 600 * 2 ** 20 };

const load = () => +loadavg()[0].toFixed(2);
const mib = (bytes) => Math.round(bytes / 2 ** 20);

/** One scroll of the page: long tasks, CPU per task, memory, load before and after. */
async function scrollOnce(h) {
  const loadBefore = load();
  const seen = await scrollBudgetPage(h, newPage);
  const byCpu = [...seen.tasks].sort((a, b) => b.cpuMs - a.cpuMs);
  return {
    loadBefore,
    loadAfter: load(),
    longestTaskMs: +Math.max(0, ...seen.longTasks).toFixed(1),
    over100: seen.longTasks.filter((d) => d > 100).length,
    longTasks: seen.longTasks.length,
    mostCpuMs: +(byCpu[0]?.cpuMs ?? 0).toFixed(1),
    cpuOver50: byCpu.filter((t) => t.cpuMs > 50).length,
    tasks: seen.tasks.length,
    startMiB: mib(seen.start),
    peakMiB: mib(seen.peak),
    peakBytes: seen.peak,
    mostHolding: seen.mostHolding,
  };
}

export async function measureWidgetsPage({ runs = 1, log = () => {} } = {}) {
  const h = await open();
  try {
    const out = [];
    for (let i = 0; i < runs; i++) {
      const r = await scrollOnce(h);
      log(`widgets page run ${i + 1}: longest task ${r.longestTaskMs} ms (${r.over100} over 100 ms), most CPU in one task ${r.mostCpuMs} ms, `
        + `renderer peak ${r.peakMiB} MiB, load ${r.loadBefore} -> ${r.loadAfter}`);
      out.push(r);
    }
    return out;
  } finally {
    await h.close();
  }
}

/** Markdown lines and met/missed targets for bench/run.mjs. */
export function widgetsPageReport(runs) {
  const lines = [`### ${COUNT} widgets on one page, scrolled end to end (Chromium, 1280 × 800)`, '',
    '| run | load 1 min (before → after) | long tasks | longest task, ms | tasks over 100 ms | most CPU in one task, ms | tasks over 50 ms CPU | renderer start → peak, MiB | most elements holding canvases |',
    '|--:|---|--:|--:|--:|--:|--:|---|--:|'];
  runs.forEach((r, i) => lines.push(`| ${i + 1} | ${r.loadBefore} → ${r.loadAfter} | ${r.longTasks} | ${r.longestTaskMs} | ${r.over100} | ${r.mostCpuMs} | ${r.cpuOver50} | ${r.startMiB} → ${r.peakMiB} | ${r.mostHolding} |`));
  const longest = Math.max(...runs.map((r) => r.longestTaskMs));
  const over = runs.reduce((n, r) => n + r.over100, 0);
  const peak = Math.max(...runs.map((r) => r.peakBytes));
  const cpu = Math.max(...runs.map((r) => r.mostCpuMs));
  const loads = runs.map((r) => `${r.loadBefore}-${r.loadAfter}`).join(', ');
  const targets = [
    { target: `widgets page: no main-thread task over ${PAGE_TARGETS.longestTaskMs} ms while ${COUNT} elements scroll by`, met: longest <= PAGE_TARGETS.longestTaskMs,
      detail: `longest ${longest} ms, ${over} over ${PAGE_TARGETS.longestTaskMs} ms; most CPU in one task ${cpu} ms; load ${loads} on ${cpus().length} cores` },
    { target: `widgets page: renderer memory <= ${mib(PAGE_TARGETS.peakBytes)} MiB`, met: peak <= PAGE_TARGETS.peakBytes, detail: `peak ${mib(peak)} MiB` },
  ];
  return { lines, targets };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.split('=')[1] ?? 1);
  const { lines, targets } = widgetsPageReport(await measureWidgetsPage({ runs, log: (l) => process.stderr.write(`${l}\n`) }));
  console.log([...lines, '', ...targets.map((t) => `- [${t.met ? 'x' : ' '}] ${t.target}: ${t.detail}`)].join('\n'));
}
