// Where <pe-lab> trains. Browsers start a worker only from a same-origin URL,
// so the script's own lab-worker.js serves only when the page shares its
// origin. From an npm CDN, or in a sandboxed iframe (whose origin is opaque),
// a same-origin Blob URL holding one `import` of that file starts it instead
// (the CDN's CORS header lets the worker import it). Where neither starts (no
// module workers, a CSP without blob: in worker-src), the page trains the
// models itself, one at a time between turns of the event loop.
import { trainer } from './lab-jobs.js';

const WORKER_FILE = 'lab-worker.js';

/** The worker's URL beside the module holding <pe-lab> (the tutorial loads it as a chunk from chunks/). */
export const workerUrl = (moduleUrl) => new URL(moduleUrl.includes('/chunks/') ? `../${WORKER_FILE}` : `./${WORKER_FILE}`, moduleUrl);

function moduleWorker(url) {
  if (url.origin === globalThis.location?.origin) return new Worker(url, { type: 'module' });
  const code = new Blob([`import ${JSON.stringify(url.href)};\n`], { type: 'text/javascript' });
  const blob = URL.createObjectURL(code);
  try {
    return new Worker(blob, { type: 'module' });
  } finally {
    // The worker has fetched its script by the time it reports; revoking later would leak the URL on failure.
    setTimeout(() => URL.revokeObjectURL(blob), 60000);
  }
}

/** The page's own trainer, with the worker's interface. */
function inPage(onMessage) {
  const jobs = trainer((m) => onMessage(m));
  return { where: 'page', post: (data) => jobs.handle(data), terminate: () => jobs.stop() };
}

/**
 * Starts a trainer: resolves to { where: 'worker' | 'page', post(message), terminate() }
 * once it has loaded; its messages go to onMessage. A worker that cannot start
 * or load its module gives way to the page's trainer.
 */
export function startTrainer(moduleUrl, onMessage) {
  let worker;
  try {
    worker = typeof Worker === 'function' ? moduleWorker(workerUrl(moduleUrl)) : null;
  } catch {
    worker = null; // SecurityError: another origin, or a CSP without blob: in worker-src
  }
  if (!worker) return Promise.resolve(inPage(onMessage));
  return new Promise((resolve) => {
    const fallback = () => {
      worker.terminate();
      resolve(inPage(onMessage));
    };
    worker.onerror = fallback;
    worker.onmessage = ({ data }) => {
      if (data.type !== 'ready') return fallback();
      worker.onerror = (e) => onMessage({ type: 'error', message: e.message || 'worker error' });
      worker.onmessage = (e) => onMessage(e.data);
      resolve({ where: 'worker', post: (m) => worker.postMessage(m), terminate: () => worker.terminate() });
    };
  });
}
