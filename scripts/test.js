// Runs every test step of `npm test` (after build.sh) and sums their results:
// the node:test suites against the release build, the same suites against the
// debug build, and the browser suites in headless Chromium. Extra steps (for
// example native sanitizer runs) are listed in STEPS.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

const testFiles = (dir) =>
  existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.test.js')).sort().map((f) => `${dir}/${f}`) : [];

const STEPS = [
  { name: 'node suites, release build', files: testFiles('tests'), env: { POSENC_BUILD: 'release' } },
  { name: 'node suites, debug build', files: testFiles('tests'), env: { POSENC_BUILD: 'debug' } },
  { name: 'browser suites (headless Chromium)', files: testFiles('tests/browser'), env: {} },
  // Steps that are commands, not node:test files: each prints a closing line
  // "[word: ]N passed, M failed" (a non-zero exit without one counts 1 failed).
  { name: 'C core natively: ASan + UBSan, gcc -Werror, fuzz inputs replayed', command: ['bash', 'tests/native/run.sh'] },
  { name: `libFuzzer over the C API, ${process.env.FUZZ_SECONDS ?? 60} s`, command: ['bash', 'fuzz/run.sh'] },
];

let passed = 0;
let failed = 0;
const report = [];
for (const step of STEPS) {
  if (!step.command && step.files.length === 0) continue;
  console.log(`\n=== ${step.name} ===`);
  const [program, ...args] = step.command ?? [process.execPath, '--test', '--test-reporter=spec', ...step.files];
  const run = spawnSync(program, args, {
    env: { ...process.env, ...step.env },
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
  });
  process.stdout.write(run.stdout);
  process.stderr.write(run.stderr);
  const closing = step.command ? [...run.stdout.matchAll(/^(?:\w+: )?(\d+) passed, (\d+) failed$/gm)].at(-1) : null;
  const count = (label) => step.command
    ? Number(closing?.[label === 'pass' ? 1 : 2] ?? 0)
    : Number(run.stdout.match(new RegExp(`^ℹ ${label} (\\d+)$`, 'm'))?.[1] ?? 0);
  const stepFailed = count('fail') + (run.status === 0 ? 0 : count('fail') === 0 ? 1 : 0);
  passed += count('pass');
  failed += stepFailed;
  report.push(`${step.name}: ${count('pass')} passed, ${stepFailed} failed`);
}
console.log(`\n${report.join('\n')}`);
console.log(`Total: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
