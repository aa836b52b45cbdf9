// What the PE lab exists to show, reproduced by training with fixed seeds.
// The margins are wide: each bound sits far from both the measured values
// (docs/lab.md lists them per seed) and the values the opposite claim predicts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
// The release module only (float32, as the widget trains): these facts are
// about what training learns, not about the debug build's C assertions, and
// ten trainings of -O1 float64 would double the suite's ~70 s of CPU. The
// debug module's float64 arithmetic is checked by tests/lab-gradients.test.js.
import { init } from '../dist/lib/lab.js';

const lab = await init();
const REAL = ['sinusoidal', 'learned', 'rope', 'alibi', 't5'];
const who = (encoding, attention) => {
  const { model } = lab.train({ task: 'who-did-what', encoding, attention, steps: 600, seed: 1 });
  // lengths 3 and 6: the shortest and longest trained
  const acc = [3, 6].map((length) => lab.evaluate(model, { length, samples: 1024, seed: 2 }).accuracy);
  return Math.min(...acc);
};

test('bidirectional attention without positions stays at chance on who-did-what', () => {
  // Without positions the output at the query is the same for "X hits Y" and
  // "Y hits X": at best one of each pair is right, so ~50% (1024 samples: sd 1.6%).
  const accuracy = who('none', 'bidirectional');
  assert.ok(accuracy <= 0.6, `none reached ${accuracy}`);
});

for (const encoding of REAL) {
  test(`bidirectional attention with ${encoding} positions learns who-did-what (>= 95%)`, () => {
    const accuracy = who(encoding, 'bidirectional');
    assert.ok(accuracy >= 0.95, `${encoding} reached only ${accuracy}`);
  });
}

test('causal attention learns who-did-what without any position encoding (Kazemnejad et al. 2023)', () => {
  const accuracy = who('none', 'causal');
  assert.ok(accuracy >= 0.95, `causal none reached only ${accuracy}`);
});

test('length generalisation on shift (causal, trained on lengths 3-16): RoPE carries to 36, absolute encodings do not', () => {
  const at36 = {};
  for (const encoding of ['rope', 'sinusoidal', 'learned']) {
    const { model } = lab.train({ task: 'shift', encoding, attention: 'causal', steps: 1000, seed: 1, trainLengths: [3, 16] });
    assert.ok(lab.evaluate(model, { length: 16, samples: 256, seed: 3 }).accuracy >= 0.95, `${encoding} did not learn shift`);
    at36[encoding] = lab.evaluate(model, { length: 36, samples: 256, seed: 3 }).accuracy;
  }
  assert.ok(at36.rope >= 0.9, `rope at 36: ${at36.rope}`);
  assert.ok(at36.sinusoidal <= 0.75, `sinusoidal at 36: ${at36.sinusoidal}`);
  assert.ok(at36.learned <= 0.75, `learned at 36: ${at36.learned}`);
});
