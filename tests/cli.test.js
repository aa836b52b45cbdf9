// The command-line exporter (bin/posenc.js): spawns it, reads back what it
// wrote (.npy validated against the NPY 1.0 specification by a parser written
// here, .csv, .json) and compares with the API. Run: node --test tests/cli.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadApi, loadVariants, loadFields } from './helpers/load.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.join(here, '..', 'bin', 'posenc.js');
const dir = mkdtempSync(path.join(tmpdir(), 'posenc-cli-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const pe = await loadApi();
const pv = await loadVariants();
const pf = await loadFields();

function run(...args) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 120_000 });
  if (r.error) throw r.error;
  return r;
}
const out = (name) => path.join(dir, name);

/**
 * Reads an .npy file, checking every rule of format version 1.0
 * (numpy.lib.format): magic, version, header length, the dict literal with
 * exactly descr / fortran_order / shape, padding to a multiple of 64 bytes
 * with spaces and a final newline, and a data size that matches the shape.
 */
function readNpy(file) {
  const buf = readFileSync(file);
  assert.deepEqual([...buf.subarray(0, 6)], [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59], 'magic \\x93NUMPY');
  assert.equal(buf[6], 1, 'major version 1');
  assert.equal(buf[7], 0, 'minor version 0');
  const headerLen = buf.readUInt16LE(8);
  const dataStart = 10 + headerLen;
  assert.equal(dataStart % 64, 0, 'magic + version + length + header is a multiple of 64 bytes');
  const header = buf.subarray(10, dataStart).toString('latin1');
  assert.ok(/^[\x20-\x7e]*\n$/.test(header), 'header is printable ASCII ending in a newline');
  const m = header.match(/^\{'descr': '([<>|][a-z]\d+)', 'fortran_order': (True|False), 'shape': \((\d+(?:, \d+)*,?)\), \} *\n$/);
  assert.ok(m, `header dict literal: ${JSON.stringify(header)}`);
  const [, descr, fortran, dims] = m;
  assert.equal(fortran, 'False');
  const shape = dims.split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  const Type = { '<f4': Float32Array, '<f8': Float64Array }[descr];
  assert.ok(Type, `little-endian float descr, got ${descr}`);
  const count = shape.reduce((a, b) => a * b, 1);
  assert.equal(buf.length - dataStart, count * Type.BYTES_PER_ELEMENT, 'data size matches the shape');
  const data = new Type(buf.buffer.slice(buf.byteOffset + dataStart, buf.byteOffset + buf.length));
  return { descr, shape, data };
}

function readCsv(file) {
  return readFileSync(file, 'utf8').trimEnd().split('\n').map((line) => line.split(',').map((c) => (c === '-inf' ? -Infinity : c === 'inf' ? Infinity : Number(c))));
}

test('--help prints usage and exits 0, for the program and for each command', () => {
  const r = run('--help');
  assert.equal(r.status, 0);
  assert.match(r.stdout, /Usage: posenc <command>/);
  for (const cmd of ['table', 'rope', 'alibi', 'timestep', 'sincos2d']) {
    const c = run(cmd, '--help');
    assert.equal(c.status, 0);
    assert.match(c.stdout, new RegExp(`Usage: posenc ${cmd}`));
    assert.match(c.stdout, /--out/);
  }
  assert.equal(run().status, 0);
});

test('bad command lines exit 2 with a message naming the problem, and write nothing', () => {
  const cases = [
    // the list of known commands left out inspect (handled in bin/rope-config.js; the nineteenth pass)
    [['tabel', '--out', out('x.npy')], /unknown command "tabel" \(known: table, rope, alibi, timestep, sincos2d, inspect\)/],
    [['table', '--d-modle', '8', '--max-len', '2', '--out', out('x.npy')], /unknown flag --d-modle/],
    [['table', '--max-len', '2', '--out', out('x.npy')], /--d-model is required/],
    [['table', '--d-model', 'eight', '--max-len', '2', '--out', out('x.npy')], /--d-model expects a decimal integer, got "eight"/],
    [['table', '--d-model', '8', '--max-len', '2.5', '--out', out('x.npy')], /--max-len expects a decimal integer, got "2.5"/],
    [['table', '--d-model', '8', '--max-len', '2'], /--out is required/],
    [['table', '--d-model', '8', '--max-len', '2', '--out', out('x.npy'), '--format', 'xls'], /--format must be one of npy, csv, json/],
    [['table', '--d-model', '8', '--max-len', '2', '--out', out('x.npy'), '--dtype', 'float16'], /--dtype must be float32 or float64/],
    [['table', '--d-model', '8', '--max-len', '2', '--out', out('x.npy'), '--preset', 'bert'], /preset must be one of/],
    [['table', '--d-model', '8', '--max-len', '0', '--out', out('x.npy')], /--max-len must be an integer from 1 to 16777216, got 0/],
    [['table', '--d-model', '8', '--max-len', '2', '--out'], /--out needs a value/],
    [['table', '--d-model', '8', '--max-len', '3', '--offset', String(2 ** 31 - 1), '--out', out('x.npy')], /offset must be/],
    [['rope', '--dim', '8', '--max-len', '0', '--out', out('x.npy')], /--max-len must be an integer from 1/],
    [['rope', '--dim', '7', '--max-len', '2', '--out', out('x.npy')], /dim must be even/],
    [['rope', '--dim', '8', '--max-len', '2', '--out', out('x.csv')], /CSV file holds one matrix/],
    [['rope', '--dim', '8', '--max-len', '2', '--factor', '2', '--out', out('x.npy')], /--factor needs --scaling/],
    [['rope', '--dim', '8', '--max-len', '2', '--scaling', 'yarn', '--factor', '2', '--out', out('x.npy')], /originalMaxPosition is required/],
    [['alibi', '--heads', '2', '--q-len', '3', '--out', out('x.csv')], /add --head/],
    [['alibi', '--heads', '2', '--q-len', '3', '--head', '2', '--out', out('x.npy')], /--head must be from 0 to 1/],
    [['alibi', '--heads', '2', '--q-len', '3', '--mode', 'both', '--out', out('x.npy')], /mode must be one of causal, symmetric/],
    [['alibi', 'extra', '--heads', '2', '--q-len', '3', '--out', out('x.npy')], /unexpected argument "extra"/],
    [['timestep', '--dim', '8', '--out', out('x.npy')], /give --steps or --timesteps/],
    [['timestep', '--dim', '8', '--steps', '2', '--timesteps', '1', '--out', out('x.npy')], /give --steps or --timesteps/],
    [['timestep', '--dim', '8', '--timesteps', '1,,2', '--out', out('x.npy')], /--timesteps must be comma-separated finite numbers/],
    // each timestep as strictly as a real flag (fifth adversarial pass, issue 22: Number() read these)
    ...['0x10', '1,0b1', '0o7', '+4', '1_0', ' 4e', '.'].map((t) => [['timestep', '--dim', '8', '--timesteps', t, '--out', out('x.npy')],
      new RegExp(`--timesteps must be comma-separated finite numbers, got ${JSON.stringify(t.split(',').pop()).replace(/[.+]/g, '\\$&')}`)]),
    [['timestep', '--dim', '8', '--steps', '0', '--out', out('x.npy')], /--steps must be an integer from 1/],
    [['timestep', '--dim', '2', '--steps', '2', '--out', out('x.npy')], /downscaleFreqShift \(the preset's\) must be less than dim \/ 2 \(1\)/],
    [['timestep', '--dim', '8', '--steps', '2', '--preset', 'sdxl', '--out', out('x.npy')], /preset must be one of/],
    [['timestep', '--dim', '8', '--steps', '2', '--flip-sin-to-cos', '--no-flip-sin-to-cos', '--out', out('x.npy')], /contradict/],
    [['sincos2d', '--grid-h', '4', '--dim', '6', '--out', out('x.npy')], /dim must be a multiple of 4/],
    [['sincos2d', '--dim', '8', '--out', out('x.npy')], /--grid-h is required/],
    [['sincos2d', '--grid-h', '4', '--dim', '8', '--first-axis', 'x', '--out', out('x.npy')], /firstAxis must be one of w, h/],
  ];
  for (const [args, message] of cases) {
    const r = run(...args);
    assert.equal(r.status, 2, `${args.join(' ')}: status ${r.status}, stderr ${r.stderr}`);
    assert.match(r.stderr, message, args.join(' '));
    assert.match(r.stderr, /^posenc: /);
  }
  assert.ok(!existsSync(out('x.npy')) && !existsSync(out('x.csv')), 'nothing written for a bad command line');
});

test('names that Object.prototype has are no commands or flags, and a flag is no value (issue 16)', () => {
  const reserved = ['constructor', 'toString', 'valueOf', '__proto__', 'hasOwnProperty', 'isPrototypeOf'];
  for (const name of reserved) {
    const r = run(name, '--out', out('x.npy'));
    assert.equal(r.status, 2, `${name}: status ${r.status}, stderr ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`^posenc: unknown command "${name}"`), name);
    assert.doesNotMatch(r.stderr, /ERR_MODULE_NOT_FOUND|\n\s+at /, `${name}: a stack trace`);
    const f = run('table', '--d-model', '8', '--max-len', '2', `--${name}`, '5', '--out', out('x.npy'));
    assert.equal(f.status, 2, `--${name}: status ${f.status}, stderr ${f.stderr}`);
    assert.match(f.stderr, new RegExp(`^posenc: unknown flag --${name}`), name);
  }
  const q = run('table', '--d-model', '8', '--max-len', '2', '--out', '--quiet');
  assert.equal(q.status, 2, q.stderr);
  assert.match(q.stderr, /^posenc: --out needs a value \(got the flag --quiet/);
  assert.ok(!existsSync('--quiet') && !existsSync(out('x.npy')), 'nothing written');
});

test('table → .npy: a valid NPY 1.0 file holding exactly the API table', () => {
  const file = out('pe.npy');
  const r = run('table', '--d-model', '16', '--max-len', '33', '--preset', 'vaswani', '--format', 'npy', '--out', file);
  assert.equal(r.status, 0, r.stderr);
  const npy = readNpy(file);
  assert.equal(npy.descr, '<f4');
  assert.deepEqual(npy.shape, [33, 16]);
  assert.deepEqual(npy.data, pe.table(33, 16).data);
});

test('timestep → .npy (steps, dim) for each preset, and fractional --timesteps → .json', () => {
  for (const preset of ['diffusers', 'ddpm', 'stable-diffusion', 'dit']) {
    const file = out(`t-${preset}.npy`);
    const r = run('timestep', '--steps', '1000', '--dim', '33', '--preset', preset, '--dtype', 'float64', '--out', file);
    assert.equal(r.status, 0, r.stderr);
    const npy = readNpy(file);
    assert.deepEqual(npy.shape, [1000, 33]);
    assert.deepEqual(npy.data, pf.timestepEmbedding(Float64Array.from({ length: 1000 }, (_, i) => i), 33, { preset, dtype: 'float64' }).data);
  }
  const r = run('timestep', '--timesteps', '0.5, 999.25', '--dim', '6', '--no-flip-sin-to-cos', '--preset', 'dit', '--max-period', '100', '--out', out('t.json'));
  assert.equal(r.status, 0, r.stderr);
  const json = JSON.parse(readFileSync(out('t.json'), 'utf8'));
  const want = pf.timestepEmbedding([0.5, 999.25], 6, { preset: 'dit', flipSinToCos: false, maxPeriod: 100 });
  assert.deepEqual(json.data.flat().map(Math.fround), Array.from(want.data));
  assert.equal(Math.fround(json.data[0][0]), Math.fround(Math.sin(0.5)));
});

test('sincos2d → .npy (cls + h·w, dim) as MAE, and the diffusers options → .csv', () => {
  const r = run('sincos2d', '--grid-h', '14', '--dim', '768', '--cls-token', '--out', out('g.npy'));
  assert.equal(r.status, 0, r.stderr);
  const npy = readNpy(out('g.npy'));
  assert.deepEqual(npy.shape, [197, 768]);
  assert.deepEqual(npy.data, pf.sincos2d(14, 14, 768, { clsToken: true }).data);
  const c = run('sincos2d', '--grid-h', '3', '--grid-w', '5', '--dim', '16', '--preset', 'diffusers', '--base-size', '8',
    '--interpolation-scale', '2', '--first-axis', 'h', '--dtype', 'float64', '--out', out('g.csv'));
  assert.equal(c.status, 0, c.stderr);
  const want = pf.sincos2d(3, 5, 16, { preset: 'diffusers', baseSize: 8, interpolationScale: 2, firstAxis: 'h', dtype: 'float64' });
  assert.deepEqual(readCsv(out('g.csv')).flat(), Array.from(want.data));
});

test('table → .npy float64 for each preset, and fairseq\'s padding row survives chunking offsets', () => {
  for (const preset of ['tensor2tensor', 'fairseq', 'marian']) {
    const file = out(`pe-${preset}.npy`);
    const r = run('table', '--d-model', '10', '--max-len', '7', '--preset', preset, '--dtype', 'float64', '--out', file);
    assert.equal(r.status, 0, r.stderr);
    const npy = readNpy(file);
    assert.equal(npy.descr, '<f8');
    assert.deepEqual(npy.data, pe.table(7, 10, { preset, dtype: 'float64' }).data);
  }
});

test('table → .csv and .json (format from the extension) read back to the same values', () => {
  const csv = out('pe.csv');
  assert.equal(run('table', '--d-model', '6', '--max-len', '5', '--dtype', 'float64', '--out', csv).status, 0);
  const want = pe.table(5, 6, { dtype: 'float64' });
  assert.deepEqual(readCsv(csv).flat(), Array.from(want.data));
  const json = out('pe.json');
  assert.equal(run('table', '--d-model', '6', '--max-len', '5', '--out', json, '--offset', '100').status, 0);
  const j = JSON.parse(readFileSync(json, 'utf8'));
  assert.deepEqual(j.shape, [5, 6]);
  assert.equal(j.dtype, 'float32');
  assert.deepEqual(j.data.flat().map(Math.fround), Array.from(pe.table(5, 6, { offset: 100 }).data));
});

test('rope → .npy (2, maxLen, dim) cos then sin, llama3 scaling; --part sin → .csv', () => {
  const file = out('rope.npy');
  const r = run('rope', '--dim', '16', '--max-len', '9', '--base', '500000', '--scaling', 'llama3', '--original-max-position', '64', '--out', file);
  assert.equal(r.status, 0, r.stderr);
  const npy = readNpy(file);
  assert.deepEqual(npy.shape, [2, 9, 16]);
  const c = pv.ropeCache(9, 16, { base: 500000, scaling: { type: 'llama3', originalMaxPosition: 64 } });
  assert.deepEqual(npy.data.subarray(0, 9 * 16), c.cos.data);
  assert.deepEqual(npy.data.subarray(9 * 16), c.sin.data);
  const csv = out('rope-sin.csv');
  assert.equal(run('rope', '--dim', '8', '--max-len', '4', '--part', 'sin', '--layout', 'pairs', '--dtype', 'float64',
    '--scaling', 'yarn', '--factor', '4', '--original-max-position', '32', '--out', csv).status, 0);
  const want = pv.ropeCache(4, 8, { layout: 'pairs', dtype: 'float64', scaling: { type: 'yarn', factor: 4, originalMaxPosition: 32 } });
  assert.deepEqual(readCsv(csv).flat(), Array.from(want.sin.data));
});

test('alibi → .npy (heads, q, k) with -inf masks; --head → .csv; .json with null for the mask', () => {
  const file = out('alibi.npy');
  assert.equal(run('alibi', '--heads', '3', '--q-len', '4', '--k-len', '5', '--query-offset', '1', '--out', file).status, 0);
  const npy = readNpy(file);
  assert.deepEqual(npy.shape, [3, 4, 5]);
  const b = pv.alibiBias(3, 4, { kLen: 5, queryOffset: 1 });
  assert.deepEqual(npy.data, b.data);
  assert.ok(npy.data.includes(-Infinity));
  const csv = out('alibi-1.csv');
  assert.equal(run('alibi', '--heads', '3', '--q-len', '4', '--head', '1', '--mask-value', '-inf', '--out', csv).status, 0);
  const one = pv.alibiBias(3, 4);
  assert.deepEqual(readCsv(csv).flat(), Array.from(one.data.subarray(16, 32)));
  const json = out('alibi.json');
  assert.equal(run('alibi', '--heads', '2', '--q-len', '3', '--mode', 'causal', '--variant', 'mpt', '--out', json).status, 0);
  const j = JSON.parse(readFileSync(json, 'utf8'));
  assert.deepEqual(j.shape, [2, 3, 3]);
  const ref = pv.alibiBias(2, 3, { variant: 'mpt' });
  assert.deepEqual(j.data.flat(2).map((v) => (v === null ? -Infinity : v)), Array.from(ref.data));
  const sym = out('alibi-sym.npy');
  assert.equal(run('alibi', '--heads', '2', '--q-len', '3', '--mode', 'symmetric', '--mask-value', '0', '--dtype', 'float64', '--out', sym).status, 0);
  assert.deepEqual(readNpy(sym).data, pv.alibiBias(2, 3, { mode: 'symmetric', dtype: 'float64' }).data);
});

test('alibi --head computes that head alone, byte for byte the API\'s (twenty-first pass)', () => {
  // Every head was computed to keep one: --heads 8000 --q-len 128 --head 0 took 3 s and 1 GB of memory to write
  // 64 KiB, and --heads 16384 was refused for 1 GiB of WebAssembly memory that its one head does not need.
  const big = out('alibi-head-big.npy');
  const r = run('alibi', '--heads', '16384', '--q-len', '128', '--head', '5', '--max-bytes', '1000000', '--out', big);
  assert.equal(r.status, 0, r.stderr);
  const slope = pv.alibiSlopes(16384, { dtype: 'float64' })[5];
  const got = readNpy(big);
  assert.deepEqual(got.shape, [128, 128]);
  assert.deepEqual([got.data[0], got.data[1], got.data[128], got.data[128 * 128 - 1], got.data[127 * 128]], [0, -Infinity, Math.fround(-slope), 0, Math.fround(-slope * 127)]);
  const cases = [
    ['--heads', '5', '--q-len', '7', '--k-len', '9', '--head', '3'],
    ['--heads', '7', '--q-len', '6', '--head', '6', '--variant', 'mpt', '--query-offset', '3'],
    ['--heads', '12', '--q-len', '6', '--k-len', '11', '--head', '11', '--mode', 'symmetric', '--mask-value', '0', '--dtype', 'float64'],
    ['--heads', '3', '--q-len', '4', '--head', '1', '--mask-value', '-7.5', '--max-bias', '3.3'],
    ['--heads', '33', '--q-len', '5', '--head', '32', '--query-offset', '-4', '--k-len', '3', '--variant', 'mpt', '--dtype', 'float64'],
    ['--heads', '600', '--q-len', '3', '--head', '599', '--query-offset', '2147483000', '--mode', 'symmetric'],
  ];
  for (const args of cases) {
    const flag = (k, d) => (args.includes(k) ? args[args.indexOf(k) + 1] : d);
    const [heads, q, head] = [+flag('--heads'), +flag('--q-len'), +flag('--head')];
    const k = +flag('--k-len', q);
    const full = pv.alibiBias(heads, q, { kLen: k, variant: flag('--variant', 'press'), mode: flag('--mode', 'causal'), queryOffset: +flag('--query-offset', 0),
      dtype: flag('--dtype', 'float32'), maskValue: +flag('--mask-value', -Infinity), maxBias: +flag('--max-bias', 8) });
    const file = out(`alibi-head-${cases.indexOf(args)}.npy`);
    assert.equal(run('alibi', ...args, '--out', file).status, 0, args.join(' '));
    const npy = readNpy(file);
    assert.deepEqual(npy.shape, [q, k]);
    assert.deepEqual(npy.data, full.data.subarray(head * q * k, (head + 1) * q * k), args.join(' '));
  }
  // and a refused value is the API's message, exit 2
  for (const [args, message] of [[['--heads', '0', '--q-len', '3', '--head', '0'], /heads must be an integer from 1 to 65536/],
    [['--heads', '2', '--q-len', '3', '--k-len', '0', '--head', '1'], /kLen must be an integer from 1/],
    [['--heads', '2', '--q-len', '3', '--head', '1', '--query-offset', '2147483646'], /queryOffset must be an integer/]]) {
    const bad = run('alibi', ...args, '--out', '-');
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, message);
  }
});

test('large outputs report progress on stderr (and --quiet silences it); the data is still exact', () => {
  const file = out('big.npy');
  const r = run('table', '--d-model', '512', '--max-len', '4096', '--out', file);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /posenc: writing table .* 100%/);
  const npy = readNpy(file);
  assert.deepEqual(npy.shape, [4096, 512]);
  const want = pe.table(4096, 512);
  assert.deepEqual(npy.data, want.data);
  const q = run('table', '--d-model', '512', '--max-len', '4096', '--out', file, '--quiet', '--force');
  assert.equal(q.status, 0);
  assert.equal(q.stderr, '');
  const small = run('table', '--d-model', '4', '--max-len', '4', '--out', out('small.npy'));
  assert.doesNotMatch(small.stderr, /%/);
});

test('--out - writes CSV to standard output', () => {
  const r = run('table', '--d-model', '4', '--max-len', '2', '--format', 'csv', '--dtype', 'float64', '--out', '-');
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stdout.trimEnd().split('\n').map((l) => l.split(',').map(Number)).flat(),
    Array.from(pe.table(2, 4, { dtype: 'float64' }).data));
});

test('the output size is checked before anything is written, against --max-bytes (default: the API limit) (issue 22)', async () => {
  const { PE_MAX_BYTES } = await import('../dist/constants.js');
  // 2^24 × 2^24 float32 is 1 PiB: refused at once, no file and no temporary file.
  const big = out('petabyte.npy');
  const r = run('table', '--max-len', '16777216', '--d-model', '16777216', '--out', big);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`^posenc: this output would take 1\\.126e\\+15 bytes, more than --max-bytes ${PE_MAX_BYTES} \\(the default, 1 GiB\\); nothing was written`));
  assert.deepEqual(readdirSync(dir).filter((f) => f.includes('petabyte')), []);
  // The default is the API's per-call limit: 2^24 × 16 float32 is exactly 1 GiB of data plus the header.
  const edge = run('table', '--max-len', '16777216', '--d-model', '16', '--out', out('edge.npy'));
  assert.equal(edge.status, 2, edge.stderr);
  assert.match(edge.stderr, new RegExp(`more than --max-bytes ${PE_MAX_BYTES}`));
  // --max-bytes bounds every format by its largest possible size (text: 23 bytes a float32 value, 26 a float64,
  // and in JSON 8 a row for its brackets).
  const cases = [
    [['--max-len', '64', '--d-model', '64', '--max-bytes', '16000'], 2, 'npy'],
    [['--max-len', '64', '--d-model', '64', '--max-bytes', String(128 + 64 * 64 * 4)], 0, 'npy'],
    [['--max-len', '8', '--d-model', '8', '--max-bytes', String(256 + 64 * 23 - 1)], 2, 'csv'],
    [['--max-len', '8', '--d-model', '8', '--max-bytes', String(256 + 64 * 23)], 0, 'csv'],
    [['--max-len', '8', '--d-model', '8', '--dtype', 'float64', '--max-bytes', String(256 + 64 * 26 + 8 * 8)], 0, 'json'],
    [['--max-len', '8', '--d-model', '8', '--dtype', 'float64', '--max-bytes', String(256 + 64 * 26 + 8 * 8 - 1)], 2, 'json'],
  ];
  for (const [args, status, format] of cases) {
    const file = out(`limit.${format}`);
    const c = run('table', ...args, '--out', file, '--force', '--quiet');
    assert.equal(c.status, status, `${args.join(' ')} .${format}: ${c.stderr}`);
    assert.equal(existsSync(file), status === 0);
    if (status === 0) assert.ok(statSync(file).size <= Number(args[args.indexOf('--max-bytes') + 1]));
    rmSync(file, { force: true });
  }
  // The other commands are bounded too, each by its own output's size.
  for (const args of [
    ['rope', '--dim', '16777216', '--max-len', '16777216'],
    ['alibi', '--heads', '65536', '--q-len', '65536'],
    ['timestep', '--dim', '16777216', '--steps', '16777216'],
    ['sincos2d', '--grid-h', '65536', '--dim', '65536'],
  ]) {
    const c = run(...args, '--out', out('other.npy'));
    assert.equal(c.status, 2, `${args.join(' ')}: ${c.stderr}`);
    assert.match(c.stderr, /more than --max-bytes/, args.join(' '));
  }
  assert.equal(existsSync(out('other.npy')), false);
  // --extra-tokens adds rows without --cls-token too: they were left out of the plan, so 1 MiB passed
  // --max-bytes 200, the work ran and the write stopped at the second fence, exit 1 (seventh pass).
  const extra = run('sincos2d', '--grid-h', '1', '--dim', '4', '--extra-tokens', '65536', '--max-bytes', '200', '--out', out('other.npy'));
  assert.equal(extra.status, 2, extra.stderr);
  assert.match(extra.stderr, /^posenc: this output would take 1048720 bytes, more than --max-bytes 200; nothing was written/);
  assert.equal(existsSync(out('other.npy')), false);
});

test('the text plan holds the longest values a command can write (seventeenth pass)', () => {
  // A masked ALiBi column of -0.0000012345678 (16 characters, 19 bytes a JSON row [v],) passed the plan of
  // 17 bytes a value: the work ran and the write stopped at the second fence, exit 1, after writing.
  const mask = (value, format, maxBytes) => run('alibi', '--heads', '1', '--q-len', '4096', '--k-len', '1', '--query-offset', '-4096',
    '--mask-value', value, '--max-bytes', String(maxBytes), '--out', out(`mask.${format}`), '--force', '--quiet');
  for (const [value, format] of [['-0.0000012345678', 'json'], ['-0.00000123456789', 'csv'], ['-1.2345679e20', 'json'], ['-1.2345679e20', 'csv']]) {
    const refused = mask(value, format, 256 + 4096 * 17);
    assert.equal(refused.status, 2, `${value} .${format}: ${refused.stderr}`);
    assert.match(refused.stderr, /^posenc: this output would take \d+ bytes, more than --max-bytes/);
    assert.equal(existsSync(out(`mask.${format}`)), false);
    const planned = 256 + 4096 * 23 + (format === 'json' ? 4096 * 8 : 0);
    const written = mask(value, format, planned);
    assert.equal(written.status, 0, `${value} .${format}: ${written.stderr}`);
    assert.ok(statSync(out(`mask.${format}`)).size <= planned);
    rmSync(out(`mask.${format}`));
  }
});

test('numbers are read strictly, flags once, and messages quote what was typed (issue 22)', () => {
  const table = (...args) => run('table', '--d-model', '4', ...args, '--out', out('strict.npy'), '--quiet');
  const bad = [
    [['--max-len', '0x10'], /--max-len expects a decimal integer, got "0x10"/],
    [['--max-len', ' 4'], /--max-len expects a decimal integer, got " 4"/],
    [['--max-len', '4 '], /--max-len expects a decimal integer, got "4 "/],
    [['--max-len', '1e3'], /--max-len expects a decimal integer, got "1e3"/],
    [['--max-len', '+4'], /--max-len expects a decimal integer, got "\+4"/],
    [['--max-len', '99999999999999999999'], /--max-len expects a decimal integer, got "99999999999999999999"/],
    [['--max-len', '2', '--base', '0x10'], /--base expects a finite decimal number, got "0x10"/],
    [['--max-len', '2', '--base', 'inf'], /--base expects a finite decimal number, got "inf"/],
    [['--max-len', '2', '--base', '1e999'], /--base expects a finite decimal number, got "1e999"/],
    [['--max-len', '2', '--base', ''], /--base expects a finite decimal number, got ""/],
    [['--max-len', '2', '--max-len', '3'], /--max-len is given twice; give it once/],
    [['--max-len', '2', '--quiet'], /--quiet is given twice/],
    [['--max-len', '2', '--offset', '2147483648'], /--offset must be from -2147483648 to 2147483647, got 2147483648$/m],
    [['--max-len', '2', '--offset', '-2147483649'], /got -2147483649$/m],
    // range messages quoted the number, not what was typed (seventh pass)
    [['--max-len', '016777217'], /--max-len must be an integer from 1 to 16777216, got 016777217$/m],
    // a real below the least double read as 0: "--base 1e-400" was refused as "base ... (got 0)", "--offset 1e-400"
    // and "--scale 1e-400" taken for 0 (eighth pass)
    [['--max-len', '2', '--base', '1e-400'], /--base expects a finite decimal number, got "1e-400" \(too small for a double: it would be read as 0\)$/m],
    [['--max-len', '2', '--offset', '-0.5e-330'], /--offset expects a finite decimal number, got "-0.5e-330" \(too small/],
  ];
  for (const [args, message] of bad) {
    const r = table(...args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message, args.join(' '));
  }
  for (const [args, message] of [
    [['timestep', '--dim', '4', '--steps', '00'], /--steps must be an integer from 1 to 16777216, got 00$/m],
    [['alibi', '--heads', '4', '--q-len', '2', '--head', '04'], /--head must be from 0 to 3, got 04$/m],
    // not "--head must be from 0 to -1": --heads is what is wrong
    [['alibi', '--heads', '0', '--q-len', '2', '--head', '0'], /posenc\.alibiBias: heads must be an integer from 1/],
    [['rope', '--config', path.join(here, 'fixtures', 'configs', 'llama-3.2-1b.json'), '--max-len', '2', '--max-bytes', '-0'], /--max-bytes must be at least 1, got -0$/m],
    [['timestep', '--dim', '4', '--timesteps', '1,1e-400'], /--timesteps must be comma-separated finite numbers, got "1e-400" \(too small for a double: it would be read as 0\)$/m],
    [['timestep', '--dim', '4', '--steps', '2', '--scale', '1e-400'], /--scale expects a finite decimal number, got "1e-400" \(too small/],
    [['rope', '--max-len', '2', '--dim', '4', '--scaling', 'longrope', '--original-max-position', '4', '--factor', '2', '--short-factor', '1,1e-400', '--long-factor', '1,1'],
      /--short-factor must be comma-separated finite numbers, got "1e-400" \(too small/],
    // read as every real flag: 1e400 was refused by the API as "scaling.shortFactor[0] ... (got Infinity)", +1 taken
    ...['1e400', '+1', '0x1', 'Infinity', '1_0'].map((x) => [['rope', '--max-len', '2', '--dim', '4', '--scaling', 'longrope', '--original-max-position', '4', '--factor', '2',
      '--short-factor', '1,1', '--long-factor', `${x},1`], new RegExp(`--long-factor must be comma-separated finite numbers, got "${x.replace('+', '\\+')}"$`, 'm')]),
    // named the flag's option, not the failing pair; an empty --out was quoted as nothing
    [['rope', '--max-len', '2', '--dim', '4', '--scaling', 'yarn', '--max-position', '2147483648', '--original-max-position', '1'],
      /scaling\.maxPosition \/ scaling\.originalMaxPosition, the factor it implies, must be from 0\.001 to 1000000 \(got 2147483648\)$/m],
  ]) {
    const r = run(...args, '--out', out('strict.npy'), '--quiet');
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message, args.join(' '));
  }
  const alibi = (value) => run('alibi', '--heads', '1', '--q-len', '2', '--mask-value', value, '--out', out('mask.json'), '--force', '--quiet');
  for (const value of ['inf', '+inf', 'Infinity', 'nan']) {
    const r = alibi(value);
    assert.equal(r.status, 2, `${value}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`--mask-value expects a finite decimal number or -inf, got "${value.replace('+', '\\+')}"`));
  }
  for (const [value, want] of [['-inf', null], ['-1e4', -1e4], ['-Infinity', null]]) {
    assert.equal(alibi(value).status, 0, value);
    assert.equal(JSON.parse(readFileSync(out('mask.json'), 'utf8')).data[0][0][1], want, value);
  }
  assert.match(run('table', '--d-model', '4', '--max-len', '2', '--out=').stderr, /cannot tell the format of --out "" from its extension/);
  // A zero written with an exponent is still 0; the least double is read as itself.
  for (const value of ['0e-400', '-0.000e5']) assert.equal(table('--max-len', '2', '--offset', value, '--force').status, 0, value);
  assert.equal(run('alibi', '--heads', '1', '--q-len', '2', '--max-bias', '5e-324', '--out', out('tiny.json'), '--quiet').status, 0);
  // Decimal and exponent notation both read as the same real.
  assert.equal(run('table', '--d-model', '4', '--max-len', '2', '--base', '1e4', '--out', out('e.json'), '--quiet').status, 0);
  assert.equal(run('table', '--d-model', '4', '--max-len', '2', '--base', '10000.0', '--out', out('d.json'), '--quiet').status, 0);
  assert.equal(readFileSync(out('e.json'), 'utf8'), readFileSync(out('d.json'), 'utf8'));
});

test('a real flag of 130 000 digits and an x is refused at once, not after a quadratic backtrack (eighteenth pass)', () => {
  // REAL's \d+\.?\d* let its two quantifiers share every digit: the longest argument Linux passes (128 KiB) took
  // 18 s to be refused. Killed after 10 s: a regression fails here rather than hanging the suite.
  const digits = '1'.repeat(130000);
  for (const args of [['table', '--max-len', '1', '--d-model', '2', '--base', `${digits}x`], ['timestep', '--dim', '4', '--timesteps', `1,${digits}x`],
    ['rope', '--dim', '8', '--max-len', '2', '--scaling', 'longrope', '--short-factor', `${digits}.5x`, '--long-factor', '1,1,1,1']]) {
    const r = spawnSync(process.execPath, [cli, ...args, '--out', '-'], { encoding: 'utf8', timeout: 10_000 });
    assert.equal(r.status, 2, `${args[0]}: ${r.signal ?? r.stderr.slice(0, 200)}`);
    // quoted by its first 99 characters and its length, as the API shows a caller's strings (the whole 128 KiB was quoted before)
    assert.match(r.stderr, /^posenc: --(base expects a finite decimal number|timesteps must be comma-separated finite numbers|short-factor must be comma-separated finite numbers), got "1{99}"… \(13000[1-3] characters\)\n$/);
  }
});

test('a decimal integer past 2^53 − 1 is refused saying why (twenty-eighth pass)', () => {
  // "--max-bytes 9007199254740992" and "--steps 9007199254740993" were refused as not "a decimal integer", which they are.
  const why = '\\(past ±9007199254740991, the largest integer a double holds exactly\\)$';
  const bad = [
    [['table', '--d-model', '4', '--max-len', '9007199254740992'], new RegExp(`--max-len expects a decimal integer, got "9007199254740992" ${why}`, 'm')],
    [['table', '--d-model', '4', '--max-len', '-9007199254740993'], new RegExp(`got "-9007199254740993" ${why}`, 'm')],
    [['table', '--d-model', '4', '--max-len', '2', '--max-bytes', '9007199254740992'], new RegExp(`--max-bytes expects a decimal integer, got "9007199254740992" ${why}`, 'm')],
    [['timestep', '--dim', '4', '--steps', '9'.repeat(400)], new RegExp(`--steps expects a decimal integer, got "9{99}"… \\(400 characters\\) ${why}`, 'm')],
    [['table', '--d-model', '4', '--max-len', '2.5'], /--max-len expects a decimal integer, got "2\.5"$/m],
  ];
  for (const [args, message] of bad) {
    const r = run(...args, '--out', out('p28-unsafe.npy'), '--quiet');
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, message);
  }
  assert.ok(!existsSync(out('p28-unsafe.npy')));
});

test('table: fairseq\'s zero row is the row at position paddingIdx, in whichever chunk holds it (an --offset moves it)', () => {
  // 2^18 columns: chunks of 4 rows, so positions -3 .. 2 are two chunks and position 1 is row 4, in the second
  const d = 2 ** 18, file = out('fairseq-offset.npy');
  const r = run('table', '--d-model', String(d), '--max-len', '6', '--offset', '-3', '--preset', 'fairseq', '--out', file);
  assert.equal(r.status, 0, r.stderr);
  const npy = readNpy(file);
  rmSync(file);
  // chunks of 4 rows start the core's recurrence off its 256-row anchors, where table() makes the 6 rows in one call:
  // equal within float32 rounding of values 1e-12 apart (docs/limits.md), not bit for bit
  const want = pe.table(6, d, { preset: 'fairseq', offset: -3 }).data;
  assert.ok(want.every((x, i) => Math.abs(npy.data[i] - x) <= 6e-8), 'the CLI file and table() agree');
  const zero = (row) => npy.data.subarray(row * d, (row + 1) * d).every((x) => x === 0);
  assert.deepEqual([0, 1, 2, 3, 4, 5].map(zero), [false, false, false, false, true, false]);
});

test('thirtieth pass: table and rope files are the API\'s results bit for bit where a chunk holds 256 rows (1365-row chunks of d 768 put values an ulp off)', () => {
  // The core re-anchors its oscillator every 256 rows from a call's first row: chunks of 1365 (d 768) or 10922 rows
  // (RoPE dim 96) started fresh anchors that one call does not have, and a few float32 values came out an ulp apart.
  const t = out('p30-d768.npy'), r = out('p30-rope96.npy');
  let res = run('table', '--d-model', '768', '--max-len', '4096', '--out', t);
  assert.equal(res.status, 0, res.stderr);
  const a = readNpy(t).data, want = pe.table(4096, 768).data;
  rmSync(t);
  assert.equal(a.findIndex((x, i) => !Object.is(x, want[i])), -1);
  res = run('rope', '--dim', '96', '--max-len', '12000', '--part', 'cos', '--out', r);
  assert.equal(res.status, 0, res.stderr);
  const c = readNpy(r).data, wantCos = pv.ropeCache(12000, 96).cos.data;
  rmSync(r);
  assert.equal(c.findIndex((x, i) => !Object.is(x, wantCos[i])), -1);
});

test('thirty-second pass: two negative sizes are refused by name, not as an output too big for --max-bytes', () => {
  // Their product is positive: --max-len -3000000 --d-model -3000000 was "this output would take 36000000000128
  // bytes, more than --max-bytes …; raise --max-bytes deliberately", a refusal that named no flag given wrong.
  for (const [args, name] of [
    [['table', '--max-len', '-3000000', '--d-model', '-3000000'], /--max-len must be an integer from 1/],
    [['rope', '--max-len', '-100000', '--dim', '-100000'], /--max-len must be an integer from 1/],
    [['timestep', '--steps', '-100000', '--dim', '-400000'], /--steps must be an integer from 1/],
    [['alibi', '--heads', '8', '--q-len', '-100000', '--k-len', '-100000'], /qLen must be an integer from 1/],
    [['sincos2d', '--grid-h', '-100000', '--grid-w', '-100000', '--dim', '40000'], /gridH must be an integer from 1/],
  ]) {
    const r = run(...args, '--out', out('p32-negative.npy'));
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, name, args.join(' '));
    assert.doesNotMatch(r.stderr, /would take/, args.join(' '));
  }
  assert.equal(existsSync(out('p32-negative.npy')), false);
});

test('thirty-second pass: the integers\' stated limit (docs/limits.md, "at most 2^53 − 1") is the one the parser keeps', () => {
  // the table said "at most 2^53", and 2^53 is refused (as past ±9007199254740991)
  const row = readFileSync(path.join(here, '..', 'docs', 'limits.md'), 'utf8').split('\n').find((l) => l.startsWith('| counts and positions'));
  assert.match(row, /at most 2\^53 − 1 in size/);
  const at = (bytes) => run('table', '--max-len', '2', '--d-model', '2', '--max-bytes', bytes, '--out', '-', '--format', 'csv');
  assert.equal(at('9007199254740991').status, 0);
  assert.equal(at('-9007199254740991').status, 2, 'in size: the least is -(2^53 − 1), refused here for --max-bytes\'s own range');
  assert.match(at('9007199254740992').stderr, /^posenc: --max-bytes expects a decimal integer, got "9007199254740992" \(past ±9007199254740991/);
});
