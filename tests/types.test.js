// The declarations resolve for every TypeScript setup a consumer may have
// (issue 13, point 7): the packed package installed into a scratch project is
// type-checked under moduleResolution node10 (which ignores "exports" and
// needs package.json "typesVersions" for the subpaths), node16 and bundler,
// importing posenc, posenc/variants, posenc/fields, posenc/lab and
// posenc/widgets. The fixtures exercise the dtype overloads and duck-typed
// tensors (use.ts), and misuse.ts's @ts-expect-error lines prove the types
// are real (an unresolved module typed as any would make them unused, an error).
// TypeScript 7 dropped node10, so that check runs TypeScript 5 (the
// devDependency "typescript5", an npm alias of typescript@5).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { installPacked, ROOT } from './helpers/consumer.js';

const FIXTURES = ['use.ts', 'misuse.ts', 'entries.ts'];
const TSC = {
  5: join(ROOT, 'node_modules/typescript5/bin/tsc'),
  7: join(ROOT, 'node_modules/typescript/bin/tsc'),
};
const SETUPS = [
  { ts: 5, module: 'es2022', moduleResolution: 'node10' },
  { ts: 5, module: 'node16', moduleResolution: 'node16' },
  { ts: 5, module: 'esnext', moduleResolution: 'bundler' },
  { ts: 7, module: 'node16', moduleResolution: 'node16' },
  { ts: 7, module: 'esnext', moduleResolution: 'bundler' },
];

let dir;
before(() => {
  ({ dir } = installPacked('posenc-types-'));
  for (const f of FIXTURES) copyFileSync(join(ROOT, 'tests/fixtures/consumer', f), join(dir, f));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function tsc(ts, compilerOptions) {
  const config = `tsconfig.${ts}.${compilerOptions.moduleResolution}.json`;
  writeFileSync(join(dir, config), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: 'es2022', lib: ['es2022', 'dom'], skipLibCheck: false, ...compilerOptions },
    files: FIXTURES,
  }));
  return spawnSync(process.execPath, [TSC[ts], '-p', config], { cwd: dir, encoding: 'utf8' });
}

test('the TypeScript compilers are the versions this test means', () => {
  const major = (pkg) => Number(JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')).version.split('.')[0]);
  assert.equal(major('typescript5'), 5);
  assert.equal(major('typescript'), 7);
});

for (const { ts, ...options } of SETUPS) {
  test(`TypeScript ${ts}, moduleResolution ${options.moduleResolution}: every entry resolves and types the fixtures`, () => {
    const r = tsc(ts, options);
    assert.equal(r.status, 0, `tsc ${ts} (${options.moduleResolution}):\n${r.stdout}${r.stderr}`);
  });
}

test('node10 needs "typesVersions": without it posenc/variants does not resolve (the test can fail)', () => {
  const file = join(dir, 'node_modules/posenc/package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8'));
  assert.ok(pkg.typesVersions, 'the packed package.json has typesVersions');
  const { typesVersions, ...without } = pkg;
  writeFileSync(file, JSON.stringify(without));
  try {
    const r = tsc(5, { module: 'es2022', moduleResolution: 'node10' });
    assert.notEqual(r.status, 0);
    assert.match(r.stdout, /Cannot find module 'posenc\/variants'/);
  } finally {
    writeFileSync(file, JSON.stringify(pkg));
  }
  assert.deepEqual(Object.keys(typesVersions['*']).sort(), ['fields', 'lab', 'variants', 'widgets']);
});
