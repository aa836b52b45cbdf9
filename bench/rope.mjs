// RoPE at the floor (issue 24, points 1 and 2), ratios measured side by side
// in one run: ropeCache against the memory floor of its output and a plain JS
// loop, and a decode step of ropeApply / rope().apply against the same
// rotation inside the core and a plain JS loop. Run: node bench/rope.mjs
// (prints a table and the targets; exits 1 when a target is missed).
import { instantiate } from '../web/lib/wasm.js';
import { createVariants } from '../web/lib/variants/api.js';
import { WASM_BASE64 } from '../dist/variants-wasm.js';
import { maxAbsError, median, collect } from './measure.mjs';

const raw = await instantiate(WASM_BASE64);
const pv = createVariants(raw);

const rows = [];
const row = (name, ms, note = '') => {
  rows.push({ name, ms, note });
  console.log(`${name.padEnd(58)} ${ms < 1 ? `${(ms * 1000).toFixed(2)} µs` : `${ms.toFixed(2)} ms`} ${note}`);
  return ms;
};

/**
 * Contenders timed in turns, round after round, so that a load change on this
 * shared machine hits all of them alike: { name: median ms per call }, and
 * each contender's median ratio to `ref` over the rounds. Small calls repeat
 * `inner` times a round.
 */
async function paired(contenders, { rounds = 15, inner = 1, ref } = {}) {
  const times = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]));
  for (const fn of Object.values(contenders)) for (let i = 0; i < inner; i++) fn(); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (const [k, fn] of Object.entries(contenders)) {
      collect();
      const t = performance.now();
      for (let i = 0; i < inner; i++) fn();
      times[k].push((performance.now() - t) / inner);
    }
  }
  const ms = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
  const ratio = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v.map((t, i) => t / times[ref][i]))]));
  return { ms, ratio };
}

// ---- ropeCache 65536 x 128, llama3 ------------------------------------------------------
const L = 65536;
const D = 128;
const llama3 = { base: 5e5, scaling: 'llama3' };
const n = L * D;
const pre = [new Float32Array(n), new Float32Array(n)];
const { invFreq } = pv.ropeFrequencies(D, { ...llama3, dtype: 'float64' });
function plainCache() { // HF's cat(freqs, freqs), frequencies hoisted
  const cos = new Float32Array(n);
  const sin = new Float32Array(n);
  const h = D / 2;
  for (let p = 0; p < L; p++) {
    const o = p * D;
    for (let i = 0; i < h; i++) {
      const a = p * invFreq[i];
      cos[o + i] = cos[o + i + h] = Math.cos(a);
      sin[o + i] = sin[o + i + h] = Math.sin(a);
    }
  }
  return { cos, sin };
}
const caches = await paired({
  floorFresh: () => [new Float32Array(n).fill(0.5), new Float32Array(n).fill(0.5)],
  floorFill: () => { pre[0].fill(0.25); pre[1].fill(0.25); },
  js: plainCache,
  posenc: () => pv.ropeCache(L, D, llama3),
}, { rounds: 7, ref: 'posenc' });
row('floor: two fresh Float32Array(65536*128).fill', caches.ms.floorFresh);
row('floor: fill two preallocated arrays', caches.ms.floorFill);
row('plain JS loop (Math.cos/sin, frequencies hoisted)', caches.ms.js);
row('posenc ropeCache(65536, 128, llama3)', caches.ms.posenc);
const cacheErr = (() => {
  const p = pv.ropeCache(L, D, llama3);
  const j = plainCache();
  return Math.max(maxAbsError(p.cos.data, j.cos), maxAbsError(p.sin.data, j.sin));
})();
console.log(`  ropeCache vs the JS loop: max |difference| ${cacheErr.toExponential(2)}`);

// ---- decode step x [1, 32, 1, 128], and 1 head x 1 token --------------------------------
const cache = pv.ropeCache(4096, D, { base: 5e5 });
const handle = pv.rope({ dim: D, maxLen: 4096, base: 5e5 });
const random = (count) => Float32Array.from({ length: count }, (_, i) => Math.sin(i * 12.9898) * 0.5);

/** The rotation alone in the core: x, cos and sin already in wasm memory, in place. */
function coreRotation(count, heads) {
  const xp = raw.pe_malloc(count * 4);
  const cp = raw.pe_malloc(D * 4);
  const sp = raw.pe_malloc(D * 4);
  new Float32Array(raw.memory.buffer, xp, count).set(random(count));
  new Float32Array(raw.memory.buffer, cp, D).set(cache.cos.data.subarray(1000 * D, 1001 * D));
  new Float32Array(raw.memory.buffer, sp, D).set(cache.sin.data.subarray(1000 * D, 1001 * D));
  const rotate = () => raw.pe_rope_rotate(xp, xp, 0, heads, 1, D, D, D, 1, cp, sp);
  return {
    run: rotate,
    // the least any wasm kernel does for x in JS memory: copy it in, rotate, copy it out
    copying: (x, out) => {
      new Float32Array(raw.memory.buffer, xp, count).set(x);
      rotate();
      out.set(new Float32Array(raw.memory.buffer, xp, count));
    },
    free: () => [xp, cp, sp].forEach((p) => raw.pe_free(p)),
  };
}

function plainRotate(x, pos, out) { // HF's q * cos + rotate_half(q) * sin, per head
  const h = D / 2;
  const c = cache.cos.data;
  const s = cache.sin.data;
  const o = pos * D;
  for (let b = 0; b < x.length; b += D) {
    for (let i = 0; i < h; i++) {
      const a = x[b + i];
      const q = x[b + i + h];
      out[b + i] = a * c[o + i] - q * s[o + i];
      out[b + i + h] = q * c[o + i + h] + a * s[o + i + h];
    }
  }
  return out;
}

const decode = {};
for (const heads of [32, 1]) {
  const count = heads * D;
  const x = { shape: [1, heads, 1, D], data: random(count) };
  const out = new Float32Array(count);
  const inner = heads === 32 ? 2000 : 5000;
  const core = coreRotation(count, heads);
  const label = `[1, ${heads}, 1, 128]`;
  const d = await paired({
    core: core.run,
    copying: () => core.copying(x.data, out),
    handle: () => handle.apply(x, 1000, out),
    apply: () => pv.ropeApply(x, { cos: cache.cos, sin: cache.sin, offset: 1000, out }),
    js: () => plainRotate(x.data, 1000, out),
  }, { rounds: 15, inner, ref: 'core' });
  decode[heads] = d;
  row(`core: pe_rope_rotate ${label} (data in wasm)`, d.ms.core);
  row(`core with x copied in and out ${label}`, d.ms.copying, `${d.ratio.copying.toFixed(2)}× the core`);
  row(`posenc rope().apply ${label}, out given`, d.ms.handle, `${d.ratio.handle.toFixed(2)}× the core`);
  row(`posenc ropeApply ${label} with { cos, sin }`, d.ms.apply, `${d.ratio.apply.toFixed(2)}× the core`);
  row(`plain JS loop ${label}`, d.ms.js, `${d.ratio.js.toFixed(2)}× the core`);
  core.free();
  const err = maxAbsError(handle.apply(x, 1000).data, plainRotate(x.data, 1000, new Float32Array(count)));
  console.log(`  ${label}: rope().apply vs the JS loop max |difference| ${err.toExponential(2)}`);
}

// ---- targets -----------------------------------------------------------------------------
const over = decode[1].ms.handle - decode[1].ms.core;
const targets = [
  [`ropeCache ≤ 1.5× the floor (fresh arrays): ${(1 / caches.ratio.floorFresh).toFixed(2)}×`, caches.ratio.floorFresh >= 1 / 1.5],
  [`ropeCache ≥ 3× the plain JS loop: ${caches.ratio.js.toFixed(2)}×`, caches.ratio.js >= 3],
  [`decode [1,32,1,128] rope().apply ≤ 1.2× the core's rotation: ${decode[32].ratio.handle.toFixed(2)}×`, decode[32].ratio.handle <= 1.2],
  [`decode [1,32,1,128] rope().apply ≤ 1.2× the core with its copies: ${(decode[32].ratio.handle / decode[32].ratio.copying).toFixed(2)}×`, decode[32].ratio.handle <= 1.2 * decode[32].ratio.copying],
  [`rope().apply ≥ 3× the plain JS loop, decode [1,32,1,128]: ${(decode[32].ratio.js / decode[32].ratio.handle).toFixed(2)}×`, decode[32].ratio.js >= 3 * decode[32].ratio.handle],
  [`per-call overhead, 1 head 1 token: ${(over * 1000).toFixed(2)} µs (a few µs)`, over <= 5e-3],
];
console.log(`\nropeCache vs the fill of preallocated arrays (no page faults): ${(1 / caches.ratio.floorFill).toFixed(2)}×`);
let missed = 0;
for (const [text, ok] of targets) {
  console.log(`${ok ? 'ok  ' : 'MISS'} ${text}`);
  if (!ok) missed++;
}
process.exitCode = missed ? 1 : 0;
