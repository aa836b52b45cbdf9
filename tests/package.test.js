// The package as users get it: `npm pack`, installed into a scratch ESM
// project, imported in Node, bundled for the browser, and type-checked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync, copyFileSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from '../scripts/bundle.mjs';
import { installPacked, run as runIn } from './helpers/consumer.js';

const root = resolve(import.meta.dirname, '..');
let dir;
let files;

const run = (cmd, args, cwd = dir) => runIn(cmd, args, cwd);

before(() => {
  ({ dir, files } = installPacked('posenc-consumer-'));
});

after(() => rmSync(dir, { recursive: true, force: true }));

test('the tarball holds the bundled entries, their maps and types, the widgets, the CLI, and nothing else of the repo', () => {
  // dist/lib/inflate.js: the loader's fallback where DecompressionStream is missing, imported only there.
  const entries = ['dist/lib/posenc.js', 'dist/lib/variants.js', 'dist/lib/fields.js', 'dist/lib/lab.js', 'dist/lib/inflate.js', 'dist/widgets/index.js'];
  const types = ['web/lib/index.d.ts', 'web/lib/variants/index.d.ts', 'web/lib/fields/index.d.ts', 'web/lib/lab/index.d.ts', 'web/widgets/index.d.ts'];
  const cli = ['bin/posenc.js', 'bin/npy.js', 'bin/args.js', 'bin/rope-flags.js', 'bin/rope-config.js', 'bin/inspect.js', 'bin/shortest.js', 'bin/files.js'];
  const widgets = ['dist/posenc-widgets.js', 'dist/lab-worker.js', 'dist/widgets/lab-worker.js'];
  // Every doc the README links (as absolute URLs into this version's tarball), and the examples.
  const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  const examples = ['examples/decode-loop.mjs', 'examples/onnx/attention.mjs', 'examples/tfjs/attention.mjs'];
  const want = [...entries, ...entries.map((f) => `${f}.map`), ...types, ...cli, ...widgets, ...docs, ...examples, 'package.json', 'README.md', 'LICENSE'];
  assert.deepEqual([...files].sort(), want.sort());
});

const PROGRAM = `import { init } from 'posenc';
import initVariants from 'posenc/variants';
import initFields from 'posenc/fields';
const pe = await init();
const pv = await initVariants();
const pf = await initFields();
const t = pe.table(2, 6, { dtype: 'float64' });
console.log(JSON.stringify({
  same: (await init()) === pe && (await initVariants()) === pv,
  row1: Array.from(t.data.slice(6)),
  slopes: Array.from(pv.alibiSlopes(2)),
  timestep: Array.from(pf.timestepEmbedding([1], 2, { preset: 'dit', dtype: 'float64' }).data),
  live: pe.memoryStats().liveAllocations + pv.memoryStats().liveAllocations + pf.memoryStats().liveAllocations,
}));
`;

function checkOutput(stdout) {
  const { same, row1, slopes, timestep, live } = JSON.parse(stdout);
  assert.deepEqual(timestep, [Math.cos(1), Math.sin(1)]);
  assert.equal(same, true);
  assert.equal(live, 0);
  assert.deepEqual(slopes, [2 ** -4, 2 ** -8]);
  const w = [1, 10000 ** (-2 / 6), 10000 ** (-4 / 6)];
  const want = w.flatMap((x) => [Math.sin(x), Math.cos(x)]);
  row1.forEach((v, i) => assert.ok(Math.abs(v - want[i]) < 1e-15, `col ${i}: ${v} vs ${want[i]}`));
}

test('Node ESM: import both entries from the installed package and call them', () => {
  writeFileSync(join(dir, 'main.mjs'), PROGRAM);
  checkOutput(run(process.execPath, ['main.mjs']));
});

test('bundlers: esbuild bundles both entries for the browser without Node built-ins, and the bundle runs', async () => {
  writeFileSync(join(dir, 'entry.mjs'), PROGRAM);
  const outfile = join(dir, 'bundle.mjs');
  await build({ entryPoints: [join(dir, 'entry.mjs')], outfile, platform: 'browser', absWorkingDir: dir });
  assert.doesNotMatch(readFileSync(outfile, 'utf8'), /\brequire\(|node:/);
  checkOutput(run(process.execPath, [outfile]));
});

test('posenc/widgets: a bundler shares the app\'s Chart.js and the core entry; posenc alone carries neither widgets nor Chart.js', async () => {
  const bundle = async (name, code) => {
    writeFileSync(join(dir, `${name}.mjs`), code);
    const result = await build({ entryPoints: [join(dir, `${name}.mjs`)], outfile: join(dir, `${name}.out.mjs`), platform: 'browser', absWorkingDir: dir, metafile: true, minify: false });
    return Object.keys(result.metafile.inputs);
  };
  const inputs = await bundle('app', "import 'posenc/widgets';\nimport { Chart } from 'chart.js';\nimport { init } from 'posenc';\nconsole.log(Chart, init);\n");
  // One Chart.js: the consumer's node_modules/chart.js, which both imports resolve to.
  const charts = inputs.filter((p) => /chart\.js\/dist\/chart\.js$/.test(p));
  assert.deepEqual(charts, ['node_modules/chart.js/dist/chart.js']);
  assert.ok(inputs.includes('node_modules/posenc/dist/lib/posenc.js'));
  assert.equal(inputs.filter((p) => p.includes('posenc-wasm')).length, 0, 'the core comes in once, as dist/lib/posenc.js');
  // The variants stay a separate chunk-to-be: posenc/widgets only imports them dynamically.
  assert.match(readFileSync(join(dir, 'node_modules/posenc/dist/widgets/index.js'), 'utf8'), /import\("\.\.\/lib\/variants\.js"\)/);
  const core = await bundle('core', "import { init } from 'posenc';\nconsole.log(init);\n");
  // The inflater is a separate module that posenc imports dynamically (a lazy chunk for bundlers that split).
  assert.deepEqual(core.sort(), ['core.mjs', 'node_modules/posenc/dist/lib/inflate.js', 'node_modules/posenc/dist/lib/posenc.js']);
});

test('the standalone widgets bundle has a fixed path and imports nothing: Chart.js and both modules are inside', () => {
  const code = readFileSync(join(dir, 'node_modules/posenc/dist/posenc-widgets.js'), 'utf8');
  assert.doesNotMatch(code, /\bimport\s*\(|\bfrom\s*["']|^import\s/m);
  for (const tag of ['pe-heatmap', 'pe-rope', 'pe-toy-attention']) assert.ok(code.includes(`"${tag}"`), tag);
  const pkg = JSON.parse(readFileSync(join(dir, 'node_modules/posenc/package.json'), 'utf8'));
  assert.equal(pkg.exports['./dist/posenc-widgets.js'], './dist/posenc-widgets.js');
  assert.equal(pkg.dependencies['chart.js'].startsWith('^4.'), true);
});

test('TypeScript: the declarations of both entries resolve through "exports" and type a real program', () => {
  copyFileSync(join(root, 'tests/fixtures/consumer/use.ts'), join(dir, 'use.ts'));
  const tsconfig = { compilerOptions: { strict: true, noEmit: true, module: 'nodenext', target: 'es2022', skipLibCheck: false }, files: ['use.ts'] };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
});

test('TypeScript: misuse is rejected (every @ts-expect-error line really is an error)', () => {
  copyFileSync(join(root, 'tests/fixtures/consumer/misuse.ts'), join(dir, 'misuse.ts'));
  const tsconfig = { compilerOptions: { strict: true, noEmit: true, module: 'nodenext', target: 'es2022' }, files: ['misuse.ts'] };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  // Unused @ts-expect-error directives are errors themselves, so a passing
  // compile proves each misuse was caught.
  run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
});

test('the CLI runs from the installed package: table on posenc, rope and alibi on posenc/variants', () => {
  const cli = (...args) => JSON.parse(run(join(dir, 'node_modules/.bin/posenc'), [...args, '--format', 'json', '--dtype', 'float64', '--out', '-']));
  const near = (got, want) => {
    assert.equal(got.length, want.length);
    got.forEach((v, i) => assert.ok(v === want[i] || Math.abs(v - want[i]) < 1e-15, `[${i}]: ${v} vs ${want[i]}`));
  };
  near(cli('table', '--d-model', '2', '--max-len', '2').data.flat(), [0, 1, Math.sin(1), Math.cos(1)]);
  near(cli('rope', '--dim', '2', '--max-len', '2', '--part', 'sin').data.flat(), [0, 0, Math.sin(1), Math.sin(1)]);
  near(cli('alibi', '--heads', '1', '--q-len', '2').data.flat(2), [0, null, -(2 ** -8), 0]);
  // issue 23: the config commands (bin/rope-config.js, bin/inspect.js) are in the tarball too
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ head_dim: 4, rope_theta: 100, max_position_embeddings: 8 }));
  const report = JSON.parse(run(join(dir, 'node_modules/.bin/posenc'), ['inspect', config, '--json']));
  assert.deepEqual([report.rope[0].type, report.rope[0].theta, report.rope[0].rotaryDim], ['default', 100, 4]);
});
