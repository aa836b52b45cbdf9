// The targets, evaluated on measured results. The same function judges
// the full-size run (reported) and the reduced CI run (asserted), with the
// thresholds passed in, so both read one definition.
import { SIZE_BUDGET_BYTES } from './size.mjs';

export const FULL_THRESHOLDS = {
  tableVsFloor: 2, // posenc table at most 2x the memory floor
  tableVsHoisted: 3, // and at least 3x faster than hoisted JS
  tableError: 1e-6, // max abs error, positions < 65536
  tableGramVsFloor: 3, // Toeplitz Gram at most 3x the floor
  tableGramVsBrute: 1e-4, // relative agreement with the brute-force Gram
  gramVsTfWasm: 1.5, // arbitrary Gram at least 1.5x faster than tfjs-wasm
};

const find = (c, name) => c.results.find((r) => r.name === name);
const floorOf = (c) => c.results.find((r) => r.floor);

/** [{ target, met, detail }] for the cases given (cases the run did not include are left out). */
export function evaluateTargets(cases, { table, tableGram, gram }, t = FULL_THRESHOLDS, size = null) {
  const out = [];
  const pick = (op, s) => cases.find((c) => c.op === op && c.size[0] === s[0] && c.size[1] === s[1]);
  const ct = table && pick('table', table);
  if (ct) {
    const p = find(ct, 'posenc'), f = floorOf(ct), h = find(ct, 'JS, frequencies hoisted');
    const label = `${ct.size[0]}x${ct.size[1]}`;
    if (p && f) out.push({ target: `table ${label}: posenc <= ${t.tableVsFloor}x memory floor`, met: p.ms <= t.tableVsFloor * f.ms, detail: `${(p.ms / f.ms).toFixed(2)}x (${p.ms.toFixed(2)} ms vs ${f.ms.toFixed(2)} ms)` });
    if (p && h) out.push({ target: `table ${label}: posenc >= ${t.tableVsHoisted}x faster than hoisted JS`, met: h.ms >= t.tableVsHoisted * p.ms, detail: `${(h.ms / p.ms).toFixed(2)}x (${h.ms.toFixed(2)} ms vs ${p.ms.toFixed(2)} ms)` });
    if (p) {
      const e = Math.max(p.maxAbsError, ct.extra.highPositions.maxAbsError);
      out.push({ target: `table ${label}: max error <= ${t.tableError} for positions < 65536`, met: e <= t.tableError, detail: `${e.toExponential(2)} (positions 0..${ct.size[0] - 1}: ${p.maxAbsError.toExponential(2)}, ${ct.extra.highPositions.offset}..65535: ${ct.extra.highPositions.maxAbsError.toExponential(2)})` });
    }
  }
  const cg = tableGram && pick('tableGram', tableGram);
  if (cg) {
    const p = find(cg, 'posenc'), f = floorOf(cg);
    const label = `${cg.size[0]}x${cg.size[1]}`;
    if (p && f) out.push({ target: `table Gram ${label}: posenc <= ${t.tableGramVsFloor}x memory floor`, met: p.ms <= t.tableGramVsFloor * f.ms, detail: `${(p.ms / f.ms).toFixed(2)}x (${p.ms.toFixed(2)} ms vs ${f.ms.toFixed(2)} ms)` });
    const e = cg.extra.vsBruteForce.maxRelError;
    out.push({ target: `table Gram ${label}: agrees with brute force within ${t.tableGramVsBrute} relative`, met: e <= t.tableGramVsBrute, detail: e.toExponential(2) });
  }
  const ca = gram && pick('gram', gram);
  if (ca) {
    const p = find(ca, 'posenc');
    const label = `${ca.size[0]}x${ca.size[1]}`;
    // tfjs-wasm written two ways: the obvious matMul(x, x, false, true), and
    // matMul(x, transpose(x)), which is >10x faster on that backend.
    for (const [name, how] of [['tfjs wasm', 'matMul(x, x, false, true)'], ['tfjs wasm, transpose first', 'matMul(x, transpose(x))']]) {
      const w = find(ca, name);
      if (!p || !w) continue;
      const target = `gram ${label}: posenc >= ${t.gramVsTfWasm}x faster than tfjs-wasm ${how}`;
      if (w.skip) out.push({ target, met: false, detail: `tfjs-wasm could not run: ${w.skip}` });
      else out.push({ target, met: w.ms >= t.gramVsTfWasm * p.ms, detail: `${(w.ms / p.ms).toFixed(2)}x (${w.ms.toFixed(1)} ms vs ${p.ms.toFixed(1)} ms)` });
    }
  }
  if (size) {
    out.push({ target: `size: wasm + JS API < ${SIZE_BUDGET_BYTES} bytes gzipped`, met: size.gzip < SIZE_BUDGET_BYTES, detail: `${size.gzip} bytes` });
  }
  return out;
}
