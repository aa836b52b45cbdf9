// A worker thread grows each of a list of growable SharedArrayBuffers at a
// different moment of the call made on it: the race of a length read, then
// the data copied, that no single-threaded test can reach.
import { Worker } from 'node:worker_threads';

const GROWER = `
  const { workerData: d } = require('node:worker_threads');
  const t = new Int32Array(d.turn);
  Atomics.store(t, 1, 1);
  for (let i = 0; i < d.sabs.length; i++) {
    while (Atomics.load(t, 0) < i) {}
    for (let k = 0, n = (i * 7919) % 2000; k < n; k++) Atomics.load(t, 0); // a different moment of each call
    d.sabs[i].grow(d.sabs[i].maxByteLength);
  }
`;

/**
 * Calls call(sab) on each buffer make(i) gives (i < count) while the worker
 * grows it; the outcomes, in order: 'used', or the error thrown.
 */
export async function growRace(count, make, call) {
  const sabs = Array.from({ length: count }, (_, i) => make(i));
  const turn = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(GROWER, { eval: true, workerData: { sabs, turn: turn.buffer } });
  const outcomes = [];
  try {
    // started before the first call, so that the worker keeps pace with the calls (not all grown late, after them)
    while (Atomics.load(turn, 1) === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    for (let i = 0; i < count; i++) {
      Atomics.store(turn, 0, i);
      try {
        call(sabs[i]);
        outcomes.push('used');
      } catch (e) {
        outcomes.push(e);
      }
    }
  } finally {
    await worker.terminate();
  }
  return outcomes;
}

/**
 * growRace until both a call that saw the buffer grown and one that did not
 * have happened (at most `rounds` times, as a loaded machine may starve the
 * worker); the errors that `expected` does not accept, and the counts.
 */
export async function growRaceBoth(count, make, call, expected, rounds = 5) {
  let refused = 0, used = 0;
  const raw = [];
  for (let r = 0; r < rounds && !(refused && used); r++) {
    for (const o of await growRace(count, make, call)) {
      if (o === 'used') used++;
      else if (expected(o)) refused++;
      else raw.push(String(o));
    }
  }
  return { raw, refused, used };
}
