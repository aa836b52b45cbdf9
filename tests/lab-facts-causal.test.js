// The PE lab's facts with causal attention (see lab-facts.test.js, which
// holds the bidirectional ones): who-did-what without positions (Haviv et
// al. 2022), shift on new positions, and the start token (Kazemnejad et al.
// 2023). The reduced form of bench/lab-papers.mjs, with margins far from
// docs/lab.md's three-seed ranges and from what the opposite claim predicts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { train, acc } from './helpers/lab-facts.js';

test('causal attention learns who-did-what without any position encoding (Haviv et al. 2022)', () => {
  const model = train('whoCausal', { encoding: 'none' });
  const accuracy = Math.min(...[3, 6].map((length) => acc(model, { length })));
  assert.ok(accuracy >= 0.95, `causal none reached only ${accuracy}`);
});

test('shift, new positions: RoPE carries to 32, sinusoidal and learned fall to near chance; whole-sequence accuracy hides it', () => {
  // shift trained on lengths 3-16; at 32, 16 of the 30 answers sit at new positions (3 seeds:
  // sinusoidal new 0.13-0.23, learned ~0.15, RoPE 0.95 or more; chance 0.1)
  const at32 = {};
  for (const encoding of ['rope', 'sinusoidal', 'learned']) {
    const model = train('shift', { encoding });
    assert.ok(acc(model, { length: 16 }) >= 0.95, `${encoding} did not learn shift`);
    at32[encoding] = { fresh: acc(model, { length: 32, positions: 'new' }), all: acc(model, { length: 32 }) };
  }
  assert.ok(at32.rope.fresh >= 0.9, `rope at 32: ${at32.rope.fresh}`);
  for (const encoding of ['sinusoidal', 'learned']) {
    const { fresh, all } = at32[encoding];
    assert.ok(fresh <= 0.35, `${encoding} at 32, new positions: ${fresh}`);
    // the answers at trained positions are right: all ~ (14 + 16 fresh) / 30
    assert.ok(all - fresh >= 0.25, `${encoding} at 32: all ${all}, new ${fresh}`);
  }
});

test('a start token lets causal attention without positions learn shift (Kazemnejad et al. 2023)', () => {
  // shift in range, causal none: without bos ~0.43 at 1000 steps; with bos far above
  const steps = 600;
  const plain = acc(train('shift', { encoding: 'none', steps }), { length: 16 });
  const bos = acc(train('shift', { encoding: 'none', steps, bos: true }), { length: 16 });
  assert.ok(plain <= 0.5, `without bos: ${plain}`);
  assert.ok(bos >= 0.6, `with bos: ${bos}`);
});
