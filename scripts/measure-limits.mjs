// Measures, for docs/limits.md, the calls at (or near) the largest sizes each
// function accepts: wall time and the WebAssembly memory the call left its
// module holding (memory never shrinks, so that is the call's peak). Each call
// runs in a fresh child process so one call's memory does not count for the
// next. Prints a Markdown table. Slow: minutes. Run on an idle machine:
//   node scripts/measure-limits.mjs [filter]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const M = (rows, cols, fill = 1) => `{ rows: ${rows}, cols: ${cols}, data: new Float32Array(${rows} * ${cols}).fill(${fill}) }`;
export const CALLS = [
  ['posenc', 'table(16, 2 ** 24)'],
  ['posenc', 'table(2 ** 24, 16)'],
  ['posenc', 'table(2 ** 14, 2 ** 14)'],
  ['posenc', 'frequencies(2 ** 24)'],
  ['posenc', `gram(${M(2 ** 13, 2 ** 14)})`],
  ['posenc', `gram(${M(2 ** 14, 2 ** 13)})`],
  ['posenc', 'tableGram(2 ** 13, 16)'],
  ['posenc', 'rotation(1, 11584)'],
  ['posenc', `attention(${M(2 ** 13, 64)}, ${M(2 ** 13, 64)}, ${M(2 ** 13, 64)})`],
  ['posenc/variants', 'ropeFrequencies(2 ** 24)'],
  ['posenc/variants', 'ropeCache(2 ** 24, 8)'],
  ['posenc/variants', 'ropeCache(8, 2 ** 24)'],
  ['posenc/variants', `ropeApply(${M(2 ** 12, 2 ** 14)})`],
  ['posenc/variants', `ropePermute(${M(2 ** 12, 2 ** 14)})`],
  ['posenc/variants', 'ropePermutation(2 ** 24)'],
  ['posenc/variants', 'alibiBias(16, 2 ** 12, { kLen: 2 ** 12 })'],
  ['posenc/variants', 't5Bucket(Float64Array.from({ length: 2 ** 24 }, (_, i) => i - 2 ** 23))'],
  ['posenc/variants', 't5BucketMatrix(16384)'],
  ['posenc/variants', 'shawClip(16384)'],
  ['posenc/variants', 'learnedTable(16, 2 ** 24)'],
  ['posenc/variants', 'learnedRows(new Float64Array(2 ** 24), 4, 16)'],
  ['posenc/variants', 'binaryTable(2 ** 22, 64)'],
  ['posenc/variants', 'roundTo(new Float64Array(2 ** 24).fill(0.1), "float16")'],
  ['posenc/variants', 'formatBits(new Float64Array(2 ** 24).fill(0.1), "bfloat16")'],
  ['posenc/variants', 'precisionError(512)'],
  ['posenc/variants', 'precisionError(2 ** 24, { count: 2 })'],
];

const entry = { posenc: '../dist/lib/posenc.js', 'posenc/variants': '../dist/lib/variants.js' };

function child(mod, call) {
  const url = new URL(entry[mod], import.meta.url).href;
  const code = `
    const api = await (await import(${JSON.stringify(url)})).init();
    const before = api.memoryStats().bytes;
    const t0 = performance.now();
    let error = null;
    try { api.${call}; } catch (e) { error = e.message; }
    const ms = performance.now() - t0;
    console.log(JSON.stringify({ ms, before, after: api.memoryStats().bytes, error }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '--max-old-space-size=8192', '-e', code], { encoding: 'utf8', timeout: 600_000 });
  try {
    return JSON.parse(r.stdout.trim().split('\n').pop());
  } catch {
    return { error: `child failed: ${(r.stderr || '').trim().split('\n').pop()}` };
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const filter = process.argv[2] ?? '';
  console.log('| call | time | wasm memory after |');
  console.log('|---|---|---|');
  for (const [mod, call] of CALLS.filter(([, c]) => c.includes(filter))) {
    const r = child(mod, call);
    const mib = (b) => `${(b / 2 ** 20).toFixed(0)} MiB`;
    const time = r.ms === undefined ? '' : r.ms >= 1000 ? `${(r.ms / 1000).toFixed(1)} s` : `${r.ms.toFixed(0)} ms`;
    console.log(`| \`${call}\` | ${time} | ${r.after ? mib(r.after) : ''}${r.error ? ` (refused: ${r.error})` : ''} |`);
  }
}
