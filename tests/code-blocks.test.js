// The code blocks on the tutorial page (the section "Code you can run") really produce the table
// they claim: the JavaScript block runs against the built package (imported as
// 'posenc'), the NumPy block runs in Debian's python3 with python3-numpy, and
// the PyTorch block runs against a stand-in "torch" made of NumPy (it checks the
// block's arithmetic and slicing, not PyTorch itself). Every printed number is
// compared with the independent golden values of tests/golden/golden.json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, writeFile, mkdir, rm } from 'node:fs/promises';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { docBlocks } from './helpers/doc-blocks.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PAGE = join(ROOT, 'dist/web/en/index.html');
const golden = JSON.parse(await readFile(join(ROOT, 'tests/golden/golden.json'), 'utf8')).seedExample.correct;

const unescape = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');

/** { numpy, pytorch, js } from the page's <pre class="code" data-code="..."><code>...</code></pre>. */
async function blocks(page = PAGE) {
  const html = await readFile(page, 'utf8');
  const out = {};
  for (const m of html.matchAll(/<pre class="code" data-code="(\w+)"[^>]*><code>([\s\S]*?)<\/code><\/pre>/g)) out[m[1]] = unescape(m[2]);
  return out;
}

/** Every number printed, in order. */
const numbers = (text) => (text.match(/-?\d+\.\d*(?:e-?\d+)?/g) ?? []).map(Number);

function assertTable(printed, what) {
  const want = golden.flat();
  assert.equal(printed.length, want.length, `${what} prints ${want.length} numbers`);
  printed.forEach((x, k) => assert.ok(Math.abs(x - want[k]) <= 5.0001e-5, `${what}: number ${k} is ${x}, want ${want[k]} to 4 places`));
}

// Debian's python3 (with python3-numpy), not whichever python3 comes first on PATH.
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
function ensureNumpy() {
  const has = () => spawnSync(PYTHON, ['-c', 'import numpy'], { encoding: 'utf8' }).status === 0;
  if (has()) return;
  // As build.sh does for its tools: install Debian's package when running as root, else say what is missing.
  const run = spawnSync('bash', ['-c', '. scripts/install.sh && install_package python3-numpy "NumPy for python3"'], { cwd: ROOT, encoding: 'utf8' });
  assert.ok(has(), `python3-numpy is missing and could not be installed: ${run.stderr}`);
}

function python(code, env = {}) {
  const run = spawnSync(PYTHON, ['-c', code], { encoding: 'utf8', env: { ...process.env, ...env } });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

test('both language pages show the same three code blocks', async () => {
  const en = await blocks();
  assert.deepEqual(Object.keys(en).sort(), ['js', 'numpy', 'pytorch']);
  assert.deepEqual(await blocks(join(ROOT, 'dist/web/index.html')), en);
});

test('the JavaScript block prints the 5 × 6 table', async () => {
  const { js } = await blocks();
  // Inside the package folder, 'posenc' resolves to this package (self-reference through "exports").
  const dir = join(ROOT, 'dist/code-blocks');
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'block.mjs');
  await writeFile(file, js);
  try {
    const run = spawnSync(process.execPath, [file], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assertTable(numbers(run.stdout), 'JS block');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the NumPy block prints the 5 × 6 table, as the page\'s output block shows', async () => {
  ensureNumpy();
  const { numpy } = await blocks();
  const printed = python(numpy);
  assertTable(numbers(printed), 'NumPy block');
  const html = await readFile(PAGE, 'utf8');
  const shown = html.match(/<pre class="output" data-output="numpy"[^>]*><samp>([\s\S]*?)<\/samp><\/pre>/)[1];
  assert.equal(unescape(shown), printed.trimEnd(), 'the output shown on the page is what the block prints');
});

test('the NumPy block is right for an odd width too (d = 5)', async () => {
  ensureNumpy();
  const { numpy } = await blocks();
  const printed = numbers(python(numpy.replace('print(positional_encoding(5, 6))', 'print(positional_encoding(2, 5))')));
  const want = [0, 1, 0, 1, 0, Math.sin(1), Math.cos(1), Math.sin(10000 ** (-2 / 5)), Math.cos(10000 ** (-2 / 5)), Math.sin(10000 ** (-4 / 5))];
  printed.forEach((x, k) => assert.ok(Math.abs(x - want[k]) <= 5.0001e-5, `number ${k}`));
});

// A NumPy stand-in for the few torch calls the block makes.
const FAKE_TORCH = `
import numpy as np
class Tensor(np.ndarray):
    def unsqueeze(self, dim):
        return np.expand_dims(self, dim).view(Tensor)
float64 = np.float64
def arange(*args, dtype=None):
    return np.arange(*args, dtype=dtype).view(Tensor)
def zeros(*shape, dtype=None):
    return np.zeros(shape, dtype=dtype).view(Tensor)
exp, sin, cos = np.exp, np.sin, np.cos
def set_printoptions(precision=4, sci_mode=False):
    np.set_printoptions(precision=precision, suppress=not sci_mode)
`;

test('the PyTorch block computes the 5 × 6 table (against a NumPy stand-in for torch)', async () => {
  ensureNumpy();
  const { pytorch } = await blocks();
  const dir = join(ROOT, 'dist/fake-torch');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'torch.py'), FAKE_TORCH);
  try {
    assertTable(numbers(python(pytorch, { PYTHONPATH: dir })), 'PyTorch block');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

// ---- every code block of README.md and docs/*.md ----------------------------
// A js block runs as a module beside the package (so 'posenc' is this package);
// a sh block of `npx posenc` commands runs through bin/posenc.js in a temporary
// folder; any other block says on a marker line why it does not run
// (tests/helpers/doc-blocks.js). A block that throws, exits non-zero or writes
// to stderr fails, so an example cannot rot.
const DOCS = ['README.md', ...(await readdir(join(ROOT, 'docs'))).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const [major, minor] = process.versions.node.split('.').map(Number);
// require(esm) is on by default from Node 20.19 and 22.12; before that it takes a flag.
const REQUIRE_ESM_FLAG = major > 22 || (major === 22 && minor >= 12) || (major === 20 && minor >= 19) ? []
  : ['--experimental-require-module', '--no-warnings'];

async function runJs(block, chain, name) {
  const dir = join(ROOT, 'dist/doc-blocks');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${name}.${block.marker.commonjs ? 'cjs' : 'mjs'}`);
  await writeFile(file, [block.marker.before, ...chain, block.code].join('\n'));
  const flags = block.marker.requireEsm ? REQUIRE_ESM_FLAG : [];
  return spawnSync(process.execPath, [...flags, file], { encoding: 'utf8', cwd: ROOT, timeout: 120000 });
}

function runCli(block) {
  const dir = mkdtempSync(join(tmpdir(), 'posenc-doc-'));
  try {
    for (const line of block.code.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter(Boolean)) {
      const args = line.split(/\s+/).slice(2); // after "npx posenc"
      const run = spawnSync(process.execPath, [join(ROOT, 'bin/posenc.js'), ...args], { encoding: 'utf8', cwd: dir });
      assert.equal(run.status, 0, `${block.file}:${block.line}: ${line}\n${run.stderr}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('every code block in README.md and docs/*.md runs, or says why it cannot', async () => {
  let ran = 0;
  try {
    for (const doc of DOCS) {
      const chain = [];
      for (const [k, block] of docBlocks(doc, await readFile(join(ROOT, doc), 'utf8')).entries()) {
        const where = `${doc}:${block.line}`;
        const cli = (block.lang === 'sh' || block.lang === '') && block.code.split('\n').every((l) => !l.trim() || /^npx posenc\b/.test(l.trim()));
        if (block.marker.notRun !== null) {
          assert.ok(block.marker.notRun.length >= 10, `${where}: "not run" needs a reason`);
          continue;
        }
        if (cli) {
          runCli(block);
        } else {
          assert.match(block.lang, /^js$/, `${where}: a ${block.lang || 'plain'} block needs <!-- code-block: not run: REASON -->`);
          const run = await runJs(block, block.marker.continues ? chain : [], `${doc.replace(/\W/g, '-')}-${k}`);
          assert.equal(run.status, 0, `${where} failed:\n${run.stderr}`);
          assert.equal(run.stderr, '', `${where} wrote to stderr`);
          if (!block.marker.continues) chain.length = 0;
          chain.push(block.marker.before, block.code);
        }
        ran++;
      }
    }
  } finally {
    await rm(join(ROOT, 'dist/doc-blocks'), { recursive: true, force: true });
  }
  assert.ok(ran >= 10, `${ran} blocks ran`);
});

test('the README\'s CommonJS and transformers.js blocks print what their comments say', async () => {
  const readme = docBlocks('README.md', await readFile(join(ROOT, 'README.md'), 'utf8'));
  const pick = (re) => readme.find((b) => re.test(b.code));
  for (const [block, want] of [[pick(/await import\('posenc'\)/), '[ 4, 6 ]'], [pick(/require\('posenc'\)/), '3'],
    [pick(/@huggingface\/transformers/), '[ 6, 16 ]']]) {
    assert.ok(block, `a block printing ${want}`);
    const run = await runJs(block, [], `claim-${want.replace(/\W/g, '')}`);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), want);
  }
  await rm(join(ROOT, 'dist/doc-blocks'), { recursive: true, force: true });
});

test('the marker parser: reasons, flags and set-up', () => {
  const md = ['<!-- code-block: not run: installs from the registry -->', '```sh', 'npm i x', '```', '',
    '<!-- code-block: continues, before: const q = 1; -->', '```js', 'q;', '```', '```', 'plain', '```'].join('\n');
  const [a, b, c] = docBlocks('x.md', md);
  assert.equal(a.marker.notRun, 'installs from the registry');
  assert.deepEqual([b.marker.continues, b.marker.before, b.lang], [true, 'const q = 1;', 'js']);
  assert.deepEqual([c.marker.notRun, c.lang], [null, '']);
});
