// examples/decode-loop.mjs (issue 24): 256 decode steps of Llama 3.2 1B's
// RoPE (llama3 scaling, from its config.json) and grouped-query attention over
// a growing KV cache, checked step by step against a float64 reference written
// here from the published formulas (HF's _compute_llama3_parameters and
// rotate_half, softmax(q k^T / sqrt(d)) v), not from posenc.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { run, CONFIG } from '../examples/decode-loop.mjs';

const ROOT = join(import.meta.dirname, '..');

/** Llama 3.1's frequency bands, in float64. */
function llama3InvFreq(c) {
  const d = c.head_dim, s = c.rope_scaling;
  const lowWave = s.original_max_position_embeddings / s.low_freq_factor;
  const highWave = s.original_max_position_embeddings / s.high_freq_factor;
  return Array.from({ length: d / 2 }, (_, i) => {
    const f = c.rope_theta ** (-2 * i / d);
    const wave = 2 * Math.PI / f;
    if (wave < highWave) return f;
    if (wave > lowWave) return f / s.factor;
    const smooth = (s.original_max_position_embeddings / wave - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
    return (1 - smooth) * f / s.factor + smooth * f;
  });
}

/** rotate_half RoPE of one head vector at position `pos`. */
function rotate(x, pos, invFreq) {
  const h = x.length / 2;
  const y = new Float64Array(x.length);
  for (let i = 0; i < h; i++) {
    const c = Math.cos(pos * invFreq[i]), s = Math.sin(pos * invFreq[i]);
    y[i] = x[i] * c - x[i + h] * s;
    y[i + h] = x[i + h] * c + x[i] * s;
  }
  return y;
}

test('256 decode steps agree with a float64 reference to float32 rounding (1e-5), at every step and head', async () => {
  const steps = 256;
  const r = await run(steps);
  const heads = CONFIG.num_attention_heads, kv = CONFIG.num_key_value_heads, d = CONFIG.head_dim;
  const invFreq = llama3InvFreq(CONFIG);
  // posenc read the config as the formula does (float64 rounding).
  invFreq.forEach((f, i) => assert.ok(Math.abs(r.invFreq[i] - f) <= 1e-15 * f + 1e-300, `invFreq[${i}] ${r.invFreq[i]} vs ${f}`));
  assert.equal(r.attentionFactor, 1);
  const keys = [], values = [];
  let worst = 0;
  for (let t = 0; t < steps; t++) {
    keys.push(Array.from({ length: kv }, (_, h) => rotate(r.k[t].subarray(h * d, (h + 1) * d), t, invFreq)));
    values.push(Array.from({ length: kv }, (_, h) => r.v[t].subarray(h * d, (h + 1) * d)));
    for (let h = 0; h < heads; h++) {
      const g = Math.floor(h / (heads / kv));
      const q = rotate(r.q[t].subarray(h * d, (h + 1) * d), t, invFreq);
      const scores = keys.map((k) => k[g].reduce((a, x, j) => a + x * q[j], 0) / Math.sqrt(d));
      const top = Math.max(...scores);
      const w = scores.map((s) => Math.exp(s - top));
      const z = w.reduce((a, b) => a + b, 0);
      for (let j = 0; j < d; j++) {
        const want = w.reduce((a, wi, i) => a + wi * values[i][g][j], 0) / z;
        worst = Math.max(worst, Math.abs(r.outputs[t][h * d + j] - want));
      }
    }
  }
  assert.ok(worst <= 1e-5, `largest difference ${worst}`);
  assert.equal(r.liveAllocations, 0, 'the KV cache was freed');
  // Not a constant: later steps attend over more keys and give other outputs.
  assert.notDeepEqual(r.outputs[0], r.outputs[steps - 1]);
});

test('examples/decode-loop.mjs runs from the command line', () => {
  const p = spawnSync(process.execPath, [join(ROOT, 'examples/decode-loop.mjs'), '16'], { encoding: 'utf8', cwd: ROOT });
  assert.equal(p.status, 0, p.stderr);
  assert.match(p.stdout, /^16 steps of Llama 3\.2 1B's RoPE and grouped-query attention: last output sums to -?\d+\.\d{6}\n$/);
});
