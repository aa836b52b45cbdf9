// @vitest-environment jsdom
// A runtime that truly cannot run posenc has no WebAssembly. The error must
// say so, not send the user after DecompressionStream or a Node version;
// and init() must try again once WebAssembly is there.
import { test, expect } from 'vitest';

test('without WebAssembly, init() rejects naming WebAssembly, and a later init() succeeds', async () => {
  const { init } = await import('../../dist/lib/posenc.js');
  const saved = globalThis.WebAssembly;
  delete globalThis.WebAssembly;
  try {
    const error = await init().then(() => null, (e) => e);
    expect(error).toBeInstanceOf(Error);
    expect(String(error)).toMatch(/WebAssembly/);
    expect(String(error)).not.toMatch(/DecompressionStream|Node >=|Blob/);
  } finally {
    globalThis.WebAssembly = saved;
  }
  const pe = await init();
  expect(pe.table(1, 2).data[1]).toBe(1);
});
