// Child process of tests/memory-limit.test.js, started with V8's
// --wasm-max-mem-pages so that WebAssembly memory cannot grow past a cap.
// argv: build ('debug' or 'release'), byte limit (debug: set through
// pe_set_byte_limit; release: the shipped 1 GiB), family name, sizes as JSON.
// Runs the family's call at each size, in order, on one module instance and
// prints one JSON line per call: the size, the error message if it threw, the
// wasm memory after it and the allocations it left.
import { instantiateForTests as instantiate } from './wasi.js';
import { createApi } from '../../web/lib/api.js';
import { createVariants } from '../../web/lib/variants/api.js';
import { createFields } from '../../web/lib/fields/api.js';

const [build, limitArg, family, sizesArg] = process.argv.slice(2);
const rows = (r, c, v) => ({ rows: r, cols: c, data: new Float32Array(r * c).fill(v) });

// name: [module, (api, size) => call]. Each is a call whose scratch in C is
// large beside its inputs and outputs, or whose buffers reach the limit.
export const FAMILIES = {
  tableWide: ['posenc', (pe, d) => pe.table(1, d)], // frequencies and 4 oscillator arrays per pair
  gramTiny: ['posenc', (pe, c) => pe.gram(rows(8, c, 1e-12))], // a float64 copy of the float32 input
  gramCosineTiny: ['posenc', (pe, c) => pe.gram({ rows: 8, cols: c, data: new Float64Array(8 * c).fill(1e-200) }, { cosine: true })],
  tableGramPadded: ['posenc', (pe, d) => pe.tableGram(16, d, { paddingIdx: 0 })], // the float64 table formed
  tableGram: ['posenc', (pe, n) => pe.tableGram(n, 64)],
  ropeCache: ['posenc/variants', (pv, d) => pv.ropeCache(1, d)],
  timestep: ['posenc/fields', (pf, d) => pf.timestepEmbedding([1], d)],
  // the two: at the shipped limit only
  table16: ['posenc', (pe, d) => pe.table(16, d)],
  gram27: ['posenc', (pe, n) => pe.gram(rows(2 ** 13, n / 2 ** 13, 1e-12))],
};

const files = { posenc: 'posenc', 'posenc/variants': 'variants', 'posenc/fields': 'fields' };
const create = { posenc: createApi, 'posenc/variants': createVariants, 'posenc/fields': createFields };
const [mod, call] = FAMILIES[family];
const dir = build === 'debug' ? '../../dist/debug' : '../../dist';
const raw = await instantiate((await import(`${dir}/${files[mod]}-wasm.js`)).WASM_BASE64);
const limit = build === 'debug' ? raw.pe_set_byte_limit(Number(limitArg)) : Number(limitArg);
const api = create[mod](raw);
console.log(JSON.stringify({ limit, baseline: raw.memory.buffer.byteLength }));
for (const size of JSON.parse(sizesArg)) {
  let error = null;
  try {
    call(api, size);
  } catch (e) {
    error = `${e.name}: ${e.message}`;
  }
  console.log(JSON.stringify({ size, error, bytes: raw.memory.buffer.byteLength, live: raw.pe_live_allocations() }));
}
