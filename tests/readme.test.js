// The README as the npm page shows it (issue 13, point 8): its quick start
// runs against the built package and prints what its comments say; every link
// and image is an absolute URL (the npm page has no repository to resolve a
// relative one against), and the package's own files it links are in the
// tarball of this version; every table row has as many cells as its header
// (an unescaped | inside a code span splits a cell on GitHub and npm);
// the contributor commands stay near the top.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdirSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const section = (title) => {
  const start = readme.indexOf(`\n## ${title}\n`);
  assert.ok(start >= 0, `a "## ${title}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
};

test('the quick start runs against the built package and prints what its comments say', () => {
  const code = section('Quick start').match(/```js\n([\s\S]*?)```/)[1];
  // Inside the package folder, 'posenc' resolves to this package (self-reference through "exports").
  const dir = join(ROOT, 'dist/readme-quick-start');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'quick.mjs'), code);
  try {
    const run = spawnSync(process.execPath, [join(dir, 'quick.mjs')], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const printed = run.stdout.trimEnd().split('\n');
    const claimed = code.split('\n').filter((l) => l.startsWith('console.log(')).map((l) => l.split('); // ')[1]);
    assert.equal(printed.length, claimed.length, run.stdout);
    printed.forEach((line, i) => assert.ok(claimed[i].startsWith(line), `console.log ${i + 1} prints "${line}"; the comment says "${claimed[i]}"`));
    // Independently: row 1, column 1 of the table is cos(1) in float32; a causal first row attends to itself only.
    assert.equal(Number(printed[0].split(' ').pop()), Math.fround(Math.cos(1)));
    assert.equal(printed[2], 'Float32Array(6) [ 1, 0, 0, 0, 0, 0 ]');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every link and image is absolute; the package files it links exist in this version\'s tarball', () => {
  const targets = [...readme.matchAll(/\]\(([^)\s]+)[^)]*\)/g), ...readme.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  assert.ok(targets.length >= 5);
  const packed = (file) => pkg.files.some((pattern) => new RegExp(`^${pattern.replace(/\./g, '\\.').replace(/\*/g, '[^/]*')}$`).test(file));
  for (const url of targets) {
    if (url.startsWith('./node_modules/posenc/')) continue; // the browser example's path, in the user's project
    assert.match(url, /^https:\/\//, `a relative link breaks on the npm page: ${url}`);
    const own = url.match(/^https:\/\/cdn\.jsdelivr\.net\/npm\/posenc@([^/]+)\/(.+)$/);
    if (!own) continue;
    assert.equal(own[1], pkg.version, `${url} names another version`);
    assert.ok(existsSync(join(ROOT, own[2])) || own[2].startsWith('dist/'), `${own[2]} does not exist`);
    assert.ok(packed(own[2]), `${own[2]} is not in package.json "files"`);
  }
  assert.doesNotMatch(readme, /!\[[^\]]*\]\((?!https:)/, 'an image with a relative path');
});

test('every table row has as many cells as its header (no unescaped | in a cell)', () => {
  const cells = (row) => row.trim().replace(/^\||\|$/g, '').split(/(?<!\\)\|/).length;
  // Tables: runs of consecutive lines that start with |.
  const blocks = readme.split('\n').reduce((acc, line, i, lines) => {
    if (line.startsWith('|')) (lines[i - 1]?.startsWith('|') ? acc[acc.length - 1] : acc[acc.push([]) - 1]).push(line);
    return acc;
  }, []);
  let tables = 0;
  for (const rows of blocks.filter((b) => b.length >= 2)) {
    tables++;
    for (const row of rows) assert.equal(cells(row), cells(rows[0]), `row ${JSON.stringify(row)}`);
  }
  assert.ok(tables >= 4, `${tables} tables found`);
});

test('what it is, install and the quick start come first; the contributor commands follow near the top', () => {
  const heads = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
  assert.deepEqual(heads.slice(0, 4), ['Install', 'Quick start', 'The entries', 'For contributors']);
  const commands = section('For contributors');
  for (const cmd of ['npm start', 'npm test', 'npm run test:quick', 'npm run lint', 'npm run bench']) assert.ok(commands.includes(cmd), cmd);
  for (const script of ['start', 'test', 'test:quick', 'lint', 'bench']) assert.ok(pkg.scripts[script], `package.json has no "${script}" script`);
  assert.match(section('Install'), /npm install posenc/);
});
