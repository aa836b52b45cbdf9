// @vitest-environment jsdom
// The package's entries as they ship (dist/lib), loaded in Vitest's jsdom
// environment as a demo's unit tests would: jsdom's Blob has no stream(), the
// call the loader used to make ("Blob.stream is not a function", issue 13).
import { test, expect } from 'vitest';

test('this is jsdom: a window and a document, and a Blob without stream()', () => {
  expect(typeof window).toBe('object');
  expect(document.createElement('div').tagName).toBe('DIV');
  expect(typeof new Blob([new Uint8Array(1)]).stream).toBe('undefined');
});

test('posenc, posenc/variants and posenc/fields load and compute', async () => {
  const pe = await (await import('../../dist/lib/posenc.js')).init();
  const t = pe.table(2, 4, { dtype: 'float64' });
  expect(Array.from(t.data)).toEqual([0, 1, 0, 1, Math.sin(1), Math.cos(1), Math.sin(0.01), Math.cos(0.01)]);
  const pv = await (await import('../../dist/lib/variants.js')).init();
  expect(Array.from(pv.alibiSlopes(2))).toEqual([2 ** -4, 2 ** -8]);
  const pf = await (await import('../../dist/lib/fields.js')).init();
  expect(Array.from(pf.timestepEmbedding([1], 2, { preset: 'dit', dtype: 'float64' }).data)).toEqual([Math.cos(1), Math.sin(1)]);
  expect(pe.memoryStats().liveAllocations + pv.memoryStats().liveAllocations + pf.memoryStats().liveAllocations).toBe(0);
});
