// Turns the embedded core into an instance. dist/posenc-wasm.js carries it as
// base64 of its deflated bytes (scripts/embed-wasm.mjs), so loading needs no
// fetch, file system or bundler plugin (a CSP needs only 'wasm-unsafe-eval'),
// and gzip on the wire still sees a compressed stream, not base64 noise. A
// plain "\0asm" module is used as is.

// Emscripten's standalone output imports a growth notification; the debug
// build's assertions may call WASI exit/write, which must throw, not hang.
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
