// What the PE lab exists to show, reproduced by training with fixed seeds: the
// reduced form of bench/lab-papers.mjs (its settings, one seed, fewer
// encodings). The margins are wide: each bound sits far from both the value
// measured over three seeds (docs/lab.md's table, quoted beside each bound)
// and the value the opposite claim predicts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
// The release module only (float32, as the widget trains): these facts are
// about what training learns, not about the debug build's C assertions. The
// debug module's float64 arithmetic is checked by tests/lab-gradients.test.js.
import { init } from '../dist/lib/lab.js';
import { SETTINGS } from '../bench/lab-papers.mjs';

const lab = await init();
const REAL = ['sinusoidal', 'learned', 'rope', 'alibi', 't5'];
const SAMPLES = 512;
const train = (setting, options) => lab.train({ ...SETTINGS[setting].options, seed: 1, ...options }).model;
const acc = (model, options) => lab.evaluate(model, { samples: SAMPLES, seed: 2, ...options }).accuracy;

const who = Object.fromEntries(['none', ...REAL].map((encoding) => [encoding, train('who', { encoding })]));

test('bidirectional attention without positions stays at chance on who-did-what', () => {
  // Without positions the output at the query is the same for "X hits Y" and
  // "Y hits X": at best one of each pair is right, so ~50% (512 samples: sd 2.2%).
  const accuracy = Math.min(...[3, 6].map((length) => acc(who.none, { length })));
  assert.ok(accuracy <= 0.6, `none reached ${accuracy}`);
});

for (const encoding of REAL) {
  test(`bidirectional attention with ${encoding} positions learns who-did-what in range (>= 95%)`, () => {
    const accuracy = Math.min(...[3, 6].map((length) => acc(who[encoding], { length })));
    assert.ok(accuracy >= 0.95, `${encoding} reached only ${accuracy}`);
  });
}

test('the probe: bidirectional ALiBi answers "the name farther from the query", sinusoidal and RoPE follow word order', () => {
  // reversed sentences, query first; scored by the name before the verb
  // (3 seeds: ALiBi 0.00, sinusoidal and RoPE 0.9 or more; farther-name rule: 0)
  const probe = (encoding) => acc(who[encoding], { length: 6, probe: 'reversed' });
  assert.ok(probe('alibi') <= 0.15, `alibi ${probe('alibi')}`);
  for (const encoding of ['sinusoidal', 'rope']) assert.ok(probe(encoding) >= 0.7, `${encoding} ${probe(encoding)}`);
});

test('randomized positions (Ruoss et al. 2023) carry learned positions past the trained lengths', () => {
  // who-did-what, new positions at 24 (3 seeds: learned 0.5 or so, randomized 0.95 or more)
  const randomized = train('who', { encoding: 'learned', randomizedPositions: 64 });
  assert.ok(acc(randomized, { length: 6 }) >= 0.95, 'learned with randomized positions learns the task');
  const plain = acc(who.learned, { length: 24, positions: 'new' });
  const random = acc(randomized, { length: 24, positions: 'new' });
  assert.ok(plain <= 0.75, `plain learned at 24: ${plain}`);
  assert.ok(random >= 0.85, `randomized learned at 24: ${random}`);
});

test('causal attention learns who-did-what without any position encoding (Haviv et al. 2022)', () => {
  const model = train('whoCausal', { encoding: 'none' });
  const accuracy = Math.min(...[3, 6].map((length) => acc(model, { length })));
  assert.ok(accuracy >= 0.95, `causal none reached only ${accuracy}`);
});

test('recency: ALiBi carries the nearest-name rule to 5x the trained length, absolute encodings do not (Press et al. 2021)', () => {
  // new positions at 64 (3 seeds: ALiBi 0.70-0.82, sinusoidal 0.22-0.30, learned 0.20-0.22; chance 0.125)
  const at64 = Object.fromEntries(['alibi', 'sinusoidal', 'learned'].map((encoding) => {
    const model = train('recency', { encoding });
    assert.ok(acc(model, { length: 12 }) >= 0.9, `${encoding} did not learn recency in range`);
    return [encoding, acc(model, { length: 64, positions: 'new' })];
  }));
  assert.ok(at64.alibi >= 0.6, `alibi at 64: ${at64.alibi}`);
  assert.ok(at64.sinusoidal <= 0.45 && at64.learned <= 0.45, JSON.stringify(at64));
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
