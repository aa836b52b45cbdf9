// What both jsdom suites ask of the shipped entries (dist/lib): each loads in
// the environment the suite set up and computes a value known in closed form.
import { expect } from 'vitest';

export async function expectEveryEntryWorks() {
  const pe = await (await import('../../dist/lib/posenc.js')).init();
  const t = pe.table(2, 4, { dtype: 'float64' });
  expect(Array.from(t.data)).toEqual([0, 1, 0, 1, Math.sin(1), Math.cos(1), Math.sin(0.01), Math.cos(0.01)]);
  const pv = await (await import('../../dist/lib/variants.js')).init();
  expect(Array.from(pv.alibiSlopes(2))).toEqual([2 ** -4, 2 ** -8]);
  const pf = await (await import('../../dist/lib/fields.js')).init();
  expect(Array.from(pf.timestepEmbedding([1], 2, { preset: 'dit', dtype: 'float64' }).data)).toEqual([Math.cos(1), Math.sin(1)]);
  const lab = await (await import('../../dist/lib/lab.js')).init();
  const stats = [pe, pv, pf, lab].map((m) => m.memoryStats().liveAllocations);
  expect(stats).toEqual([0, 0, 0, 0]);
}
