// Holes an adversarial pass found in the config reader and the CLI's config
// commands after issue 23 landed (issue 22's classes): lists and axes without
// a length bound, a config file read without a size bound, and inspect's
// wavelength range overflowing the stack.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadVariants } from './helpers/load.js';

const pv = await loadVariants();
const dir = mkdtempSync(path.join(tmpdir(), 'posenc-config-limits-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const cli = path.join(import.meta.dirname, '..', 'bin', 'posenc.js');
const run = (...args) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 120000 });

test('per-layer lists are bounded by length before they are walked, and holes are no layer types', () => {
  const huge = [];
  huge.length = 2 ** 32 - 1; // walked, this hung the reader for over a minute
  const base = { hidden_size: 64, num_attention_heads: 4, num_hidden_layers: 2 };
  for (const key of ['no_rope_layers', 'layer_types']) {
    assert.throws(() => pv.ropeFromConfig({ ...base, [key]: huge }), (e) => e instanceof RangeError
      && new RegExp(`^posenc\\.ropeFromConfig: config\\.${key} may have at most 65536 entries`).test(e.message), key);
  }
  // a Proxy of a list answering NaN, undefined or -1 for its length was read as no list: no_rope_layers accepted as absent,
  // layer_types refused as 'layerIndex must be an integer from 0 to -1' (issue 22, sixteenth pass, class 8)
  for (const length of [NaN, undefined, -1]) {
    for (const [key, list] of [['no_rope_layers', [1, 0]], ['layer_types', ['full_attention', 'full_attention']]]) {
      const answering = new Proxy(list, { get: (t, k, r) => (k === 'length' ? length : Reflect.get(t, k, r)) });
      assert.throws(() => pv.ropeFromConfig({ ...base, [key]: answering }, { layerIndex: 1 }), (e) => e instanceof RangeError
        && new RegExp(`^posenc\\.ropeFromConfig: config\\.${key} may have at most 65536 entries \\(got ${Number(length)}\\)`).test(e.message), `${key} ${length}`);
    }
  }
  const holes = ['full_attention', , 'full_attention']; // eslint-disable-line no-sparse-arrays
  assert.throws(() => pv.ropeFromConfig({ ...base, layer_types: holes }), /config\.layer_types\[1\] must be a string/);
  assert.equal(pv.ropeFromConfig({ ...base, layer_types: ['full_attention', 'full_attention'] }).layerTypes.length, 2);
});

test('the eighteenth adversarial pass: a layerType given with a layerIndex it does not fit is refused by name, whatever it is', () => {
  // JSON.stringify named it: a BigInt and a cyclic object escaped as raw TypeErrors, a throwing toJSON as the
  // caller's own error, and a Symbol or a function read as 'layerType undefined'
  const cfg = { head_dim: 8, layer_types: ['full_attention', 'sliding_attention'] };
  const cyclic = {};
  cyclic.self = cyclic;
  for (const [value, got] of [[1n, '1n'], [cyclic, 'Object'], [{ toJSON() { throw new Error('boom'); } }, 'Object'], [Symbol('s'), 'Symbol(s)'], [() => 1, 'Function'], [3, '3']]) {
    assert.throws(() => pv.ropeFromConfig(cfg, { layerIndex: 0, layerType: value }), (e) => e instanceof TypeError
      && e.message === `posenc.ropeFromConfig: layerType is not the type of layer 0 (full_attention) (got ${got})`, String(got));
  }
  assert.throws(() => pv.ropeFromConfig(cfg, { layerIndex: 1, layerType: 'full_attention' }), (e) => e instanceof RangeError
    && e.message === 'posenc.ropeFromConfig: layerType is not the type of layer 1 (sliding_attention) (got "full_attention")');
  assert.equal(pv.ropeFromConfig(cfg, { layerIndex: 1, layerType: 'sliding_attention' }).layerType, 'sliding_attention');
});

test('the eighteenth adversarial pass: an axial config\'s theta and a reported original_max_position_embeddings are typed, its axes even, its invFreq of the dtype asked for', () => {
  // FLUX's theta went to the core unchecked: a BigInt or a Symbol escaped as the engine's raw "Cannot convert …
  // to a number", a string, an array or an object with a valueOf was made a number there and came back as
  // theta ("100"); original_max_position_embeddings of a type that takes none was reported as it was given
  // (posenc inspect: "trained [object Object]")
  const flux = (theta) => ({ axes_dims_rope: [4, 4], theta });
  for (const [theta, got] of [[10n, '10n'], [Symbol('s'), 'Symbol(s)'], ['100', '"100"'], [[100], 'an array'], [{ valueOf: () => 100 }, 'Object'], [true, 'true']]) {
    assert.throws(() => pv.ropeFromConfig(flux(theta)), (e) => e instanceof TypeError && e.message === `posenc.ropeFromConfig: config.theta must be a number (got ${got})`, got);
  }
  for (const theta of [1, 0.5, NaN, Infinity]) {
    assert.throws(() => pv.ropeFromConfig(flux(theta)), (e) => e instanceof RangeError && /^posenc\.ropeFromConfig: config\.theta must be a finite number greater than 1/.test(e.message));
  }
  assert.equal(pv.ropeFromConfig(flux(100)).theta, 100);
  assert.equal(pv.ropeFromConfig(flux(null)).theta, 10000);
  // dtype float16 or bfloat16 gave a Float64Array of values, not the bit patterns every other result has
  const exact = pv.ropeFromConfig(flux(100), { dtype: 'float64' }).invFreq;
  for (const dtype of ['float16', 'bfloat16']) {
    const { invFreq } = pv.ropeFromConfig(flux(100), { dtype });
    assert.ok(invFreq instanceof Uint16Array, dtype);
    assert.deepEqual(Array.from(invFreq), Array.from(pv.formatBits(exact, dtype)), dtype);
  }
  assert.deepEqual(pv.ropeFromConfig(flux(100), { dtype: 'float32' }).invFreq, Float32Array.from(exact));
  // an odd axis was refused by the core as "this operation needs an even d_model (status 5)", naming neither
  assert.throws(() => pv.ropeFromConfig({ axes_dims_rope: [4, 3] }), (e) => e instanceof RangeError
    && e.message === 'posenc.ropeFromConfig: config.axes_dims_rope[1] must be even (RoPE rotates pairs) (got 3)');
  for (const type of ['default', 'linear']) {
    const cfg = (v) => ({ head_dim: 8, rope_scaling: { rope_type: type, factor: 2, original_max_position_embeddings: v } });
    for (const [v, got] of [[{ a: 1 }, 'Object'], ['abc', '"abc"'], [2.5, '2.5'], [[1, 2], 'an array'], [NaN, 'NaN']]) {
      assert.throws(() => pv.ropeFromConfig(cfg(v)), (e) => e instanceof TypeError
        && e.message === `posenc.ropeFromConfig: config.rope_parameters.original_max_position_embeddings must be a whole number (got ${got})`, `${type} ${got}`);
    }
    assert.equal(pv.ropeFromConfig(cfg(4096)).originalMaxPosition, 4096);
  }
});

test('the eighteenth adversarial pass: per-layer lists of different lengths are refused, not read past the shorter', () => {
  // layer 5 of 8 layer types and 4 no_rope_layers was reported as a layer without RoPE (HF fails there)
  const cfg = { head_dim: 8, layer_types: Array(8).fill('full_attention'), no_rope_layers: [1, 1, 1, 0] };
  for (const options of [{ layerIndex: 5 }, { layerIndex: 0 }, {}]) {
    assert.throws(() => pv.ropeFromConfig(cfg, options), (e) => e instanceof RangeError
      && e.message === 'posenc.ropeFromConfig: config.no_rope_layers must have 8 elements to match layer_types (got 4)');
  }
  assert.equal(pv.ropeFromConfig({ ...cfg, no_rope_layers: [1, 1, 1, 0, 1, 1, 1, 0] }, { layerIndex: 7 }).type, 'none');
  assert.equal(pv.ropeFromConfig({ ...cfg, no_rope_layers: [1, 1, 1, 0, 1, 1, 1, 0] }, { layerIndex: 5 }).type, 'default');
});

test('FLUX axes are bounded by their sum (the head width), not only one by one', () => {
  assert.throws(() => pv.ropeFromConfig({ axes_dims_rope: Array(64).fill(2 ** 20) }), (e) => e instanceof RangeError && /axes_dims_rope \(their sum, the head width\)/.test(e.message));
  assert.deepEqual(pv.ropeFromConfig({ axes_dims_rope: [16, 56, 56] }).axesDim, [16, 56, 56]);
});

test('the CLI reads no config that is not a file of at most 16 MiB, and inspect survives a million wavelengths', () => {
  for (const args of [['inspect', '/dev/zero'], ['rope', '--config', '/dev/zero', '--max-len', '4', '--out', path.join(dir, 'z.npy')]]) {
    const r = run(...args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^posenc: the config \/dev\/zero is not a file of at most 16777216 bytes/);
  }
  assert.equal(existsSync(path.join(dir, 'z.npy')), false);
  // a regular file whose size says 0 and whose reading never ends (/proc/self/pagemap) was read until memory ran
  // out (600 MB in 3 s): at most 16 MiB and 64 KiB are read now, whatever the size said (eighteenth pass)
  if (existsSync('/proc/self/pagemap')) {
    for (const args of [['inspect', '/proc/self/pagemap'], ['rope', '--config', '/proc/self/pagemap', '--max-len', '4', '--out', path.join(dir, 'p.npy')]]) {
      // killed after 10 s: a regression must fail here, not fill the machine's memory
      const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 10_000 });
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.signal ?? r.stderr}`);
      assert.match(r.stderr, /^posenc: the config \/proc\/self\/pagemap is not a file of at most 16777216 bytes/);
    }
  }
  // the limit itself: 16 MiB read, one byte more refused
  const edge = path.join(dir, 'edge.json');
  writeFileSync(edge, `{"head_dim": 8, "rope_theta": 10000}${' '.repeat(2 ** 24 - 36)}`);
  assert.equal(run('inspect', edge).status, 0);
  writeFileSync(edge, `{"head_dim": 8, "rope_theta": 10000}${' '.repeat(2 ** 24 - 35)}`);
  assert.match(run('inspect', edge).stderr, /is not a file of at most 16777216 bytes/);
  const wide = path.join(dir, 'wide.json');
  writeFileSync(wide, JSON.stringify({ head_dim: 16, text_config: { head_dim: 2 ** 20, hidden_size: 2 ** 20, num_attention_heads: 1 } }));
  // --json gives every inv_freq (2^19 of them here, about 10 MB): read it all
  const r = spawnSync(process.execPath, [cli, 'inspect', wide, '--json'], { encoding: 'utf8', timeout: 120000, maxBuffer: 64 * 2 ** 20 });
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /call stack/);
  assert.equal(JSON.parse(r.stdout).rope[0].invFreq.length, 2 ** 19);
});

test('posenc rope --config takes --max-bytes like every command, and refuses a dtype it cannot write with exit 2', () => {
  const config = path.join(import.meta.dirname, 'fixtures', 'configs', 'llama-3.2-1b.json');
  const out = path.join(dir, 'r.npy');
  const small = run('rope', '--config', config, '--max-len', '4', '--out', out, '--max-bytes', '100', '--quiet');
  assert.equal(small.status, 2, small.stderr);
  assert.match(small.stderr, /^posenc: this output would take 2560 bytes, more than --max-bytes 100; nothing was written/);
  assert.equal(existsSync(out), false);
  assert.equal(run('rope', '--config', config, '--max-len', '4', '--out', out, '--max-bytes', '2560', '--quiet').status, 0);
  assert.ok(existsSync(out));
  const f16 = run('rope', '--config', config, '--max-len', '4', '--out', path.join(dir, 'h.npy'), '--dtype', 'float16');
  assert.equal(f16.status, 2, f16.stderr);
  assert.match(f16.stderr, /^posenc: --dtype must be float32 or float64, got "float16"/);
});

test('config values are taken strictly: attention_head_dim, rope_interleave, and a layerType where there are none', () => {
  assert.throws(() => pv.ropeFromConfig({ axes_dims_rope: [4, 4], attention_head_dim: 'x' }), /config\.attention_head_dim must be/);
  assert.throws(() => pv.ropeFromConfig({ axes_dims_rope: [4, 4], attention_head_dim: 1e300 }), /config\.attention_head_dim must be/);
  assert.equal(pv.ropeFromConfig({ axes_dims_rope: [4, 4], attention_head_dim: 8 }).headDim, 8);
  const llama = { hidden_size: 64, num_attention_heads: 4 };
  assert.throws(() => pv.ropeFromConfig({ ...llama, rope_interleave: 'no' }), (e) => e instanceof TypeError && /config\.rope_interleave must be true or false/.test(e.message));
  assert.equal(pv.ropeFromConfig({ ...llama, rope_interleave: true }).pairing, 'interleaved');
  assert.throws(() => pv.ropeCache(4, 8, { config: { head_dim: 8 }, layerType: 'x' }), /layerType needs a config with layer types/);
});

test('config values HF 5 type-checks are refused by key when loose: model_type, text_config, no_rope_layers, its interval, layer_types', () => {
  const base = { hidden_size: 64, num_attention_heads: 4, num_hidden_layers: 4 };
  const refused = [
    [{ no_rope_layers: 'abc' }, TypeError, /config\.no_rope_layers must be a list, one entry per layer \(got "abc"\)/],
    [{ no_rope_layers: [1, 'x', 0, 1] }, TypeError, /config\.no_rope_layers\[1\] must be 0 or 1 \(got "x"\)/],
    [{ no_rope_layer_interval: NaN }, RangeError, /config\.no_rope_layer_interval must be an integer from 1 to 65536 \(got NaN\)/],
    [{ no_rope_layer_interval: 0 }, RangeError, /config\.no_rope_layer_interval must be an integer/],
    [{ model_type: {} }, TypeError, /config\.model_type must be a string \(got Object\)/],
    [{ text_config: [] }, TypeError, /config\.text_config must be an object \(got an array\)/],
    [{ layer_types: 'full_attention' }, TypeError, /config\.layer_types must be a list/],
    [{ rope_scaling: { rope_type: 'default', mrope_section: [2, 2, 4], mrope_interleaved: 'yes' } }, TypeError, /config\.rope_parameters\.mrope_interleaved must be true or false/],
    [{ no_rope_layers: new Proxy([1, 0], { get: (t, k) => { if (k === '1') throw new Error('boom'); return t[k]; } }) }, TypeError, /could not read config\.no_rope_layers: boom/],
  ];
  for (const [extra, type, message] of refused) {
    assert.throws(() => pv.ropeFromConfig({ ...base, ...extra }), (e) => e instanceof type && /^posenc\.ropeFromConfig: /.test(e.message) && message.test(e.message), Object.keys(extra)[0]);
  }
  // What HF takes: 0/1 lists, an empty list or null (the interval's default), a Llama 4 model_type.
  assert.deepEqual(pv.ropeFromConfig({ ...base, no_rope_layers: [1, 1, 0, 1] }).ropeLayers, [true, true, false, true]);
  assert.deepEqual(pv.ropeFromConfig({ ...base, no_rope_layers: [], no_rope_layer_interval: 2 }).ropeLayers, [true, false, true, false]);
  assert.deepEqual(pv.ropeFromConfig({ ...base, model_type: 'llama4_text', no_rope_layers: null }).ropeLayers, [true, true, true, false]);
  assert.equal(pv.ropeFromConfig({ ...base, text_config: null }).headDim, 16);
});

test('the third adversarial pass: a scaling value that is not a number is refused by name, never turned into a string or a number by its warnings', () => {
  // The warnings compared and printed raw values before they were checked: a
  // 2^32 - 1 list as longrope's factor threw "Invalid string length", a Symbol
  // "Cannot convert a Symbol value to a string", an object's valueOf ran
  // (and threw) for yarn's betas and llama3's factors, a BigInt mixed types.
  const huge = [];
  huge.length = 2 ** 32 - 1;
  let valueOfRan = false;
  const values = { huge, symbol: Symbol('s'), bare: Object.create(null), big: 1n, object: { valueOf() { valueOfRan = true; return 4; } } };
  const dicts = { longrope: ['factor'], yarn: ['factor', 'beta_fast', 'beta_slow', 'original_max_position_embeddings', 'attention_factor'],
    llama3: ['factor', 'low_freq_factor', 'high_freq_factor', 'original_max_position_embeddings'], linear: ['factor'] };
  let n = 0;
  for (const [type, keys] of Object.entries(dicts)) for (const key of keys) for (const [what, v] of Object.entries(values)) {
    const rope_scaling = { rope_type: type, factor: 4, original_max_position_embeddings: 4096, low_freq_factor: 1, high_freq_factor: 4,
      short_factor: Array(32).fill(1), long_factor: Array(32).fill(1), [key]: v };
    for (const config of [{ head_dim: 64, max_position_embeddings: 8192, rope_scaling }, { head_dim: 64, max_position_embeddings: v, rope_scaling: { ...rope_scaling, [key]: 4 } }]) {
      n++;
      assert.throws(() => pv.ropeFromConfig(config), (e) => (e instanceof TypeError || e instanceof RangeError) && /^posenc\.ropeFromConfig: config[ .]/.test(e.message), `${type} ${key} ${what}`);
    }
  }
  assert.equal(n, 110);
  assert.equal(valueOfRan, false, 'a valueOf of the config ran');
});

test('the third adversarial pass: max_position_embeddings and every layer type\'s θ are typed as HF 5 types them, also where the layer asked about does not use them', () => {
  // max_position_embeddings "abc" came back as maxPosition (the CLI's --max-len default); a sliding layer's θ of "abc" passed for a full layer
  assert.throws(() => pv.ropeFromConfig({ head_dim: 64, max_position_embeddings: 'abc' }), /^TypeError: posenc\.ropeFromConfig: config\.max_position_embeddings must be a whole number \(got "abc"\)$/);
  assert.throws(() => pv.ropeFromConfig({ head_dim: 64, max_position_embeddings: 8192.5 }), /max_position_embeddings must be a whole number \(got 8192\.5\)/);
  const gemma = { head_dim: 64, rope_local_base_freq: 'abc', num_hidden_layers: 6, sliding_window_pattern: 6 };
  assert.throws(() => pv.ropeFromConfig(gemma, { layerIndex: 5 }), /^TypeError: posenc\.ropeFromConfig: config rope_theta \(sliding_attention\) must be a number \(got "abc"\)$/);
  const nested = { head_dim: 64, layer_types: ['full_attention', 'sliding_attention'],
    rope_parameters: { full_attention: { rope_type: 'default', rope_theta: 1e4 }, sliding_attention: { rope_type: 'default', rope_theta: 1 } } };
  assert.throws(() => pv.ropeFromConfig(nested, { layerType: 'full_attention' }), /config rope_theta \(sliding_attention\) must be a finite number greater than 1 \(got 1\)/);
  assert.equal(pv.ropeFromConfig({ ...gemma, rope_local_base_freq: 1e4 }, { layerIndex: 5 }).maxPosition, undefined);
  assert.equal(pv.ropeFromConfig({ head_dim: 64, max_position_embeddings: 8192 }).maxPosition, 8192);
});

/** [fn(), the elements Array.prototype's searches visited while fn ran (each call counted at this.length)]. */
function arrayScans(fn) {
  const names = ['includes', 'indexOf', 'lastIndexOf', 'find', 'findIndex', 'some', 'every', 'filter'];
  const saved = names.map((n) => Array.prototype[n]);
  let visited = 0;
  names.forEach((n, i) => {
    // eslint-disable-next-line no-extend-native -- wrapped to count, restored in finally
    Array.prototype[n] = function (...args) {
      visited += this.length;
      return saved[i].apply(this, args);
    };
  });
  try {
    return [fn(), visited];
  } finally {
    // eslint-disable-next-line no-extend-native -- the originals back
    names.forEach((n, i) => { Array.prototype[n] = saved[i]; });
  }
}

test('the tenth adversarial pass: a config of 65 536 layer types, each with its rope_parameters dict, is read in linear time; inspect reports at most 64 types', () => {
  // Deciding whether rope_parameters is keyed by layer type looked each key up in the list of
  // layers: 2^32 comparisons, 8 s a call, and inspect read the config once per type (hours).
  const types = Array.from({ length: 65536 }, (_, i) => `t${i}`);
  const config = { hidden_size: 64, num_attention_heads: 2, max_position_embeddings: 16, layer_types: types,
    rope_parameters: Object.fromEntries(types.map((t, i) => [t, { rope_type: 'default', rope_theta: 10000 + i }])) };
  // Work, not time: the elements array searches visit during the call (the quadratic reader's
  // includes visited 2^32, 8 s; the Set-based one visits a few per type).
  const [r, visited] = arrayScans(() => pv.ropeFromConfig(config, { layerType: 't65535' }));
  assert.equal(r.theta, 75535);
  assert.ok(visited < 64 * types.length, `ropeFromConfig's array searches visited ${visited} elements for ${types.length} layer types`);
  const file = path.join(dir, 'types.json');
  writeFileSync(file, JSON.stringify(config));
  const all = run('inspect', file);
  assert.equal(all.status, 2, all.stderr);
  assert.match(all.stderr, /the config has 65536 layer types; inspect reports at most 64 at once: give --layer-type or --layer-index/);
  const one = run('inspect', file, '--layer-type', 't7');
  assert.equal(one.status, 0, one.stderr);
  assert.match(one.stdout, /theta\s+10007/);
});

test('the seventeenth adversarial pass: inspect --json is bounded by --max-bytes before any of it is made', () => {
  // 64 layer types at head_dim 2^20 (a 3 kB config, every value within its documented range): their inv_freq
  // in JSON passed V8's longest string, a raw "Invalid string length" (exit 1) after 13 s and 1.7 GB of heap;
  // 32 of them wrote 500 MB to standard output, with no limit to raise.
  const types = (n) => Array.from({ length: n }, (_, i) => `t${i}`);
  const config = (n) => ({ model_type: 'x', head_dim: 2 ** 20, num_attention_heads: 1, num_hidden_layers: n, max_position_embeddings: 16,
    layer_types: types(n), rope_parameters: Object.fromEntries(types(n).map((t, i) => [t, { rope_type: 'default', rope_theta: 10000 + i }])) });
  const file = path.join(dir, 'wide-types.json');
  writeFileSync(file, JSON.stringify(config(64)));
  const all = run('inspect', file, '--json');
  assert.equal(all.status, 2, all.stderr);
  assert.match(all.stderr, /^posenc: this report would take up to \d+ bytes, more than --max-bytes 1073741824; nothing was written\. Give --layer-type or --layer-index, or raise --max-bytes deliberately/);
  assert.equal(all.stdout, '');
  writeFileSync(file, JSON.stringify(config(2)));
  const text = run('inspect', file); // the text report has no inv_freq, and is bounded too
  assert.equal(text.status, 0, text.stderr);
  assert.equal(run('inspect', file, '--max-bytes', String(Buffer.byteLength(text.stdout))).status, 0);
  assert.match(run('inspect', file, '--max-bytes', String(Buffer.byteLength(text.stdout) - 1)).stderr, /^posenc: this report would take up to \d+ bytes, more than --max-bytes/);
  const small = run('inspect', file, '--json', '--max-bytes', '1000000');
  assert.equal(small.status, 2, small.stderr);
  assert.equal(small.stdout, '');
  // within the limit, the report is as one JSON.stringify of it, written a layer type at a time
  const r = spawnSync(process.execPath, [cli, 'inspect', file, '--json', '--max-bytes', '50000000'], { encoding: 'utf8', timeout: 120000, maxBuffer: 64 * 2 ** 20 });
  assert.equal(r.status, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.equal(r.stdout, `${JSON.stringify(report, null, 2)}\n`);
  assert.deepEqual(report.rope.map((l) => [l.layerType, l.invFreq.length]), [['t0', 2 ** 19], ['t1', 2 ** 19]]);
  assert.equal(run('inspect', file, '--json', '--max-bytes', '0').status, 2);
});

test('the twenty-second adversarial pass: a config, or a dict of it, that is a Map, Date or other built-in kind is refused, not read as an empty dict', () => {
  const base = { rope_theta: 10000, head_dim: 8 };
  const linear = () => new Map([['rope_type', 'linear'], ['factor', 2]]);
  for (const [config, re] of [
    [{ ...base, rope_scaling: linear() }, /config\.rope_parameters must be an object \(got Map\)/],
    [{ ...base, rope_parameters: linear() }, /config\.rope_parameters must be an object \(got Map\)/],
    [{ text_config: new Map(Object.entries(base)) }, /config\.text_config must be an object \(got Map\)/],
    [new Map(Object.entries(base)), /config must be a parsed config\.json object \(got Map\)/],
    [new Date(), /config must be a parsed config\.json object \(got Date\)/],
  ]) {
    assert.throws(() => pv.ropeFromConfig(config), (e) => e instanceof TypeError && re.test(e.message), re.source);
  }
  // an object of a class, its fields own, is a dict as before
  class Scaling {
    constructor() {
      this.rope_type = 'linear';
      this.factor = 2;
    }
  }
  assert.equal(pv.ropeFromConfig({ ...base, rope_scaling: new Scaling() }).scaling.factor, 2);
  // a Map under a layer type's key is not a nested dict: the flat dict's unknown key, warned of as HF does
  assert.deepEqual(pv.ropeFromConfig({ ...base, rope_parameters: { full_attention: linear() } }).warnings, ['unrecognized keys for rope_type "default": full_attention']);
});

test('the twenty-third adversarial pass: a Symbol.toStringTag planted on Object.prototype made every config refused ("config must be a parsed config.json object (got Object)"), its dicts told by their tag alone', () => {
  const config = { model_type: 'qwen2_vl', text_config: { rope_theta: 10000, head_dim: 8, rope_scaling: { rope_type: 'linear', factor: 2 } } };
  const clean = pv.ropeFromConfig(config);
  try {
    Object.defineProperty(Object.prototype, Symbol.toStringTag, { value: 'Config', configurable: true }); // eslint-disable-line no-extend-native
    assert.deepEqual(pv.ropeFromConfig(config), clean);
    assert.throws(() => pv.ropeFromConfig({ head_dim: 8, rope_scaling: new Map() }), /config\.rope_parameters must be an object \(got Map\)/);
  } finally {
    delete Object.prototype[Symbol.toStringTag];
  }
});

test('the thirty-second adversarial pass: a config\'s mrope_section is counted before any entry is read, as axes_dims_rope', () => {
  // a proxy of 2^24 entries (no element but 0) was read whole, 2.6 s, by every RoPE call given the config (ropeApply's text
  // form read it three times, 7.7 s; a ropeCache of 2 rows), and mropeCache refused it by the positions' rows only after
  let reads = 0;
  const section = (n) => new Proxy({}, { get: (o, k) => (k === 'length' ? n : (reads++, 0)) });
  const cfg = (n) => ({ hidden_size: 64, num_attention_heads: 4, rope_scaling: { type: 'mrope', mrope_section: section(n) } });
  const x = { shape: [1, 16], data: new Float32Array(16) };
  for (const call of [(c) => pv.ropeFromConfig(c), (c) => pv.ropeCache(2, 16, { config: c }), (c) => pv.ropeApply(x, { config: c }),
    (c) => pv.mropeCache([[0], [0], [0]], 16, { config: c })]) {
    assert.throws(() => call(cfg(2 ** 19 + 1)), (e) => e instanceof RangeError
      && e.message.endsWith(': config rope_parameters.mrope_section (their count) must be an integer from 1 to 524288 (got 524289)'));
  }
  assert.equal(reads, 0);
  assert.deepEqual(pv.ropeFromConfig(cfg(3)).mropeSection, [0, 0, 0]);
});

test('a config key of null reads as absent, as the reader states (thirty-third pass)', () => {
  // typed() and the model defaults read null as absent (HF's None), but nine keys were tested against undefined: a
  // config's `mrope_section: null`, `axes_dims_rope: null`, `attention_head_dim: null` or `num_hidden_layers: null` was
  // refused, "(got null)", where leaving the key out works, and `rope_local_base_freq: null` or `global_rope_theta: null`
  // asked for a key the config never gave ("config.sliding_window_pattern must be a number (got undefined)")
  const plain = pv.ropeFromConfig({ head_dim: 8 });
  for (const key of ['mrope_section', 'axes_dims_rope', 'num_hidden_layers', 'rope_local_base_freq', 'global_rope_theta']) {
    const config = { head_dim: 8, num_hidden_layers: 4, [key]: null };
    if (key === 'mrope_section') config.rope_scaling = { rope_type: 'default', mrope_section: null };
    assert.deepEqual(pv.ropeFromConfig(config), pv.ropeFromConfig({ ...config, [key]: undefined, rope_scaling: undefined }), key);
    assert.deepEqual(pv.ropeFromConfig(config).invFreq, plain.invFreq, key);
  }
  const axial = { axes_dims_rope: [4, 4] };
  assert.deepEqual(pv.ropeFromConfig({ ...axial, attention_head_dim: null }), pv.ropeFromConfig(axial));
  // and hidden_size or num_attention_heads of null, without a head_dim, as both absent
  assert.throws(() => pv.ropeFromConfig({ hidden_size: null, num_attention_heads: 4 }),
    /^TypeError: posenc\.ropeFromConfig: config needs head_dim, or hidden_size and num_attention_heads$/);
});

test('max_position_embeddings is in range wherever it is given, read by a scaling or not (thirty-fifth pass: -1, 0, 1e300 taken without one)', () => {
  for (const scaling of [undefined, { rope_type: 'dynamic', factor: 2 }]) {
    const config = (m) => ({ head_dim: 8, rope_theta: 10000, max_position_embeddings: m, ...(scaling && { rope_scaling: scaling }) });
    for (const m of [-1, 0, 1e300, 2 ** 31 + 1]) {
      assert.throws(() => pv.ropeFromConfig(config(m)), { name: 'RangeError', message: `posenc.ropeFromConfig: config.max_position_embeddings must be an integer from 1 to 2147483648 (got ${m})` });
    }
    for (const m of [1, 4096, 2 ** 31]) assert.equal(pv.ropeFromConfig(config(m)).maxPosition, m);
  }
  // the count of a list too long is shown as a number (it was the string "100000 entries")
  assert.throws(() => pv.ropeFromConfig({ head_dim: 8, layer_types: new Array(100000).fill('full_attention') }),
    { message: 'posenc.ropeFromConfig: config.layer_types may have at most 65536 entries (got 100000)' });
});

test("a layer asked by index whose type has no rope_parameters entry is named as the config's, not as a layerType given", () => {
  const config = { head_dim: 8, max_position_embeddings: 64, layer_types: ['full_attention', 'sliding_attention'],
    rope_parameters: { full_attention: { rope_type: 'default', rope_theta: 10000 } } };
  assert.throws(() => pv.ropeFromConfig(config, { layerIndex: 1 }), { name: 'RangeError',
    message: 'posenc.ropeFromConfig: layer 1\'s type (config.layer_types[1]) has no RoPE parameters in config.rope_parameters, which has full_attention (got "sliding_attention")' });
  assert.throws(() => pv.ropeFromConfig(config, { layerType: 'sliding_attention' }), { message: /^posenc\.ropeFromConfig: layerType must be one of full_attention \(got "sliding_attention"\)$/ });
  assert.equal(pv.ropeFromConfig(config, { layerIndex: 0 }).layerType, 'full_attention');
});

// The fortieth pass (part B) saw it: a num_attention_heads of 0.5 (or 0.001) was taken, head_dim being
// hidden_size // num_attention_heads (128, or 64 000). HF 5's strict classes type both as int.
test('hidden_size and num_attention_heads are whole numbers from 1', () => {
  for (const [key, bad] of [['num_attention_heads', 0.5], ['num_attention_heads', 0.001], ['hidden_size', 64.5], ['num_attention_heads', 0]]) {
    const config = { hidden_size: 64, num_attention_heads: 4, [key]: bad };
    assert.throws(() => pv.ropeFromConfig(config), { name: 'RangeError', message: `posenc.ropeFromConfig: config.${key} must be an integer from 1 to 2147483648 (got ${bad})` });
  }
  assert.equal(pv.ropeFromConfig({ hidden_size: 64, num_attention_heads: 4 }).headDim, 16);
});
