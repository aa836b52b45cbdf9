// onnxruntime-web (wasm backend) in a worker thread, for bench/ml.mjs: the
// thread count is global to an ORT instance (env.wasm.numThreads, set before
// its first session), so the 1-thread and 2-thread peers each get a worker
// and run beside posenc in the same process, one call at a time on request.
// Each call is timed here, around session.run (inputs copied in, outputs
// copied out, as an application pays), not the message round trip.
//
// workerData: { threads, cases: [{ id, model (bytes), feeds: { name: { type, data (typed array), dims } }, output }] }
// messages in: { id, want } (want: send the output back); out: { ready } | { id, ms, data? } | { error }.
import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-web';

try {
  ort.env.wasm.numThreads = workerData.threads;
  const sessions = new Map();
  for (const c of workerData.cases) {
    const session = await ort.InferenceSession.create(c.model, { executionProviders: ['wasm'] });
    const feeds = Object.fromEntries(Object.entries(c.feeds).map(([name, f]) => [name, new ort.Tensor(f.type, f.data, f.dims)]));
    sessions.set(c.id, { session, feeds, output: c.output });
  }
  parentPort.on('message', async ({ id, want }) => {
    try {
      const { session, feeds, output } = sessions.get(id);
      const t = performance.now();
      const result = await session.run(feeds);
      const ms = performance.now() - t;
      parentPort.postMessage({ id, ms, data: want ? result[output].data : undefined });
    } catch (error) {
      parentPort.postMessage({ id, error: String(error?.message ?? error) });
    }
  });
  parentPort.postMessage({ ready: true });
} catch (error) {
  parentPort.postMessage({ error: String(error?.message ?? error) });
}
