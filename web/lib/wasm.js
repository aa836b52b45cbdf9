// Turns an embedded module into an instance. dist/posenc-wasm.js (the core)
// and the other entries' dist/*-wasm.js each carry one as text: its deflated
// bytes, six bits a character (scripts/embed-wasm.mjs), so loading needs no
// fetch, file system or bundler plugin (a CSP needs only 'wasm-unsafe-eval'),
// and gzip on the wire still sees a compressed stream, not wasm bytes as
// base64 noise.

import { wasmCompile, WasmInstance, instanceExports } from './intrinsics.js';

/**
 * The 64 characters of the embedded text, most frequent first in the
 * minified bundles around it, in place of base64's A-Z a-z 0-9 + /: gzip
 * codes the text and the code in the same Huffman blocks, and shared
 * characters make both codes shorter (150-280 bytes less per entry gzipped,
 * docs/performance.md, "Embedding"). No quote, backslash, < > & or /, so the
 * text is safe in any JS string and inside an HTML script.
 */
export const EMBED_ALPHABET = 'te,rona ()is.=lfucphdy{}m:b;gw?[]$01E_xvA2*!O6T4Rj+FSk3MPLD|-qNB';


/** The bytes of an embedded text: each character six bits, most significant first. */
export function fromText(text) {
  const bytes = new Uint8Array((text.length * 3) >> 2);
  let acc = 0, bits = 0, at = 0;
  for (let i = 0; i < text.length; i++) {
    acc = (acc << 6) | EMBED_ALPHABET.indexOf(text[i]);
    if ((bits += 6) >= 8) bytes[at++] = acc >> (bits -= 8);
  }
  return bytes;
}

async function decode(text) {
  const bytes = fromText(text);
  // Node from 20.16 and 22.3 (and runtimes that copy its getBuiltinModule):
  // its own zlib, 3-4 ms, where the streams below first load Node's web
  // streams and the Response its fetch: init() took about 40 ms there.
  const zlib = globalThis.process?.getBuiltinModule?.('zlib');
  if (zlib) return zlib.inflateSync(bytes);
  // jsdom in Jest, older Node and embedders: our own inflater, a file of its
  // own fetched only there.
  if (typeof DecompressionStream !== 'function' || typeof Response !== 'function') return (await import('./inflate.js')).inflate(bytes);
  return new Uint8Array(await new Response(new Response(bytes).body.pipeThrough(new DecompressionStream('deflate'))).arrayBuffer());
}

/**
 * Compiles and starts a module; resolves to create(its raw exports) (default: the exports). The shipped
 * modules import nothing; `imports` is for the debug build, which the tests
 * run with a host for its C assertions (tests/helpers/wasi.js).
 */
export async function instantiate(text, imports = {}, create = (exports) => exports) {
  if (typeof WebAssembly !== 'object' || !wasmCompile) throw new TypeError('posenc: this JavaScript runtime has no WebAssembly');
  // Compiled, then started in the same turn as create() takes its exports (taken at load, intrinsics.js). No promise
  // holds the instance or the exports: WebAssembly.instantiate resolved its own with { module, instance }, reading that
  // object's `then` (a getter planted on Object.prototype got the instance, and its memory), and awaiting a promise of the
  // exports read its `constructor` (a getter planted on Promise.prototype got the promise, and through it the exports).
  const exports = instanceExports(new WasmInstance(await wasmCompile(await decode(text)), imports));
  if (typeof exports._initialize === 'function') exports._initialize();
  return create(exports);
}

/**
 * The init() of an entry: instantiates the embedded module on the first call
 * and resolves to create(exports), the entry's API. Every call returns that
 * same promise, except after a failure to load, which is forgotten so that a
 * later call tries again.
 */
export function cachedInit(text, create) {
  let ready;
  return function init() {
    // awaited, not by then(): a then planted on Promise.prototype was handed create, and with it the module's exports
    ready ??= (async () => {
      try {
        return await instantiate(text, undefined, create);
      } catch (error) {
        ready = undefined; // let a later call try again
        throw error;
      }
    })();
    return ready;
  };
}
