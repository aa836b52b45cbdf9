// The public contract: one cached init promise, copies not views, the
// documented methods and nothing else, and errors that leave the module usable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { init } from '../web/lib/index.js';
import { init as initVariants } from '../web/lib/variants/index.js';
import { cachedInit, instantiate } from '../web/lib/wasm.js';
import { loadApi, loadVariants, loadFields } from './helpers/load.js';

const pe = await loadApi();
const pv = await loadVariants();
const pf = await loadFields();

test('each entry\'s init() returns one cached promise, its own', async () => {
  for (const entry of [init, initVariants]) {
    const p = entry();
    assert.equal(entry(), p);
    assert.equal(await p, await entry());
  }
  assert.notEqual(await init(), await initVariants());
});

test('a failed load is not cached: the next init() tries again (cachedInit, shared by both entries)', async () => {
  const broken = cachedInit('AAAA', () => assert.fail('nothing loaded to make an API of'));
  const first = broken();
  await assert.rejects(first);
  const second = broken();
  assert.notEqual(second, first);
  await assert.rejects(second);
});

/** Runs body with Node's getBuiltinModule hidden, so that the loader takes DecompressionStream, as a browser does. */
async function withoutBuiltins(body) {
  const saved = process.getBuiltinModule;
  process.getBuiltinModule = undefined;
  try {
    return await body();
  } finally {
    process.getBuiltinModule = saved;
  }
}

for (const [how, around] of [["Node's zlib", (body) => body()], ['DecompressionStream', withoutBuiltins]]) {
  test(`the embedded module inflated by ${how} loads, and a damaged one is refused with the inflater's reason and no promise left unhandled`, async () => {
    const { WASM_BASE64: text } = await import('../dist/posenc-wasm.js');
    const exports = await around(() => instantiate(text));
    const p = exports.pe_malloc(64);
    assert.ok(p > 0);
    exports.pe_free(p);
    const unhandled = [];
    const note = (reason) => unhandled.push(reason);
    process.on('unhandledRejection', note);
    try {
      // cut short (the stream ends early), and one character dropped (a bad block past it)
      for (const damaged of [text.slice(0, text.length >> 1), text.slice(0, 400) + text.slice(401)]) {
        await around(() => assert.rejects(cachedInit(damaged, () => assert.fail('nothing loaded to make an API of'))(), /unexpected end of file|invalid block type/));
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      process.off('unhandledRejection', note);
    }
    assert.deepEqual(unhandled, []);
  });
}

test('init() in Node does not wake fetch: the module is inflated by Node\'s zlib, not through a Response, whose first use loads undici (30-40 ms)', () => {
  const script = `const lazy = () => typeof Object.getOwnPropertyDescriptor(globalThis, 'Response').get === 'function';
    const before = lazy();
    for (const entry of ['posenc.js', 'variants.js', 'fields.js', 'lab.js']) await (await import('./dist/lib/' + entry)).init();
    process.stdout.write(JSON.stringify({ before, after: lazy() }));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: new URL('..', import.meta.url), encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  // before: Node defines Response as a getter until its first use, or this test could not tell
  assert.deepEqual(JSON.parse(run.stdout), { before: true, after: true });
});

for (const [dtsPath, name, api] of [['index.d.ts', 'Posenc', pe], ['variants/index.d.ts', 'PosencVariants', pv], ['fields/index.d.ts', 'PosencFields', pf]]) {
  test(`every method declared in ${dtsPath} exists, and no undeclared one does`, () => {
    const dts = readFileSync(new URL(`../web/lib/${dtsPath}`, import.meta.url), 'utf8');
    const body = dts.slice(dts.indexOf(`export interface ${name} {`));
    const declared = [...body.slice(0, body.indexOf('\n}')).matchAll(/^ {2}(?:readonly )?(\w+)[(:<]/gm)].map((m) => m[1]).sort();
    assert.deepEqual(Object.keys(api).sort(), declared);
    assert.ok(Object.isFrozen(api));
  });
}

test('results are fresh copies that own their buffers', () => {
  const a = pe.table(8, 8);
  assert.equal(a.data.byteOffset, 0);
  assert.equal(a.data.buffer.byteLength, a.data.byteLength);
  const expected = a.data[9];
  a.data.fill(42);
  assert.equal(pe.table(8, 8).data[9], expected);
  assert.deepEqual(Object.keys(a).sort(), ['cols', 'data', 'rows', 'shape']);
  assert.deepEqual(a.shape, [8, 8]);
});

test('dtype chooses the array type; float32 is float64 rounded', () => {
  const f32 = pe.table(100, 32);
  const f64 = pe.table(100, 32, { dtype: 'float64' });
  assert.ok(f32.data instanceof Float32Array);
  assert.ok(f64.data instanceof Float64Array);
  f64.data.forEach((v, i) => assert.equal(f32.data[i], Math.fround(v)));
  assert.ok(pe.gram({ rows: 2, cols: 2, data: new Float32Array([1, 2, 3, 4]) }).data instanceof Float32Array);
  // float32 whatever the input, unless dtype says float64
  assert.ok(pe.gram({ rows: 2, cols: 2, data: [1, 2, 3, 4] }).data instanceof Float32Array);
  assert.ok(pe.gram({ rows: 2, cols: 2, data: [1, 2, 3, 4] }, { dtype: 'float64' }).data instanceof Float64Array);
  for (const r of [pe.frequencies(8), pe.norms([[1, 2]]), pe.rotation(1, 4).data, pe.attention([[1]], [[1]], [[1]]).output.data]) {
    assert.ok(r instanceof Float32Array, r.constructor.name);
  }
});

test('presets are exposed and frozen', () => {
  assert.deepEqual(Object.keys(pe.presets).sort(), ['fairseq', 'marian', 'tensor2tensor', 'tf-tutorial', 'vaswani']);
  assert.ok(Object.isFrozen(pe.presets.vaswani));
  assert.equal(pe.maxBytes, 2 ** 30);
});

test('an error names the function and parameter, and the module keeps working', () => {
  assert.throws(() => pe.table(-3, 4), { name: 'RangeError', message: /posenc\.table: maxLen must be an integer from 1 to 16777216 \(got -3\)/ });
  assert.throws(() => pe.table(4, 4, { preset: 'bert' }), { name: 'RangeError', message: /preset must be one of vaswani, tensor2tensor, fairseq, tf-tutorial, marian/ });
  assert.throws(() => pe.gram(null), { name: 'TypeError', message: /posenc\.gram: matrix must be a tensor/ });
  assert.throws(() => pe.table(65536, 65536), { name: 'RangeError', message: /at most 1024 MiB/ });
  const row = pe.table(2, 2, { dtype: 'float64' }).data;
  assert.deepEqual(Array.from(row), [0, 1, Math.sin(1), Math.cos(1)]);
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('twenty-eighth pass: rotation\'s dModel and kvCache\'s valueDim are refused with the range the code allows (from 2, from 8), whose ends it takes', () => {
  for (const v of [0, 1]) assert.throws(() => pe.rotation(1, v), { name: 'RangeError', message: new RegExp(`dModel must be an integer from 2 to 16384 \\(got ${v}\\)`) });
  assert.equal(pe.rotation(1, 2).rows, 2);
  for (const v of [0, 1, 7]) assert.throws(() => pe.kvCache({ heads: 1, headDim: 2, valueDim: v, maxLength: 1 }), { name: 'RangeError', message: new RegExp(`valueDim must be an integer from 8 to 16777216 \\(got ${v}\\)`) });
  assert.throws(() => pe.kvCache({ heads: 1, headDim: 2, valueDim: 12, maxLength: 1 }), /valueDim must be a multiple of 8 \(got 12\)/);
  pe.kvCache({ heads: 1, headDim: 2, valueDim: 8, maxLength: 1 }).free();
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('twenty-ninth pass: kvCache\'s valueDim taken from headDim (none given) is refused as headDim\'s, not as an option the caller gave', () => {
  // headDim 4 with no valueDim was "valueDim must be an integer from 8 to 16777216 (got 4)", and 12 "valueDim must be a
  // multiple of 8": an option the caller had not given (the family of the twenty-eighth pass's "(the preset's)")
  for (const valueDim of [undefined, null]) {
    assert.throws(() => pe.kvCache({ heads: 1, headDim: 4, valueDim, maxLength: 1 }), { name: 'RangeError', message: "posenc.kvCache: valueDim (headDim's) must be an integer from 8 to 16777216 (got 4)" });
    assert.throws(() => pe.kvCache({ heads: 1, headDim: 12, valueDim, maxLength: 1 }), { name: 'RangeError', message: "posenc.kvCache: valueDim (headDim's) must be a multiple of 8 (got 12)" });
  }
  assert.throws(() => pe.kvCache({ heads: 1, headDim: 12, valueDim: 12, maxLength: 1 }), { name: 'RangeError', message: 'posenc.kvCache: valueDim must be a multiple of 8 (got 12)' });
  pe.kvCache({ heads: 1, headDim: 16, maxLength: 1 }).free();
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('twenty-eighth pass: kvCache.attend names q, with the cache\'s shape, for a q that does not fit (it said "k\'s batch must equal 1 (got 2)" of the cache)', () => {
  const cache = pe.kvCache({ heads: 2, headDim: 4, valueDim: 8, maxLength: 4, batch: 2 });
  try {
    cache.append({ data: new Float32Array(16), shape: [2, 2, 1, 4] }, { data: new Float32Array(32), shape: [2, 2, 1, 8] });
    for (const [shape, got] of [[[1, 4], '1,4'], [[1, 2, 1, 4], '1,2,1,4'], [[2, 3, 1, 4], '2,3,1,4'], [[2, 2, 1, 3], '2,2,1,3']]) {
      const q = { data: new Float32Array(shape.reduce((a, b) => a * b)), shape };
      assert.throws(() => cache.attend(q), { name: 'RangeError', message: `posenc.kvCache.attend: q must be [2, a multiple of 2, n, 4] to fit the cache (got "shape [${got}]")` });
    }
    assert.throws(() => cache.attend({ data: new Float32Array(32), shape: [2, 2, 2, 4] }), /q holds 2 queries; the cache holds 1 positions/);
    assert.deepEqual(cache.attend({ data: new Float32Array(32), shape: [2, 4, 1, 4] }).shape, [2, 4, 1, 8]); // grouped: 4 query heads
  } finally {
    cache.free();
  }
});

test('paddingIdx zeroes the row at that position, with offset as with positions (an offset of 2 zeroed position 3)', () => {
  const positions = (from, n) => Array.from({ length: n }, (_, i) => from + i);
  for (const [offset, paddingIdx, zeroRow] of [[2, undefined, -1], [2, 5, 3], [-3, 0, 3], [0.5, 2, -1], [0, 1, 1], [7, null, -1]]) {
    const opts = { preset: 'fairseq', dtype: 'float64', ...(paddingIdx !== undefined ? { paddingIdx } : {}) };
    const t = pe.table(6, 8, { ...opts, offset });
    const rows = Array.from({ length: 6 }, (_, r) => t.data.subarray(r * 8, r * 8 + 8));
    assert.deepEqual(rows.map((row) => row.every((x) => x === 0)), rows.map((_, r) => r === zeroRow), `offset ${offset}, paddingIdx ${paddingIdx}`);
    if (Number.isInteger(offset)) assert.deepEqual(t.data, pe.table(6, 8, { ...opts, positions: positions(offset, 6) }).data);
    // tableGram forms the same table: its zero row is a zero row and column of the Gram (each sum formed its own way: 1e-12)
    const g = pe.tableGram(6, 8, { ...opts, offset }).data, want = pe.gram(t, { dtype: 'float64' }).data;
    want.forEach((x, i) => assert.ok(x === 0 ? g[i] === 0 : Math.abs(g[i] - x) <= 1e-12, `Gram [${Math.floor(i / 6)}, ${i % 6}]: ${g[i]} vs ${x}`));
  }
});

test('paddingIdx at the ends of the position range zeroes no row it should not (rows from -2^31 to 2^32 - 1 reach the core as int32)', () => {
  const M = 2 ** 31;
  for (const [offset, paddingIdx] of [[-M, M - 1], [M - 2, 0], [-M, 0], [M - 2, M - 5], [-M + 7, M - 1]]) {
    const opts = { dtype: 'float64', offset };
    const want = pe.table(3, 4, opts).data;
    assert.deepEqual(pe.table(3, 4, { ...opts, paddingIdx }).data, want, `table, offset ${offset}, paddingIdx ${paddingIdx}`);
    assert.deepEqual(pe.tableGram(3, 4, { ...opts, paddingIdx }).data, pe.tableGram(3, 4, opts).data, `tableGram, offset ${offset}`);
  }
  // and the row at position 2^31 - 1, the last a table can hold, is zeroed
  const t = pe.table(3, 4, { dtype: 'float64', offset: M - 3, paddingIdx: M - 1 }).data;
  assert.deepEqual(Array.from(t.subarray(8)), [0, 0, 0, 0]);
  assert.ok(t.subarray(0, 8).some((x) => x !== 0));
});

test('thirtieth pass: an offset with any fraction zeroes no row, however small the fraction (1 - 2^-53 as an offset\'s complement rounded to a row, or not, by the ulp)', () => {
  // The row at position paddingIdx exists only for a whole offset. paddingIdx − offset rounded to a whole number for
  // offsets within an ulp of one (1e-20 and -2^-53 zeroed fairseq's row 1, 2^-53 did not, where the golden generator's
  // offset + r == paddingIdx zeroed it): positions offset + r that are not whole held a zero row or not by rounding.
  for (const offset of [2 ** -53, -(2 ** -53), 2 ** -54, 1e-20, -1e-20, 5e-324, 1 - 2 ** -53, 2 ** 20 + 2 ** -32]) {
    for (const paddingIdx of [1, 2 ** 20 + 1]) {
      const opts = { preset: 'fairseq', dtype: 'float64', offset, paddingIdx };
      const t = pe.table(4, 8, opts).data;
      for (let r = 0; r < 4; r++) assert.ok(t.subarray(r * 8, r * 8 + 8).some((x) => x !== 0), `table, offset ${offset}, paddingIdx ${paddingIdx}: row ${r} is zero`);
      const g = pe.tableGram(4, 8, opts).data;
      for (let r = 0; r < 4; r++) assert.ok(g[r * 5] > 0, `tableGram, offset ${offset}, paddingIdx ${paddingIdx}: [${r}, ${r}] is ${g[r * 5]}`);
    }
  }
});
