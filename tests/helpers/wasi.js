// The host the debug modules need, and the tests give them. A failed C
// assertion prints through WASI fd_write and stops through proc_exit: the
// text is kept (fd_write must report it written, or C's stdio retries
// forever) and the exit becomes a thrown Error that carries it. The shipped
// (release) modules import nothing, so the package's loader has none of this.
import { instantiate } from '../../web/lib/wasm.js';

function debugHost() {
  let memory = null;
  let text = '';
  const imports = {
    wasi_snapshot_preview1: {
      fd_write(fd, iovs, count, written) {
        const view = new DataView(memory.buffer);
        let total = 0;
        for (let i = 0; i < count; i++) {
          const len = view.getUint32(iovs + 8 * i + 4, true);
          text += new TextDecoder().decode(new Uint8Array(memory.buffer, view.getUint32(iovs + 8 * i, true), len));
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
  return { imports, attach: (exports) => { memory = exports.memory; return exports; } };
}

/** instantiate() for either build: a release module ignores the extra host. */
export function instantiateForTests(base64) {
  const host = debugHost();
  return instantiate(base64, host.imports).then(host.attach);
}
