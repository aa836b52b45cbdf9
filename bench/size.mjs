// What a user of the npm package loads: the embedded core (dist/posenc-wasm.js)
// and the JS API (web/lib/*.js; index.d.ts is types only, never loaded). Each
// file is gzipped at level 9 on its own, as a server or CDN would send it, and
// the sizes are summed.
//
// Two numbers: the target, 15 kB (k = 1000), which posenc does NOT
// meet today (see docs/performance.md, "Size: what would it take"), and a
// regression budget a little above today's size, which tests/size.test.js
// enforces so that the package cannot quietly grow while the target is open.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const SIZE_TARGET_BYTES = 15000;
export const SIZE_BUDGET_BYTES = 42000;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The files counted, relative to the repository root. */
export function loadedFiles() {
  const lib = readdirSync(join(root, 'web/lib')).filter((f) => f.endsWith('.js')).sort();
  return ['dist/posenc-wasm.js', ...lib.map((f) => `web/lib/${f}`)];
}

/** { files: [{ path, bytes, gzip }], bytes, gzip, wasm: { bytes, gzip } | null } */
export function measureSize() {
  const files = loadedFiles().map((path) => {
    const bytes = readFileSync(join(root, path));
    return { path, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  const wasmPath = join(root, 'dist/posenc.wasm');
  let wasm = null;
  if (existsSync(wasmPath)) {
    const bytes = readFileSync(wasmPath);
    wasm = { bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  }
  return {
    files,
    bytes: files.reduce((s, f) => s + f.bytes, 0),
    gzip: files.reduce((s, f) => s + f.gzip, 0),
    wasm,
  };
}
