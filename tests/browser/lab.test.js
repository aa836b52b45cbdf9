// <pe-lab> in Chromium: it trains in its workers (one per core) while the
// page stays responsive, draws curves, accuracy against length and attention
// maps, with the numbers Node gets for the same seeds; the worker's training
// is byte-identical to Node's; a Train click before the first render starts
// the run once the widget has drawn.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { open, newPage } from './harness.js';
import { init } from '../../dist/lib/lab.js';
import { evaluateRun } from '../../web/widgets/lab-evaluate.js';
import { testLengths, EVAL_SAMPLES } from '../../web/widgets/lab-defaults.js';

let h;
before(async () => { h = await open(); });
after(async () => { await h?.close(); });

const RUN = { task: 'who-did-what', encoding: 'rope', attention: 'causal', steps: 60, seed: 3, dModel: 16, heads: 2,
  trainLengths: [3, 6], progressEvery: 20 };

test('the lab worker trains byte-identically to Node for the same seed', async () => {
  const lab = await init();
  const mine = lab.train(RUN);
  const { page, errors, context } = await newPage(h.browser);
  try {
    await page.goto(h.url('index.html'));
    const theirs = await page.evaluate(async (run) => {
      const worker = new Worker('lab-worker.js', { type: 'module' });
      const done = await new Promise((resolve, reject) => {
        worker.onmessage = ({ data }) => {
          if (data.type === 'done') resolve(data);
          if (data.type === 'error') reject(new Error(data.message));
        };
        worker.postMessage({ type: 'train', id: 1, run, seedIndex: 0, seeds: 1, lengths: [], samples: 1 });
      });
      worker.terminate();
      const p = done.model.params;
      const digest = await crypto.subtle.digest('SHA-256', new Uint8Array(p.buffer, p.byteOffset, p.byteLength));
      return { history: done.history, sha: [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('') };
    }, RUN);
    const p = mine.model.params;
    assert.equal(theirs.sha, createHash('sha256').update(new Uint8Array(p.buffer, p.byteOffset, p.byteLength)).digest('hex'));
    assert.deepEqual(theirs.history, mine.history);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('<pe-lab> trains on a worker per core, the page stays responsive, Node gets its numbers, and it draws maps', async () => {
  const { page, errors, context } = await newPage(h.browser);
  try {
    await page.goto(h.url('index.html'));
    const lab = page.locator('#w-lab');
    await lab.scrollIntoViewIfNeeded();
    // its first render done (data-state set): a click before it would start a run that render drops
    await page.waitForFunction(() => document.querySelector('#w-lab').dataset.state);
    await page.evaluate(() => {
      const w = document.querySelector('#w-lab');
      const root = w.shadowRoot;
      // Attributes are what the controls write: the run takes them when Train is pressed.
      w.setAttribute('encodings', 'none,sinusoidal');
      w.setAttribute('steps', '100');
      w.setAttribute('seeds', '3');
      // Counts main-thread timer callbacks while the worker trains.
      window.ticks = 0;
      window.ticker = setInterval(() => { if (w.dataset.state === 'training') window.ticks++; }, 20);
      [...root.querySelectorAll('button')][0].click();
    });
    await page.waitForFunction(() => document.querySelector('#w-lab').dataset.state === 'trained', null, { timeout: 120000 });
    const result = await page.evaluate(() => {
      clearInterval(window.ticker);
      const w = document.querySelector('#w-lab');
      const numbers = [...w.curves].map(([k, c]) => [k, { byLength: c.byLength, inRange: c.inRange, fresh: c.fresh, probe: c.probe }]);
      const sets = w.lenChart.data.datasets;
      const root = w.shadowRoot;
      return { numbers, run: w.trained, trainers: Number(w.dataset.trainers), cores: navigator.hardwareConcurrency, ticks: window.ticks, status: root.querySelector('p[role=status]').textContent,
        lengthPoints: sets.slice(0, -1).map((d) => d.data.length), lossSets: w.lossChart.data.datasets.length,
        chance: sets.at(-1).data.map((p) => p.y), newLengths: sets[0].data.map((p) => p.x),
        bars: [...root.querySelectorAll('.lab-bars progress')].map((b) => b.value),
        table: [...root.querySelectorAll('table.lab-summary tr')].map((tr) => [...tr.children].map((c) => c.textContent)) };
    });
    assert.ok(result.ticks > 0, 'the page ran timers while the model trained');
    // 2 encodings x 3 seeds: a trainer per core, up to 4
    assert.equal(result.trainers, Math.min(result.cores, 4, 6));
    // whichever trainer trained which model, the numbers are Node's for the same seeds
    const node = await init();
    for (const [encoding, numbers] of result.numbers) {
      const run = { ...result.run, encoding };
      const models = [0, 1, 2].map((k) => node.train({ ...run, seed: run.seed + k }).model);
      assert.deepEqual(numbers, evaluateRun(node, models, run, testLengths(run.task), EVAL_SAMPLES), encoding);
    }
    assert.equal(result.lossSets, 2);
    // new positions only: the test lengths past the longest trained (6), up to 24
    assert.deepEqual(result.newLengths, [10, 13, 17, 20, 24]);
    assert.ok(result.lengthPoints.every((n) => n === 5), JSON.stringify(result.lengthPoints));
    // two means, and the min and max of 3 seeds where they differ; then the chance line at 1/2
    assert.ok(result.lengthPoints.length >= 4 && result.lengthPoints.length % 2 === 0, JSON.stringify(result.lengthPoints));
    assert.deepEqual(result.chance, [0.5, 0.5]);
    assert.deepEqual(result.bars, [1, 1], 'one progress bar per model, full');
    // header, none, sinusoidal: in range, new positions, the probe; 3 seeds give [min, max]
    assert.equal(result.table.length, 3, JSON.stringify(result.table));
    assert.equal(result.table[0].length, 4);
    assert.match(result.table[2][1], /^\d\.\d\d( \[\d\.\d\d, \d\.\d\d\])?$/);
    await page.waitForFunction(() => Number(document.querySelector('#w-lab').dataset.maps) === 8, null, { timeout: 30000 });
    // Show twice: a sentence, then at once a word the task does not know. The first answer, arriving after the
    // second Show, is not drawn over the "unknown word" note (it was, rightly labelled, milliseconds later).
    const stale = await page.evaluate(async () => {
      const w = document.querySelector('#w-lab');
      const answered = new Promise((resolve) => {
        const draw = w.drawMaps;
        w.drawMaps = (m) => (draw.call(w, m), resolve());
      });
      w.sentence.value = w.sentence.value.split(' ').slice(0, 2).join(' ');
      w.showMaps();
      w.sentence.value = 'zzz';
      w.showMaps();
      await answered;
      delete w.drawMaps;
      return { maps: w.mapsEl.children.length, note: w.mapsNote.textContent };
    });
    assert.equal(stale.maps, 0, stale.note);
    assert.match(stale.note, /zzz/);
    assert.match(result.status, /100/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('<pe-lab> embeds like the other widgets: embed.html?view=lab with its attributes', async () => {
  const { page, errors, context } = await newPage(h.browser);
  try {
    await page.goto(h.url('embed.html?view=lab&task=shift&attention=causal&lang=zh'));
    await page.waitForFunction(() => document.querySelector('pe-lab')?.dataset.state);
    const state = await page.evaluate(() => {
      const root = document.querySelector('pe-lab').shadowRoot;
      const [task, attention] = root.querySelectorAll('select');
      return { task: task.value, attention: attention.value, title: root.querySelector('.title').textContent };
    });
    assert.deepEqual({ task: state.task, attention: state.attention }, { task: 'shift', attention: 'causal' });
    assert.match(state.title, /位置编码实验室/);
    // its summary in Chinese: one sentence a model, joined without a space after 。
    await page.evaluate(() => {
      const lab = document.querySelector('pe-lab');
      lab.setAttribute('steps', '25');
      lab.setAttribute('encodings', 'none,rope');
    });
    await page.waitForFunction(() => document.querySelector('pe-lab').dataset.state === 'idle');
    await page.evaluate(() => document.querySelector('pe-lab').shadowRoot.querySelector('.controls button, button').click());
    await page.waitForFunction(() => document.querySelector('pe-lab').dataset.state === 'trained', null, { timeout: 120000 });
    const status = await page.evaluate(() => [...document.querySelector('pe-lab').shadowRoot.querySelectorAll('p[role=status]')].map((p) => p.textContent).join('|'));
    assert.equal(status.match(/。/g)?.length, 2, JSON.stringify(status));
    assert.doesNotMatch(status, /。\s/, status);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('<pe-lab>: Train clicked right after insertion, before the first render, starts the run once drawn', async () => {
  // The buttons exist from the start; the click is remembered until render() has made the curves.
  const { page, errors, context } = await newPage(h.browser);
  try {
    await page.goto(h.url('examples/blog.html'));
    const before = await page.evaluate(() => {
      const w = document.createElement('pe-lab');
      w.id = 'early';
      w.setAttribute('encodings', 'sinusoidal');
      w.setAttribute('steps', '50');
      document.querySelector('article').prepend(w);
      const train = w.shadowRoot.querySelector('button');
      train.click(); // no render has run yet: nothing is drawn
      return { state: w.dataset.state ?? null, drawn: Boolean(w.curves), disabled: train.disabled };
    });
    assert.deepEqual(before, { state: null, drawn: false, disabled: true });
    await page.waitForFunction(() => document.getElementById('early').dataset.state === 'trained', null, { timeout: 120000 });
    const after = await page.evaluate(() => {
      const w = document.getElementById('early');
      return { curves: [...w.curves.keys()], steps: w.curves.get('sinusoidal').loss.at(-1).x };
    });
    assert.deepEqual(after, { curves: ['sinusoidal'], steps: 50 });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('<pe-lab> at phone width: recency with the start token and randomized positions ticked trains what Node trains, and reads in order', { timeout: 240000 }, async () => {
  // The controls, not attributes set by the test: ticking the two boxes must reach the run (bos, randomizedPositions).
  // At 390 px each model's bar sits on its name's row (inline, a name and its bar wrapped apart), the table stays
  // inside its box (long column titles pushed the probe column out), and the summary follows the encodings' order.
  const { page, errors, context } = await newPage(h.browser, { width: 390, height: 844 });
  try {
    await page.goto(h.url('examples/blog.html'));
    const w = page.locator('#phone-lab');
    await page.evaluate(() => {
      const lab = document.createElement('pe-lab');
      lab.id = 'phone-lab';
      Object.entries({ task: 'recency', attention: 'causal', encodings: 'sinusoidal,learned,rope', steps: '50', 'd-model': '16', layers: '1', seeds: '2' })
        .forEach(([k, v]) => lab.setAttribute(k, v));
      document.querySelector('article').prepend(lab);
    });
    await w.scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.getElementById('phone-lab').dataset.state === 'idle');
    await page.evaluate(async () => {
      const lab = document.getElementById('phone-lab');
      const drawn = new Promise((resolve) => lab.addEventListener('pe-render', resolve, { once: true }));
      for (const name of ['bos', 'randomized']) {
        const box = lab.ctl[name].input;
        box.checked = true;
        box.dispatchEvent(new Event('change', { bubbles: true }));
      }
      await drawn;
      lab.shadowRoot.querySelector('button').click();
    });
    await page.waitForFunction(() => document.getElementById('phone-lab').dataset.state === 'trained', null, { timeout: 180000 });
    const seen = await page.evaluate(() => {
      const lab = document.getElementById('phone-lab');
      const root = lab.shadowRoot;
      const middle = (e) => { const r = e.getBoundingClientRect(); return (r.top + r.bottom) / 2; };
      const rows = [...root.querySelectorAll('.lab-bars label')].map((l) => [l.dataset.encoding,
        Math.abs(middle(l.querySelector('span')) - middle(l.querySelector('progress'))) < 4]);
      const tables = root.querySelector('.tables');
      return { run: lab.trained, rows, fits: tables.scrollWidth <= tables.clientWidth,
        numbers: [...lab.curves].map(([k, c]) => [k, { byLength: c.byLength, inRange: c.inRange, fresh: c.fresh, probe: c.probe }]),
        chance: lab.lenChart.data.datasets.at(-1).data.map((p) => p.y),
        header: [...root.querySelectorAll('table.lab-summary thead th')].map((th) => th.textContent),
        cells: [...root.querySelectorAll('table.lab-summary td')].map((td) => {
          const range = td.querySelector('.range');
          // a seed range on one line of its own (it used to break inside the brackets)
          const oneLine = !range || range.getBoundingClientRect().height <= 1.5 * parseFloat(getComputedStyle(range).lineHeight);
          return { text: td.textContent, range: Boolean(range), oneLine };
        }),
        columns: root.querySelector('.tables + .caption').textContent,
        summary: root.querySelector('p[role=status]').textContent };
    });
    assert.equal(seen.run.task, 'recency');
    assert.equal(seen.run.bos, true);
    assert.equal(seen.run.randomizedPositions, 64);
    const node = await init();
    for (const [encoding, numbers] of seen.numbers) {
      const run = { ...seen.run, encoding };
      const models = [0, 1].map((k) => node.train({ ...run, seed: run.seed + k }).model);
      assert.deepEqual(numbers, evaluateRun(node, models, run, testLengths(run.task), EVAL_SAMPLES), encoding);
    }
    assert.deepEqual(seen.chance, [0.125, 0.125], 'recency: one name in eight');
    assert.deepEqual(seen.rows, [['sinusoidal', true], ['learned', true], ['rope', true]]);
    assert.ok(seen.fits, 'the summary table fits its box at 390 px');
    for (const c of seen.cells) assert.match(c.text, /^\d\.\d\d( \[\d\.\d\d, \d\.\d\d\])?$/);
    assert.ok(seen.cells.some((c) => c.range), 'two seeds that differ give a range');
    assert.ok(seen.cells.every((c) => c.oneLine), JSON.stringify(seen.cells));
    // no probe on recency: three columns, explained below the table
    assert.deepEqual(seen.header, ['encodings', 'in range (12)', 'new (31)']);
    assert.match(seen.columns, /longest trained length, 12\. New: .* at length 31 \(twice that or more\)/);
    assert.doesNotMatch(seen.columns, /Probe/);
    const order = ['sinusoidal', 'learned', 'RoPE'].map((name) => seen.summary.indexOf(`${name}: training accuracy`));
    assert.ok(order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1])), seen.summary);
    // The widest table: who-did-what adds the probe column, with seed ranges in every column; it still fits at 390 px.
    const wide = await page.evaluate(async () => {
      const lab = document.getElementById('phone-lab');
      const drawn = new Promise((resolve) => lab.addEventListener('pe-render', resolve, { once: true }));
      lab.setAttribute('task', 'who-did-what');
      lab.setAttribute('attention', 'bidirectional');
      lab.setAttribute('encodings', 'sinusoidal,learned,rope,alibi,t5');
      await drawn;
      lab.shadowRoot.querySelector('button').click();
      await new Promise((resolve) => { const t = setInterval(() => lab.dataset.state === 'trained' && resolve(clearInterval(t)), 50); });
      const tables = lab.shadowRoot.querySelector('.tables');
      const table = tables.querySelector('table');
      return { fits: tables.scrollWidth <= tables.clientWidth, columns: table.rows[0].cells.length, ranges: table.querySelectorAll('.range').length };
    });
    assert.deepEqual({ fits: wide.fits, columns: wide.columns }, { fits: true, columns: 4 });
    assert.ok(wide.ranges >= 5, `${wide.ranges} cells with a seed range`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
