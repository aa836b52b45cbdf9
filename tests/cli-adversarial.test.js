// The CLI's part of the adversarial pass (issue 22's unbounded writes): every
// command, in every format and dtype, to a file and to standard output, with
// seeded sizes and --max-bytes. Whatever the flags, a run either exits 0
// having written at most --max-bytes bytes, or exits 2 having written
// nothing (no file, nothing on stdout), and says why on stderr, naming a flag
// or the limit. The same seed gives the same command lines on every machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync, statSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { rng } from './helpers/rng.js';

const dir = mkdtempSync(path.join(tmpdir(), 'posenc-cli-adv-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const cli = path.join(import.meta.dirname, '..', 'bin', 'posenc.js');
const config = path.join(import.meta.dirname, 'fixtures', 'configs', 'llama-3.2-1b.json');
const RUNS = 36;

// Each command with its size flags: [flags, formats it writes]; sizes come from the generator.
const COMMANDS = [
  [(n, d) => ['table', '--max-len', n, '--d-model', d], ['npy', 'csv', 'json', '-']],
  [(n, d) => ['rope', '--dim', d, '--max-len', n], ['npy', 'csv', 'json', '-']],
  [(n, d) => ['alibi', '--heads', d, '--q-len', n], ['npy', 'csv', 'json', '-']],
  [(n, d) => ['timestep', '--dim', d, '--steps', n], ['npy', 'csv', 'json', '-']],
  [(n, d) => ['sincos2d', '--grid-h', n, '--dim', d], ['npy', 'csv', 'json', '-']],
  [(n) => ['rope', '--config', config, '--max-len', n], ['npy', 'npz']],
];
// Sizes: small ones that run, and ones whose output passes any --max-bytes here (or 2^24 and beyond, refused before any work).
const SIZES = ['1', '4', '16', '64', '300', '16777216', '16777217', '2147483648'];
const DIMS = ['2', '8', '16', '64'];
const MAX_BYTES = [undefined, '1', '100', '1000', '20000', '1000000'];

test(`${RUNS} seeded runs over every command, format and dtype: at most --max-bytes written, or exit 2 with nothing written`, () => {
  const r = rng(2222);
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  let wrote = 0, refused = 0;
  for (let i = 0; i < RUNS; i++) {
    const [flags, formats] = COMMANDS[i % COMMANDS.length];
    const format = pick(formats);
    const out = format === '-' ? '-' : path.join(dir, `o${i}.${format}`);
    const limit = pick(MAX_BYTES);
    const argv = [...flags(pick(SIZES), pick(DIMS)), '--out', out, '--dtype', pick(['float32', 'float64']), '--quiet',
      ...(limit === undefined ? [] : ['--max-bytes', limit])];
    const res = spawnSync(process.execPath, [cli, ...argv], { maxBuffer: 2 ** 21, timeout: 120000 });
    const what = `posenc ${argv.join(' ')}: exit ${res.status}, ${res.stderr}`;
    const size = out === '-' ? res.stdout.length : existsSync(out) ? statSync(out).size : 0;
    if (res.status === 0) {
      wrote++;
      assert.ok(size > 0 && size <= Number(limit ?? 2 ** 30), `${what}: wrote ${size} bytes`);
    } else {
      refused++;
      assert.equal(res.status, 2, what);
      assert.equal(size, 0, `${what}: refused but wrote ${size} bytes`);
      assert.match(String(res.stderr), /^posenc: .*(--[a-z-]+|max-bytes|1 GiB|MiB)/, what);
    }
  }
  assert.ok(wrote >= 4 && refused >= 4, `wrote ${wrote}, refused ${refused}`);
  assert.deepEqual(readdirSync(dir).filter((f) => f.includes('.tmp') || f.startsWith('.')), [], 'no temporary file left');
});
