// Where <pe-lab> trains: in a pool of trainers, one per core the browser
// reports (startPool), each a worker when it can be. Browsers start a worker only from a same-origin URL,
// so the script's own lab-worker.js serves only when the page shares its
// origin. From an npm CDN, or in a sandboxed iframe (whose origin is opaque),
// a same-origin Blob URL holding one `import` of that file starts it instead
// (the CDN's CORS header lets the worker import it). Where neither starts (no
// module workers, a CSP without blob: in worker-src), the page trains the
// models itself, one at a time, in slices between turns of its event loop (a pool of one).
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
  const jobs = trainer((m) => onMessage(m), true);
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

/** More trainers than this cost memory (a module each) and gain nothing on the machines we have. */
export const MAX_TRAINERS = 4;

/** How many trainers a run of `jobs` models gets: one per core, at most MAX_TRAINERS and the jobs. */
export function poolSize(jobs, cores = globalThis.navigator?.hardwareConcurrency) {
  return Math.max(1, Math.min(jobs, MAX_TRAINERS, Number.isInteger(cores) && cores > 0 ? cores : 1));
}

/**
 * Starts `size` trainers (startTrainer) and resolves, once all have loaded,
 * to { where, size, run(id, jobs), attention(message), terminate() }. run()
 * posts each job to the next trainer that is free, so a slow model does not
 * hold the others back, and reports { type: 'finished', id } to onMessage
 * after the last job's done. Trainers that fell back to the page give way to
 * a single one: the page has one thread.
 */
export async function startPool(moduleUrl, size, onMessage) {
  let free = () => {};
  const forward = (m) => {
    onMessage(m);
    if (m.type === 'done') free(m);
  };
  let trainers = await Promise.all(Array.from({ length: size }, () => startTrainer(moduleUrl, forward)));
  const workers = trainers.filter((t) => t.where === 'worker');
  for (const t of trainers.slice(workers.length ? 0 : 1)) if (t.where === 'page') t.terminate();
  trainers = workers.length ? workers : trainers.slice(0, 1);
  const busy = new Map(); // "id/encoding/seedIndex" of a job -> its trainer
  const key = (m) => `${m.id}/${m.encoding ?? m.run.encoding}/${m.seedIndex}`;
  return {
    where: trainers[0].where,
    size: trainers.length,
    run(id, jobs) {
      const queue = [...jobs];
      let left = jobs.length;
      const next = (t) => {
        const job = queue.shift();
        if (!job) return;
        busy.set(key(job), t);
        t.post(job);
      };
      free = (m) => {
        const t = busy.get(key(m));
        if (m.id !== id || !t) return;
        busy.delete(key(m));
        next(t);
        if (--left === 0) onMessage({ type: 'finished', id });
      };
      for (const t of trainers) next(t);
    },
    attention: (message) => trainers[0].post(message),
    terminate: () => trainers.forEach((t) => t.terminate()),
  };
}
