// A decode loop as a JS demo of a language model runs one, for one layer:
// at each step the new token's query and key are rotated by RoPE at its
// position (read from the model's config.json, here Llama 3.2 1B's, with its
// llama3 frequency scaling), its key and value join the KV cache, and the
// query attends over the cache with grouped-query heads (32 query heads share
// 8 key/value heads). The cache is posenc's kvCache, kept in WebAssembly
// memory, so a step copies in only its new rows; no S × S weights are formed.
// Queries, keys and values are seeded stand-ins for the projections a real
// model would compute from its weights.
//
//   node examples/decode-loop.mjs [steps]
import { init as initCore } from 'posenc';
import { init as initVariants } from 'posenc/variants';

// The parts of Llama 3.2 1B's published config.json that position and attention read.
export const CONFIG = {
  model_type: 'llama',
  hidden_size: 2048,
  num_attention_heads: 32,
  num_key_value_heads: 8,
  head_dim: 64,
  max_position_embeddings: 131072,
  rope_theta: 500000.0,
  rope_scaling: { factor: 32.0, low_freq_factor: 1.0, high_freq_factor: 4.0, original_max_position_embeddings: 8192, rope_type: 'llama3' },
};

/** Seeded numbers in [-1, 1) (mulberry32), so every run sees the same tokens. */
export function stream(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * 2 - 1;
  };
}

/**
 * Runs `steps` decode steps. Returns each step's raw q, k, v (before RoPE, so
 * a check can recompute everything), the attention output of each step
 * ([1, heads, 1, headDim] as a Float32Array), the frequencies posenc read,
 * and posenc's live allocations once the cache is freed (0).
 */
export async function run(steps = 256, seed = 7) {
  const [pe, pv] = await Promise.all([initCore(), initVariants()]);
  const heads = CONFIG.num_attention_heads;
  const kvHeads = CONFIG.num_key_value_heads;
  const d = CONFIG.head_dim;
  const rope = pv.ropeFromConfig(CONFIG);
  const next = stream(seed);
  const fill = (n) => Float32Array.from({ length: n }, next);
  // The KV cache lives in posenc's WebAssembly memory: a step copies in its new key and value rows and its queries only.
  const cache = pe.kvCache({ heads: kvHeads, headDim: d, maxLength: steps });
  const record = { q: [], k: [], v: [], outputs: [], invFreq: rope.invFreq, attentionFactor: rope.attentionFactor };
  try {
    for (let t = 0; t < steps; t++) {
      const q = fill(heads * d);
      const k = fill(kvHeads * d);
      const v = fill(kvHeads * d);
      record.q.push(q);
      record.k.push(k);
      record.v.push(v);
      // RoPE at position t, computed from the config (its head_dim, pairing and scaling).
      const qr = pv.ropeApply({ data: q, shape: [1, heads, 1, d] }, { config: CONFIG, offset: t });
      const kr = pv.ropeApply({ data: k, shape: [1, kvHeads, 1, d] }, { config: CONFIG, offset: t });
      cache.append(kr, { data: v, shape: [1, kvHeads, 1, d] });
      // The newest token may attend to every cached one, itself included: no mask needed.
      record.outputs.push(cache.attend(qr).data);
    }
  } finally {
    cache.free();
  }
  record.liveAllocations = pe.memoryStats().liveAllocations;
  return record;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const steps = Number(process.argv[2] ?? 256);
  const r = await run(steps);
  const last = r.outputs[r.outputs.length - 1];
  let sum = 0;
  for (const x of last) sum += x;
  console.log(`${steps} steps of Llama 3.2 1B's RoPE and grouped-query attention: last output sums to ${sum.toFixed(6)}`);
}
