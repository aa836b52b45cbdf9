// Writes the static site to dist/web: the tutorial as index.html (Chinese) and
// en/index.html (English), embed.html, examples/blog.html, CSS, the tutorial's
// split modules (tutorial.js plus chunks/, each widget loaded when first
// needed), and two self-contained ES module bundles (both WASM modules are inside
// dist/posenc-wasm.js and dist/variants-wasm.js as base64, so no bundle fetches
// anything; the variants' is compiled only when a widget needs it):
//   tutorial.js        the tutorial page
//   embed.js           embed.html?view=...
//   posenc-widgets.js  the one file a blog includes to get every <pe-*> element:
//                      a copy of the package's dist/posenc-widgets.js, so the
//                      example blog tests the very file that ships
// Run by build.sh after the WASM build; prints each output's size.
import { build } from './bundle.mjs';
import { PAGES, languagePage } from './site-pages.mjs';
import { withCspMeta } from './csp.mjs';
import { missingKeys } from './string-keys.mjs';
import { STRINGS } from '../web/widgets/strings.js';
import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SITE = join(ROOT, 'web/site');
const OUT = join(ROOT, 'dist/web');

if (!existsSync(join(ROOT, 'dist/posenc-wasm.js')) || !existsSync(join(ROOT, 'dist/posenc-widgets.js'))) {
  console.error('build-site: dist/posenc-wasm.js or dist/posenc-widgets.js is missing; run bash build.sh.');
  process.exit(1);
}

// A key the code uses but a language file lacks would reach the reader; stop here instead.
const missing = await missingKeys(ROOT, STRINGS);
if (missing.length) {
  console.error(`build-site: string keys missing from web/widgets/strings/:\n  ${missing.join('\n  ')}`);
  process.exit(1);
}

await rm(OUT, { recursive: true, force: true });
await mkdir(join(OUT, 'examples'), { recursive: true });

await build({
  absWorkingDir: ROOT,
  entryPoints: {
    embed: 'web/site/embed.js',
    // <pe-lab>'s worker, beside the bundles that start it (new URL('./lab-worker.js', import.meta.url))
    'lab-worker': 'web/widgets/lab-worker.js',
  },
  outdir: OUT,
  target: ['chrome110', 'firefox115', 'safari16.4'],
  legalComments: 'eof',
  logLevel: 'warning',
});

// The tutorial in pieces: the first screen's script is small (no Chart.js), and
// each widget's code, with Chart.js, comes as a chunk when it first scrolls near.
const { metafile } = await build({
  absWorkingDir: ROOT,
  entryPoints: { tutorial: 'web/site/main.js' },
  splitting: true,
  metafile: true,
  chunkNames: 'chunks/[name]-[hash]',
  outdir: OUT,
  target: ['chrome110', 'firefox115', 'safari16.4'],
  legalComments: 'eof',
  logLevel: 'warning',
});

// The chunks tutorial.js imports statically are fetched in parallel with it
// (<link rel="modulepreload">), not one round trip after it.
const firstScreen = metafile.outputs['dist/web/tutorial.js'].imports
  .filter((i) => i.kind === 'import-statement')
  .map((i) => relative(OUT, join(ROOT, i.path)));
const preloads = firstScreen.map((f) => `<link rel="modulepreload" href="${f}">`).join('\n');

// One page per language, made from the bilingual source.
const source = (await readFile(join(SITE, 'index.html'), 'utf8'))
  .replace('<script type="module" src="tutorial.js"></script>', (tag) => `${tag}\n${preloads}`);
for (const page of PAGES) {
  await mkdir(dirname(join(OUT, page.path)), { recursive: true });
  await writeFile(join(OUT, page.path), languagePage(source, page));
}

// The other pages and styles are copied as they are (no inline scripts or styles to rewrite).
// posenc-widgets.js is the package's own standalone bundle, so the example blog tests the file that ships.
await cp(join(ROOT, 'dist/posenc-widgets.js'), join(OUT, 'posenc-widgets.js'));
const copies = ['embed.html', 'file-notice.js', 'favicon.svg', 'css', 'models', 'examples/blog.html', 'examples/blog.css',
  'examples/iframe.html', 'examples/iframe-host.js'];
for (const path of copies) await cp(join(SITE, path), join(OUT, path), { recursive: true });

// Every page carries the CSP as a <meta> tag, so a copy hosted anywhere keeps it.
for (const file of (await list(OUT)).filter((f) => f.endsWith('.html'))) {
  await writeFile(file, withCspMeta(await readFile(file, 'utf8')));
}

// The CSP forbids eval and new Function; a bundle that needs them would fail in the browser.
const scripts = (await list(OUT)).filter((f) => f.endsWith('.js'));
for (const file of scripts) {
  const name = relative(OUT, file);
  const code = await readFile(file, 'utf8');
  if (/\beval\s*\(|new Function\s*\(/.test(code)) {
    console.error(`build-site: ${name} contains eval or new Function, which the CSP blocks.`);
    process.exit(1);
  }
}

async function list(dir) {
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await list(path)));
    else out.push(path);
  }
  return out;
}

for (const file of (await list(OUT)).sort()) {
  const { size } = await stat(file);
  console.log(`${relative(ROOT, file).padEnd(36)} ${(size / 1024).toFixed(1).padStart(8)} KiB`);
}
