// The CLI's config commands (issue 23 point 5): `posenc rope --config` and
// `posenc inspect`. Spawns bin/posenc.js on the gallery's configs and reads
// back what it wrote: .npy parsed here, .npz checked by Python's zipfile
// (stdlib: CRC and directory) and parsed here, values compared with cos/sin of
// the golden inv_freq (tests/golden/golden_rope_config.json, an independent
// Python generator) times the golden attention factor.
//
// Tolerances: float32 files 1e-6 absolute (the float32 rounding of values <= 1.2,
// as for every float32 table); float64 files 1e-12 (angles below 100 radians).
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runIntoClosedPipe } from './helpers/cli-pipe.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.join(here, '..', 'bin', 'posenc.js');
const fixture = (name) => path.join(here, 'fixtures', 'configs', `${name}.json`);
const dir = mkdtempSync(path.join(tmpdir(), 'posenc-cli-config-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const out = (name) => path.join(dir, name);
const golden = JSON.parse(readFileSync(path.join(here, 'golden', 'golden_rope_config.json'), 'utf8')).cases;
const goldenOf = (name) => golden.find((c) => c.name === name);

function run(...args) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 120_000 });
  if (r.error) throw r.error;
  return r;
}

/** An .npy buffer: { dtype, shape, data } (format 1.0, little-endian, C order). */
function parseNpy(buf) {
  assert.equal(buf.subarray(1, 6).toString('latin1'), 'NUMPY');
  const len = buf.readUInt16LE(8);
  const header = buf.subarray(10, 10 + len).toString('latin1');
  assert.equal((10 + len) % 64, 0, 'header padded to 64 bytes');
  const descr = header.match(/'descr': '([^']+)'/)[1];
  const shape = header.match(/'shape': \(([^)]*)\)/)[1].split(',').filter((s) => s.trim()).map(Number);
  const body = buf.subarray(10 + len);
  const copy = body.buffer.slice(body.byteOffset, body.byteOffset + body.length);
  const data = descr === '<f4' ? new Float32Array(copy) : new Float64Array(copy);
  assert.equal(data.length, shape.reduce((a, b) => a * b, 1), 'data matches the shape');
  return { dtype: descr, shape, data };
}

/** The members of a stored (uncompressed) zip, by name: read through the central directory. */
function parseNpz(buf) {
  const end = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = buf.readUInt16LE(end + 10);
  let at = buf.readUInt32LE(end + 16);
  const members = {};
  for (let i = 0; i < count; i++) {
    assert.equal(buf.readUInt32LE(at), 0x02014b50);
    const size = buf.readUInt32LE(at + 20);
    const nameLen = buf.readUInt16LE(at + 28);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.subarray(at + 46, at + 46 + nameLen).toString('latin1');
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    members[name] = parseNpy(buf.subarray(start, start + size));
    at += 46 + nameLen;
  }
  return members;
}

/** cos or sin of the golden case in HF's half layout, row p = position offset + p. */
function expected(g, fn, rows, offset = 0) {
  const h = g.invFreq.length;
  return Float64Array.from({ length: rows * 2 * h }, (_, k) => {
    const p = offset + Math.floor(k / (2 * h));
    return g.attentionFactor * fn(p * g.invFreq[k % (2 * h) % h]);
  });
}
function close(actual, want, tol, what) {
  assert.equal(actual.length, want.length, `${what}: length`);
  let worst = 0;
  for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(actual[i] - want[i]));
  assert.ok(worst <= tol, `${what}: largest difference ${worst} > ${tol}`);
}

test('rope --config writes a .npz with cos and sin that Python\'s zipfile reads, equal to HF\'s (Llama 3.1 8B)', () => {
  const file = out('llama31.npz');
  const r = run('rope', '--config', fixture('llama-3.1-8b'), '--max-len', '64', '--out', file);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /wrote .*llama31\.npz \(npz, float32, cos and sin, each 64×128; llama3/);
  const py = spawnSync('python3', ['-c', 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print(" ".join(z.namelist()))', file], { encoding: 'utf8' });
  assert.equal(py.status, 0, py.stderr);
  assert.equal(py.stdout.trim(), 'cos.npy sin.npy');
  const z = parseNpz(readFileSync(file));
  const g = goldenOf('llama-3.1-8b');
  for (const [name, fn] of [['cos.npy', Math.cos], ['sin.npy', Math.sin]]) {
    assert.deepEqual([z[name].dtype, z[name].shape], ['<f4', [64, 128]]);
    close(z[name].data, expected(g, fn, 64), 1e-6, name);
  }
});

test('rope --config .npy: shape (2, max-len, cols), cos first, the attention factor applied (Phi-3 longrope, float64)', () => {
  const file = out('phi3.npy');
  const r = run('rope', '--config', fixture('phi-3-mini-128k'), '--max-len', '32', '--dtype', 'float64', '--out', file);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /warning: no factor/); // HF's warning, on stderr
  const a = parseNpy(readFileSync(file));
  assert.deepEqual([a.dtype, a.shape], ['<f8', [2, 32, 96]]);
  const g = goldenOf('phi-3-mini-128k'); // 32 positions <= 4096: the short factors, as HF at init
  assert.ok(Math.abs(g.attentionFactor - 1.1902380714238083) < 1e-15);
  close(a.data.subarray(0, 32 * 96), expected(g, Math.cos, 32), 1e-12, 'cos');
  close(a.data.subarray(32 * 96), expected(g, Math.sin, 32), 1e-12, 'sin');
});

test('rope --config --layer-type / --layer-index pick a layer (Gemma 3 local θ)', () => {
  const file = out('gemma-local.npy');
  const r = run('rope', '--config', fixture('gemma-3-4b'), '--layer-type', 'sliding_attention', '--max-len', '8', '--offset', '100', '--out', file);
  assert.equal(r.status, 0, r.stderr);
  close(parseNpy(readFileSync(file)).data.subarray(0, 8 * 256), expected(goldenOf('gemma-3-4b sliding_attention'), Math.cos, 8, 100), 1e-6, 'cos');
  const byIndex = out('gemma-5.npy');
  assert.equal(run('rope', '--config', fixture('gemma-3-4b'), '--layer-index', '5', '--max-len', '8', '--out', byIndex).status, 0);
  close(parseNpy(readFileSync(byIndex)).data.subarray(0, 8 * 256), expected(goldenOf('gemma-3-4b full_attention'), Math.cos, 8), 1e-6, 'cos');
});

test('rope --config refuses with exit 2, a message naming the mistake, and no file left', () => {
  const bad = out('not-json.json');
  writeFileSync(bad, '{ "rope_theta": ');
  const unknown = out('unknown-type.json');
  writeFileSync(unknown, JSON.stringify({ hidden_size: 64, num_attention_heads: 4, rope_scaling: { rope_type: 'ntk-by-parts', factor: 2 } }));
  const cases = [
    [['--config', fixture('llama-3.1-8b'), '--max-len', '8'], /--out is required/],
    [['--config', fixture('llama-3.1-8b'), '--max-len', '8', '--out', out('x.csv')], /\.npy or \.npz/],
    [['--config', out('missing.json'), '--max-len', '8', '--out', out('a.npy')], /cannot read the config/],
    [['--config', bad, '--max-len', '8', '--out', out('b.npy')], /is not JSON/],
    [['--config', unknown, '--max-len', '8', '--out', out('c.npy')], /rope_type must be one of .*ntk-by-parts/],
    [['--config', fixture('gemma-3-4b'), '--layer-type', 'global', '--max-len', '8', '--out', out('d.npy')], /layerType/],
    [['--config', fixture('llama-4-scout'), '--layer-index', '3', '--max-len', '8', '--out', out('e.npy')], /no RoPE/],
    [['--config', fixture('llama-4-scout'), '--out', out('f.npy')], /give --max-len/], // 10485760 rows: past 1 GiB
    [['--config', fixture('flux.1-dev'), '--max-len', '8', '--out', out('g.npy')], /axial/],
    [['--config', fixture('llama-3.1-8b'), '--max-len', '0x10', '--out', out('h.npy')], /--max-len expects a decimal integer, got "0x10"/],
    [['--config', fixture('llama-3.1-8b'), '--max-len', '8', '--max-len', '9', '--out', out('i.npy')], /--max-len is given twice/],
    [['--config', fixture('llama-3.1-8b'), '--max-len', '8', '--seq-len', '9', '--out', out('j.npy')], /--seq-len is read by dynamic and longrope only/],
  ];
  for (const [args, message] of cases) {
    const r = run('rope', ...args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message, args.join(' '));
  }
  assert.deepEqual(readdirSync(dir).filter((f) => /^[a-j]\.npy$|^x\.csv$/.test(f) || f.includes('.tmp')), []);
  const kept = out('kept.npy');
  writeFileSync(kept, 'mine');
  const r = run('rope', '--config', fixture('llama-3.1-8b'), '--max-len', '8', '--out', kept);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /exists; add --force to overwrite it/);
  assert.equal(readFileSync(kept, 'utf8'), 'mine');
  assert.equal(run('rope', '--config', fixture('llama-3.1-8b'), '--max-len', '8', '--out', kept, '--force').status, 0);
  assert.equal(parseNpy(readFileSync(kept)).shape.join(), '2,8,128');
});

test('inspect prints what posenc reads: type, θ, dims, factors, layer types, attention factor, wavelengths, warnings', () => {
  const l31 = run('inspect', fixture('llama-3.1-8b'));
  assert.equal(l31.status, 0, l31.stderr);
  for (const line of [/rope type +llama3/, /theta +500000/, /head_dim +128, rotary dim 128, half pairs/,
    /parameters +factor 8, low_freq_factor 1, high_freq_factor 4, original_max_position_embeddings 8192/,
    /attention factor +1\n/, /frequencies +64: \d+ kept, \d+ divided by the factor, \d+ blended, 0 zero/,
    /wavelengths +6\.28319 to /, /context +trained 8192, extended 131072: \d+ of 64 frequencies turn/, /warnings +none/]) {
    assert.match(l31.stdout, line);
  }
  const gemma = run('inspect', fixture('gemma-3-4b')).stdout;
  assert.match(gemma, /layers +34 layers: 29 sliding_attention, 5 full_attention/);
  assert.match(gemma, /\[full_attention\]\nrope type +linear\ntheta +1000000/);
  assert.match(gemma, /\[sliding_attention\]\nrope type +default\ntheta +10000\n/);
  const scout = run('inspect', fixture('llama-4-scout')).stdout;
  assert.match(scout, /48 layers, 12 without RoPE \(indices 3, 7, 11/);
  assert.match(scout, /warnings:\n {2}- high_freq_factor must be greater than low_freq_factor/);
  const ds = JSON.parse(run('inspect', fixture('deepseek-v3'), '--json').stdout);
  assert.deepEqual([ds.model, ds.rope[0].type, ds.rope[0].rotaryDim, ds.rope[0].pairing, ds.rope[0].attentionFactor], ['deepseek_v3', 'yarn', 64, 'interleaved', 1]);
  const f = ds.rope[0].frequencies;
  assert.equal(f.kept + f.divided + f.blended + f.zero, 32);
  assert.match(run('inspect', fixture('flux.1-dev')).stdout, /axial: axes 16 \+ 56 \+ 56 of a 128-wide head/);
  const none = run('inspect');
  assert.equal(none.status, 2);
  assert.match(none.stderr, /give one config\.json/);
  assert.ok(!existsSync(out('inspect')));
});

test('every gallery config through the CLI: inspect --json gives the golden inv_freq and attention factor (8 ulp), rope --config the golden cos and sin (float64)', () => {
  const cases = golden.filter((c) => c.fixture && Object.keys(c.options).every((k) => k === 'layerType'));
  const fixtures = JSON.parse(readFileSync(path.join(here, 'fixtures', 'configs', 'index.json'), 'utf8'));
  assert.deepEqual([...new Set(cases.map((c) => c.fixture))].sort(), Object.keys(fixtures).sort(), 'a golden case for every gallery config');
  const near = (a, b) => Math.abs(a - b) <= 8 * Number.EPSILON * Math.abs(b);
  for (const c of cases) {
    const layer = c.options.layerType ? ['--layer-type', c.options.layerType] : [];
    const r = run('inspect', fixture(c.fixture), ...layer, '--json');
    assert.equal(r.status, 0, `${c.name}: ${r.stderr}`);
    const [d] = JSON.parse(r.stdout).rope;
    assert.equal(d.type, c.type, c.name);
    assert.equal(d.invFreq.length, c.invFreq.length, `${c.name}: inv_freq length`);
    d.invFreq.forEach((w, i) => assert.ok(near(w, c.invFreq[i]), `${c.name} inv_freq[${i}]: ${w} vs ${c.invFreq[i]}`));
    assert.ok(near(d.attentionFactor, c.attentionFactor), `${c.name} attention factor: ${d.attentionFactor} vs ${c.attentionFactor}`);
    if (c.type === 'axial') continue; // FLUX's cache is ropeAxialCache's (tests/mrope.test.js); rope --config refuses it (above)
    const file = out(`gallery-${c.name.replace(/\W+/g, '-')}.npy`);
    const w = run('rope', '--config', fixture(c.fixture), ...layer, '--max-len', '16', '--dtype', 'float64', '--out', file);
    assert.equal(w.status, 0, `${c.name}: ${w.stderr}`);
    const a = parseNpy(readFileSync(file));
    const cols = 2 * c.invFreq.length;
    assert.deepEqual(a.shape, [2, 16, cols], c.name);
    close(a.data.subarray(0, 16 * cols), expected(c, Math.cos, 16), 1e-12, `${c.name} cos`);
    close(a.data.subarray(16 * cols), expected(c, Math.sin, 16), 1e-12, `${c.name} sin`);
  }
});

test('rope\'s scaling flags come from the table of RoPE types', () => {
  const help = run('rope', '--help').stdout;
  assert.match(help, /--scaling <text> +default \| linear \| ntk \| dynamic \| yarn \| llama3 \| longrope \| proportional/);
  assert.match(help, /--truncate <text> +true \| false; yarn \(default true\)/);
  assert.match(help, /--config <text>/);
  const file = out('prop.npy');
  const r = run('rope', '--dim', '8', '--max-len', '4', '--scaling', 'proportional', '--partial-rotary-factor', '0.5', '--factor', '2', '--dtype', 'float64', '--out', file);
  assert.equal(r.status, 0, r.stderr);
  const cos = parseNpy(readFileSync(file)).data;
  // int(0.5 · 8 // 2) = 2 pairs rotate at 1e4^(-2i/8) / 2, the others stay at angle 0 (cos 1)
  assert.ok(Math.abs(cos[8 + 1] - Math.cos(0.05)) < 1e-15 && cos[8 + 2] === 1 && cos[8 + 3] === 1);
  assert.match(run('rope', '--dim', '8', '--max-len', '4', '--truncate', 'false', '--out', out('t.npy')).stderr, /--truncate needs --scaling/);
  // --layer-type belongs to a config, as the API's layerType does
  const stray = run('rope', '--dim', '8', '--max-len', '4', '--layer-type', 'full_attention', '--out', out('u.npy'));
  assert.equal(stray.status, 2);
  assert.match(stray.stderr, /--layer-type needs --config/);
  assert.match(help, /--layer-type <text> +with --config/);
});

test('inspect into a pipe closed early (| head -c 10) exits 1 with a message, not an unhandled EPIPE stack', async () => {
  // head_dim 2^20: a 10 MB --json report, far past the 64 KiB pipe (sixth adversarial pass, issue 22).
  const config = { ...JSON.parse(readFileSync(fixture('llama-3.1-8b'), 'utf8')), head_dim: 2 ** 20 };
  const file = out('big-head.json');
  writeFileSync(file, JSON.stringify(config));
  const { code, stderr } = await runIntoClosedPipe(['inspect', file, '--json']);
  assert.equal(code, 1, stderr);
  assert.match(stderr, /^posenc: cannot write standard output \(EPIPE: broken pipe, write\); stopped\n$/);
});

test('inspect counts layer types named after Object.prototype\'s keys as any others (eighteenth pass)', () => {
  // counts was a plain object: "constructor" counted from Object's own constructor ("function Object() { [native
  // code] }1 constructor") and both __proto__ layers were dropped from the summary.
  const file = out('proto-types.json');
  writeFileSync(file, JSON.stringify({ head_dim: 64, hidden_size: 64, num_attention_heads: 1, rope_theta: 10000, max_position_embeddings: 64,
    layer_types: ['constructor', '__proto__', 'toString', 'full_attention', '__proto__', 'hasOwnProperty'] }));
  const summary = '6 layers: 1 constructor, 2 __proto__, 1 toString, 1 full_attention, 1 hasOwnProperty';
  const text = run('inspect', file);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, new RegExp(`^layers {12}${summary}$`, 'm'));
  const json = run('inspect', file, '--json');
  assert.equal(json.status, 0, json.stderr);
  const report = JSON.parse(json.stdout);
  assert.equal(report.layers, summary);
  assert.deepEqual(report.rope.map((r) => r.layerType), ['constructor', '__proto__', 'toString', 'full_attention', 'hasOwnProperty']);
});

test('a config\'s strings reach the terminal as text, never as control sequences (inspect, its --json, messages)', () => {
  // model_type "\u001b[2J..." cleared the terminal of whoever inspected the config, "\u001b]0;..." retitled it: the
  // report and posenc's messages (an unknown --layer-type lists the config's types) wrote them raw.
  const file = out('escapes.json');
  writeFileSync(file, JSON.stringify({ model_type: 'm\u001b[2J\u001b]0;pwned\u0007', head_dim: 64, hidden_size: 64, num_attention_heads: 1,
    rope_theta: 10000, max_position_embeddings: 64, layer_types: ['full_attention', 'a\u001b[31mred\u009b\u007f'] }));
  const raw = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/; // eslint-disable-line no-control-regex
  const text = run('inspect', file);
  assert.equal(text.status, 0, text.stderr);
  assert.doesNotMatch(text.stdout, raw);
  assert.match(text.stdout, /^model_type {8}m\\u001b\[2J\\u001b\]0;pwned\\u0007$/m);
  assert.match(text.stdout, /^\[a\\u001b\[31mred\\u009b\\u007f\]$/m);
  const json = run('inspect', file, '--json');
  assert.equal(json.status, 0, json.stderr);
  assert.doesNotMatch(json.stdout, raw);
  const report = JSON.parse(json.stdout); // the escapes read back as the config's own strings
  assert.equal(report.model, 'm\u001b[2J\u001b]0;pwned\u0007');
  assert.equal(report.rope[1].layerType, 'a\u001b[31mred\u009b\u007f');
  const message = run('inspect', file, '--layer-type', 'zz');
  assert.equal(message.status, 2);
  assert.doesNotMatch(message.stderr, raw);
  assert.match(message.stderr, /layerType must be one of full_attention, a\\u001b\[31mred\\u009b\\u007f \(got "zz"\)/);
});

test('a config\'s strings stay on their line: a newline or carriage return in them is escaped too (twenty-fifth pass)', () => {
  // printable() kept tab, newline and carriage return (posenc's own lines and progress need them), and the config's
  // strings went through it: a model_type "evil\rllama" showed as llama on a terminal, and a layer type or an
  // unrecognized rope key holding "\n" added lines of its own to the report and to stderr's warnings and messages.
  const file = out('line-breaks.json');
  writeFileSync(file, JSON.stringify({ model_type: 'evil\rllama', head_dim: 16, hidden_size: 64, num_attention_heads: 4,
    rope_theta: 10000, max_position_embeddings: 64, layer_types: ['full_attention', 'x\nwarnings          none'],
    rope_scaling: { rope_type: 'linear', factor: 2, 'k\n  - fine': 1 } }));
  const text = run('inspect', file);
  assert.equal(text.status, 0, text.stderr);
  assert.doesNotMatch(text.stdout, /\r|\t/);
  assert.match(text.stdout, /^model_type {8}evil\\u000dllama$/m);
  assert.match(text.stdout, /^\[x\\u000awarnings {10}none\]$/m);
  assert.match(text.stdout, /^ {2}- .*unrecognized keys for rope_type "linear": k\\u000a {2}- fine$/m);
  assert.equal(text.stdout.match(/^warnings/gm).length, 1); // the report's own, not the layer type's
  const json = run('inspect', file, '--json');
  assert.equal(JSON.parse(json.stdout).model, 'evil\rllama'); // JSON reads back the config's own string
  const message = run('inspect', file, '--layer-type', 'zz');
  assert.equal(message.status, 2);
  assert.equal(message.stderr.split('\n').length, 2, message.stderr); // one line and its end
  assert.match(message.stderr, /x\\u000awarnings {10}none/);
  const npy = out('line-breaks.npy');
  const rope = run('rope', '--config', file, '--layer-type', 'full_attention', '--max-len', '4', '--out', npy);
  assert.equal(rope.status, 0, rope.stderr);
  assert.match(rope.stderr, /^posenc: warning: .*k\\u000a {2}- fine$/m);
  assert.doesNotMatch(rope.stderr, /^ {2}- fine/m);
});

test('a config\'s bidirectional controls and line separators are escaped: they reorder or break what a terminal shows', () => {
  // the twenty-fifth pass left U+202E and its kin in oneLine(): a model_type "evil\u202ellama" shows on a terminal as
  // "evilamall", and U+2028 / U+2029 break a line where the terminal or log viewer takes them as line ends
  const file = out('bidi.json');
  writeFileSync(file, JSON.stringify({ model_type: 'evil\u202ellama\u2066x\u2069\u200f', head_dim: 16, hidden_size: 64, num_attention_heads: 4,
    rope_theta: 10000, max_position_embeddings: 64, layer_types: ['full_attention', 'a\u2028b\u2029c\u061c'] }));
  const text = run('inspect', file);
  assert.equal(text.status, 0, text.stderr);
  assert.doesNotMatch(text.stdout, /[\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/);
  assert.match(text.stdout, /^model_type {8}evil\\u202ellama\\u2066x\\u2069\\u200f$/m);
  assert.match(text.stdout, /^\[a\\u2028b\\u2029c\\u061c\]$/m);
  assert.equal(JSON.parse(run('inspect', file, '--json').stdout).model, 'evil\u202ellama\u2066x\u2069\u200f'); // JSON reads back the config's own
});

test('a flag\'s value is quoted by its first 99 characters and its length: a 100 000-character value made a 100 kB message', () => {
  const long = 'y'.repeat(100000);
  for (const args of [['table', '--max-len', long], ['table', '--max-len', '2', '--d-model', '4', '--dtype', long, '--out', '-'],
    ['table', `--${long}`, '1'], [long], ['timestep', '--dim', '4', '--timesteps', `1,${long}`, '--out', '-']]) {
    const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
    assert.equal(r.status, 2, r.stderr.slice(0, 300));
    assert.ok(r.stderr.length < 400, `${r.stderr.length} characters: ${r.stderr.slice(0, 300)}`);
    assert.match(r.stderr, /y{99}"?… \((100000|100001|100002) characters\)/);
  }
  // a path is shown up to PATH_MAX (4096), where its file name is
  for (const args of [['table', '--max-len', '2', '--d-model', '4', '--out', `${long}.bin`], ['rope', '--config', long, '--out', 'x.npy']]) {
    const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
    assert.equal(r.status, 2, r.stderr.slice(0, 300));
    assert.ok(r.stderr.length < 4400, `${r.stderr.length} characters: ${r.stderr.slice(0, 300)}`);
    assert.match(r.stderr, /y{4096}"?… \((100000|100004) characters\)/);
  }
});

test('inspect refuses a _class_name that is not a string by its key, exit 2 (twenty-sixth pass)', () => {
  // ropeFromConfig types model_type but not diffusers' _class_name, which only the report shows: an object failed the
  // text report as a raw "Cannot convert object to primitive value" (exit 1), and --json printed the object as the model
  for (const [name, value] of [['object', { toString: 1 }], ['array', [1]], ['number', 5]]) {
    const file = out(`class-name-${name}.json`);
    writeFileSync(file, JSON.stringify({ _class_name: value, axes_dims_rope: [16, 56, 56], theta: 10000, attention_head_dim: 128 }));
    for (const json of [[], ['--json']]) {
      const r = run('inspect', file, ...json);
      assert.equal(r.status, 2, r.stderr);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /^posenc: config\._class_name must be a string \(got (an array|object|number)\)\n$/);
    }
  }
  const file = out('class-name.json');
  writeFileSync(file, JSON.stringify({ _class_name: 'FluxTransformer2DModel', axes_dims_rope: [16, 56, 56], theta: 10000, attention_head_dim: 128 }));
  assert.match(run('inspect', file).stdout, /^model_type {8}FluxTransformer2DModel$/m);
});

test('rope --help says what every scaling flag is (twenty-eighth pass: --seq-len\'s help read "undefined")', () => {
  const help = run('rope', '--help').stdout;
  assert.doesNotMatch(help, /undefined|null/);
  assert.match(help, /--seq-len <number> +HF's seq_len: the sequence length the cache is scaled for \(default: the largest position \+ 1\); dynamic, longrope/);
});

test('rope --config: a null max_position_embeddings is none, "give --max-len", not ropeCache\'s maxLen (thirty-fifth pass)', () => {
  // ropeFromConfig reads a null as absent (maxPosition null); the command checked for undefined only, and ropeCache
  // refused it as "posenc.ropeCache: maxLen must be a number (got null)", naming no flag and no config key
  const file = out('null-max-position.json');
  for (const more of [{}, { rope_scaling: { rope_type: 'yarn', factor: 4, original_max_position_embeddings: 1024 } }]) {
    writeFileSync(file, JSON.stringify({ hidden_size: 64, num_attention_heads: 4, max_position_embeddings: null, ...more }));
    const r = run('rope', '--config', file, '--out', out('null-max-position.npy'));
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stderr, 'posenc: the config has no max_position_embeddings: give --max-len\n');
    assert.equal(existsSync(out('null-max-position.npy')), false);
    assert.equal(run('rope', '--config', file, '--max-len', '4', '--out', out('null-max-position.npy'), '--force', '--quiet').status, 0);
    rmSync(out('null-max-position.npy'));
  }
});

test('rope --config: --max-len and --offset refused by their flags, the max-len hint only where the rows are why (thirty-sixth pass)', () => {
  // They reached ropeCache: "posenc.ropeCache: maxLen must be an integer from 1 to 16777216 (got -1)" and "offset must be
  // …", names the command line does not use (posenc rope names --max-len and --offset), and any refusal of ropeCache
  // without --max-len, --layout's too, ended "(max-len defaults to max_position_embeddings, …: give --max-len)".
  const file = out('plain-rope.json');
  writeFileSync(file, JSON.stringify({ hidden_size: 64, num_attention_heads: 4, max_position_embeddings: 128 }));
  const hint = ' (max-len defaults to max_position_embeddings, 128: give --max-len)';
  for (const [args, message] of [
    [['--max-len', '-1'], '--max-len must be an integer from 1 to 16777216, got -1'],
    [['--max-len', '0'], '--max-len must be an integer from 1 to 16777216, got 0'],
    [['--max-len', '16777217', '--max-bytes', '9000000000000'], '--max-len must be an integer from 1 to 16777216, got 16777217'],
    [['--max-len', '4', '--offset', '2147483646'], '--offset must be from -2147483648 to 2147483645, got 2147483646'],
    [['--offset', '99999999999'], `--offset must be from -2147483648 to 2147483521, got 99999999999${hint}`],
    [['--offset', '-2147483649'], `--offset must be from -2147483648 to 2147483521, got -2147483649${hint}`],
    [['--layout', 'bogus'], 'posenc.ropeCache: layout must be one of pairs, half, interleaved (got "bogus")'],
  ]) {
    const r = run('rope', '--config', file, '--out', out('flags.npy'), ...args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr, `posenc: ${message}\n`, args.join(' '));
    assert.equal(existsSync(out('flags.npy')), false);
  }
  for (const args of [['--max-len', '4', '--offset', '2147483645'], ['--offset', '-2147483648']]) {
    assert.equal(run('rope', '--config', file, '--out', out('flags.npy'), '--quiet', '--force', ...args).status, 0, args.join(' '));
  }
  rmSync(out('flags.npy'));
});
