// Issue 23 point 4: "adding a type should be one table entry, its formula in
// C, its golden generator, its docs paragraph". This file adds a type the
// way web/lib/variants/rope-types.js says to, in a scratch copy of the
// sources: one entry in TYPES (with an alias and HF keys) and its words in
// MEANINGS, nothing else edited by hand. Then everything that lists types or
// their parameters must know it: the API's validation and C arguments, the
// config reader (its HF name, alias, required keys and warnings), the CLI's
// flags and help, the <pe-rope> menu and its names in both languages, and,
// once scripts/rope-types-doc.mjs has run, the docs table, the TypeScript
// union and docs/widgets.md. What is left is the rest of the four places:
// its C enum value and formula, its golden cases and its docs paragraph
// (tests/rope-types.test.js names each when one is missing).
// No C is built here: the new type's code reaches the struct image, not the core.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, writeFileSync, rmSync, readdirSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join, relative } from 'node:path';
import { tmpdir } from 'node:os';

const root = new URL('..', import.meta.url).pathname;
let scratch;

/** path -> sha256 of every file under dir. */
function hashes(dir) {
  const out = {};
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

/** Runs an ES module body in the scratch copy (a package named posenc, so `posenc/variants` is the copy) and returns what it prints as JSON. */
function inScratch(body) {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', body], { cwd: scratch, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const ENTRY = `  halved: {
    code: 99, hf: 'halved', aliases: ['half_rope'],
    params: { factor: { default: null, required: true }, originalMaxPosition: { default: 0 } },
  },
`;
const WORDS = `    halved: {
      name: { en: 'halved (a test type)', zh: '减半（测试用的类型）' },
      en: 'every θ_i divided by the factor, twice',
      zh: '每个 θ_i 除以 factor 两次',
    },
`;

let changed;
before(() => {
  scratch = mkdtempSync(join(tmpdir(), 'posenc-new-rope-type-'));
  for (const p of ['web/lib', 'web/widgets/rope-scalings.js', 'bin/rope-flags.js', 'bin/args.js', 'scripts/rope-types-doc.mjs', 'docs/variants.md', 'docs/widgets.md',
    'dist/constants.js', 'dist/variants-wasm.js', 'c/posenc_variants.h', 'tests/golden/gen_rope_config.py']) {
    cpSync(join(root, p), join(scratch, p), { recursive: true });
  }
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'posenc', type: 'module', exports: { './variants': './web/lib/variants/index.js' } }));
  const was = hashes(scratch);
  // the one hand edit: the table's entry and its words
  const file = join(scratch, 'web/lib/variants/rope-types.js');
  const src = readFileSync(file, 'utf8');
  const entryAt = src.indexOf('};\n\n/** HF\'s keys a config may hold');
  const wordsAt = src.indexOf('  types: {\n') + '  types: {\n'.length;
  assert.ok(entryAt > 0 && wordsAt > entryAt, 'rope-types.js has the shape this test edits');
  writeFileSync(file, src.slice(0, entryAt) + ENTRY + src.slice(entryAt, wordsAt) + WORDS + src.slice(wordsAt));
  const gen = spawnSync(process.execPath, ['scripts/rope-types-doc.mjs'], { cwd: scratch, encoding: 'utf8' });
  assert.equal(gen.status, 0, gen.stderr);
  const now = hashes(scratch);
  changed = Object.keys(now).filter((p) => now[p] !== was[p]).sort();
});
after(() => rmSync(scratch, { recursive: true, force: true }));

test('one hand edit (the table) and the generator change only the table and the three generated listings', () => {
  assert.deepEqual(changed, ['docs/variants.md', 'docs/widgets.md', 'web/lib/variants/index.d.ts', 'web/lib/variants/rope-types.js']);
  const doc = readFileSync(join(scratch, 'docs/variants.md'), 'utf8');
  assert.match(doc, /\| `halved` \| `halved`, `half_rope` \| `factor` ← `factor` \(HF requires\), needed, `--factor`; `originalMaxPosition` ← `original_max_position_embeddings`, optional, `--original-max-position` \| every θ_i divided by the factor, twice \|/);
  assert.match(readFileSync(join(scratch, 'web/lib/variants/index.d.ts'), 'utf8'), /\| \{ type: 'halved'; factor: number; originalMaxPosition\?: number \}/);
  assert.match(readFileSync(join(scratch, 'docs/widgets.md'), 'utf8'), /`proportional`, `halved` \(every type of the RoPE table/);
});

test('the API, the config reader, the CLI and the widget know the new type from the table alone', () => {
  const r = inScratch(`
    import { SCALINGS, scalingArgs } from './web/lib/variants/scaling.js';
    import { resolveConfig } from './web/lib/variants/config.js';
    import { Checker } from './web/lib/validate.js';
    import * as C from './dist/constants.js';
    import { SCALING_FLAGS, scalingFromFlags } from './bin/rope-flags.js';
    import { SCALINGS as MENU, scalingName } from './web/widgets/rope-scalings.js';
    const refusal = (f) => { try { f(); return null; } catch (e) { return e.constructor.name + ': ' + e.message; } };
    const check = () => new Checker('t');
    const base = { hidden_size: 64, num_attention_heads: 4, max_position_embeddings: 4096 };
    const cfg = resolveConfig(check(), { ...base, rope_scaling: { rope_type: 'half_rope', factor: 2, original_max_position_embeddings: 1024, beta_fast: 3 } }, {});
    const args = scalingArgs(check(), { type: 'halved', factor: 2 }, 8);
    const usage = (m) => new Error(m);
    console.log(JSON.stringify({
      code: SCALINGS.halved,
      config: { type: cfg.type, scaling: cfg.scaling, warnings: cfg.warnings },
      missing: refusal(() => resolveConfig(check(), { ...base, rope_scaling: { rope_type: 'halved' } }, {})),
      unknownType: refusal(() => resolveConfig(check(), { ...base, rope_scaling: { rope_type: 'thirds' } }, {})),
      args: { code: args.code, factor: args.params[C.pe_rope_params_fields.indexOf('factor')] },
      needsFactor: refusal(() => scalingArgs(check(), { type: 'halved' }, 8)),
      strayOption: refusal(() => scalingArgs(check(), { type: 'halved', factor: 2, betaFast: 3 }, 8)),
      help: SCALING_FLAGS.scaling.help, factorHelp: SCALING_FLAGS.factor.help,
      flags: scalingFromFlags({ scaling: 'halved', factor: '2' }, usage),
      menu: MENU, names: [scalingName('halved', 'en'), scalingName('halved', 'zh')],
    }));
  `);
  assert.equal(r.code, 99);
  assert.deepEqual(r.config.type, 'halved', 'the alias names the type');
  assert.deepEqual(r.config.scaling, { type: 'halved', factor: 2, originalMaxPosition: 1024 });
  assert.deepEqual(r.config.warnings, ['unrecognized keys for rope_type "half_rope": beta_fast']);
  assert.match(r.missing, /^TypeError: .*missing required keys for rope_type "halved": factor/);
  assert.match(r.unknownType, /^RangeError: .*rope_type must be one of .*halved, half_rope/);
  assert.deepEqual(r.args, { code: 99, factor: 2 });
  assert.match(r.needsFactor, /scaling\.factor is required for scaling type "halved"/);
  assert.match(r.strayOption, /unknown option "betaFast" for scaling type "halved"; known options are type, factor, originalMaxPosition/);
  assert.match(r.help, /\| proportional \| halved \(default: none\)$/);
  assert.match(r.factorHelp, /halved \(required\)/);
  assert.deepEqual(r.flags, { type: 'halved', factor: '2' });
  assert.ok(r.menu.includes('halved'), 'the <pe-rope> menu offers it (its required factor is an attribute)');
  assert.deepEqual(r.names, ['halved (a test type)', '减半（测试用的类型）']);
});

test('what is left to do by hand is the rest of the four places: C, the golden generator, the docs paragraph', () => {
  const read = (p) => readFileSync(join(scratch, p), 'utf8');
  assert.doesNotMatch(read('c/posenc_variants.h'), /PE_ROPE_HALVED/, 'its enum value and formula in C');
  assert.doesNotMatch(read('tests/golden/gen_rope_config.py'), /halved/, 'its golden cases');
  assert.doesNotMatch(read('docs/variants.md'), /\*\*`halved`\.\*\* /, 'its docs paragraph');
});
