// Writes the widgets as the package ships them:
//   dist/widgets/index.js    `import 'posenc/widgets'`: registers every <pe-*> element.
//                            Chart.js stays a bare import (a package dependency, so an
//                            app's bundler shares one copy), and the core and variants
//                            are the package's own entries (../lib/posenc.js,
//                            ../lib/variants.js), so nothing is carried twice.
//   dist/posenc-widgets.js   the standalone bundle for one <script type="module">: the
//                            same elements with Chart.js and both WASM modules inside.
//                            Its path never changes between versions, so a CDN URL
//                            without a version number always names it.
// Run by build.sh after bundle-lib.mjs.
import { build } from './bundle.mjs';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY = 'web/widgets/index.js';
const TARGET = ['chrome110', 'firefox115', 'safari16.4'];

if (!existsSync(join(ROOT, 'dist/lib/posenc.js'))) {
  console.error('bundle-widgets: dist/lib/posenc.js is missing; run scripts/bundle-lib.mjs first.');
  process.exit(1);
}

// web/lib's entries, as the package entries that dist/widgets/index.js imports instead.
const SHARED = {
  'web/lib/index.js': '../lib/posenc.js',
  'web/lib/variants/index.js': '../lib/variants.js',
  'web/lib/fields/index.js': '../lib/fields.js',
  'web/lib/lab/index.js': '../lib/lab.js',
};
const shareEntries = {
  name: 'share-package-entries',
  setup(b) {
    b.onResolve({ filter: /\/lib\/((variants|fields|lab)\/)?index\.js$/ }, (args) => {
      const abs = join(args.resolveDir, args.path);
      const hit = Object.keys(SHARED).find((p) => abs === join(ROOT, p));
      return hit ? { path: SHARED[hit], external: true } : undefined;
    });
  },
};

await rm(join(ROOT, 'dist/widgets'), { recursive: true, force: true });
await build({
  absWorkingDir: ROOT,
  entryPoints: { index: ENTRY },
  outdir: 'dist/widgets',
  external: ['chart.js'],
  plugins: [shareEntries],
  target: TARGET,
  sourcemap: true,
  logLevel: 'warning',
});
await build({
  absWorkingDir: ROOT,
  entryPoints: { 'posenc-widgets': ENTRY },
  outdir: 'dist',
  target: TARGET,
  legalComments: 'eof',
  logLevel: 'warning',
});

// <pe-lab> starts its worker from ./lab-worker.js beside the module that holds it:
// one self-contained worker bundle beside each of the two.
if (existsSync(join(ROOT, 'web/widgets/lab-worker.js'))) {
  for (const outdir of ['dist', 'dist/widgets']) {
    await build({ absWorkingDir: ROOT, entryPoints: { 'lab-worker': 'web/widgets/lab-worker.js' }, outdir, target: TARGET, logLevel: 'warning' });
  }
}

// The CSP forbids eval and new Function; a bundle that needs them would fail in the browser.
for (const name of ['dist/widgets/index.js', 'dist/posenc-widgets.js']) {
  const code = await readFile(join(ROOT, name), 'utf8');
  if (/\beval\s*\(|new Function\s*\(/.test(code)) {
    console.error(`bundle-widgets: ${name} contains eval or new Function, which the CSP blocks.`);
    process.exit(1);
  }
}
