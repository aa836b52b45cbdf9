// The page of issue 27, point 2: 200 elements (every type in turn, each after
// a paragraph) in the blog example, scrolled end to end a screen at a time,
// waiting at each stop for what is near to draw. Shared by
// tests/browser/widgets-budget.test.js, which checks counts (canvases held,
// charts and renders per task, memory), and bench/widgets-page.mjs, which
// reports times (long tasks); no test compares a time with a bound.
//
// What runs in which task comes from a Chromium trace (categories toplevel
// and blink.user_timing): each top-level task is a RunTask event, and the
// page marks each chart's first drawing context (a canvas in a shadow root
// asking for its 2-D context: Chart.js does it once per chart) and each
// pe-render with performance.mark, so a mark falls inside the task that did it.
import { collectGarbage, rendererBytes } from './renderer-memory.js';
import { WIDGETS } from '../../web/widgets/index.js';

export const COUNT = 200;

/** Runs in the page before its scripts: a mark for each chart's first 2-D context and for each pe-render. */
function markWork() {
  const seen = new WeakSet();
  const getContext = HTMLCanvasElement.prototype.getContext;
  HTMLCanvasElement.prototype.getContext = function markFirst(...args) {
    if (!seen.has(this) && this.getRootNode() instanceof ShadowRoot) {
      seen.add(this);
      performance.mark('pe-chart');
    }
    return getContext.apply(this, args);
  };
  document.addEventListener('pe-render', () => performance.mark('pe-render'));
}

/** Appends COUNT elements after the blog's own, each after a paragraph, as a long post would hold them. */
function addElements([list, n]) {
  const article = document.querySelector('article');
  for (let i = 0; i < n; i++) {
    const p = document.createElement('p');
    p.textContent = `Paragraph ${i}.`;
    const w = document.createElement(list[i % list.length]);
    w.className = 'budget';
    article.append(p, w);
  }
}

/** One stop: waits (up to 10 s) for the elements near the screen to draw, counts holders, scrolls a screen down. */
async function stop() {
  const near = () => [...document.querySelectorAll('.budget')].filter((w) => {
    const r = w.getBoundingClientRect();
    return r.bottom > -200 && r.top < innerHeight + 200;
  });
  for (let i = 0; i < 400 && near().some((w) => !w.dataset.state); i++) await new Promise((r) => setTimeout(r, 25));
  const holding = [...document.querySelectorAll('.budget')]
    .filter((w) => [...w.shadowRoot.querySelectorAll('canvas')].some((c) => c.width * c.height > 0)).length;
  const end = scrollY + innerHeight >= document.documentElement.scrollHeight - 2;
  const unready = near().filter((w) => !w.dataset.state).map((w) => w.localName);
  scrollBy(0, innerHeight);
  return { holding, end, unready };
}

const UNITS = ['ThreadControllerImpl::RunTask', 'BlinkScheduler_PerformMicrotaskCheckpoint'];

/** Per top-level task of the page's main thread: wall and CPU ms, and how many of each mark fell in it. */
function tasksOf(events) {
  const marks = events.filter((e) => e.cat.includes('user_timing') && e.name.startsWith('pe-'));
  if (!marks.length) return { tasks: [], outside: 0, marks: 0 };
  const { pid, tid } = marks[0];
  // Tasks, and the microtask checkpoints Blink runs outside any task (some promise continuations run there).
  const units = events.filter((e) => e.pid === pid && e.tid === tid && e.ph === 'X' && UNITS.includes(e.name))
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const runs = [];
  for (const e of units) if (!runs.length || e.ts >= runs.at(-1).ts + runs.at(-1).dur) runs.push(e);
  const tasks = runs.map((e) => ({ ts: e.ts, end: e.ts + e.dur, wallMs: e.dur / 1000, cpuMs: (e.tdur ?? 0) / 1000, 'pe-chart': 0, 'pe-render': 0 }));
  let outside = 0;
  for (const m of marks) {
    // The last task that starts at or before the mark (tasks on one thread do not overlap).
    let lo = 0;
    let hi = tasks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (tasks[mid].ts <= m.ts) lo = mid;
      else hi = mid - 1;
    }
    const task = tasks[lo];
    if (task && task.ts <= m.ts && m.ts <= task.end) task[m.name]++;
    else outside++;
  }
  return { tasks, outside, marks: marks.length };
}

/**
 * Loads the page in a fresh context of `browser` (harness.js's open()), adds
 * the elements, scrolls to the end; returns what was seen. onStop gets each
 * stop's { holding, end, unready } (the test asserts there).
 */
export async function scrollBudgetPage(h, newPage, { onStop = () => {} } = {}) {
  const { context, page, errors } = await newPage(h.browser);
  try {
    await context.addInitScript(markWork);
    await page.goto(h.url('examples/blog.html'));
    await page.waitForFunction(() => document.getElementById('blog-heatmap').dataset.state === 'ready');
    const cdp = await context.newCDPSession(page);
    const events = [];
    cdp.on('Tracing.dataCollected', ({ value }) => events.push(...value));
    const traced = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
    await page.evaluate(addElements, [Object.keys(WIDGETS), COUNT]);
    await collectGarbage(context, page);
    // Long tasks from here on: the scroll, not the script that added 200 elements at once.
    await page.evaluate(() => {
      window.longTasks = [];
      new PerformanceObserver((l) => window.longTasks.push(...l.getEntries().map((e) => e.duration))).observe({ type: 'longtask' });
    });
    await cdp.send('Tracing.start', { categories: 'toplevel,blink.user_timing', transferMode: 'ReportEvents' });
    const start = await rendererBytes(h.browser);
    let peak = start;
    let mostHolding = 0;
    for (;;) {
      const at = await page.evaluate(stop);
      onStop(at);
      mostHolding = Math.max(mostHolding, at.holding);
      peak = Math.max(peak, await rendererBytes(h.browser));
      if (at.end) break;
    }
    await cdp.send('Tracing.end');
    await traced;
    await cdp.detach();
    const seen = await page.evaluate(() => {
      const all = [...document.querySelectorAll('.budget')];
      return { drawn: all.filter((w) => w.renders > 0 || w.dataset.state).length, longTasks: window.longTasks, height: document.documentElement.scrollHeight };
    });
    return { ...seen, start, peak, mostHolding, ...tasksOf(events), errors: [...errors] };
  } finally {
    await context.close();
  }
}
