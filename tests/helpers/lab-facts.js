// What tests/lab-facts*.test.js share: the release module (float32, as the
// widget trains: these facts are about what training learns, not about the
// debug build's C assertions; tests/lab-gradients.test.js checks the debug
// module's float64 arithmetic), training with bench/lab-papers.mjs's
// settings at seed 1, and accuracy on 512 fresh examples (evaluation seed 2).
// The facts are two files so that the test runner can run them side by side.
import { init } from '../../dist/lib/lab.js';
import { SETTINGS } from '../../bench/lab-papers.mjs';

export const lab = await init();
export const REAL = ['sinusoidal', 'learned', 'rope', 'alibi', 't5'];
const SAMPLES = 512;
export const train = (setting, options) => lab.train({ ...SETTINGS[setting].options, seed: 1, ...options }).model;
export const acc = (model, options) => lab.evaluate(model, { samples: SAMPLES, seed: 2, ...options }).accuracy;
