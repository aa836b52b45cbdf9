// What a browser test needs to see memory as Chromium's task manager does: a
// forced garbage collection (CDP HeapProfiler.collectGarbage) and the private
// resident memory of the renderer processes (their pids from CDP SystemInfo,
// RssAnon from /proc, so canvas backing stores and wasm memory count too, and
// the shared libraries every process maps do not: that is the task manager's
// "memory footprint", not the 150 MB of code each renderer shares).
import { readFileSync } from 'node:fs';

/** Collects garbage in the page's renderer until nothing more goes (weak references cleared). */
export async function collectGarbage(context, page) {
  const cdp = await context.newCDPSession(page);
  try {
    for (let i = 0; i < 3; i++) {
      await cdp.send('HeapProfiler.collectGarbage');
      // A turn of the event loop, so FinalizationRegistry and WeakRef bookkeeping runs between collections.
      await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 50)));
    }
  } finally {
    await cdp.detach();
  }
}

const rssOf = (pid) => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('RssAnon:'));
  return Number(line.trim().split(/\s+/)[1]) * 1024;
};

/** Bytes resident in Chromium's renderer processes (one page open: its renderer). */
export async function rendererBytes(browser) {
  const cdp = await browser.newBrowserCDPSession();
  try {
    const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
    return processInfo.filter((p) => p.type === 'renderer').reduce((sum, p) => sum + rssOf(p.id), 0);
  } finally {
    await cdp.detach();
  }
}

/** Megabytes, for messages. */
export const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
