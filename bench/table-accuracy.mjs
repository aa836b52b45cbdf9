// The float64 table's largest error over a row (d_model 512, vaswani) at
// positions across the whole allowed range, against bench/table-accuracy.py
// (exact sin/cos of position × the core's own frequencies, tests/golden/hp.py).
// Prints one line per position; docs/limits.md quotes the result.
//
//   node bench/table-accuracy.mjs
import { execFileSync } from 'node:child_process';
import { init } from '../web/lib/index.js';

const POSITIONS = [0, 255, 4095, 65535, 1e6, 2 ** 24 - 1, 2 ** 31 - 256];
const pe = await init();
const frequencies = Array.from(pe.frequencies(512, { dtype: 'float64' }));
const exact = JSON.parse(execFileSync('python3', [new URL('table-accuracy.py', import.meta.url).pathname],
  { input: JSON.stringify({ positions: POSITIONS, frequencies }), maxBuffer: 2 ** 26 }));
for (const p of POSITIONS) {
  // 256 rows from p - 255 (when allowed) end on p, so p is the row furthest from an anchor.
  const start = Math.max(0, p - 255);
  const t = pe.table(p - start + 1, 512, { offset: start, dtype: 'float64' });
  const row = t.data.subarray((p - start) * 512);
  let worst = 0;
  row.forEach((v, i) => { worst = Math.max(worst, Math.abs(v - exact[p][i])); });
  console.log(`position ${p}: max |error| ${worst.toExponential(2)}`);
}
