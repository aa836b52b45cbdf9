// <pe-lab>: trains the tiny Transformer of posenc/lab, one model per chosen
// encoding, and draws live loss and accuracy curves, then accuracy on new
// positions against test length with a table of in-range accuracy and the
// probe (lab-metrics.js), and the attention maps of a sentence the reader
// types. What it trains by default is lab-defaults.js. It is a
// PeWidget like the others: its attributes (the ATTRS table) are parsed,
// observed and written by its controls; it fires pe-render; data-state is its
// run (idle, training, trained, stopped, error). lab-runner.js says where it
// trains: one model per encoding and seed, on as many trainers as the
// browser has cores. A Train click before the first render (the button is
// there from the start) waits for it. Token text is user input: only ever textContent.
import { PeWidget } from './base.js';
import { el } from './dom.js';
import { lineChart, lineSet, setSeries } from './charts.js';
import { bool, int, oneOf, words, parseAll } from './attrs.js';
import { vocabulary, splitWords, chance } from '../lib/lab/tasks.js';
import { startPool, poolSize } from './lab-runner.js';
import { combineSeeds } from './lab-evaluate.js';
import { newPositionSets, summaryTable, legendWithoutRanges, describeCharts } from './lab-metrics.js';
import { TASKS, LENGTHS, RANDOM_RANGE, DEFAULT_STEPS, EVAL_SAMPLES, testLengths } from './lab-defaults.js';

const ENCODINGS = ['none', 'sinusoidal', 'learned', 'rope', 'alibi', 't5'];
const ATTENTION = ['bidirectional', 'causal'];
const SENTENCES = { 'who-did-what': { en: 'Ann hits Bob ?', zh: '我 打 你 ？' }, shift: '3 1 4 1 5 9 2 6',
  recency: { en: 'Ann today Bob also again Cy really', zh: '我 今天 你 也 又 他 真' } };
const HEADS = 4;
const REDRAW_MS = 250;

/**
 * The attributes, one row each: the parser (attrs.js; embed.html validates
 * with the same spec) and the control that writes the attribute. A task or an
 * option added to the lab is a row here (or a word in a row's list).
 * d-model is a multiple of 2 × HEADS: the API needs whole heads, and RoPE an even width per head.
 * The ranges are the widget's choice, inside the lab API's (c/lab/posenc_lab.h): small
 * enough to train in a page in seconds.
 */
const ATTRS = {
  task: { spec: oneOf(TASKS, 'who-did-what'), label: 'lab_task', kind: 'select', words: TASKS, prefix: 'lab_task_' },
  attention: { spec: oneOf(ATTENTION, 'bidirectional'), label: 'lab_attention', kind: 'select', words: ATTENTION, prefix: 'lab_attention_' },
  encodings: { spec: words(ENCODINGS, ENCODINGS), label: 'lab_encodings', kind: 'checkboxes', words: ENCODINGS, prefix: 'lab_enc_' },
  'd-model': { spec: int(16, 64, 32, 2 * HEADS), label: 'lab_dModel', kind: 'number', props: { min: 16, max: 64, step: 2 * HEADS } },
  layers: { spec: int(1, 4, 2), label: 'lab_layers', kind: 'number', props: { min: 1, max: 4, step: 1 } },
  steps: { spec: int(25, 20000, DEFAULT_STEPS), label: 'lab_steps', kind: 'number', props: { min: 25, max: 20000, step: 25 } },
  seeds: { spec: int(1, 3, 1), label: 'lab_seeds', kind: 'number', props: { min: 1, max: 3, step: 1 } },
  bos: { spec: bool(false), label: 'lab_bos', kind: 'checkbox' },
  randomized: { spec: bool(false), label: 'lab_randomized', kind: 'checkbox' },
};

export class PeLab extends PeWidget {
  static spec = Object.fromEntries(Object.entries(ATTRS).map(([name, a]) => [name, a.spec]));
  static titleKey = 'lab_title';
  static aspect = 2.2;

  constructor() {
    super();
    // Train, Stop and Reset exist before the first render, which loads the
    // module: a click on Train then is remembered and starts the run once the
    // lab has drawn (render), instead of being lost.
    const button = (onclick) => el('button', { type: 'button', onclick });
    this.trainBtn = button(() => this.train());
    this.stopBtn = button(() => this.stop(true));
    this.resetBtn = button(() => this.reset());
    this.stopBtn.disabled = this.resetBtn.disabled = true;
    this.trainBtn.textContent = this.tl('train'); // in the page's language from the first render on (relabel)
    this.stopBtn.textContent = this.tl('stop');
    this.resetBtn.textContent = this.tl('reset');
    this.controlsEl.append(this.trainBtn, this.stopBtn, this.resetBtn);
    for (const k of ['trainBtn', 'stopBtn', 'resetBtn']) this.kept.add(k);
  }

  /** The lab's words: the lab_ keys of strings/en.json and zh.json. */
  tl(key, vars) {
    return this.t(`lab_${key}`, vars);
  }

  /** data-state: the run, not the drawing. */
  state() {
    return this.runState ?? 'idle';
  }

  /** Moves the run to a new state, announced as the other widgets announce a draw. */
  setRun(state, status) {
    this.runState = state;
    if (status) this.status = status;
    this.showStatus();
    if (this.renders) {
      this.dataset.state = state;
      this.announce(state === 'error' ? this.statusText() : undefined);
    }
  }

  statusText() {
    const [key, vars] = this.status ?? ['idle', {}];
    return key === 'summary' ? this.summary() : this.tl(key, vars);
  }

  showStatus() {
    if (!this.statusEl) return;
    this.statusEl.textContent = [this.statusText(), this.where === 'page' ? this.tl('inPage') : ''].filter(Boolean).join(this.gap());
    const busy = this.runState === 'training';
    this.trainBtn.disabled = busy;
    this.stopBtn.disabled = !busy;
    this.resetBtn.disabled = false;
  }

  async render(api, v) {
    this.controls(v);
    await this.parts();
    this.relabel();
    this.redraw();
    this.showStatus();
    this.data = () => ({
      header: ['encoding', 'step', 'loss', 'accuracy'],
      rows: [...this.curves].flatMap(([k, c]) => c.loss.map((p, i) => [k, p.x, p.y, c.accuracy[i]?.y])),
    });
    if (this.trainQueued) {
      this.trainQueued = false;
      setTimeout(() => this.train()); // after refresh() has finished this render and set data-state
    }
  }

  /** A control per row of ATTRS, each writing its attribute. */
  controls(v) {
    for (const [name, a] of Object.entries(ATTRS)) {
      if (a.kind === 'select') this.control(name, a.label, v[name], { kind: 'select', options: a.words.map((w) => [w, `${a.prefix}${w}`]) });
      else if (a.kind === 'number') this.control(name, a.label, v[name], { kind: 'number', ...a.props });
      else if (a.kind === 'checkbox') this.control(name, a.label, v[name], { kind: 'checkbox' });
      else this.checkboxes(name, a, v[name]);
    }
  }

  /** A group of checkboxes that together write one comma-separated attribute. */
  checkboxes(name, a, chosen) {
    this.ctl ??= {};
    let c = this.ctl[name];
    if (!c) {
      const boxes = a.words.map((w) => el('input', { type: 'checkbox', value: w }));
      const names = a.words.map(() => el('span'));
      const write = () => {
        const on = boxes.filter((b) => b.checked).map((b) => b.value);
        if (on.length) this.setAttribute(name, on.join(','));
        else this.setRun(this.runState ?? 'idle', ['noEncoding', {}]);
      };
      for (const b of boxes) b.addEventListener('change', write);
      c = this.ctl[name] = { boxes, names, label: el('span', { class: 'lbl' }) };
      this.controlsEl.append(el('span', { role: 'group' }, c.label, ...boxes.map((b, i) => el('label', {}, b, names[i]))));
    }
    c.label.textContent = this.t(a.label);
    c.boxes.forEach((b, i) => {
      b.checked = chosen.includes(b.value);
      c.names[i].textContent = this.t(`${a.prefix}${b.value}`);
    });
  }

  /** What the lab draws into, made once per connection (release() drops them); one chart per task (base.js, pause). */
  async parts() {
    this.curves ??= new Map(); // encoding -> { loss, accuracy, byLength (new positions), inRange, fresh, probe }
    this.lossChart ??= lineChart(this.newCanvas(), { aspect: 2.2 });
    await this.pause();
    this.accChart ??= lineChart(this.newCanvas(), { aspect: 2.2, yExtra: { min: 0, max: 1 } });
    await this.pause();
    if (!this.lenChart) {
      this.lenChart = lineChart(this.newCanvas(), { aspect: 2.2, yExtra: { min: 0, max: 1 } });
      legendWithoutRanges(this.lenChart);
    }
    this.controlsEl.append(this.trainBtn, this.stopBtn, this.resetBtn); // after the controls, every render
    if (this.progress) return;
    this.progress = el('progress', { max: 1, value: 0, class: 'lab-all' });
    this.statusEl = el('p', { role: 'status', class: 'note' });
    this.mapModel = el('select');
    this.sentence = el('input', { type: 'text', size: 28, maxlength: 120 });
    this.showBtn = el('button', { type: 'button', onclick: () => this.showMaps() });
    this.mapsEl = el('div', { class: 'maps' });
    Object.assign(this.mapsEl.style, { display: 'flex', flexWrap: 'wrap', gap: '0.5em' });
    this.mapsNote = el('p', { class: 'caption' });
    this.mapLabels = [el('span', { class: 'lbl' }), el('span', { class: 'lbl' })];
    this.bars = el('div', { class: 'lab-bars' }); // a progress bar per model
    this.newCaption = el('p', { class: 'caption' });
    this.summaryEl = el('div', { class: 'tables' });
    this.columnsNote = el('p', { class: 'caption' }); // what the table's short column titles mean
    this.leftOut = el('p', { class: 'note' });
    this.chartsEl.before(this.progress, this.bars, this.statusEl);
    this.extraEl.append(this.newCaption, this.summaryEl, this.columnsNote, this.leftOut,
      el('div', { class: 'controls' }, el('label', {}, this.mapLabels[0], this.mapModel),
        el('label', {}, this.mapLabels[1], this.sentence), this.showBtn),
      this.mapsNote, this.mapsEl);
    this.sentenceTask = null;
  }

  /** Every word in the element's language, so a language switch mid-run only changes words. */
  relabel() {
    this.trainBtn.textContent = this.tl('train');
    this.stopBtn.textContent = this.tl('stop');
    this.resetBtn.textContent = this.tl('reset');
    this.showBtn.textContent = this.tl('show');
    this.mapLabels[0].textContent = this.tl('model');
    this.mapLabels[1].textContent = this.tl('sentence');
    this.newCaption.textContent = this.tl('newCaption');
    this.leftOut.textContent = this.tl('leftOut');
    for (const label of this.bars.children) label.firstChild.textContent = this.tl(`enc_${label.dataset.encoding}`);
    for (const o of this.mapModel.options) o.textContent = this.tl(`enc_${o.value}`);
    const task = this.values.task;
    if (this.sentenceTask !== `${task}/${this.language}`) {
      const s = SENTENCES[task];
      this.sentence.value = typeof s === 'string' ? s : s[this.language];
      this.sentenceTask = `${task}/${this.language}`;
    }
    if (this.mapsData) this.drawMaps(this.mapsData);
  }

  /** The options of one training run, from the attributes as they are when Train is pressed. */
  options(v) {
    return { task: v.task, attention: v.attention, dModel: v['d-model'], heads: HEADS, layers: v.layers, steps: v.steps,
      seed: 1, trainLengths: LENGTHS[v.task], progressEvery: 25, bos: v.bos, randomizedPositions: v.randomized ? RANDOM_RANGE : 0 };
  }

  async train() {
    if (!this.summaryEl) {
      // Not drawn yet (before the first render, during it while it pauses
      // between its charts, or released far off screen): render() starts it.
      // summaryEl is made with the other parts after render()'s last pause.
      this.trainQueued = true;
      this.trainBtn.disabled = true;
      return;
    }
    // The attributes as they are now: a change made just before the click may not have rendered yet.
    const { values: v, errors } = parseAll(PeLab.spec, (n) => this.getAttribute(n));
    if (errors.length) return;
    const encodings = v.encodings;
    this.stop();
    this.curves.clear();
    this.mapModel.replaceChildren();
    this.mapsEl.replaceChildren();
    this.mapsData = null;
    this.trained = this.options(v);
    this.runId = (this.runId ?? 0) + 1;
    const id = this.runId;
    const generation = this.generation;
    this.progress.value = 0;
    const seeds = v.seeds;
    this.shares = new Map(encodings.map((k) => [k, new Array(seeds).fill(0)])); // each model's share done
    this.barOf = new Map(encodings.map((k) => [k, el('progress', { max: 1, value: 0, 'aria-label': this.tl(`enc_${k}`) })]));
    this.bars.replaceChildren(...encodings.map((k) => el('label', { 'data-encoding': k }, el('span', {}, this.tl(`enc_${k}`)), this.barOf.get(k))));
    this.summaryEl.replaceChildren();
    this.setRun('training', ['training', { encoding: this.tl(`enc_${encodings[0]}`), step: 0, steps: this.trained.steps, loss: '–', accuracy: '–' }]);
    this.redraw();
    // one job per encoding and seed, encodings first, so that they finish in order
    const common = { type: 'train', id, seeds, lengths: testLengths(this.trained.task), samples: EVAL_SAMPLES };
    const jobs = encodings.flatMap((encoding) => Array.from({ length: seeds }, (_, seedIndex) =>
      ({ ...common, run: { ...this.trained, encoding }, seedIndex })));
    const runner = await startPool(import.meta.url, poolSize(jobs.length), (m) => this.onMessage(m, id, encodings));
    // Stopped, removed or started again while the trainers loaded: this run is over.
    if (generation !== this.generation || id !== this.runId || this.runState !== 'training') return runner.terminate();
    this.runner = runner;
    this.where = runner.where;
    this.dataset.trainers = String(runner.size);
    this.showStatus();
    runner.run(id, jobs);
  }

  onMessage(m, id, encodings) {
    if (m.type === 'error' && (m.id === undefined || m.id === id)) return this.failed(m.message);
    if (m.id !== id || id !== this.runId || !this.curves) return;
    const c = this.curves.get(m.encoding) ?? { loss: [], accuracy: [], byLength: [], seedResults: [] };
    if (m.encoding) this.curves.set(m.encoding, c);
    const name = (k) => this.tl(`enc_${k}`);
    if (m.type === 'progress') {
      // seeds after the first train alike: the curves show the first, the bars all
      if (!m.seedIndex) {
        c.loss.push({ x: m.step, y: m.loss });
        c.accuracy.push({ x: m.step, y: m.accuracy });
      }
      this.advance(m.encoding, m.seedIndex, m.step / m.steps, encodings);
      this.status = ['training', { encoding: name(m.encoding), step: m.step, steps: m.steps,
        loss: m.loss.toFixed(3), accuracy: `${(100 * m.accuracy).toFixed(1)}%` }];
      this.showStatus();
      this.redrawSoon();
    } else if (m.type === 'done') {
      this.advance(m.encoding, m.seedIndex, 1, encodings);
      c.seedResults[m.seedIndex] = m.result;
      c.seconds = (c.seconds ?? 0) + m.seconds;
      if (m.seedIndex === 0) {
        c.model = m.model; // the one whose attention the maps show
        c.last = m.history.at(-1);
        this.addMapModel(m.encoding, encodings);
      }
      const seeds = this.shares.get(m.encoding).length;
      if (c.seedResults.filter(Boolean).length < seeds) return;
      Object.assign(c, combineSeeds(c.seedResults, this.trained));
      c.result = { steps: c.last.step, accuracy: c.last.accuracy, seconds: c.seconds };
      this.redraw();
    } else if (m.type === 'finished') {
      this.progress.value = 1;
      this.setRun('trained', ['summary', {}]);
      this.dispatchEvent(new CustomEvent('pe-lab-trained', { bubbles: true, composed: true }));
      this.showMaps();
    } else if (m.type === 'attention') {
      this.drawMaps(m);
    }
  }

  /** A model's share done: its encoding's bar shows its seeds' mean, the main bar every model's. */
  advance(encoding, seedIndex, part, encodings) {
    const parts = this.shares?.get(encoding);
    if (!parts) return;
    parts[seedIndex] = part;
    const bar = this.barOf.get(encoding);
    if (bar) bar.value = parts.reduce((a, b) => a + b, 0) / parts.length;
    const all = encodings.flatMap((k) => this.shares.get(k));
    this.progress.value = all.reduce((a, b) => a + b, 0) / all.length;
  }

  /** The attention maps' model list, in the encodings' order whatever order they finish in. */
  addMapModel(encoding, encodings) {
    const option = el('option', { value: encoding }, this.tl(`enc_${encoding}`));
    const after = [...this.mapModel.options].find((o) => encodings.indexOf(o.value) > encodings.indexOf(encoding));
    this.mapModel.insertBefore(option, after ?? null);
    if (this.mapModel.options.length === 1) this.mapModel.value = encoding;
  }

  /** One sentence per trained model, in the element's current language. */
  summary() {
    // in the encodings' order, not the order their trainers finished in
    return ENCODINGS.map((k) => [k, this.curves.get(k)]).filter(([, c]) => c?.result).map(([k, c]) => this.tl('trained', { encoding: this.tl(`enc_${k}`),
      steps: c.result.steps, accuracy: `${(100 * c.result.accuracy).toFixed(1)}%`, seconds: c.result.seconds.toFixed(1) })).join(this.gap());
  }

  /** What goes between two sentences: a space in English, nothing after a Chinese full stop. */
  gap() {
    return this.language === 'zh' ? '' : ' ';
  }

  failed(message) {
    this.stopRunner();
    this.setRun('error', ['failed', { message }]);
  }

  /** Ends the run's trainer; by the user's Stop button, the curves so far stay and the state says stopped. */
  stop(byUser = false) {
    const was = this.runState;
    this.stopRunner();
    this.runId = (this.runId ?? 0) + 1; // a trainer still loading for the old run is dropped
    if (was === 'training') this.setRun('stopped', byUser ? ['stopped', {}] : undefined);
  }

  stopRunner() {
    this.runner?.terminate();
    this.runner = null;
    clearTimeout(this.frame);
    this.frame = 0;
  }

  reset() {
    this.stop();
    this.curves.clear();
    this.progress.value = 0;
    this.bars.replaceChildren();
    this.summaryEl.replaceChildren();
    this.mapsEl.replaceChildren();
    this.mapsNote.textContent = '';
    this.mapModel.replaceChildren();
    this.mapsData = null;
    this.setRun('idle', ['idle', {}]);
    this.redraw();
  }

  /** Removal, or release off screen, ends the run: a re-added lab starts idle, with nothing training behind it. */
  release() {
    this.stopRunner();
    this.progress?.remove();
    this.bars?.remove();
    this.statusEl?.remove();
    delete this.dataset.maps;
    super.release();
  }

  /** A lab with a run (going, or its results on screen) keeps it when scrolled far away. */
  setFar() {
    if (!this.curves?.size && this.runState !== 'training') super.setFar();
  }

  /** An impossible attribute stops a run, so that no hidden run finishes behind the message. */
  fail(text) {
    this.stopRunner();
    if (this.runState === 'training') this.runState = 'stopped';
    super.fail(text);
  }

  /**
   * While models train: the loss and accuracy curves, at most every
   * REDRAW_MS. The page's thread shares the cores with the trainers, and a
   * redraw per progress report (a dozen per model) cost it more than a
   * second of a default run; the rest waits for each model's done.
   */
  redrawSoon() {
    if (this.frame) return;
    const wait = Math.max(0, (this.drawnAt ?? -Infinity) + REDRAW_MS - performance.now());
    this.frame = setTimeout(() => {
      this.frame = 0;
      this.drawnAt = performance.now();
      this.redrawCurves();
    }, wait);
  }

  /** With the same curves as last time, only their points grew (lineSet keeps the arrays): an update draws them. */
  redrawCurves(full = false) {
    if (!this.lossChart) return;
    const name = (k) => this.tl(`enc_${k}`);
    const shown = ENCODINGS.filter((k) => this.curves.get(k)?.loss.length);
    if (!full && shown.join() === this.curvesShown) {
      this.lossChart.update('none');
      this.accChart.update('none');
      return;
    }
    this.curvesShown = shown.join();
    const sets = (key) => shown.map((k) => lineSet(name(k), this.curves.get(k)[key], ENCODINGS.indexOf(k)));
    setSeries(this.lossChart, sets('loss'), { x: this.tl('step'), y: this.tl('loss') });
    setSeries(this.accChart, sets('accuracy'), { x: this.tl('step'), y: this.tl('accuracy') });
  }

  redraw() {
    if (!this.lossChart) return;
    const name = (k) => this.tl(`enc_${k}`);
    const task = this.trained?.task ?? this.values.task;
    const [lo, hi] = LENGTHS[task];
    this.redrawCurves(true);
    const words = { min: this.tl('min'), max: this.tl('max'), chance: this.tl('chance'), chanceValue: chance(task) };
    setSeries(this.lenChart, newPositionSets(this.curves, ENCODINGS, name, words), { x: this.tl('length', { lo, hi }), y: this.tl('lengthAccuracy') });
    const rows = ENCODINGS.filter((k) => this.curves.get(k)?.inRange).map((k) => ({ name: name(k), ...this.curves.get(k) }));
    // Short column titles (at phone width long ones pushed the probe column out of the box); the note below says what they mean.
    const at = rows.find((r) => r.fresh)?.fresh.length;
    const headers = [this.tl('encodings'), this.tl('inRange', { hi }), this.tl('newAt', { n: at ?? '–' }), this.tl('probe')];
    this.summaryEl.replaceChildren(...(rows.length ? [summaryTable(headers, rows)] : []));
    this.columnsNote.textContent = rows.length ? this.tl(rows.some((r) => r.probe) ? 'columnsProbe' : 'columns', { hi, n: at ?? '–' }) : '';
    describeCharts([[this.lossChart, 'loss', 'loss'], [this.accChart, 'accuracy', 'accuracy'], [this.lenChart, 'byLength', 'lengthAccuracy']],
      this.curves, ENCODINGS, (k, vars) => this.tl(k, vars));
  }

  showMaps() {
    const encoding = this.mapModel.value;
    if (!encoding || !this.runner || !this.trained) return;
    const { ids, at } = splitWords(this.trained.task, this.sentence.value);
    if (!ids || !ids.length) {
      this.mapsAsked = ''; // an answer still on its way for the sentence before is not drawn over this note
      this.mapsNote.textContent = this.tl('unknownWord', { rest: this.sentence.value.slice(Math.max(at, 0), Math.max(at, 0) + 8),
        words: vocabulary(this.trained.task, this.language).join(' ') });
      this.mapsEl.replaceChildren();
      return;
    }
    // a model trained with a start token reads every sentence after one
    const tokens = [...(this.trained.bos ? [vocabulary(this.trained.task, 'en', true).length - 1] : []), ...ids].slice(0, 24);
    const model = this.curves.get(encoding)?.model;
    if (!model) return;
    this.mapsAsked = String(tokens);
    this.runner.attention({ type: 'attention', id: this.runId, model, tokens });
  }

  drawMaps(m) {
    if (String(m.tokens) !== this.mapsAsked) return; // the answer to a sentence asked before the last one
    this.mapsData = m;
    const { shape: [layers, heads, n], data } = m;
    const words = vocabulary(this.trained.task, this.language, this.trained.bos);
    const labels = m.tokens.map((i) => words[i]); // the tokens of this answer, not of the latest request
    const maps = [];
    for (let l = 0; l < layers; l++) {
      for (let h = 0; h < heads; h++) {
        const caption = this.tl('layerHead', { l: l + 1, h: h + 1 });
        const canvas = attentionMap(labels, data.subarray(((l * heads) + h) * n * n, ((l * heads) + h + 1) * n * n), n);
        canvas.setAttribute('aria-label', caption);
        maps.push(el('figure', {}, canvas, el('figcaption', {}, caption)));
      }
    }
    this.mapsNote.textContent = this.tl('mapsCaption');
    this.mapsEl.replaceChildren(...maps);
    this.dataset.maps = String(maps.length);
  }
}

/** One head's n × n attention weights as a canvas, tokens along both edges. */
function attentionMap(labels, weights, n) {
  const cell = Math.max(10, Math.min(28, Math.floor(200 / n)));
  const pad = 36;
  const canvas = el('canvas', { width: pad + n * cell, height: pad + n * cell });
  const g = canvas.getContext('2d');
  g.font = '10px sans-serif';
  g.fillStyle = '#333';
  for (let i = 0; i < n; i++) {
    g.fillText(labels[i], 2, pad + i * cell + cell * 0.7, pad - 4);
    g.save();
    g.translate(pad + i * cell + cell * 0.7, pad - 3);
    g.rotate(-Math.PI / 2);
    g.fillText(labels[i], 0, 0, pad - 4);
    g.restore();
  }
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      g.fillStyle = `rgba(51, 88, 196, ${weights[i * n + j].toFixed(3)})`;
      g.fillRect(pad + j * cell, pad + i * cell, cell - 1, cell - 1);
    }
  }
  return canvas;
}
