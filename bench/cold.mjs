// No cold start (issue 24, point 4): the first large call of a fresh process
// against the same call once warm, for table, ropeCache and attention. Each
// operation runs in a process of its own (nothing else has touched its module
// or its memory), several times, and the ratio first / warm-median is
// reported with the median over the processes; target <= 1.3.
//
// Each process runs with V8's defaults and again with --no-liftoff: without
// the baseline compiler V8 compiles every wasm function with TurboFan before
// the first call, so what the first call still pays there is not compiling.
// The two ratios side by side say how much of the cold cost is Liftoff code.
//
//   node bench/cold.mjs [--runs=N]      (bench/run.mjs --cold runs it too)
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const LLAMA3 = { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPosition: 8192 };
const OPS = {
  table: ['pe.table(8192, 1024)', (pe) => pe.table(8192, 1024)],
  ropeCache: ["pv.ropeCache(65536, 128, { base: 5e5, scaling: 'llama3' })", (pe, pv) => pv.ropeCache(65536, 128, { base: 5e5, scaling: LLAMA3 })],
  attention: ['pe.attention(q, k, v, { causal: true }), [1, 8, 512, 64]', (pe, pv, qkv) => pe.attention(qkv, qkv, qkv, { causal: true })],
  attentionFlash: ['pe.attention(q, k, v, { causal: true, weights: false }), [1, 8, 512, 64]', (pe, pv, qkv) => pe.attention(qkv, qkv, qkv, { causal: true, weights: false })],
};
const WARM_RUNS = 5;
export const COLD_TARGET = 1.3;

/** In the child: first call, then WARM_RUNS more; prints { first, warm } in ms. */
async function child(op) {
  const { init } = await import('../web/lib/index.js');
  const { init: initVariants } = await import('../web/lib/variants/index.js');
  const pe = await init();
  const pv = await initVariants();
  // [1, 8, 512, 64] uniform in [-1, 1): the prefill shape
  let seed = 1;
  const data = Float32Array.from({ length: 8 * 512 * 64 }, () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1);
  const qkv = { shape: [1, 8, 512, 64], data };
  const time = () => {
    const t = performance.now();
    OPS[op][1](pe, pv, qkv);
    return performance.now() - t;
  };
  const first = time();
  const warm = Array.from({ length: WARM_RUNS }, time).sort((a, b) => a - b)[WARM_RUNS >> 1];
  process.stdout.write(JSON.stringify({ first, warm, memory: pe.memoryStats().bytes + pv.memoryStats().bytes }));
}

const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];

/** { op: { flags: { ratio, first, warm } } } over `runs` fresh processes each. */
export function measureCold({ runs = 5, log = () => {} } = {}) {
  const self = fileURLToPath(import.meta.url);
  const results = {};
  for (const op of Object.keys(OPS)) {
    results[op] = {};
    for (const flags of [[], ['--no-liftoff']]) {
      const samples = [];
      for (let i = 0; i < runs; i++) {
        const r = spawnSync(process.execPath, [...flags, self, `--child=${op}`], { encoding: 'utf8' });
        if (r.status !== 0) throw new Error(`cold ${op}: ${r.stderr}`);
        samples.push(JSON.parse(r.stdout));
      }
      const ratio = median(samples.map((s) => s.first / s.warm));
      results[op][flags.join(' ') || 'default'] = { ratio, first: median(samples.map((s) => s.first)), warm: median(samples.map((s) => s.warm)) };
      log(`cold ${op} ${flags.join(' ') || 'default'}: first/warm ${ratio.toFixed(2)}`);
    }
  }
  return results;
}

/** Markdown lines and targets of measureCold's results. */
export function coldReport(results) {
  const lines = ['### First call in a fresh process against warm (median over fresh processes)', '',
    '| call | V8 flags | first ms | warm ms (median of 5) | first / warm |', '|---|---|--:|--:|--:|'];
  for (const [op, byFlags] of Object.entries(results)) {
    for (const [flags, r] of Object.entries(byFlags)) lines.push(`| \`${OPS[op][0]}\` | ${flags} | ${r.first.toFixed(1)} | ${r.warm.toFixed(1)} | ${r.ratio.toFixed(2)} |`);
  }
  const targets = Object.entries(results).map(([op, r]) => ({
    target: `${op}: first call of a fresh process ≤ ${COLD_TARGET}× a warm one`,
    met: r.default.ratio <= COLD_TARGET,
    detail: `${r.default.ratio.toFixed(2)}× (${r['--no-liftoff'].ratio.toFixed(2)}× with --no-liftoff)`,
  }));
  return { lines, targets };
}

const childOp = process.argv.find((a) => a.startsWith('--child='))?.slice(8);
if (childOp) await child(childOp);
else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 5);
  const { lines, targets } = coldReport(measureCold({ runs, log: (l) => process.stderr.write(`${l}\n`) }));
  console.log([...lines, '', ...targets.map((t) => `- [${t.met ? 'x' : ' '}] ${t.target}: ${t.detail}`)].join('\n'));
}
