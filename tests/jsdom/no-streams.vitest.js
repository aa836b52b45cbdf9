// @vitest-environment jsdom
// jsdom as Jest's environment and older embedders give it: no
// DecompressionStream and no Response either, and a Node older than 20.16
// (or a process object without getBuiltinModule). The loader falls back to
// its own inflater (web/lib/inflate.js, dist/lib/inflate.js); the result is
// the same module, bit for bit the same numbers.
import { test, expect, beforeAll } from 'vitest';
import { expectEveryEntryWorks } from './entries.js';

beforeAll(() => {
  delete globalThis.DecompressionStream;
  delete globalThis.Response;
  process.getBuiltinModule = undefined;
});

test('the streams are gone, as in Jest\'s jsdom environment, and Node\'s zlib with them', () => {
  expect(typeof DecompressionStream).toBe('undefined');
  expect(typeof Response).toBe('undefined');
  expect(process.getBuiltinModule).toBe(undefined);
  expect(typeof document).toBe('object');
});

test('every entry still loads, through the inflater', expectEveryEntryWorks);
