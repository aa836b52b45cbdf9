// The text form of a WebAssembly module inside a bundle, shared by
// scripts/embed-wasm.mjs (dist/*-wasm.js) and scripts/bundle-lib.mjs (the
// package entries): the module deflated, then six bits a character in the
// loader's alphabet (EMBED_ALPHABET, web/lib/wasm.js). And the one edit the
// entries make to a module: renaming its exports.
import { deflateSync, inflateSync, constants } from 'node:zlib';
import { zlibAsync } from '@gfx/zopfli';
import { EMBED_ALPHABET, fromText } from '../web/lib/wasm.js';

/** Six bits a character, most significant first; the last character padded with zero bits. */
export function toText(bytes) {
  let text = '', acc = 0, bits = 0;
  for (const byte of bytes) {
    acc = ((acc << 8) | byte) & 0xffff;
    for (bits += 8; bits >= 6; ) text += EMBED_ALPHABET[(acc >> (bits -= 6)) & 63];
  }
  return bits ? text + EMBED_ALPHABET[(acc << (6 - bits)) & 63] : text;
}

/**
 * The zlib stream of a module: Zopfli's up to 64 KiB (about 5% smaller than
 * zlib's level 9), zlib's above (Zopfli would take seconds for the debug
 * modules nobody downloads). Checked to inflate back.
 */
export async function deflateModule(bytes) {
  const payload = bytes.length <= 64 * 1024
    ? Buffer.from(await zlibAsync(bytes, { numiterations: 15 }))
    : deflateSync(bytes, { level: constants.Z_BEST_COMPRESSION, memLevel: 9, strategy: constants.Z_DEFAULT_STRATEGY });
  if (!inflateSync(payload).equals(bytes)) throw new Error('wasm-text: the deflated module does not inflate back to itself');
  return payload;
}

/** The text of bytes as embedded, checked to decode back. */
export function textOf(bytes) {
  const text = toText(bytes);
  if (!Buffer.from(fromText(text)).equals(Buffer.from(bytes))) throw new Error('wasm-text: the text does not decode back to its bytes');
  return text;
}

const uleb = (n) => {
  const out = [];
  do {
    out.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n >>>= 7;
  } while (n);
  return Buffer.from(out);
};

/** A cursor over bytes that reads unsigned LEB128 numbers; `at` is where it stands. */
function cursor(bytes, at = 0) {
  return {
    at,
    uleb() {
      let r = 0, shift = 0, x;
      do {
        x = bytes[this.at++];
        r += (x & 0x7f) * 2 ** shift;
        shift += 7;
      } while (x & 0x80);
      return r;
    },
  };
}

/** The sections of a module: [{ id, body }] in order (body without the id and size). */
export function sections(wasm) {
  const b = Buffer.from(wasm), list = [], c = cursor(b, 8);
  while (c.at < b.length) {
    const id = b[c.at++], size = c.uleb();
    list.push({ id, body: b.subarray(c.at, c.at + size) });
    c.at += size;
  }
  return list;
}

/** The module with each export named rename(name) instead; every other section byte for byte as it was. */
export function renameExports(wasm, rename) {
  const out = [Buffer.from(wasm).subarray(0, 8)];
  for (const { id, body } of sections(wasm)) {
    let next = body;
    if (id === 7) {
      const c = cursor(body), count = c.uleb(), parts = [uleb(count)];
      for (let i = 0; i < count; i++) {
        const length = c.uleb(), name = body.subarray(c.at, c.at + length).toString();
        const kindAt = (c.at += length);
        c.at++;
        c.uleb(); // the index
        const renamed = Buffer.from(rename(name));
        parts.push(uleb(renamed.length), renamed, body.subarray(kindAt, c.at));
      }
      next = Buffer.concat(parts);
    }
    out.push(Buffer.from([id]), uleb(next.length), next);
  }
  return Buffer.concat(out);
}
