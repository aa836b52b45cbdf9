// Turns the embedded core into an instance. The bytes travel as base64 inside
// a JS module (dist/posenc-wasm.js), so loading needs no fetch, file system or
// bundler plugin, in Node, browsers and bundlers alike, under a CSP that
// allows 'wasm-unsafe-eval'. They are deflated (scripts/embed-wasm.mjs) and
// inflated here by the standard DecompressionStream; a module that is already
// plain wasm (it starts with "\0asm") is used as it is.

// The core needs nothing from its host. Emscripten's standalone output still
// imports a growth notification; the debug build's assertions may call the
// WASI exit and write functions, which must surface as JS errors, not hangs.
const imports = {
  env: { emscripten_notify_memory_growth() {} },
  wasi_snapshot_preview1: {
    proc_exit(code) { throw new Error(`posenc: WebAssembly core aborted (exit ${code})`); },
    fd_write() { return 0; },
    fd_close() { return 0; },
    fd_seek() { return 0; },
  },
};

async function decode(base64) {
  const bytes = Uint8Array.from(atob(base64), (ch) => ch.charCodeAt(0));
  if (bytes[0] === 0 && bytes[1] === 0x61) return bytes;
  if (typeof DecompressionStream !== 'function') {
    throw new Error('posenc: this runtime lacks DecompressionStream (needs Node >= 18 or a current browser)');
  }
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Compiles and starts the core; resolves to its raw exports. */
export async function instantiate(base64) {
  const { instance } = await WebAssembly.instantiate(await decode(base64), imports);
  const exports = instance.exports;
  if (typeof exports._initialize === 'function') exports._initialize();
  return exports;
}
