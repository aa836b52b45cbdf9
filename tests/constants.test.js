// dist/constants.js, which scripts/gen-constants.mjs writes from the C headers
// at build time, against the headers as the C compiler reads them; and the JS
// that must take its numbers from there instead of typing them again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as constants from '../dist/constants.js';
import { HEADERS, generate } from '../scripts/gen-constants.mjs';

const root = new URL('..', import.meta.url).pathname;

test('dist/constants.js is what gen-constants.mjs writes from the headers today', () => {
  assert.equal(readFileSync(join(root, 'dist/constants.js'), 'utf8'), generate(),
    'dist/constants.js is stale: run bash build.sh');
});

test('every constant has the value the C compiler gives it', () => {
  const names = Object.keys(constants).filter((n) => typeof constants[n] === 'number');
  assert.ok(names.length > 40, `only ${names.length} constants were generated`);
  for (const name of ['PE_OK', 'PE_ERR_OPTION', 'PE_MAX_DIM', 'PE_MAX_BYTES', 'PE_MAX_POSITION', 'PE_ANCHOR',
    'PE_ROPE_PARAM_MIN', 'PE_ROPE_PARAM_MAX', 'PE_ROPE_LLAMA3', 'PE_MAX_ROTATION_DIM', 'PE_MAX_HEADS',
    'PE_MAX_GRID', 'PE_MAX_EXTRA_TOKENS', 'PE_MAX_FEATURES', 'PE_MAX_FOURIER_LEVELS', 'PE_MAX_FOURIER_LOG2']) {
    assert.ok(names.includes(name), `${name} is missing from dist/constants.js`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'posenc-constants-'));
  try {
    const source = [
      '#include <stdio.h>',
      ...HEADERS.map((h) => `#include "${h.replace(/^c\//, '')}"`),
      'int main(void) {',
      ...names.map((n) => `    printf("%s %.17g\\n", "${n}", (double)(${n}));`),
      '    return 0;',
      '}',
    ].join('\n');
    writeFileSync(join(dir, 'print.c'), source);
    const cc = spawnSync('cc', ['-std=c99', '-I', join(root, 'c'), join(dir, 'print.c'), '-o', join(dir, 'print')], { encoding: 'utf8' });
    assert.equal(cc.status, 0, `cc could not compile the headers (a C compiler is needed, as for tests/native):\n${cc.stderr}${cc.error ?? ''}`);
    const run = spawnSync(join(dir, 'print'), { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const fromC = Object.fromEntries(run.stdout.trim().split('\n').map((l) => l.split(' ')).map(([n, v]) => [n, Number(v)]));
    for (const n of names) assert.equal(constants[n], fromC[n], `${n}: dist/constants.js has ${constants[n]}, C has ${fromC[n]}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('each struct the JS writes by field name has its fields where the C compiler puts them', () => {
  const structs = Object.keys(constants).filter((n) => n.endsWith('_fields'));
  assert.ok(structs.includes('pe_rope_params_fields'), 'pe_rope_params_fields is missing from dist/constants.js');
  const dir = mkdtempSync(join(tmpdir(), 'posenc-structs-'));
  try {
    const lines = structs.flatMap((s) => constants[s].map((f) =>
      `    printf("%s.%s %zu\\n", "${s}", "${f}", offsetof(${s.replace(/_fields$/, '')}, ${f}));`));
    const source = ['#include <stdio.h>', '#include <stddef.h>', ...HEADERS.map((h) => `#include "${h.replace(/^c\//, '')}"`),
      'int main(void) {', ...lines, '    return 0;', '}'].join('\n');
    writeFileSync(join(dir, 'offsets.c'), source);
    const cc = spawnSync('cc', ['-std=c99', '-I', join(root, 'c'), join(dir, 'offsets.c'), '-o', join(dir, 'offsets')], { encoding: 'utf8' });
    assert.equal(cc.status, 0, cc.stderr);
    const run = spawnSync(join(dir, 'offsets'), { encoding: 'utf8' });
    const got = run.stdout.trim().split('\n').map((l) => l.split(' '));
    for (const [name, offset] of got) {
      const [s, f] = name.split('.');
      assert.equal(Number(offset), 8 * constants[s].indexOf(f), `${name}: C puts it at byte ${offset}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// The limits and bounds C defines (not the small enum values, which also
// occur as ordinary numbers): none of them may be typed as a literal in the
// library's JS. `2 ** n` counts as the number it is; comments do not count, and
// a line that says "(not a C limit)" uses such a number for another reason.
// The lab's limits (PE_LAB_*) and PE_MAX_FOURIER_LOG2 (64) are small numbers
// such as 4 layers and 64 heads that occur everywhere as ordinary numbers: the
// next test checks them where they are used, as the bounds of option checks.
const SMALL_LIMITS = (n) => n.startsWith('PE_LAB_') || n === 'PE_MAX_FOURIER_LOG2';
test('web/lib types none of the C limits as a number literal', () => {
  const limits = new Map(Object.entries(constants)
    .filter(([n]) => /MAX|MIN|ANCHOR|PARAMS/.test(n) && !SMALL_LIMITS(n))
    .map(([n, v]) => [v, n]));
  const files = readdirSync(join(root, 'web/lib'), { recursive: true }).filter((f) => f.endsWith('.js'));
  const found = [];
  for (const f of files) {
    const text = readFileSync(join(root, 'web/lib', f), 'utf8').replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '));
    text.split('\n').forEach((line, i) => {
      if (line.includes('(not a C limit)')) return;
      const code = line.replace(/\/\/.*$/, '').replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g, "''");
      for (const m of code.matchAll(/2 \*\* (\d+)|(?<![\w.$])(\d+(?:\.\d+)?(?:e[+-]?\d+)?)(?![\w.])/gi)) {
        const value = m[1] !== undefined ? 2 ** Number(m[1]) : Number(m[2]);
        if (limits.has(value)) found.push(`web/lib/${f}:${i + 1}: ${m[0]} is ${limits.get(value)}`);
      }
    });
  }
  assert.deepEqual(found, [], 'import these from dist/constants.js instead');
});

// Every bound of an option that web/lib/lab and web/lib/fields check
// (check.size's and check.integer's, check.finite's min/max/above) is 0, 1, a
// constant from C or a value computed from other options: none is a number
// typed again, and no check is marked "(not a C limit)" (in the lab, no line is:
// a default such as fields' 256 features may say it is not a limit).
for (const [module, header, least] of [['lab', 'c/lab/posenc_lab.h', 30], ['fields', 'c/posenc_fields.h', 10]]) {
  test(`web/lib/${module} takes every bound of its options from C (${header})`, () => {
    const dir = join(root, 'web/lib', module);
    const found = [];
    let checked = 0;
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.js'))) {
      const text = readFileSync(join(dir, f), 'utf8');
      text.split('\n').forEach((line, i) => {
        if (line.includes('(not a C limit)') && (module === 'lab' || /check\.\w+\(/.test(line))) found.push(`web/lib/${module}/${f}:${i + 1} is marked (not a C limit)`);
      });
      const calls = [...text.matchAll(/check\.integer\(('[^']*'|`[^`]*`), [^,]+, ([^,]+), ([^)]+)\)/g)]
        .flatMap((m) => [m[2], m[3]])
        .concat([...text.matchAll(/check\.size\(('[^']*'|`[^`]*`), [^,]+, ([^)]+)\)/g)].map((m) => m[2]))
        .concat([...text.matchAll(/\b(?:min|max|above): ([^,}]+)/g)].map((m) => m[1]));
      for (const bound of calls.map((b) => b.trim())) {
        checked++;
        if (/^-?[\d.e+-]+$|\*\*|<</.test(bound) && !['0', '1'].includes(bound)) found.push(`web/lib/${module}/${f}: bound ${bound}`);
        for (const name of bound.match(/PE_\w+/g) ?? []) {
          if (!(name in constants)) found.push(`web/lib/${module}/${f}: ${name} is not in dist/constants.js`);
        }
      }
    }
    assert.ok(checked >= least, `only ${checked} bounds found: has the checking code changed shape?`);
    assert.deepEqual(found, [], `define the limit in ${header} and import it from dist/constants.js`);
  });
}
