// Turns an embedded module into an instance. dist/posenc-wasm.js (the core)
// and dist/variants-wasm.js each carry one as base64 of its deflated bytes
// (scripts/embed-wasm.mjs), so loading needs no fetch, file system or bundler
// plugin (a CSP needs only 'wasm-unsafe-eval'), and gzip on the wire still
// sees a compressed stream, not base64 noise. A plain "\0asm" module is used
// as is.

// The release modules import nothing (the core grows its own memory). The
// debug build's C assertions print through WASI fd_write and stop through
// proc_exit: the text is kept (fd_write must report it written, or C's stdio
// retries forever) and the exit becomes a thrown Error that carries it.
function hostImports(memory) {
  let text = '';
  return {
    wasi_snapshot_preview1: {
      fd_write(fd, iovs, count, written) {
        const view = new DataView(memory().buffer);
        let total = 0;
        for (let i = 0; i < count; i++) {
          const len = view.getUint32(iovs + 8 * i + 4, true);
          text += new TextDecoder().decode(new Uint8Array(memory().buffer, view.getUint32(iovs + 8 * i, true), len));
          total += len;
        }
        view.setUint32(written, total, true);
        return 0;
      },
      proc_exit(code) {
        throw new Error(`posenc: WebAssembly core aborted (exit ${code})${text ? `: ${text.trim()}` : ''}`);
      },
      fd_close() { return 0; },
      fd_seek() { return 0; },
    },
  };
}

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
  let exports;
  const { instance } = await WebAssembly.instantiate(await decode(base64), hostImports(() => exports.memory));
  exports = instance.exports;
  if (typeof exports._initialize === 'function') exports._initialize();
  return exports;
}

/**
 * The init() of an entry: instantiates the embedded module on the first call
 * and resolves to create(exports), the entry's API. Every call returns that
 * same promise, except after a failure to load, which is forgotten so that a
 * later call tries again.
 */
export function cachedInit(base64, create) {
  let ready;
  return function init() {
    ready ??= instantiate(base64).then(create, (error) => {
      ready = undefined; // let a later call try again
      throw error;
    });
    return ready;
  };
}
