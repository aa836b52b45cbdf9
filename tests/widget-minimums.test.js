// Issue 27, point 7, "one source for both": an element's documented least value
// is one the API accepts. Fast and in Node: each element's `static spec` read,
// every numeric attribute set to its least (the smallest double above an
// exclusive bound), alone and with each word value of the element's other
// attributes, through the widgets' own parser, then the API functions the
// element draws with (the shipped bundles) called with those values. A least
// value the API refuses fails here; so does a spec that types a bound
// web/lib/minimums.js defines instead of importing it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WIDGETS } from '../web/widgets/index.js';
import { parseAll } from '../web/widgets/attrs.js';
import { ropeOptions } from '../web/widgets/rope.js';
import * as MIN from '../web/lib/minimums.js';
import { PE_ROPE_PARAM_MIN } from '../dist/constants.js';
import { loadApi, loadVariants, loadFields } from './helpers/load.js';

const enc = (v) => ({ preset: v.preset, base: v.base });
const f64 = { dtype: 'float64' };

/** The API calls each element draws with (as its render makes them), from its parsed values. */
const CALLS = {
  'pe-heatmap': ({ api }, v) => [api.table(v['max-len'], v['d-model'], enc(v)), api.frequencies(v['d-model'], enc(v))],
  'pe-curves': ({ api }, v) => [api.table(v['max-len'], v['d-model'], enc(v)), api.frequencies(v['d-model'], enc(v))],
  'pe-circles': ({ api }, v) => [api.table(v['max-len'], v['d-model'], enc(v)), api.frequencies(v['d-model'], enc(v))],
  'pe-dot-heatmap': ({ api }, v) => api.tableGram(v['max-len'], v['d-model'], { ...enc(v), cosine: v.cosine, ...f64 }),
  'pe-norms': ({ api }, v) => api.norms(api.table(v['max-len'], v['d-model'], { ...enc(v), ...f64 })),
  'pe-attention': ({ api }, v) => api.table(v['max-len'], v['d-model'], { ...enc(v), ...f64 }),
  'pe-conventions': ({ api }, v) => ['preset-a', 'preset-b'].map((k) => api.table(v['max-len'], v['d-model'], { preset: v[k], base: v.base })),
  'pe-linear': ({ api }, v) => api.table(4, 4, { preset: v.preset, base: v.base, ...f64 }),
  'pe-rope': ({ variants }, v) => variants.ropeFrequencies(v['d-model'], { ...ropeOptions(v), ...f64 }),
  'pe-alibi': ({ variants }, v) => variants.alibiBias(v.heads, v['max-len'], { mode: v.mode, ...f64 }),
  'pe-precision': ({ variants }, v) => variants.precisionError(v['d-model'], { base: v.base, positions: [0, v['max-pos']] }),
  'pe-relative': ({ variants }, v) => (v.kind === 't5'
    // max-distance as the element raises it (its own method, notes dropped)
    ? variants.t5BucketMatrix(v['max-len'], { numBuckets: v['num-buckets'], maxDistance: WIDGETS['pe-relative'].prototype.maxDistance.call({ note() {} }, v), bidirectional: v.bidirectional })
    : variants.shawClip(v['max-len'], { maxRelativePosition: v.k })),
  'pe-binary': ({ api, variants }, v) => [variants.binaryTable(v['max-len'], v.bits, f64), api.table(v['max-len'], v['d-model'], { base: v.base, ...f64 })],
  'pe-learned': ({ variants }, v) => variants.learnedTable(v['trained-len'], v['d-model'], { seed: v.seed, ...f64 }),
  'pe-patch-grid': ({ fields }, v) => fields.sincos2d(v.grid, v.grid, v['d-model'], { preset: v.preset, firstAxis: v['first-axis'], base: v.base, ...f64 }),
  'pe-timestep': ({ fields }, v) => fields.timestepEmbedding([0, v['max-t']], v['d-model'], { flipSinToCos: v.flip, downscaleFreqShift: Number(v.shift), maxPeriod: v['max-period'], ...f64 }),
  'pe-nerf': ({ fields }, v) => fields.fourierFeatures([-1, 1], { levels: v.levels, pi: v.pi, includeInput: false, ...f64 }),
};
/** Elements whose numbers are all their own (no API parameter takes them as given), and why. */
const OWN = {
  'pe-toy-attention': 'text and word attributes only',
  'pe-lab': 'its ranges are the widget\'s choice, well inside the lab API\'s (training time in a page)',
  'pe-model': 'a config\'s own numbers; layer and grid pick from what the config defines',
};

/**
 * Each attribute whose least value is the API's, with the definition it must
 * come from (web/lib/minimums.js, or the C headers through dist/constants.js).
 */
const SHARED = {
  'pe-heatmap': { 'd-model': 'MIN_SIZE', 'max-len': 'MIN_SIZE', base: 'BASE_ABOVE' },
  'pe-linear': { base: 'BASE_ABOVE' },
  'pe-rope': { 'max-len': 'MIN_SIZE', base: 'BASE_ABOVE', factor: 'PE_ROPE_PARAM_MIN', 'original-max': 'MIN_SIZE' },
  'pe-alibi': { heads: 'MIN_SIZE' },
  'pe-precision': { base: 'BASE_ABOVE' },
  'pe-relative': { 'num-buckets': 'MIN_T5_BUCKETS', 'max-distance': 'MIN_SIZE' },
  'pe-binary': { bits: 'MIN_SIZE', base: 'BASE_ABOVE' },
  'pe-learned': { 'trained-len': 'MIN_SIZE', 'd-model': 'MIN_SIZE' },
  'pe-patch-grid': { 'd-model': 'MIN_SPACED_GRID_DIM', base: 'BASE_ABOVE' },
  'pe-timestep': { 'max-period': 'MIN_MAX_PERIOD' },
  'pe-nerf': { levels: 'MIN_SIZE' },
};
const DEFINED = { ...MIN, PE_ROPE_PARAM_MIN };
// The spec lines of each element's source (attrs.js holds encodingSpec and baseAttr).
const SOURCE = { 'pe-heatmap': 'attrs', 'pe-linear': 'linear', 'pe-rope': 'rope', 'pe-alibi': 'alibi', 'pe-precision': 'precision',
  'pe-relative': 'relative', 'pe-binary': 'binary', 'pe-learned': 'learned', 'pe-patch-grid': 'patch-grid', 'pe-timestep': 'timestep', 'pe-nerf': 'nerf' };

const least = (s) => (s.kind === 'int' ? s.min : s.inclusive ? s.above : s.above + Math.max(Math.abs(s.above), 1) * Number.EPSILON);
const wordValues = (s) => (s.kind === 'oneOf' ? s.values : s.kind === 'bool' ? [true, false] : []);

/** Every case of an element: each numeric attribute at its least, alone and with each word value of another attribute. */
function cases(cls) {
  const spec = Object.entries(cls.spec);
  const numeric = spec.filter(([, s]) => s.kind === 'int' || s.kind === 'num');
  const words = spec.flatMap(([name, s]) => wordValues(s).map((w) => [name, w]));
  return numeric.flatMap(([name, s]) => [null, ...words].map((w) => ({ [name]: String(least(s)), ...(w && { [w[0]]: String(w[1]) }) })));
}

test('every element is swept here or says why its numbers are its own', () => {
  assert.deepEqual(Object.keys(WIDGETS).filter((tag) => !CALLS[tag] && !OWN[tag]), []);
});

test('each element\'s least values (with each word value) draw: the API accepts them', async () => {
  const libs = { api: await loadApi(), variants: await loadVariants(), fields: await loadFields() };
  let n = 0;
  const refused = [];
  for (const [tag, call] of Object.entries(CALLS)) {
    const cls = WIDGETS[tag];
    for (const attrs of cases(cls)) {
      const { values, errors } = parseAll(cls.spec, (name) => attrs[name] ?? null);
      // a rule the element states, naming the attribute (odd d-model with tf-tutorial, d-model 2 with NTK scaling)
      if (errors.length || cls.rules(values).length) continue;
      n++;
      try {
        call(libs, values);
      } catch (e) {
        refused.push(`<${tag} ${Object.entries(attrs).map(([k, x]) => `${k}="${x}"`).join(' ')}>: ${e.message}`);
      }
    }
  }
  assert.deepEqual(refused, [], 'documented least values the API refuses');
  assert.ok(n >= 300, `only ${n} cases were drawn`);
});

test('a bound the API defines is imported, not typed again: spec equals the definition and its source names it', () => {
  for (const [tag, attrs] of Object.entries(SHARED)) {
    const spec = WIDGETS[tag].spec;
    const source = readFileSync(new URL(`../web/widgets/${SOURCE[tag]}.js`, import.meta.url), 'utf8');
    for (const [name, def] of Object.entries(attrs)) {
      const s = spec[name];
      assert.equal(s.kind === 'int' ? s.min : s.above, DEFINED[def], `<${tag} ${name}>'s least is ${def}`);
      const key = /^[a-z]+$/.test(name) ? name : `'${name}'`;
      const line = source.split('\n').find((l) => ['int(', 'num(', 'baseAttr('].some((f) => l.includes(`${key}: ${f}`)));
      assert.ok(line, `web/widgets/${SOURCE[tag]}.js spells out <${tag} ${name}>`);
      assert.ok(line.includes(def) || (def === 'BASE_ABOVE' && line.includes('baseAttr()')), `web/widgets/${SOURCE[tag]}.js: ${line.trim()} should use ${def}`);
    }
  }
  // baseAttr and the encoding attributes take theirs from the table too
  const attrs = readFileSync(new URL('../web/widgets/attrs.js', import.meta.url), 'utf8');
  assert.match(attrs, /export const baseAttr = \(\) => num\(BASE_ABOVE,/);
  // and the element checks what the API checks: the T5 raise and NTK rule use the same definitions
  assert.equal(MIN.t5LeastDistance(MIN.MIN_T5_BUCKETS, true), 2);
  assert.ok(MIN.NTK_TYPES.test('ntk') && MIN.NTK_TYPES.test('dynamic') && !MIN.NTK_TYPES.test('yarn'));
});
