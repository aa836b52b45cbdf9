// Options and `out` (issue 22, points 5, 6, 7 and 8): one reader for every
// function's options, whose errors are posenc TypeErrors / RangeErrors that
// name the option and what was given (also when a getter throws); `out` must
// be a typed array of the right type and length on a buffer that cannot
// change size while the call runs; ALiBi's mask is -Infinity or finite.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CALLS, loadAll } from './helpers/calls.js';

const apis = await loadAll();
const { posenc: pe, variants: pv } = apis;

const posencError = (fn, Type, ...parts) => (e) => {
  assert.ok(e instanceof Type, `${fn}: ${e?.constructor?.name}: ${e?.message}`);
  assert.match(e.message, /^posenc\.\S+: /);
  for (const p of parts) assert.ok(e.message.includes(p), `${fn}: "${e.message}" does not say ${p}`);
  return true;
};

test('a getter that throws, on any option of any function of any entry, gives a posenc TypeError naming the option', () => {
  for (const [entry, calls] of Object.entries(CALLS)) {
    const api = apis[entry];
    for (const [fn, args, options] of calls) {
      api[fn](...args, options); // the call is valid as it stands
      for (const key of Object.keys(options).concat('dtype')) {
        const broken = { ...options };
        delete broken[key];
        Object.defineProperty(broken, key, { enumerable: true, get() { throw new Error('getter failed'); } });
        let error;
        try {
          api[fn](...args, broken);
        } catch (e) {
          error = e;
        }
        if (error instanceof TypeError && /unknown option "dtype"/.test(error.message)) continue; // no dtype here
        assert.ok(error instanceof TypeError, `${entry}.${fn} ${key}: ${error}`);
        assert.match(error.message, /^posenc\.\S+: /, `${entry}.${fn}`);
        assert.ok(error.message.includes(key) && error.message.includes('getter failed'), `${entry}.${fn}: ${error.message}`);
      }
      // a proxy whose every trap throws: options is named
      const hostile = new Proxy({}, { ownKeys() { throw new Error('trap'); } });
      assert.throws(() => api[fn](...args, hostile), posencError(fn, TypeError, 'options', 'trap'), `${entry}.${fn}`);
      // a typed array, an array and a buffer are not options objects (their keys are not option names)
      for (const bad of [new Float32Array(2), [1], new ArrayBuffer(8)]) {
        assert.throws(() => api[fn](...args, bad), posencError(fn, TypeError, 'options must be an object'), `${entry}.${fn}`);
      }
      assert.equal(api.memoryStats().liveAllocations, 0);
    }
  }
});

test('options that are a Map, Set, Date, Number, String, Error or Promise are refused, not taken as no options (twenty-first pass)', () => {
  const kinds = () => [new Map([['dtype', 'float64']]), new Set(['dtype']), new Date(0), new Number(3), new String(''), new Error('dtype'), Promise.resolve()];
  for (const [entry, calls] of Object.entries(CALLS)) {
    const api = apis[entry];
    for (const [fn, args] of calls) {
      for (const bad of kinds()) {
        assert.throws(() => api[fn](...args, bad), posencError(fn, TypeError, 'options must be an object of named options', `got ${bad.constructor.name}`), `${entry}.${fn}`);
      }
    }
  }
  // a handle's methods and nested option objects read the same way
  const cache = pe.kvCache({ heads: 1, headDim: 8, maxLength: 2 });
  const row = [[[1, 0, 0, 0, 0, 0, 0, 0]]];
  cache.append(row, row);
  assert.throws(() => cache.attend(row, new Map([['causal', true]])), posencError('attend', TypeError, 'options must be an object'));
  cache.free();
  assert.throws(() => pv.mropePositions([{ text: 2 }, new Map([['text', 3]])]), posencError('mropePositions', TypeError, 'segments[1] must be an object of named options'));
  // what is still an options object: a plain one, one without a prototype, a class instance, a Proxy of a plain one
  class Options {
    constructor() {
      this.dtype = 'float64';
    }
  }
  for (const good of [{ dtype: 'float64' }, Object.assign(Object.create(null), { dtype: 'float64' }), new Options(), new Proxy({ dtype: 'float64' }, {})]) {
    assert.ok(pe.table(2, 4, good).data instanceof Float64Array);
  }
});

test('a bound with a lower limit excluded and an upper one names both ends (twenty-first pass, part C)', () => {
  // "must be a finite number greater than 0 (got 2)" gave no reason for refusing 2
  const { lab } = apis;
  const cases = [
    [() => lab.train({ learningRate: 2, steps: 1 }), /learningRate must be a finite number greater than 0 and at most 1 \(got 2\)/],
    [() => lab.train({ alibiMaxBias: 65, steps: 1 }), /alibiMaxBias must be a finite number greater than 0 and at most 64 \(got 65\)/],
    [() => pe.attention([[1]], [[1]], [[1]], { scale: NaN }), /scale must be a finite number greater than 0 \(got NaN\)/],
  ];
  for (const [call, message] of cases) assert.throws(call, (e) => e instanceof RangeError && message.test(e.message), String(call));
});

test('scaling: a typed array, an array and a getter that throws are refused naming scaling', () => {
  for (const scaling of [new Float32Array(2), new Uint8Array(0)]) {
    assert.throws(() => pv.ropeFrequencies(8, { scaling }), posencError('ropeFrequencies', TypeError, 'scaling must be an object'));
  }
  const thrower = { type: 'linear', get factor() { throw new Error('no factor'); } };
  assert.throws(() => pv.ropeCache(4, 8, { scaling: thrower }), posencError('ropeCache', TypeError, 'scaling.factor', 'no factor'));
  assert.throws(() => pv.ropeFrequencies(8, { scaling: new Float32Array(2) }), (e) => !/unknown option "0"/.test(e.message));
});

// Every function with an out option, and its result's length.
const OUT_CALLS = [
  [pe, 'table', [2, 4], 8], [pe, 'tableGram', [3, 4], 9], [pe, 'gram', [[[1, 2], [3, 4]]], 4],
  [pe, 'rotation', [1, 4], 16], [pv, 'ropeApply', [[[1, 2, 3, 4]]], 4],
];

test('a falsy out (0, NaN, -0, "", false) is a posenc TypeError naming out and what was given', () => {
  for (const [api, fn, args] of OUT_CALLS) {
    for (const [out, shown] of [[0, '0'], [NaN, 'NaN'], [-0, '-0'], ['', '""'], [false, 'false']]) {
      assert.throws(() => api[fn](...args, { out }), posencError(fn, TypeError, 'out must be', `(got ${shown})`), `${fn} out ${shown}`);
    }
  }
});

test('out on a resizable or growable buffer is refused, however the buffer would be resized later', () => {
  for (const [api, fn, args, n] of OUT_CALLS) {
    const rab = new ArrayBuffer(n * 4, { maxByteLength: n * 16 });
    for (const out of [new Float32Array(rab), new Float32Array(rab, 0, n)]) {
      assert.throws(() => api[fn](...args, { out }), posencError(fn, TypeError, 'fixed-length'), fn);
    }
    const sab = new SharedArrayBuffer(n * 4, { maxByteLength: n * 16 });
    assert.throws(() => api[fn](...args, { out: new Float32Array(sab) }), posencError(fn, TypeError, 'fixed-length'), fn);
    // a fixed-length SharedArrayBuffer is fine
    const fixed = new Float32Array(new SharedArrayBuffer(n * 4));
    assert.equal(api[fn](...args, { out: fixed }).data, fixed);
  }
  // the case: an input's getter shrinks or grows the buffer during table()
  for (const size of [4, 64]) {
    const rab = new ArrayBuffer(32, { maxByteLength: 64 });
    const positions = { length: 2, get 0() { rab.resize(size); return 0; }, 1: 1 };
    assert.throws(() => pe.table(2, 4, { out: new Float32Array(rab), positions }), posencError('table', TypeError, 'out'));
  }
});

test('out detached by an input getter while the call runs is a posenc TypeError, not a RangeError or a short result', () => {
  const buffer = new ArrayBuffer(32);
  const out = new Float32Array(buffer);
  // positions are read after out was checked: this getter detaches out's buffer
  const positions = { length: 2, get 0() { structuredClone(buffer, { transfer: [buffer] }); return 0; }, 1: 1 };
  assert.throws(() => pe.table(2, 4, { out, positions }), posencError('table', TypeError, 'out must be'));
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('alibiBias: maskValue +Infinity is refused (softmax would be NaN); -Infinity and finite values mask', () => {
  assert.throws(() => pv.alibiBias(2, 3, { maskValue: Infinity }), posencError('alibiBias', RangeError, 'maskValue', 'got Infinity'));
  assert.throws(() => pv.alibiBias(2, 3, { maskValue: NaN }), posencError('alibiBias', RangeError, 'maskValue', 'got NaN'));
  assert.equal(pv.alibiBias(2, 3, { maskValue: -Infinity }).data[1], -Infinity);
  assert.equal(pv.alibiBias(2, 3, { maskValue: -1e4 }).data[1], -1e4);
});
