// Writes the package's runtime entries, which package.json "exports" names:
//   dist/lib/posenc.js     `import 'posenc'`           (web/lib/index.js)
//   dist/lib/variants.js   `import 'posenc/variants'`  (web/lib/variants/index.js)
//   dist/lib/fields.js     `import 'posenc/fields'`    (web/lib/fields/index.js)
//   dist/lib/lab.js        `import 'posenc/lab'`       (web/lib/lab/index.js)
// Each is one minified ES module with its WebAssembly embedded (the release
// dist/*-wasm.js), and a linked source map beside it that carries the sources.
// Run by build.sh after the WASM build; bench/size.mjs measures these files.
import { build } from './bundle.mjs';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist/lib');

for (const f of ['dist/posenc-wasm.js', 'dist/variants-wasm.js', 'dist/fields-wasm.js', 'dist/lab-wasm.js']) {
  if (!existsSync(join(ROOT, f))) {
    console.error(`bundle-lib: ${f} is missing; build the WASM first (bash build.sh).`);
    process.exit(1);
  }
}

// web/lib/inflate.js, the loader's fallback where DecompressionStream is
// missing (jsdom, older embedders), stays a file of its own, dist/lib/inflate.js,
// that the entries import dynamically: no entry carries its bytes.
const inflaterApart = {
  name: 'inflater-apart',
  setup(b) {
    b.onResolve({ filter: /^\.\/inflate\.js$/ }, (args) => (args.kind === 'dynamic-import' ? { path: './inflate.js', external: true } : undefined));
  },
};

await rm(OUT, { recursive: true, force: true });
await build({
  absWorkingDir: ROOT,
  entryPoints: {
    posenc: 'web/lib/index.js', variants: 'web/lib/variants/index.js', fields: 'web/lib/fields/index.js', lab: 'web/lib/lab/index.js',
    inflate: 'web/lib/inflate.js',
  },
  plugins: [inflaterApart],
  outdir: OUT,
  // Neither Node nor a browser is assumed: the entries run on both as they are.
  platform: 'neutral',
  sourcemap: true,
  logLevel: 'warning',
});
