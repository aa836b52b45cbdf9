// @vitest-environment jsdom
// The package's entries as they ship (dist/lib), loaded in Vitest's jsdom
// environment as a demo's unit tests would: jsdom's Blob has no stream(), the
// call the loader used to make ("Blob.stream is not a function", issue 13).
import { test, expect } from 'vitest';
import { expectEveryEntryWorks } from './entries.js';

test('this is jsdom: a window and a document, and a Blob without stream()', () => {
  expect(typeof window).toBe('object');
  expect(document.createElement('div').tagName).toBe('DIV');
  expect(typeof new Blob([new Uint8Array(1)]).stream).toBe('undefined');
});

test('every entry (posenc, variants, fields, lab) loads and computes', expectEveryEntryWorks);
