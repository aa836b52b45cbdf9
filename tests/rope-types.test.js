// The table of RoPE types (web/lib/variants/rope-types.js) is the one place a
// type is declared (issue 23 point 4): every other place that lists types or
// their parameters must agree with it, and this file fails when one does not.
// Checked: C's enum and struct (c/posenc_variants.h), the API's validation
// (each type's required and optional keys), ropeFromConfig's reading of HF keys,
// the TypeScript union (web/lib/variants/index.d.ts), the CLI's flags and help
// (bin/rope-flags.js), the docs table (docs/variants.md) and its per-type
// paragraphs, and the <pe-rope> widget's menu and strings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as C from '../dist/constants.js';
import { TYPES, PARAMS, MEANINGS, hfKeys } from '../web/lib/variants/rope-types.js';
import { ropeTypesTable, withTable, withUnion, withWidgetTypes, ropeScalingTs, DOC, WIDGETS_DOC } from '../scripts/rope-types-doc.mjs';
import { SCALINGS, scalingName } from '../web/widgets/rope-scalings.js';
import init from '../web/lib/variants/index.js';

const root = new URL('..', import.meta.url).pathname;
const read = (p) => readFileSync(join(root, p), 'utf8');
const pv = await init();
const upper = (name) => `PE_ROPE_${name.toUpperCase()}`;

test('C: one enum value per type, and every field of pe_rope_params read by a parameter', () => {
  const header = read('c/posenc_variants.h');
  const enumBlock = header.match(/enum \{\s*PE_ROPE_DEFAULT[^}]*\}/)[0];
  const inC = [...enumBlock.matchAll(/(PE_ROPE_[A-Z0-9]+) = (\d+)/g)].map((m) => [m[1], Number(m[2])]);
  const byCode = (a, b) => a[1] - b[1];
  assert.deepEqual(inC.sort(byCode), Object.entries(TYPES).map(([name, t]) => [upper(name), t.code]).sort(byCode));
  for (const [name, t] of Object.entries(TYPES)) assert.equal(C[upper(name)], t.code, name);
  const fields = C.pe_rope_params_fields;
  assert.deepEqual([...new Set(Object.values(PARAMS).map((p) => p.c))].sort(), [...fields].sort(),
    'each struct field is some parameter\'s, and each parameter names a field');
});

test('validation: each type accepts its parameters with the defaults and refuses the others by name', () => {
  const sample = { real: 2, length: 64, boolean: false, factors: [1, 2] };
  for (const [name, t] of Object.entries(TYPES)) {
    const spec = { type: name };
    for (const k of Object.keys(t.params)) spec[k] = PARAMS[k].kind === 'real' && k === 'partialRotaryFactor' ? 0.5 : sample[PARAMS[k].kind];
    if (name === 'longrope') spec.seqLen = 8;
    const r = pv.ropeFrequencies(4, { scaling: spec, dtype: 'float64' });
    assert.ok(r.invFreq.every(Number.isFinite), name);
    const other = Object.keys(PARAMS).find((k) => !(k in t.params));
    assert.throws(() => pv.ropeFrequencies(4, { scaling: { ...spec, [other]: sample[PARAMS[other].kind] } }),
      (e) => e instanceof TypeError && e.message.includes(`"${other}"`), `${name} refuses ${other}`);
    for (const [k, p] of Object.entries(t.params)) {
      if (p.default !== null) continue;
      const { [k]: _, ...without } = spec;
      assert.throws(() => pv.ropeFrequencies(4, { scaling: without }), (e) => e.message.includes(`scaling.${k} is required`), `${name} needs ${k}`);
    }
  }
});

test('ropeFromConfig: every HF type accepts its keys by their HF names; its required keys are required', () => {
  const base = { hidden_size: 16, num_attention_heads: 2, max_position_embeddings: 4096 };
  const value = { real: 2, length: 64, boolean: true, factors: [1, 2, 3, 4] };
  for (const [name, t] of Object.entries(TYPES)) {
    if (!t.hf) {
      assert.throws(() => pv.ropeFromConfig({ ...base, rope_scaling: { rope_type: name, factor: 2 } }), RangeError, `${name} is posenc's own`);
      continue;
    }
    const [required, optional] = hfKeys(name);
    const rp = { rope_type: t.hf };
    for (const k of Object.keys(t.params)) if (PARAMS[k].hf) rp[PARAMS[k].hf] = k === 'partialRotaryFactor' ? 0.5 : value[PARAMS[k].kind];
    const r = pv.ropeFromConfig({ ...base, rope_parameters: rp });
    assert.equal(r.type, name);
    assert.deepEqual(r.warnings.filter((w) => /unrecognized/.test(w)), name === 'proportional' ? [r.warnings[0]] : [], name);
    for (const key of required) {
      if (key === 'original_max_position_embeddings') continue; // filled from max_position_embeddings, as HF does
      const { [key]: _, ...without } = rp;
      assert.throws(() => pv.ropeFromConfig({ ...base, rope_parameters: without }), (e) => e.message.includes(key), `${name} requires ${key}`);
    }
    for (const alias of t.aliases) assert.equal(pv.ropeFromConfig({ ...base, rope_scaling: { ...rp, rope_type: alias } }).type, name);
    assert.ok(optional.every((k) => typeof k === 'string'));
  }
});

test('TypeScript: the RopeScaling union in index.d.ts is what the table writes', () => {
  const dts = read('web/lib/variants/index.d.ts');
  assert.equal(dts, withUnion(dts), 'web/lib/variants/index.d.ts is stale: run node scripts/rope-types-doc.mjs');
  const union = ropeScalingTs();
  for (const [name, t] of Object.entries(TYPES)) {
    assert.ok(union.includes(`type: '${name}'`), name);
    for (const k of Object.keys(t.params)) assert.match(union, new RegExp(`type: '${name}'[^\\n]*\\b${k}\\??: `), `${name}.${k}`);
  }
});

test('CLI: posenc rope has one flag per parameter, and its help lists every type', async () => {
  const { SCALING_FLAGS } = await import('../bin/rope-flags.js');
  for (const p of Object.values(PARAMS)) assert.ok(p.flag.slice(2) in SCALING_FLAGS, `no flag ${p.flag}`);
  assert.equal(SCALING_FLAGS.scaling.help.split(' (')[0], Object.keys(TYPES).join(' | '));
  for (const [k, p] of Object.entries(PARAMS)) {
    for (const [name, t] of Object.entries(TYPES)) {
      if (k in t.params) assert.ok(SCALING_FLAGS[p.flag.slice(2)].help.includes(name), `${p.flag}'s help names ${name}`);
    }
  }
});

test('docs: the table in docs/variants.md is what the table writes, and every type has its paragraph', () => {
  const doc = readFileSync(DOC, 'utf8');
  assert.equal(doc, withTable(doc), 'docs/variants.md is stale: run node scripts/rope-types-doc.mjs');
  assert.ok(doc.includes(ropeTypesTable()));
  for (const name of Object.keys(TYPES)) assert.match(doc, new RegExp(`\\*\\*\`${name}\`\\.\\*\\* `), `no paragraph for ${name}`);
  for (const [name] of Object.entries(TYPES)) assert.ok(MEANINGS.types[name].en && MEANINGS.types[name].zh, name);
  for (const [name] of Object.entries(PARAMS)) assert.ok(MEANINGS.params[name].en && MEANINGS.params[name].zh, name);
});

test('widget: <pe-rope> offers every type its attributes can set, each named in English and Chinese by the table', () => {
  const src = read('web/widgets/rope.js');
  assert.ok(!/const SCALINGS = \[/.test(src), 'the widget must derive its types from the table');
  // longrope needs its factor lists, which no attribute sets: every other type is offered
  assert.deepEqual(SCALINGS, Object.keys(TYPES).filter((t) => t !== 'longrope'));
  for (const t of Object.keys(TYPES)) {
    assert.ok(MEANINGS.types[t].name.en && MEANINGS.types[t].name.zh, `no English and Chinese name for ${t}`);
    assert.equal(scalingName(t, 'zh'), MEANINGS.types[t].name.zh);
  }
  // the names live in the table only: the string files hold none (a new type needs no edit there)
  for (const lang of ['en', 'zh']) {
    assert.deepEqual(Object.keys(JSON.parse(read(`web/widgets/strings/${lang}.json`))).filter((k) => k.startsWith('scaling_')), [], lang);
  }
  const doc = readFileSync(WIDGETS_DOC, 'utf8');
  assert.equal(doc, withWidgetTypes(doc), 'docs/widgets.md is stale: run node scripts/rope-types-doc.mjs');
  assert.match(doc, new RegExp(SCALINGS.map((t) => `\`${t}\``).join(', ')));
});

// Pass 36's seen-and-left: a seqLen (or mscale) of 0 is taken as not given, as HF reads a falsy seq_len or mscale,
// while the refusal of -1 said "from 1" only. The refusal says it now; an attention factor of 0 stays refused.
test('a scaling parameter whose 0 reads as not given says so when it refuses', () => {
  const freqs = (scaling) => Array.from(pv.ropeFrequencies(16, { scaling }));
  const dynamic = { type: 'dynamic', factor: 2, maxPosition: 16 }, yarn = { type: 'yarn', factor: 2, originalMaxPosition: 16 };
  assert.deepEqual(freqs({ ...dynamic, seqLen: 0 }), freqs(dynamic));
  assert.deepEqual(freqs({ ...yarn, mscale: 0 }), freqs(yarn));
  assert.throws(() => freqs({ ...dynamic, seqLen: -1 }), { message: 'posenc.ropeFrequencies: scaling.seqLen (0: as not given) must be a finite number from 1 to 2147483648 (got -1)' });
  assert.throws(() => freqs({ ...yarn, mscale: -1 }), { message: 'posenc.ropeFrequencies: scaling.mscale (0: as not given) must be a finite number from 0.001 to 1000000 (got -1)' });
  assert.throws(() => freqs({ ...yarn, attentionFactor: 0 }), { message: 'posenc.ropeFrequencies: scaling.attentionFactor must be a finite number from 0.001 to 1000000 (got 0)' });
});
