// @vitest-environment jsdom
// jsdom as Jest's environment and older embedders give it: no
// DecompressionStream and no Response either. Without the first, the loader falls back to its
// own inflater (web/lib/inflate.js, dist/lib/inflate.js); the result is the
// same module, bit for bit the same numbers.
import { test, expect, beforeAll } from 'vitest';
import { expectEveryEntryWorks } from './entries.js';

beforeAll(() => {
  delete globalThis.DecompressionStream;
  delete globalThis.Response;
});

test('the streams are gone, as in Jest\'s jsdom environment', () => {
  expect(typeof DecompressionStream).toBe('undefined');
  expect(typeof Response).toBe('undefined');
  expect(typeof document).toBe('object');
});

test('every entry still loads, through the inflater', expectEveryEntryWorks);
