// Seeded mutations of valid command lines through the CLI's parser (issue 22):
// whatever the words, parse() returns a command whose numbers are what the
// flags allow, or throws the CLI's UsageError (exit 2 with a message), never
// another exception. The same seed gives the same inputs on every machine, as
// the C harness's mutations do (fuzz/README.md).
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from '../bin/posenc.js';
import { UsageError } from '../bin/args.js';
import { rng } from './helpers/rng.js';

const dir = mkdtempSync(path.join(tmpdir(), 'posenc-cli-fuzz-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const file = (ext) => path.join(dir, `x.${ext}`);

const VALID = [
  ['table', '--max-len', '16', '--d-model', '8', '--out', file('npy')],
  ['table', '--max-len', '4', '--d-model', '6', '--preset', 'tensor2tensor', '--offset', '-3', '--out', file('csv'), '--dtype', 'float64'],
  ['rope', '--dim', '8', '--max-len', '5', '--scaling', 'llama3', '--factor', '8', '--out', file('json')],
  ['rope', '--dim', '4', '--max-len', '2', '--layout', 'pairs', '--part', 'cos', '--out=-'],
  ['alibi', '--heads', '2', '--q-len', '3', '--mask-value', '-inf', '--out', file('npy'), '--quiet'],
  ['timestep', '--dim', '8', '--timesteps', '0,1.5,999', '--out', file('npy')],
  ['sincos2d', '--grid-h', '2', '--dim', '8', '--cls-token', '--out', file('npy'), '--max-bytes', '100000'],
];
const AWKWARD = [
  '', ' ', '-', '--', '---', '=', '--=', '-h', '--help', '--out', '--max-len', '--mask-value', '0', '-0', '1', '-1', '0x10', '1e3',
  '1e309', '-1e309', '4.', '.5', '+4', ' 4', '4 ', 'inf', '-inf', '+inf', 'Infinity', 'NaN', '9007199254740993', '2147483648',
  '16777216', '16777217', '__proto__', 'constructor', 'toString', '--__proto__', '--constructor=1', 'table', 'rope', '-',
  '\u0000', '\u202e', '数字', 'a'.repeat(5000), '1'.repeat(400), '/', '.', '..', file('npy'), file('xls'),
];

function mutate(argv, r) {
  const a = [...argv];
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const at = () => Math.floor(r() * (a.length + 1));
  for (let n = 1 + Math.floor(r() * 3); n > 0; n--) {
    switch (Math.floor(r() * 7)) {
      case 0: a[Math.min(at(), a.length - 1)] = pick(AWKWARD); break;
      case 1: a.splice(at(), 0, pick(AWKWARD)); break;
      case 2: a.splice(Math.min(at(), a.length - 1), 1); break;
      case 3: a.splice(at(), 0, ...a.slice(1, 3)); break; // a flag and its value twice
      case 4: { const i = Math.min(at(), a.length - 1); a[i] = `${a[i]}${pick(AWKWARD)}`; break; }
      case 5: { const i = Math.min(at(), a.length - 1); a[i] = `--${a[i].replace(/^-+/, '')}=${pick(AWKWARD)}`; break; }
      default: { const i = Math.min(at(), a.length - 1); const j = Math.min(at(), a.length - 1); [a[i], a[j]] = [a[j], a[i]]; }
    }
  }
  return a;
}

test('20,000 mutated command lines: a parsed command or a UsageError, nothing else (seed 1)', () => {
  const r = rng(1);
  let accepted = 0;
  for (let i = 0; i < 20000; i++) {
    const argv = mutate(VALID[i % VALID.length], r);
    let parsed;
    try {
      parsed = parse(argv);
    } catch (e) {
      if (!(e instanceof UsageError)) assert.fail(`input ${i} ${JSON.stringify(argv).slice(0, 300)} threw ${e?.stack ?? e}`);
      assert.match(e.message, /\S/);
      continue;
    }
    if (parsed.help || parsed.version) continue;
    accepted++;
    for (const [name, v] of Object.entries(parsed.values)) {
      if (typeof v !== 'number') continue;
      const ok = Number.isFinite(v) || (name === 'mask-value' && v === -Infinity);
      assert.ok(ok, `input ${i}: --${name} parsed to ${v} from ${JSON.stringify(parsed.raw[name])}`);
      if (parsed.raw[name] !== undefined) assert.equal(typeof parsed.raw[name], 'string');
    }
    assert.ok(Number.isSafeInteger(parsed.maxBytes) && parsed.maxBytes >= 1, `input ${i}: maxBytes ${parsed.maxBytes}`);
  }
  // The mutations must leave some command lines valid, or the property above tests nothing.
  assert.ok(accepted > 300, `only ${accepted} of 20000 mutated command lines parsed`);
  assert.deepEqual(readdirSync(dir), [], 'parsing writes nothing');
});
