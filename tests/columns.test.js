// columns(): where each frequency's sine and cosine land in a row, against
// tests/golden/golden_columns.json, which tests/golden/gen_columns.py derives
// from the conventions' own code (slicing as the PyTorch tutorial,
// tensor2tensor and Hugging Face Marian do), never from the C core.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadApi } from './helpers/load.js';
import { LAYOUT_NAMES, FREQUENCY_RULE_NAMES, PRESET_NAMES } from '../dist/lib/posenc.js';

const generator = new URL('./golden/gen_columns.py', import.meta.url).pathname;
const golden = JSON.parse(readFileSync(new URL('./golden/golden_columns.json', import.meta.url), 'utf8'));
const pe = await loadApi();

test('golden_columns.json is exactly what gen_columns.py writes (--check)', () => {
  const r = spawnSync('python3', [generator, '--check'], { encoding: 'utf8' });
  assert.ifError(r.error);
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
});

test('every layout and width: the golden columns, as fresh Int32Arrays', () => {
  assert.ok(golden.cases.length >= 45, `${golden.cases.length} cases`);
  for (const c of golden.cases) {
    const got = pe.columns(c.dModel, { layout: c.layout });
    assert.deepEqual(got, { sin: Int32Array.from(c.sin), cos: Int32Array.from(c.cos) }, `${c.layout} d=${c.dModel}`);
    assert.equal(got.sin.length, pe.frequencies(c.dModel, { layout: c.layout }).length, 'one entry per frequency');
    assert.notEqual(pe.columns(c.dModel, { layout: c.layout }).sin, got.sin, 'each call returns its own copy');
  }
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('LAYOUT_NAMES, FREQUENCY_RULE_NAMES: the names the options take, as the CLI and UIs list them', () => {
  assert.deepEqual([...LAYOUT_NAMES].sort(), [...new Set(golden.cases.map((c) => c.layout))].sort());
  assert.ok(Object.isFrozen(LAYOUT_NAMES) && Object.isFrozen(FREQUENCY_RULE_NAMES));
  for (const name of PRESET_NAMES) {
    assert.ok(LAYOUT_NAMES.includes(pe.presets[name].layout), name);
    assert.ok(FREQUENCY_RULE_NAMES.includes(pe.presets[name].frequencies), name);
  }
  for (const frequencies of FREQUENCY_RULE_NAMES) assert.equal(pe.frequencies(6, { frequencies }).length, 3);
  assert.throws(() => pe.columns(6, { layout: 'bogus' }), (e) => e instanceof RangeError && e.message.includes(LAYOUT_NAMES.join(', ')));
});

test('each preset places columns by its layout', () => {
  for (const [preset, layout] of Object.entries(golden.presets)) {
    assert.equal(pe.presets[preset].layout, layout, preset);
    for (const c of golden.cases.filter((g) => g.layout === layout && !(preset === 'tf-tutorial' && g.dModel % 2))) {
      assert.deepEqual(pe.columns(c.dModel, { preset }), { sin: Int32Array.from(c.sin), cos: Int32Array.from(c.cos) }, `${preset} d=${c.dModel}`);
    }
  }
});

test('the table holds sin(w_i pos) and cos(w_i pos) where columns() says, and zero elsewhere', () => {
  const pos = 3;
  for (const layout of ['interleaved', 'concat', 'split']) {
    for (const d of [5, 8, 9]) {
      const row = pe.table(1, d, { layout, offset: pos, dtype: 'float64' }).data;
      const w = pe.frequencies(d, { layout, dtype: 'float64' });
      const { sin, cos } = pe.columns(d, { layout });
      const seen = new Set();
      for (let i = 0; i < w.length; i++) {
        assert.ok(Math.abs(row[sin[i]] - Math.sin(w[i] * pos)) <= 1e-15, `${layout} d=${d} sin ${i}`);
        seen.add(sin[i]);
        if (cos[i] < 0) continue;
        assert.ok(Math.abs(row[cos[i]] - Math.cos(w[i] * pos)) <= 1e-15, `${layout} d=${d} cos ${i}`);
        seen.add(cos[i]);
      }
      for (let c = 0; c < d; c++) if (!seen.has(c)) assert.equal(row[c], 0, `${layout} d=${d} column ${c}`);
    }
  }
});
