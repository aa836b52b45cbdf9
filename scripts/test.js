// Runs the test steps of `npm test` (after build.sh) and sums their results.
// Each step's output is streamed as it comes, and the run ends with one line
// "Total: N passed, M failed"; the exit status is non-zero on any failure.
//
//   node scripts/test.js                      every step (what `npm test` and CI run)
//   node scripts/test.js --quick              release node suites + lint (`npm run test:quick`)
//   node scripts/test.js --only browser,lint  the steps named (release, debug, browser, native, fuzz, lint;
//                                             `node` is release + debug)
//   node scripts/test.js work site.test.js    only the test files whose path contains a word given
//   node scripts/test.js --list               the steps and their files, without running them
//
// Through npm: `npm test -- --only browser`, `npm test -- tests/work.test.js`.
// Test files that load the API through tests/helpers/load.js (or read
// POSENC_BUILD) run against both builds; the others do not depend on the
// build flavour and run once, in the release step.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

const testFiles = (dir) =>
  existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.test.js')).sort().map((f) => `${dir}/${f}`) : [];

// Helpers that load the API by flavour, then the test files that use one of them.
const helpers = readdirSync('tests/helpers').filter((f) => f.endsWith('.js'));
const byFlavour = (source) => /POSENC_BUILD/.test(source) || flavourHelpers.some((h) => source.includes(`helpers/${h}`));
const flavourHelpers = ['load.js'];
for (const h of helpers) if (readFileSync(`tests/helpers/${h}`, 'utf8').includes('./load.js')) flavourHelpers.push(h);
const nodeFiles = testFiles('tests');
const flavoured = nodeFiles.filter((f) => byFlavour(readFileSync(f, 'utf8')));

// The fuzz step runs a fixed count of seeded mutations (fuzz/run.sh's FUZZ_RUNS),
// the same inputs on every machine; FUZZ_SECONDS=N asks for a timed libFuzzer
// run instead, which explores further but differently each time.
const fuzzSeconds = process.env.FUZZ_SECONDS;
const fuzzRuns = fuzzSeconds ? undefined : (process.env.FUZZ_RUNS ?? '100000');
const STEPS = [
  { key: 'release', name: 'node suites, release build (and the files no build changes)', files: nodeFiles, env: { POSENC_BUILD: 'release' } },
  { key: 'debug', name: 'node suites that load the API, debug build', files: flavoured, env: { POSENC_BUILD: 'debug' } },
  { key: 'browser', name: 'browser suites (headless Chromium)', files: testFiles('tests/browser') },
  // Steps that are commands, not node:test files: each prints a closing line
  // "[word: ]N passed, M failed" (a non-zero exit without one counts 1 failed).
  { key: 'lint', name: 'lint: ESLint over the JS, clang-format over c/', command: ['bash', 'scripts/lint.sh'] },
  { key: 'native', name: 'C core natively: ASan + UBSan, gcc -Werror, fuzz inputs replayed', command: ['bash', 'tests/native/run.sh'] },
  { key: 'fuzz', name: fuzzRuns ? `the C API fuzz harness, ${fuzzRuns} seeded mutations of its inputs` : `libFuzzer over the C API, ${fuzzSeconds} s`, command: ['bash', 'fuzz/run.sh'], env: fuzzRuns ? { FUZZ_RUNS: fuzzRuns } : {} },
];

function parseArgs(argv) {
  const opts = { only: null, patterns: [], list: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') opts.only = ['release', 'lint'];
    else if (a === '--list') opts.list = true;
    else if (a === '--only' || a.startsWith('--only=')) {
      const value = a === '--only' ? argv[++i] : a.slice('--only='.length);
      opts.only = (value ?? '').split(',').flatMap((k) => (k === 'node' ? ['release', 'debug'] : [k]));
      const unknown = opts.only.filter((k) => !STEPS.some((s) => s.key === k));
      if (unknown.length || !opts.only.length) usage(`--only takes ${STEPS.map((s) => s.key).join(', ')} or node (got '${value ?? ''}')`);
    } else if (a.startsWith('-')) usage(`unknown option ${a}`);
    else opts.patterns.push(a.replace(/^\.\//, ''));
  }
  return opts;
}

function usage(message) {
  console.error(`scripts/test.js: ${message}\nusage: node scripts/test.js [--quick | --only STEP[,STEP]] [--list] [FILE-WORD...]`);
  process.exit(2);
}

/** The steps to run, each with the files it keeps after the filters. */
function plan({ only, patterns }) {
  return STEPS.filter((s) => !only || only.includes(s.key))
    .map((s) => (s.files && patterns.length ? { ...s, files: s.files.filter((f) => patterns.some((p) => f.includes(p))) } : s))
    .filter((s) => (s.command ? !patterns.length || only : s.files.length > 0));
}

/** Runs one command with its output streamed; resolves to { status, tail } (the last 64 KiB of stdout). */
function run(program, args, env) {
  return new Promise((resolve) => {
    const child = spawn(program, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let tail = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      tail = (tail + chunk.toString('utf8')).slice(-65536);
    });
    child.on('error', (error) => resolve({ status: 127, tail: `${error.message}\n` }));
    child.on('close', (code, signal) => resolve({ status: code ?? (signal ? 128 : 1), tail }));
  });
}

/** { passed, failed } of a finished step: node:test's summary, or a command's closing line. */
function counts(step, { status, tail }) {
  let passed;
  let failed;
  if (step.command) {
    const closing = [...tail.matchAll(/^(?:[\w-]+: )?(\d+) passed, (\d+) failed$/gm)].at(-1);
    [passed, failed] = closing ? [Number(closing[1]), Number(closing[2])] : [0, 0];
  } else {
    passed = Number(tail.match(/^ℹ pass (\d+)$/m)?.[1] ?? 0);
    failed = Number(tail.match(/^ℹ fail (\d+)$/m)?.[1] ?? 0) + Number(tail.match(/^ℹ cancelled (\d+)$/m)?.[1] ?? 0);
  }
  // A non-zero exit with no failure counted (a crash, a file that did not load) is one failure.
  if (status !== 0 && failed === 0) failed = 1;
  return { passed, failed };
}

const opts = parseArgs(process.argv.slice(2));
const steps = plan(opts);
if (opts.list) {
  for (const s of steps) console.log(`${s.key}: ${s.name}${s.files ? `\n  ${s.files.join('\n  ')}` : ''}`);
  process.exit(0);
}
if (!steps.length) usage('no step or test file matches');

// node --test runs one file at a time on 2 cores (its default is cores - 1);
// the node suites are CPU-bound and their files independent (each writes only
// in its own mkdtemp folder), so they run one per core. Browser files stay one
// at a time: each drives a whole Chromium.
const concurrency = (step) => (step.key === 'browser' ? [] : [`--test-concurrency=${availableParallelism()}`]);

let passed = 0;
let failed = 0;
const report = [];
const started = Date.now();
for (const step of steps) {
  console.log(`\n=== ${step.name} ===`);
  const t0 = Date.now();
  const [program, ...args] = step.command ?? [process.execPath, '--test', '--test-reporter=spec', ...concurrency(step), ...step.files];
  const c = counts(step, await run(program, args, step.env));
  passed += c.passed;
  failed += c.failed;
  report.push(`${step.name}: ${c.passed} passed, ${c.failed} failed (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
}
console.log(`\n${report.join('\n')}`);
console.log(`(${((Date.now() - started) / 1000).toFixed(0)} s in all)`);
console.log(`Total: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
