// @vitest-environment jsdom
// jsdom as Jest's environment and older embedders give it: no
// DecompressionStream and no Response either. The loader falls back to its
// own inflater (web/lib/inflate.js, dist/lib/inflate.js); the result is the
// same module, bit for bit the same numbers.
import { test, expect, beforeAll } from 'vitest';

beforeAll(() => {
  delete globalThis.DecompressionStream;
  delete globalThis.Response;
});

test('the streams are gone, as in Jest\'s jsdom environment', () => {
  expect(typeof DecompressionStream).toBe('undefined');
  expect(typeof Response).toBe('undefined');
  expect(typeof document).toBe('object');
});

test('every entry still loads, through the inflater', async () => {
  const pe = await (await import('../../dist/lib/posenc.js')).init();
  const t = pe.table(2, 4, { dtype: 'float64' });
  expect(Array.from(t.data)).toEqual([0, 1, 0, 1, Math.sin(1), Math.cos(1), Math.sin(0.01), Math.cos(0.01)]);
  const pv = await (await import('../../dist/lib/variants.js')).init();
  expect(Array.from(pv.alibiSlopes(2))).toEqual([2 ** -4, 2 ** -8]);
  const pf = await (await import('../../dist/lib/fields.js')).init();
  expect(Array.from(pf.timestepEmbedding([1], 2, { preset: 'dit', dtype: 'float64' }).data)).toEqual([Math.cos(1), Math.sin(1)]);
  const lab = await (await import('../../dist/lib/lab.js')).init();
  expect(lab.memoryStats().liveAllocations).toBe(0);
});
