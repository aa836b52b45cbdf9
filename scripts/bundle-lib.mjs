// Writes the package's runtime entries, which package.json "exports" names:
//   dist/lib/posenc.js     `import 'posenc'`           (web/lib/index.js)
//   dist/lib/variants.js   `import 'posenc/variants'`  (web/lib/variants/index.js)
//   dist/lib/fields.js     `import 'posenc/fields'`    (web/lib/fields/index.js)
//   dist/lib/lab.js        `import 'posenc/lab'`       (web/lib/lab/index.js)
// Each is one minified ES module with its WebAssembly embedded (the release
// dist/*-wasm.js), and a linked source map beside it that carries the sources.
// Run by build.sh after the WASM build; bench/size.mjs measures these files.
//
// The modules' exports get short names inside the entries: the JS calls
// wasm.pe_table(...) by the export's name, so each name travels twice, in
// the module's export section and in the code. esbuild's mangleProps
// renames those property accesses (only the names in c/exports/*.txt) and
// the modules embedded here are renamed to match (scripts/wasm-text.mjs);
// gzip -9: posenc -159 bytes, variants -256, fields -149. dist/*-wasm.js keep
// the C names, for the tests and tools that load them under web/lib's sources,
// and dist/lib/exports.json records the names given, for the tests.
import { build } from './bundle.mjs';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateModule, renameExports, textOf } from './wasm-text.mjs';
import { INTERNAL } from './internal-names.mjs';

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

// Every name any module exports (the debug lists too: a property of the same name must not be left unrenamed).
const EXPORTS = readdirSync(join(ROOT, 'c/exports')).filter((f) => f.endsWith('.txt'))
  .flatMap((f) => readFileSync(join(ROOT, 'c/exports', f), 'utf8').split('\n').map((s) => s.trim()).filter(Boolean));
const options = (mangleCache, plugins) => ({
  absWorkingDir: ROOT,
  entryPoints: {
    posenc: 'web/lib/index.js', variants: 'web/lib/variants/index.js', fields: 'web/lib/fields/index.js', lab: 'web/lib/lab/index.js',
    inflate: 'web/lib/inflate.js',
  },
  plugins: [inflaterApart, ...plugins],
  outdir: OUT,
  // Neither Node nor a browser is assumed: the entries run on both as they are.
  platform: 'neutral',
  sourcemap: true,
  logLevel: 'warning',
  mangleProps: new RegExp(`^(${[...new Set([...EXPORTS, ...INTERNAL])].join('|')})$`),
  mangleCache,
});

// First pass, nothing written: which short name esbuild gives each export the JS calls.
const { mangleCache } = await build({ ...options({}, []), write: false });
const renamed = Object.fromEntries(Object.entries(mangleCache).filter(([, v]) => typeof v === 'string'));

// dist/NAME-wasm.js as the entries embed it: dist/NAME.wasm with its exports renamed.
const texts = {};
for (const name of ['posenc', 'variants', 'fields', 'lab']) {
  const wasm = renameExports(readFileSync(join(ROOT, `dist/${name}.wasm`)), (e) => renamed[e] ?? e);
  new WebAssembly.Module(wasm); // still a valid module
  texts[name] = textOf(await deflateModule(wasm));
}
const renamedModules = {
  name: 'renamed-modules',
  setup(b) {
    b.onLoad({ filter: /[\\/]dist[\\/](posenc|variants|fields|lab)-wasm\.js$/ }, (args) => {
      const name = args.path.match(/(posenc|variants|fields|lab)-wasm\.js$/)[1];
      return { contents: `export const WASM_BASE64 = '${texts[name]}';\n`, loader: 'js' };
    });
  },
};

await rm(OUT, { recursive: true, force: true });
const second = await build(options(mangleCache, [renamedModules]));
if (JSON.stringify(second.mangleCache) !== JSON.stringify(mangleCache)) throw new Error('bundle-lib: the two passes renamed the exports differently');
writeFileSync(join(OUT, 'exports.json'), `${JSON.stringify(renamed, null, 1)}\n`);
