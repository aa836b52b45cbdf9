// The benchmark's operations, sizes and contenders. Each case builds its
// float64 reference once, then times every contender (median after warm-up)
// and measures each result's maximum absolute error against the reference.
import { measure, maxAbsError, maxRelError, randomMatrix } from './measure.mjs';
import * as C from './contenders.mjs';

export const FULL_SIZES = {
  table: [[128, 64], [2048, 512], [8192, 1024]],
  tableGram: [[2048, 512], [4096, 512]],
  gram: [[1024, 512], [2048, 512]],
  // [batch, query heads, key/value heads, sequence, head dim]: grouped-query, causal.
  attention: [[2, 8, 2, 256, 64]],
};

/** Why a contender could not run, or null when it can. */
function tfReason(tfState, backend) {
  if (!tfState || !tfState.tf) return tfState?.backends?.[backend] ?? 'TensorFlow.js not loaded';
  const state = tfState.backends[backend];
  return state === true ? null : state;
}

function tfRunner(tfState, backend, body) {
  return async () => {
    await tfState.tf.setBackend(backend);
    return body(tfState.tf);
  };
}

/**
 * The contenders of one case: { name, run, warm?, slow? }. `slow` ones (seconds
 * a run) get 3 repetitions and warm up on a 256-row input (`warm`).
 */
function contenders(op, size, pe, tfState, options) {
  const [a, b] = size;
  const count = op === 'table' ? a * b : op === 'attention' ? options.attentionCount : a * a;
  const w = Math.min(a, 256); // rows of the warm-up input of slow contenders
  const list = [];
  if (op === 'attention') {
    const x = options.attention;
    list.push({ name: 'posenc', posenc: true, run: () => pe.attention(x.q, x.k, x.v, { causal: true }).output.data });
    list.push({ name: 'posenc, 2-D attention per (batch, head)', posenc: true, run: () => C.posencAttentionPerHead(pe, x) });
    list.push({ name: 'tfjs cpu', tf: 'cpu', slow: true, run: (tf) => C.tfAttention(tf, x) });
    list.push({ name: 'tfjs wasm', tf: 'wasm', run: (tf) => C.tfAttention(tf, x) });
  } else if (op === 'table') {
    list.push({ name: 'posenc', posenc: true, run: () => pe.table(a, b).data });
    list.push({ name: 'JS, seeds (pow in loop)', run: () => C.jsSeedsTable(a, b) });
    list.push({ name: 'JS, frequencies hoisted', run: () => C.jsHoistedTable(a, b) });
    list.push({ name: 'tfjs cpu', tf: 'cpu', run: (tf) => C.tfTable(tf, a, b) });
    list.push({ name: 'tfjs wasm', tf: 'wasm', run: (tf) => C.tfTable(tf, a, b) });
  } else if (op === 'tableGram') {
    list.push({ name: 'posenc', posenc: true, run: () => pe.tableGram(a, b).data });
    list.push({ name: 'posenc, brute force gram(table)', posenc: true, run: () => pe.gram(pe.table(a, b)).data });
    list.push({ name: 'JS, seeds (table + triple loop)', slow: true, run: () => C.jsSeedsTableGram(a, b), warm: () => C.jsSeedsTableGram(w, b) });
    list.push({ name: 'JS, hoisted (table + symmetric Gram)', slow: true, run: () => C.jsTunedTableGram(a, b), warm: () => C.jsTunedTableGram(w, b) });
    list.push({ name: 'JS, Toeplitz profile (posenc\'s algorithm)', run: () => C.jsToeplitzTableGram(a, b) });
    list.push({ name: 'tfjs cpu', tf: 'cpu', slow: true, run: (tf) => C.tfTableGram(tf, a, b), warm: (tf) => C.tfTableGram(tf, w, b) });
    list.push({ name: 'tfjs wasm', tf: 'wasm', slow: true, run: (tf) => C.tfTableGram(tf, a, b), warm: (tf) => C.tfTableGram(tf, w, b) });
  } else {
    const m = options.matrix;
    const small = { rows: w, cols: m.cols, data: m.data.subarray(0, w * m.cols) };
    list.push({ name: 'posenc', posenc: true, run: () => pe.gram(m).data });
    list.push({ name: 'JS, seeds (triple loop)', slow: true, run: () => C.jsSeedsGram(m), warm: () => C.jsSeedsGram(small) });
    list.push({ name: 'JS, tuned (symmetric, float64)', slow: true, run: () => C.jsTunedGram(m), warm: () => C.jsTunedGram(small) });
    list.push({ name: 'tfjs cpu', tf: 'cpu', slow: true, run: (tf) => C.tfGram(tf, m), warm: (tf) => C.tfGram(tf, small) });
    list.push({ name: 'tfjs wasm', tf: 'wasm', slow: true, run: (tf) => C.tfGram(tf, m), warm: (tf) => C.tfGram(tf, small) });
    list.push({ name: 'tfjs cpu, transpose first', tf: 'cpu', slow: true, run: (tf) => C.tfGram(tf, m, true), warm: (tf) => C.tfGram(tf, small, true) });
    list.push({ name: 'tfjs wasm, transpose first', tf: 'wasm', slow: true, run: (tf) => C.tfGram(tf, m, true), warm: (tf) => C.tfGram(tf, small, true) });
  }
  list.push({ name: 'memory floor (new Float32Array + fill)', floor: true, run: () => C.floor(count) });
  for (const c of list) {
    if (c.tf) {
      const reason = tfReason(tfState, c.tf);
      if (reason) c.skip = reason;
      else {
        c.run = tfRunner(tfState, c.tf, c.run);
        if (c.warm) c.warm = tfRunner(tfState, c.tf, c.warm);
      }
    }
  }
  return list.filter((c) => !options.only || options.only(c.name));
}

/**
 * Runs one case. Returns { op, size, results: [{ name, ms, times, reps,
 * maxAbsError, memory?, skip? }], extra } where extra holds case-specific checks.
 */
export async function runCase(op, size, { pe, tfState, only, log = () => {}, budgetMs = 3000 } = {}) {
  const [a, b] = size;
  const options = { only };
  let reference;
  if (op === 'table') reference = C.referenceTable(a, b);
  else if (op === 'tableGram') reference = C.referenceTableGram(a, b);
  else if (op === 'attention') {
    options.attention = C.attentionInputs(size, randomMatrix);
    const [batch, heads, , seq, dim] = size;
    options.attentionCount = batch * heads * seq * (seq + dim); // the weights and the output
    reference = C.referenceAttention(options.attention);
  }
  else {
    options.matrix = randomMatrix(a, b);
    reference = C.referenceGram(options.matrix);
  }
  const results = [];
  for (const c of contenders(op, size, pe, tfState, options)) {
    if (c.skip) {
      results.push({ name: c.name, skip: c.skip });
      log(`  ${c.name}: not run (${c.skip})`);
      continue;
    }
    const m = await measure(c.run, c.slow ? { minReps: 3, maxReps: 3, warmup: c.warm } : { budgetMs });
    const r = { name: c.name, ms: m.ms, times: m.times, reps: m.times.length };
    if (!c.floor) r.maxAbsError = maxAbsError(m.result, reference);
    if (c.posenc) r.memory = pe.memoryStats();
    if (c.floor) r.floor = true;
    results.push(r);
    log(`  ${c.name}: ${m.ms.toFixed(2)} ms (median of ${r.reps})${r.maxAbsError !== undefined ? `, max error ${r.maxAbsError.toExponential(2)}` : ''}`);
  }
  const extra = {};
  if (op === 'table') {
    // The target's accuracy clause: positions up to 65535.
    const offset = 65536 - a;
    extra.highPositions = { offset, maxAbsError: maxAbsError(pe.table(a, b, { offset }).data, C.referenceTable(a, b, offset)) };
  } else if (op === 'tableGram') {
    const brute = pe.gram(pe.table(a, b, { dtype: 'float64' })).data;
    extra.vsBruteForce = { maxRelError: maxRelError(pe.tableGram(a, b).data, brute) };
  }
  return { op, size, results, extra };
}
