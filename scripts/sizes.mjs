// Prints every artefact in dist/ with its size, gzipped size and sha256.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';

function* files(dir) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'screenshots') yield* files(path);
    } else if (/\.(wasm|js|html|css)$/.test(name)) yield path;
  }
}

const rows = [...files('dist')].map((path) => {
  const bytes = readFileSync(path);
  return {
    path,
    bytes: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    sha256: createHash('sha256').update(bytes).digest('hex').slice(0, 16),
  };
});
const width = Math.max(...rows.map((r) => r.path.length));
console.log(`${'artefact'.padEnd(width)}  ${'bytes'.padStart(9)}  ${'gzip'.padStart(8)}  sha256 (first 16)`);
for (const r of rows) {
  console.log(`${r.path.padEnd(width)}  ${String(r.bytes).padStart(9)}  ${String(r.gzip).padStart(8)}  ${r.sha256}`);
}
