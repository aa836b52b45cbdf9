// What <pe-lab> trains and tests by default, apart from the element so that
// bench/lab.mjs can time the same work in Node (no DOM here).

// copy and reverse stay in posenc/lab but not here: at the trained length they
// need ~1500 steps on 17-token examples (docs/lab.md), several times the
// widget's time budget, and a model that has not learned a task in range says
// nothing about length.
export const TASKS = ['who-did-what', 'shift', 'recency'];
export const LENGTHS = { 'who-did-what': [3, 6], shift: [3, 16], recency: [2, 12] };
// Randomized positions (Ruoss et al. 2023): each training example's positions
// are a sorted sample below this range, which covers every test length here.
export const RANDOM_RANGE = 64;
// The default run: every encoding with positions passes 95% training accuracy
// on who-did-what by step 225 and has levelled off by 300 (bench/lab-browser.mjs
// reports the steps), so 300 steps show the whole story at three quarters of
// the cost of the 400 this used to be.
export const DEFAULT_STEPS = 300;
// Fresh examples per test length and seed: evaluating 256 took a quarter of
// the default run (bench/lab.mjs); 128 keeps a who-did-what point's standard
// error under 4.5 points, and the seed ranges show the spread that remains.
export const EVAL_SAMPLES = 128;
/** Test lengths: the longest trained, then up to 3-5 times it. */
export function testLengths(task) {
  const hi = LENGTHS[task][1];
  const top = hi * (task === 'who-did-what' ? 4 : task === 'recency' ? 5 : 3);
  // the longest trained length (in-range accuracy), then five lengths past it
  // (new positions): evaluation costs a fifth to a quarter of a run, so few but spread.
  const out = new Set([hi]);
  for (let i = 1; i <= 5; i++) out.add(Math.round(hi + (top - hi) * i / 5));
  return [...out];
}

