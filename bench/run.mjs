// npm run bench: times posenc against plain JS, TensorFlow.js and the memory
// floor, prints a markdown table and writes everything to dist/bench.json.
//
//   node bench/run.mjs              full sizes; reports which targets are met
//   node bench/run.mjs --ci         the CI checks (bench/ci.mjs) at reduced sizes
//   --fail-on-miss                  exit 1 when a target or check is missed (for a
//                                   quiet machine; `npm test` and CI never time anything)
//   node bench/run.mjs --ops=table,gram --only=posenc|floor   subsets, for development
//   node bench/run.mjs --ops=ml      the ML paths only (bench/ml.mjs: RoPE, decode and
//                                   prefill attention beside plain JS, onnxruntime-web, tfjs)
//   node bench/run.mjs --site        only the tutorial's first screen (bench/site.mjs)
//   node bench/run.mjs --lab-browser only <pe-lab>'s default run in Chromium (bench/lab-browser.mjs)
//   node bench/run.mjs --widgets-page only 200 widgets on one page, scrolled (bench/widgets-page.mjs)
//   node bench/run.mjs --cold        only first call against warm, in fresh processes (bench/cold.mjs)
import { writeFileSync, mkdirSync, readFileSync } from 'node:fs';
import { cpus, totalmem, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { init } from '../web/lib/index.js';
import { loadTf } from './contenders.mjs';
import { FULL_SIZES, runCase } from './suites.mjs';
import { evaluateTargets, pairedTargets } from './targets.mjs';
import { ciChecks } from './ci.mjs';
import { measureSize } from './size.mjs';
import { measureSite, siteReport } from './site.mjs';
import { labSpeed, labMarkdown } from './lab.mjs';
import { measureLab, labBrowserReport } from './lab-browser.mjs';
import { measureWidgetsPage, widgetsPageReport } from './widgets-page.mjs';
import { measureCold, coldReport } from './cold.mjs';
import { mlBench, mlMarkdown } from './ml.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = Object.fromEntries(process.argv.slice(2).map((a) => {
  const [k, v] = a.replace(/^--/, '').split('=');
  return [k, v ?? true];
}));
const ci = Boolean(args.ci);
const failOnMiss = Boolean(args['fail-on-miss']);
const ops = args.ops ? String(args.ops).split(',') : ['table', 'tableGram', 'gram', 'attention'];
const onlyRe = args.only ? new RegExp(String(args.only), 'i') : null;
const only = onlyRe ? (name) => onlyRe.test(name) : null;
const log = (line) => process.stderr.write(`${line}\n`);

function machine() {
  let model = cpus()[0]?.model ?? 'unknown';
  try {
    model = readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.*)$/m)?.[1] ?? model;
  } catch { /* not Linux */ }
  return {
    cpu: model,
    cores: cpus().length,
    memoryGiB: +(totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    v8: process.versions.v8,
    platform: `${process.platform} ${process.arch}`,
    date: new Date().toISOString(),
    loadAverage1m: +loadavg()[0].toFixed(2),
  };
}

const pe = await init();
mkdirSync(join(root, 'dist'), { recursive: true });

if (args.site) {
  const { lines, targets } = siteReport(await measureSite({ log }));
  console.log([...lines, '', ...targets.map((t) => `- [${t.met ? 'x' : ' '}] ${t.target}: ${t.detail}`), '',
    `1-minute load average at the end: ${loadavg()[0].toFixed(2)} (${cpus().length} cores)`].join('\n'));
  process.exit(failOnMiss && targets.some((t) => !t.met) ? 1 : 0);
}

if (args.cold) {
  const { lines, targets } = coldReport(measureCold({ log }));
  console.log([...lines, '', ...targets.map((t) => `- [${t.met ? 'x' : ' '}] ${t.target}: ${t.detail}`)].join('\n'));
  process.exit(failOnMiss && targets.some((t) => !t.met) ? 1 : 0);
}

if (args['widgets-page']) {
  const { lines, targets } = widgetsPageReport(await measureWidgetsPage({ log }));
  console.log([...lines, '', ...targets.map((t) => `- [${t.met ? 'x' : ' '}] ${t.target}: ${t.detail}`)].join('\n'));
  process.exit(failOnMiss && targets.some((t) => !t.met) ? 1 : 0);
}

if (args['lab-browser']) {
  const { lines, targets } = labBrowserReport(await measureLab({ log }));
  console.log([...lines, '', ...targets.map((t) => `- [${t.met ? 'x' : ' '}] ${t.target}: ${t.detail}`)].join('\n'));
  process.exit(failOnMiss && targets.some((t) => !t.met) ? 1 : 0);
}

if (ci) {
  const m = machine();
  const checks = [];
  let tf;
  for (const check of ciChecks(pe, { loadTfState: () => (tf ??= loadTf()) })) {
    const r = await check.run();
    checks.push({ name: check.name, ...r });
    console.log(`${r.ok ? 'ok  ' : 'MISS'} ${check.name}: ${r.detail}`);
  }
  const size = measureSize();
  // Each entry's size target (bench/size.mjs), as tests/size.test.js enforces it.
  for (const e of size.entries) {
    const ok = e.gzip < e.target;
    checks.push({ name: `size: import '${e.name}' < ${e.target} bytes gzipped`, ok, detail: `${e.gzip} bytes` });
    console.log(`${ok ? 'ok  ' : 'MISS'} size: import '${e.name}' loads ${e.path}, ${e.gzip} bytes gzipped (target < ${e.target} ${ok ? 'met' : 'not met'})`);
  }
  console.log(`     size: all three entries ${size.all.gzip} bytes gzipped`);
  writeFileSync(join(root, 'dist/bench-ci.json'), `${JSON.stringify({ mode: 'ci', machine: m, checks, size }, null, 1)}\n`);
  const missed = checks.filter((c) => !c.ok).length;
  console.log(`${checks.length - missed} of ${checks.length} checks met`);
  process.exit(failOnMiss && missed ? 1 : 0);
}

const tfState = await loadTf();
const sizes = FULL_SIZES;
const machineAtStart = machine();

const cases = [];
const started = performance.now();
for (const op of ops) {
  for (const size of sizes[op] ?? []) {
    log(`${op} ${size.join('x')}`);
    cases.push(await runCase(op, size, { pe, tfState, only, log }));
  }
}
const paired = await pairedTargets(cases, { pe, tfState, log });
// The ML paths (bench/ml.mjs), in the default run or when --ops names 'ml'.
const ml = !args.ops || ops.includes('ml') ? await mlBench({ pe, tfState, log }) : null;
const size = measureSize();
const site = await measureSite({ log });
const siteLines = siteReport(site);
// 200 widgets on one page, scrolled end to end (bench/widgets-page.mjs).
const widgetsPage = await measureWidgetsPage({ log });
const pageLines = widgetsPageReport(widgetsPage);
// The first call of a fresh process against a warm one (bench/cold.mjs).
const cold = coldReport(measureCold({ log }));
const targets = [...evaluateTargets(cases, paired, size), ...siteLines.targets, ...pageLines.targets, ...cold.targets, ...(ml ? ml.targets : [])];
// posenc/lab: a training step against tfjs-wasm and tfjs-cpu (bench/lab.mjs); in the
// default run, or when --ops names 'lab'.
const lab = !args.ops || ops.includes('lab') ? await labSpeed(log) : null;
// <pe-lab>'s default run in Chromium (bench/lab-browser.mjs), in the same cases.
const labBrowser = lab ? labBrowserReport(await measureLab({ log })) : null;
if (labBrowser) targets.push(...labBrowser.targets);

// ---- markdown -------------------------------------------------------------------
const TITLES = {
  table: 'PE table (float32, interleaved, base 10000)',
  tableGram: 'Gram matrix of the PE table (float32 output, maxLen x maxLen)',
  gram: 'Gram matrix X Xᵀ of an arbitrary matrix (float32 in and out; entries uniform in [-1, 1))',
  attention: 'Batched causal attention, grouped-query (size [B, H, Hkv, S, D]; q, k, v uniform in [-1, 1); error of the output against float64)',
};
const fmtMs = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const fmtErr = (e) => (e === undefined ? '' : e === 0 ? '0' : e.toExponential(1));
const mib = (b) => `${(b / 2 ** 20).toFixed(1)} MiB`;

const lines = [];
for (const op of ops) {
  const mine = cases.filter((c) => c.op === op);
  if (!mine.length) continue;
  lines.push(`### ${TITLES[op]}`, '');
  lines.push('| size | contender | median ms | × floor | × posenc | max abs error | runs | wasm memory after call |');
  lines.push('|---|---|--:|--:|--:|--:|--:|---|');
  for (const c of mine) {
    const floor = c.results.find((r) => r.floor);
    const p = c.results.find((r) => r.name === 'posenc');
    for (const r of c.results) {
      if (r.skip) {
        lines.push(`| ${c.size.join('×')} | ${r.name} | not run: ${r.skip} | | | | | |`);
        continue;
      }
      const mem = r.memory ? `${mib(r.memory.bytes)}, ${r.memory.liveAllocations} live allocations` : '';
      lines.push(`| ${c.size.join('×')} | ${r.name} | ${fmtMs(r.ms)} | ${floor ? (r.ms / floor.ms).toFixed(2) : ''} | ${p ? (r.ms / p.ms).toFixed(2) : ''} | ${fmtErr(r.maxAbsError)} | ${r.reps} | ${mem} |`);
    }
    if (c.extra.highPositions) lines.push(`| ${c.size.join('×')} | posenc, positions ${c.extra.highPositions.offset}..65535 | | | | ${fmtErr(c.extra.highPositions.maxAbsError)} | | |`);
    if (c.extra.vsBruteForce) lines.push(`| ${c.size.join('×')} | posenc vs its brute-force Gram (relative) | | | | ${fmtErr(c.extra.vsBruteForce.maxRelError)} | | |`);
  }
  lines.push('');
}
if (ml) lines.push(...mlMarkdown(ml), '');
if (lab) lines.push(...labMarkdown(lab), '');
if (labBrowser) lines.push(...labBrowser.lines, '');
lines.push('### Size of what a user loads, per entry (gzip -9 of its bundle)', '');
lines.push('| entry | file | bytes | gzip | target met? | its .wasm alone, gzip (for reference) |', '|---|---|--:|--:|---|--:|');
for (const e of size.entries) {
  const met = e.gzip < e.target ? 'yes' : 'no';
  lines.push(`| \`${e.name}\` | ${e.path} | ${e.bytes} | **${e.gzip}** | ${met} (< ${e.target}) | ${e.wasm?.gzip ?? ''} |`);
}
lines.push(`| all three | | ${size.all.bytes} | ${size.all.gzip} | | |`);
lines.push('', ...siteLines.lines);
lines.push('', ...pageLines.lines);
lines.push('', ...cold.lines);
lines.push('', '### Targets (full size)', '');
for (const t of targets) lines.push(`- [${t.met ? 'x' : ' '}] ${t.target}: ${t.detail}`);
const m = { ...machineAtStart, loadAverage1mAtEnd: +loadavg()[0].toFixed(2) };
lines.push('', `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, Node ${m.node} (V8 ${m.v8}), ${m.platform}; ${m.date}; ` +
  `bench took ${((performance.now() - started) / 1000).toFixed(0)} s; 1-minute load average ${m.loadAverage1m} at the start, ${m.loadAverage1mAtEnd} at the end.`);
console.log(lines.join('\n'));

const jsonPath = join(root, 'dist/bench.json');
writeFileSync(jsonPath, `${JSON.stringify({ mode: 'full', machine: m, tfjs: tfState.backends, size, site, widgetsPage, targets, paired, cases, ml, lab }, null, 1)}\n`);
log(`wrote ${jsonPath}`);
const missed = targets.filter((t) => !t.met).length;
log(`${targets.length - missed} of ${targets.length} targets met`);
if (failOnMiss && missed) process.exit(1);
