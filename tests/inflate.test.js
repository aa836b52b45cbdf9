// The loader's own inflater (web/lib/inflate.js, used where DecompressionStream
// is missing) against Node's zlib: every block type (stored, fixed and dynamic
// Huffman), every compression level, the Zopfli streams the entries embed,
// and damaged input, which must throw, never hang or return garbage silently.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { deflateSync, inflateSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { inflate } from '../web/lib/inflate.js';
import { fromText } from '../web/lib/wasm.js';

const root = new URL('..', import.meta.url);
const same = (a, b, what) => assert.ok(Buffer.from(a).equals(Buffer.from(b)), what);

test('the Zopfli streams embedded in the shipped entries inflate to their .wasm', async () => {
  for (const name of ['posenc', 'variants', 'fields', 'lab']) {
    const { WASM_BASE64 } = await import(new URL(`dist/${name}-wasm.js`, root));
    same(inflate(fromText(WASM_BASE64)), readFileSync(new URL(`dist/${name}.wasm`, root)), name);
  }
});

test('zlib streams of every level: stored (0), fixed codes (short input), dynamic codes', () => {
  const wasm = readFileSync(new URL('dist/posenc.wasm', root));
  const inputs = [new Uint8Array(0), Buffer.from('a'), Buffer.from('abcabcabcabcabcabc'), randomBytes(70000), wasm, Buffer.alloc(100000, 7)];
  for (const input of inputs) {
    for (const level of [0, 1, 6, 9]) same(inflate(deflateSync(input, { level })), input, `${input.length} bytes, level ${level}`);
  }
  // Level 1 on a short string uses a fixed-code block; check the block type bits (BTYPE = 01).
  assert.equal((deflateSync(Buffer.from('abcabcabcabc'), { level: 1 })[2] >> 1) & 3, 1);
  assert.equal((deflateSync(wasm, { level: 9 })[2] >> 1) & 3, 2);
  assert.equal((deflateSync(wasm, { level: 0 })[2] >> 1) & 3, 0);
});

test('damaged input throws a clear error and never hangs', () => {
  const z = deflateSync(readFileSync(new URL('dist/posenc.wasm', root)), { level: 9 });
  assert.throws(() => inflate(z.subarray(0, z.length >> 1)), /posenc: the embedded WebAssembly module is corrupt \(truncated\)/);
  assert.throws(() => inflate(Uint8Array.of(0x00, 0x61, 0x73, 0x6d)), /not a zlib stream/);
  assert.throws(() => inflate(Uint8Array.of(0x78, 0x9c, 0x07)), /bad block type/);
  // A flipped bit anywhere past the header: the corrupt error (the Adler-32 at the end catches what
  // decodes), or the exact data when the bit was padding; never a hang, another error or other bytes.
  let caught = 0;
  for (let k = 0; k < 300; k++) {
    const bad = Uint8Array.from(z);
    bad[2 + ((k * 7919) % (z.length - 2))] ^= 1 << (k % 8);
    try {
      same(inflate(bad), inflateSync(z), `bit ${k % 8} of byte ${2 + ((k * 7919) % (z.length - 2))}`);
    } catch (e) {
      assert.match(e.message, /^posenc: the embedded WebAssembly module is corrupt/);
      caught++;
    }
  }
  assert.ok(caught >= 290, `${caught} of 300 damaged streams refused`);
});
