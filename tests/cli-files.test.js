// The command-line exporter never lies about a file (issue 13, point 9): the
// format follows the extension (a contradicting --format is refused), an
// existing file is kept unless --force, a failed or interrupted write leaves
// nothing (and an overwritten file intact) because the data goes to a
// temporary file renamed only when complete, and CSV / JSON print the
// shortest decimal that reads back as the stored float32 (checked against
// NumPy's own shortest repr). Run: node --test tests/cli-files.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, readdirSync, rmSync, mkdirSync, symlinkSync, lstatSync, openSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadApi } from './helpers/load.js';
import { runIntoClosedPipe } from './helpers/cli-pipe.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
const cli = path.join(root, 'bin', 'posenc.js');
const dir = mkdtempSync(path.join(tmpdir(), 'posenc-cli-files-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const pe = await loadApi();

function run(...args) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 120_000 });
  if (r.error) throw r.error;
  return r;
}
const TABLE = ['table', '--d-model', '8', '--max-len', '3', '--quiet'];
/** A fresh empty folder for one test, so that its listing shows any leftover. */
const folder = (name) => {
  const d = path.join(dir, name);
  mkdirSync(d);
  return d;
};
const isNpy = (file) => readFileSync(file).subarray(0, 6).equals(Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]));

test('--version prints the version of package.json and exits 0', () => {
  const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  for (const args of [['--version'], ['table', '--version']]) {
    const r = run(...args);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `posenc ${version}\n`);
  }
});

test('the format follows the extension; a contradicting --format or an unknown extension is a usage error', () => {
  const d = folder('format');
  const cases = [
    [['--out', path.join(d, 'x.txt')], /cannot tell the format of --out ".*x\.txt" from its extension/],
    [['--out', path.join(d, 'x')], /cannot tell the format/],
    [['--out', path.join(d, 'x.csv'), '--format', 'npy'], /--format npy does not match the extension of .*x\.csv/],
    [['--out', path.join(d, 'x.npy'), '--format', 'json'], /--format json does not match/],
  ];
  for (const [args, message] of cases) {
    const r = run(...TABLE, ...args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
  assert.deepEqual(readdirSync(d), [], 'nothing written');
  // An extension that names no format is fine when --format says which; case does not matter.
  assert.equal(run(...TABLE, '--out', path.join(d, 'x.dat'), '--format', 'npy').status, 0);
  assert.ok(isNpy(path.join(d, 'x.dat')));
  assert.equal(run(...TABLE, '--out', path.join(d, 'Y.NPY')).status, 0);
  assert.ok(isNpy(path.join(d, 'Y.NPY')));
  assert.equal(run(...TABLE, '--out', path.join(d, 'z.csv'), '--format', 'csv').status, 0);
  assert.equal(readFileSync(path.join(d, 'z.csv'), 'utf8').split('\n')[0], '0,1,0,1,0,1,0,1');
});

test('an existing file is refused (exit 2, untouched) unless --force, which replaces it', () => {
  const d = folder('force');
  const file = path.join(d, 'pe.npy');
  writeFileSync(file, 'keep me');
  const r = run(...TABLE, '--out', file);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^posenc: .*pe\.npy exists; add --force to overwrite it/);
  assert.equal(readFileSync(file, 'utf8'), 'keep me');
  const f = run(...TABLE, '--out', file, '--force');
  assert.equal(f.status, 0, f.stderr);
  assert.ok(isNpy(file));
  assert.deepEqual(readdirSync(d), ['pe.npy'], 'no temporary file left');
});

test('--out in a missing folder, or naming a folder, is a usage error (exit 2), not a raw ENOENT', () => {
  const d = folder('missing');
  const cases = [
    [path.join(d, 'no', 'such', 'pe.npy'), /--out .*pe\.npy: the folder .*no\/such does not exist/],
    [path.join(d, 'sub.npy'), /--out .*sub\.npy is a folder/],
  ];
  mkdirSync(path.join(d, 'sub.npy'));
  for (const [out, message] of cases) {
    const r = run(...TABLE, '--out', out, '--force');
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  }
});

/**
 * Runs the CLI with `args(folder)` inside a private mount namespace (unshare:
 * root, or an unprivileged user namespace) where `folder` is a 64 KiB tmpfs
 * holding an old file `old`; returns the CLI's status and stderr, and the
 * folder's listing and the old file afterwards (the tmpfs goes with the namespace).
 */
function onFullTmpfs(name, old, args) {
  const mnt = folder(name);
  const script = `m=$1 node=$2 cli=$3; shift 3
mount -t tmpfs -o size=64k tmpfs "$m" || exit 99
printf old > "$m/$OLD"
"$node" "$cli" "$@" 2>"$m.stderr"; echo "status $?"
ls -A "$m"; echo ---; cat "$m/$OLD"`;
  const r = spawnSync('unshare', ['-rm', 'sh', '-c', script, 'sh', mnt, process.execPath, cli, ...args(mnt)], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, OLD: old } });
  assert.notEqual(r.status, 99, `cannot mount a tmpfs here (needs root or user namespaces): ${r.stderr}`);
  assert.equal(r.status, 0, `unshare: ${r.error ?? r.stderr}`);
  const [head, content] = r.stdout.split('---\n');
  const [statusLine, ...listing] = head.trim().split('\n');
  return { status: Number(statusLine.replace('status ', '')), stderr: readFileSync(`${mnt}.stderr`, 'utf8'), listing, content };
}

test('a write that fails on a full disk (64 KiB tmpfs) exits 1, leaves no partial file, and an overwritten file intact', () => {
  for (const format of ['npy', 'csv']) {
    // 512 × 512 float32: 1 MiB of NPY, more as CSV, on 64 KiB.
    const r = onFullTmpfs(`tmpfs-${format}`, `pe.${format}`, (mnt) => ['table', '--d-model', '512', '--max-len', '512',
      '--out', path.join(mnt, `pe.${format}`), '--force']);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /^posenc: cannot write .*pe\.(npy|csv) \(ENOSPC: no space left on device.*\); nothing was written/);
    assert.deepEqual(r.listing, [`pe.${format}`], 'the old file alone: no temporary file left');
    assert.equal(r.content, 'old', 'the old file is untouched');
  }
});

test('a write stopped by the file-size limit (RLIMIT_FSIZE, no privilege needed) leaves nothing either', () => {
  const d = folder('fsize');
  const out = path.join(d, 'pe.npy');
  const r = spawnSync('sh', ['-c', 'ulimit -f 16; exec "$0" "$@"', process.execPath, cli, 'table', '--d-model', '512', '--max-len', '512', '--out', out],
    { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /cannot write .*pe\.npy \(EFBIG: file too large.*\); nothing was written/);
  assert.deepEqual(readdirSync(d), []);
});

test('an interrupted write (SIGINT, SIGTERM, SIGHUP) leaves neither the file nor its temporary file', async () => {
  // SIGHUP (a closed terminal) left the temporary file until the sixth adversarial pass (issue 22).
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]]) {
    const d = folder(`interrupt-${signal}`);
    const out = path.join(d, 'pe.csv');
    // 64 M values as CSV: far longer to write than the wait for its temporary file
    // (and up to 1.1 GB as text, so past the default --max-bytes: raised on purpose).
    const child = spawn(process.execPath, [cli, 'table', '--d-model', '1024', '--max-len', '65536', '--max-bytes', '2000000000', '--out', out, '--quiet']);
    let stderr = '';
    child.stderr.on('data', (b) => { stderr += b; });
    let gone = false;
    const exited = new Promise((resolve) => child.on('exit', (status) => { gone = true; resolve(status); }));
    // Until the temporary file exists, or the child has ended without one (then the asserts below say why).
    while (!gone && !readdirSync(d).some((f) => f.endsWith('.posenc-partial'))) await new Promise((resolve) => setTimeout(resolve, 5));
    child.kill(signal);
    assert.equal(await exited, code, stderr);
    assert.match(stderr, new RegExp(`posenc: ${signal}: stopped, .*pe\\.csv not written`));
    assert.deepEqual(readdirSync(d), []);
  }
});

test('CSV and JSON print the shortest decimal that reads back as the stored float32 (the digits NumPy prints)', () => {
  const d = folder('shortest');
  const args = ['table', '--d-model', '64', '--max-len', '300', '--offset', '1000', '--quiet'];
  assert.equal(run(...args, '--out', path.join(d, 'pe.csv')).status, 0);
  assert.equal(run(...args, '--out', path.join(d, 'pe.json')).status, 0);
  assert.equal(run(...args, '--out', path.join(d, 'pe.npy')).status, 0);
  const want = pe.table(300, 64, { offset: 1000 }).data;
  const cells = readFileSync(path.join(d, 'pe.csv'), 'utf8').trimEnd().split('\n').flatMap((l) => l.split(','));
  assert.deepEqual(cells.map((c) => Math.fround(Number(c))), Array.from(want), 'every cell reads back exactly');
  const json = JSON.parse(readFileSync(path.join(d, 'pe.json'), 'utf8'));
  assert.deepEqual(json.data.flat().map(Math.fround), Array.from(want));
  // NumPy's shortest unique repr of each float32 (Dragon4), from the .npy the same command wrote.
  const py = spawnSync('/usr/bin/python3', ['-c', `import numpy as np, sys
a = np.load(sys.argv[1]).ravel()
print(','.join(np.format_float_scientific(x, unique=True, trim='-') for x in a))`, path.join(d, 'pe.npy')], { encoding: 'utf8' });
  assert.equal(py.status, 0, py.stderr);
  // Compare significant digits: '0.00123' and '1.23e-3' both give '123'.
  const digits = (s) => s.replace(/^-/, '').replace(/e.*$/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '') || '0';
  const numpy = py.stdout.trim().split(',');
  assert.equal(numpy.length, cells.length);
  cells.forEach((c, i) => assert.equal(digits(c), digits(numpy[i]), `cell ${i}: ${c} vs NumPy ${numpy[i]}`));
  const float64 = run('table', '--d-model', '2', '--max-len', '2', '--dtype', 'float64', '--format', 'csv', '--out', '-');
  assert.equal(float64.stdout, `0,1\n${Math.sin(1)},${Math.cos(1)}\n`, 'float64 keeps every digit of the double');
  const small = run('table', '--d-model', '2', '--max-len', '2', '--format', 'csv', '--out', '-');
  assert.equal(small.stdout, '0,1\n0.84147096,0.5403023\n', 'sin 1 and cos 1 as NumPy prints their float32');
});

// The sixth adversarial pass (issue 22): --out at what is not a regular file, for both writers.
const CONFIG = path.join(here, 'fixtures', 'configs', 'deepseek-v3.json');
const WRITERS = { table: TABLE, 'rope --config': ['rope', '--config', CONFIG, '--max-len', '4', '--quiet'] };

test('--out at a FIFO or a device (through a link too) is refused with or without --force, never replaced by a file', () => {
  for (const [name, args] of Object.entries(WRITERS)) {
    const d = folder(`special-${name.replace(/\W/g, '')}`);
    const fifo = path.join(d, 'fifo.npy');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    const dev = path.join(d, 'null.npy');
    symlinkSync('/dev/null', dev);
    for (const out of [fifo, dev]) {
      for (const force of [[], ['--force']]) {
        const r = run(...args, '--out', out, ...force);
        assert.equal(r.status, 2, `${name} ${out} ${force}: ${r.stderr}`);
        assert.match(r.stderr, /is not a regular file \(a FIFO, device or socket\)/);
      }
    }
    assert.ok(lstatSync(fifo).isFIFO(), `${name}: the FIFO is still one`);
    assert.ok(lstatSync(dev).isSymbolicLink(), `${name}: the link to /dev/null is still one`);
    assert.deepEqual(readdirSync(d).sort(), ['fifo.npy', 'null.npy']);
  }
});

test('--out a symbolic link is refused with --force, before any work: the rename replaced the link (twenty-fifth pass)', () => {
  // The file is written beside the target and renamed over it, which replaces a link instead of writing through it:
  // --out /dev/stdout --format npy --force with standard output redirected to a file replaced /dev/stdout itself
  // with a regular file (for root, for every process) and left the redirected file empty. A link of our own to
  // /proc/self/fd/1 stands for /dev/stdout here; a link to a file was replaced the same way.
  for (const [name, args] of Object.entries(WRITERS)) {
    const d = folder(`link-${name.replace(/\W/g, '')}`);
    const stdout = path.join(d, 'stdout.npy');
    symlinkSync('/proc/self/fd/1', stdout);
    const file = path.join(d, 'file.npy');
    writeFileSync(file, 'mine');
    const link = path.join(d, 'link.npy');
    symlinkSync('file.npy', link);
    const redirected = path.join(d, 'redirected');
    for (const out of [stdout, link]) {
      const fd = openSync(redirected, 'w');
      const r = spawnSync(process.execPath, [cli, ...args, '--out', out, '--force'], { encoding: 'utf8', stdio: ['ignore', fd, 'pipe'] });
      closeSync(fd);
      assert.equal(r.status, 2, `${name} ${out}: ${r.stderr}`);
      assert.match(r.stderr, /^posenc: --out .* is a symbolic link: posenc would replace the link, not write through it; give the file it points to, or --out - and redirect standard output\n$/);
      assert.ok(lstatSync(out).isSymbolicLink(), `${name}: ${out} is still a link`);
      assert.equal(readFileSync(redirected, 'utf8'), '');
    }
    assert.equal(readFileSync(file, 'utf8'), 'mine');
    assert.deepEqual(readdirSync(d).sort(), ['file.npy', 'link.npy', 'redirected', 'stdout.npy']);
  }
});

test('a dangling link is an existing --out (exit 2 before any work, not after it), and rope --config refuses a missing folder as table does', () => {
  for (const [name, args] of Object.entries(WRITERS)) {
    const d = folder(`dangling-${name.replace(/\W/g, '')}`);
    const link = path.join(d, 'pe.npy');
    symlinkSync(path.join(d, 'nowhere.npy'), link);
    const r = run(...args, '--out', link);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /pe\.npy exists; add --force to overwrite it/);
    const m = run(...args, '--out', path.join(d, 'no', 'pe.npy'));
    assert.equal(m.status, 2, `${name}: ${m.stderr}`);
    assert.match(m.stderr, /--out .*pe\.npy: the folder .*no does not exist/);
    assert.deepEqual(readdirSync(d), ['pe.npy']);
  }
});

test('rope --config under a file-size limit: a short last write is no success, a failed one leaves no temporary file', () => {
  // 2176 bytes: a 2 KiB limit cuts the last chunk short (it wrote 2048 bytes and exited 0), 1 KiB fails a write (the temporary file stayed).
  for (const [kib, file] of [[2, 'a.npy'], [1, 'b.npy'], [1, 'c.npz']]) {
    const d = folder(`fsize-config-${file}`);
    const r = spawnSync('sh', ['-c', `ulimit -f ${kib}; exec "$0" "$@"`, process.execPath, cli, ...WRITERS['rope --config'], '--out', path.join(d, file)],
      { encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 1, `${kib} KiB ${file}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`cannot write .*${file.replace('.', '\\.')} \\(EFBIG: file too large.*\\); nothing was written`));
    assert.deepEqual(readdirSync(d), []);
  }
});

test('--out - into a pipe shared with stderr (2>&1 |) and read slowly is written whole (EAGAIN is waited out, not a failed write)', () => {
  // 4 MiB + 128 bytes: the writer fills the 64 KiB pipe long before the reader, asleep for a second, starts.
  for (const format of ['npy', 'csv']) {
    const r = spawnSync('sh', ['-c', '"$0" "$@" 2>&1 | { sleep 1; wc -c; }', process.execPath, cli, 'table', '--d-model', '512', '--max-len', '2048', '--format', format, '--out', '-'],
      { encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 0, r.stderr);
    const bytes = Number(r.stdout.trim());
    if (format === 'npy') assert.equal(bytes, 128 + 2048 * 512 * 4, r.stdout);
    else assert.ok(bytes > 2048 * 512 * 2, `${bytes} bytes of CSV`);
  }
});

test('--out ending in a slash is refused before the work; a name near NAME_MAX (255 bytes) is written', () => {
  for (const [name, args] of Object.entries(WRITERS)) {
    const d = folder(`names-${name.replace(/\W/g, '')}`);
    // x.npy/ was read as x.npy in its folder: the link failed (ENOENT, exit 1) after the work.
    const r = run(...args, '--out', path.join(d, 'x.npy') + '/');
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /--out .*x\.npy\/ ends in a slash: name a file/);
    // 250 bytes of name: the temporary file's name (name, pid, .posenc-partial) passed 255 (ENAMETOOLONG, exit 1).
    const long = `${'é'.repeat(123)}.npy`;
    const w = run(...args, '--out', path.join(d, long));
    assert.equal(w.status, 0, w.stderr);
    assert.deepEqual(readdirSync(d), [long]);
    assert.ok(isNpy(path.join(d, long)));
  }
});

test('--out - into a pipe closed early (| head -c 10) exits 1 saying it stopped, not that nothing was written', async () => {
  // 4 MiB: past the 64 KiB pipe. The reader took 10 bytes of it: "nothing was written" was not so.
  const { code, stderr } = await runIntoClosedPipe(['table', '--d-model', '512', '--max-len', '2048', '--out', '-']);
  assert.equal(code, 1, stderr);
  assert.match(stderr, /^posenc: cannot write standard output \(EPIPE: broken pipe, write\); stopped\n$/);
});

test('stderr closed (2>&1 | head -c 1) loses the progress lines, not the file: written whole, exit 0, no temporary file', async () => {
  // 16 MiB (progress shows from 8 MiB): a progress line's EPIPE was an unhandled
  // 'error' event that ended the process and left .pe.npy.<pid>.posenc-partial behind.
  const d = folder('stderr-closed');
  const out = path.join(d, 'pe.npy');
  const child = spawn(process.execPath, [cli, 'table', '--d-model', '512', '--max-len', '8192', '--out', out], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr.destroy(); // closed before the child has loaded: its first line meets EPIPE
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(code, 0);
  assert.deepEqual(readdirSync(d), ['pe.npy']);
  assert.equal(readFileSync(out).length, 128 + 8192 * 512 * 4);
});

test('--out past NAME_MAX or a link to itself is a usage error (exit 2) before any work, not a raw stack trace (eighteenth pass)', () => {
  // lstat's ENAMETOOLONG and stat's ELOOP escaped checkTarget: `posenc table` printed a Node stack trace, exit 1
  // (rope --config, "cannot write ... nothing was written", exit 1, after reading its config).
  for (const [name, args] of Object.entries(WRITERS)) {
    const d = folder(`unusable-${name.replace(/\W/g, '')}`);
    const self = path.join(d, 'self.npy');
    symlinkSync('self.npy', self);
    for (const [out, code] of [[path.join(d, `${'a'.repeat(300)}.npy`), 'ENAMETOOLONG'], [self, 'ELOOP']]) {
      for (const force of [[], ['--force']]) {
        const r = run(...args, '--out', out, ...force);
        assert.equal(r.status, 2, `${name} ${code}: ${r.stderr}`);
        assert.match(r.stderr, new RegExp(`^posenc: --out .*\\.npy cannot be used \\(${code}\\): name a file posenc can write\\n$`));
      }
    }
    assert.deepEqual(readdirSync(d), ['self.npy']);
  }
});

test('--help and --version into a pipe already closed (| true) exit 1 saying so, not with a stack trace (eighteenth pass)', async () => {
  // process.stdout.write's EPIPE was an unhandled 'error' event: a Node stack trace on stderr, as inspect's once was.
  for (const args of [['--help'], ['--version'], ['table', '--help'], ['rope', '--config', 'x', '--help'], ['inspect', '--help']]) {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy(); // closed before the child has loaded: its first write meets EPIPE
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    const code = await new Promise((resolve) => child.on('close', resolve));
    assert.equal(code, 1, `${args}: ${stderr}`);
    assert.match(stderr, /^posenc: cannot write standard output \(EPIPE: broken pipe, write\); stopped\n$/, String(args));
  }
});

test('a .npy is refused on a terminal before anything is computed; text and pipes are written (twenty-fifth pass)', () => {
  // --out - with a terminal as standard output wrote the binary .npy to it, and a float's bytes hold ESC, CSI and OSC
  // sequences a terminal obeys (a 512 × 2048 table: 41 "ESC [", 42 "ESC ]", 9 987 C1 CSI bytes). Run under a
  // pseudo-terminal (python3's pty, which the golden tests already need).
  const onTerminal = (...args) => {
    const r = spawnSync('python3', ['-c', `import os, pty, sys, json
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out = b''
while True:
    try:
        b = os.read(fd, 65536)
    except OSError:
        break
    if not b:
        break
    out += b
print(json.dumps([os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), out.decode('latin1')]))`, process.execPath, cli, ...args], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  const [code, text] = onTerminal('table', '--d-model', '512', '--max-len', '2048', '--out', '-');
  assert.equal(code, 2);
  assert.match(text, /^posenc: standard output is a terminal, and a \.npy is binary .*give --format csv or json\r\n$/);
  const [csvCode, csv] = onTerminal('table', '--d-model', '4', '--max-len', '2', '--out', '-', '--format', 'csv');
  assert.equal(csvCode, 0);
  assert.equal(csv, '0,1,0,1\r\n0.84147096,0.5403023,0.009999833,0.99995\r\n');
  const piped = run('table', '--d-model', '4', '--max-len', '2', '--out', '-'); // a pipe: the .npy as before
  assert.equal(piped.status, 0, piped.stderr);
});

test('an empty --out is a usage error before any work, for every writer (twenty-fifth pass)', () => {
  // '' passed checkTarget (no folder to miss, nothing there), the output was computed and written to a temporary
  // file, and the final link or rename failed: exit 1, "cannot write  (ENOENT ...)".
  const d = folder('empty-out');
  for (const force of [[], ['--force']]) {
    const r = spawnSync(process.execPath, [cli, ...TABLE, '--format', 'npy', '--out', '', ...force], { encoding: 'utf8', cwd: d });
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stderr, 'posenc: --out is empty: name a file, or - for standard output\n');
  }
  assert.deepEqual(readdirSync(d), []);
});
