// Turns the embedded WebAssembly bytes into an instance. The bytes travel as a
// base64 string inside a JS module (dist/posenc-wasm.js), so loading needs no
// fetch, no file system and no bundler plugin: it works unchanged in Node,
// browsers and bundlers, and under a CSP that allows 'wasm-unsafe-eval'.

function decodeBase64(text) {
  const bin = atob(text);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

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

/** Compiles and starts the core; resolves to its raw exports. */
export async function instantiate(base64) {
  const { instance } = await WebAssembly.instantiate(decodeBase64(base64), imports);
  const exports = instance.exports;
  if (typeof exports._initialize === 'function') exports._initialize();
  return exports;
}
