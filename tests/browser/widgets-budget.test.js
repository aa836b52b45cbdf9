// Issue 27, point 2: a page of widgets has a memory budget and no long stall.
// 200 elements (every type in turn) on one page are scrolled through end to
// end (tests/browser/budget-page.js); each draws when it comes near, and once
// more than BUDGET hold drawings, one that is far off screen releases its
// charts and canvases and redraws when it comes back. Checked by counting:
// - at every stop at most the budget (and the elements near the screen) hold
//   canvases, and the renderer's memory at its peak stays within 600 MB
//   (before the budget every element scrolled past kept its charts: 3.5 GB);
// - no task of the page draws more than one chart for the first time, or
//   announces more than one render: the work that made single tasks of
//   150-290 ms (a widget's two or three charts built together) is spread
//   over tasks of its own. Before, <pe-rope> built its three in one task.
// How long the tasks take is for `npm run bench` (bench/widgets-page.mjs),
// not asserted here (no wall-clock bounds in npm test).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, newPage } from './harness.js';
import { mb } from './renderer-memory.js';
import { scrollBudgetPage, COUNT } from './budget-page.js';
import { BUDGET } from '../../web/widgets/base.js';

const PEAK_BYTES = 600 * 2 ** 20;

let h;
before(async () => { h = await open(); });
after(() => h?.close());

test(`${COUNT} elements scrolled end to end: at most the budget holds canvases, one chart drawn per task`, { timeout: 600000 }, async () => {
  const seen = await scrollBudgetPage(h, newPage, {
    onStop: (at) => assert.deepEqual(at.unready, [], 'every element near the screen draws'),
  });
  const most = (key) => Math.max(0, ...seen.tasks.map((t) => t[key]));
  const longest = Math.max(0, ...seen.longTasks);
  console.log(`${COUNT} elements, page ${seen.height} px: renderer ${mb(seen.start)} at the start, peak ${mb(seen.peak)}; `
    + `at most ${seen.mostHolding} elements held canvases at once; ${seen.tasks.length} tasks, at most ${most('pe-chart')} first chart `
    + `and ${most('pe-render')} render in one; ${seen.longTasks.length} long tasks, longest ${longest.toFixed(0)} ms (not asserted)`);
  assert.ok(seen.drawn >= COUNT, `${seen.drawn} of ${COUNT} drawn`);
  // The budget's worth, and those near the screen, which are never released.
  assert.ok(seen.mostHolding <= BUDGET + 10, `${seen.mostHolding} elements held canvases at once`);
  assert.ok(seen.peak <= PEAK_BYTES, `renderer peak ${mb(seen.peak)}`);
  // Every mark was placed in a task, and the charts of 200 elements were seen being drawn.
  assert.equal(seen.outside, 0, 'marks outside any task');
  assert.ok(seen.tasks.reduce((n, t) => n + t['pe-chart'], 0) >= COUNT, 'charts drawn during the scroll');
  assert.equal(most('pe-chart'), 1, 'first chart drawings in one task');
  assert.equal(most('pe-render'), 1, 'renders announced in one task');
  assert.deepEqual(seen.errors, []);
});
