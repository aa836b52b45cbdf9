// <pe-lab>: trains the tiny Transformer of posenc/lab in a Web Worker, one
// model per chosen encoding, and draws live loss and accuracy curves, then
// accuracy on new positions against test length (lab-metrics.js) and the
// attention maps of a sentence the reader types. Attributes (all optional):
// task, attention, encodings (comma list), d-model, layers, steps, seeds, bos,
// randomized, lang. Token text is user input: only ever textContent.
import { adoptStyles } from './styles.js';
import { el, labelled } from './dom.js';
import { lineChart, lineSet, setSeries } from './charts.js';
import { translate } from './strings.js';
import { bool, int, oneOf, text } from './attrs.js';
import { vocabulary, splitWords, chance } from '../lib/lab/tasks.js';
import { newPositionSets, summaryTable, legendWithoutRanges } from './lab-metrics.js';
import { TASKS, LENGTHS, RANDOM_RANGE, DEFAULT_STEPS, EVAL_SAMPLES, testLengths } from './lab-defaults.js';

const ENCODINGS = ['none', 'sinusoidal', 'learned', 'rope', 'alibi', 't5'];
const SENTENCES = { 'who-did-what': { en: 'Ann hits Bob ?', zh: '我 打 你 ？' }, shift: '3 1 4 1 5 9 2 6',
  recency: { en: 'Ann today Bob also again Cy really', zh: '我 今天 你 也 又 他 真' } };
const MAX_STEPS = 20000;
// The worker's bundle sits beside the pages' bundles (dist/web/lab-worker.js);
// the tutorial loads this file as a chunk from dist/web/chunks/.
const WORKER_URL = new URL(import.meta.url.includes('/chunks/') ? '../lab-worker.js' : './lab-worker.js', import.meta.url);

/** A chart's own block (Chart.js sizes a canvas from its parent). Styles are set
 * through the DOM, which the page's CSP allows, not as style attributes. */
function box(canvas) {
  const div = el('div');
  Object.assign(div.style, { position: 'relative', width: '100%', marginBottom: '0.5em' });
  div.append(canvas);
  return div;
}

export class PeLab extends HTMLElement {
  /** The attributes, as the other widgets declare theirs (embed.html validates with it). */
  static spec = {
    task: oneOf(TASKS, 'who-did-what'),
    attention: oneOf(['bidirectional', 'causal'], 'bidirectional'),
    encodings: text(200, ENCODINGS.join(',')),
    'd-model': int(16, 64, 32),
    layers: int(1, 4, 2),
    steps: int(25, MAX_STEPS, DEFAULT_STEPS),
    seeds: oneOf(['1', '3'], '1'),
    bos: bool(false),
    randomized: bool(false),
  };

  static get observedAttributes() { return ['lang']; }

  constructor() {
    super();
    this.root = this.attachShadow({ mode: 'open' });
    adoptStyles(this.root);
    this.runId = 0;
    this.curves = new Map(); // encoding -> { loss, accuracy, byLength (new positions), inRange, fresh, probe }
  }

  get lang() {
    const own = this.getAttribute('lang') ?? this.closest('[lang]')?.getAttribute('lang') ?? 'en';
    return own.toLowerCase().startsWith('zh') ? 'zh' : 'en';
  }

  /** The lab's words: the lab_ keys of strings/en.json and zh.json. */
  t(key, vars) { return translate(this.lang, `lab_${key}`, vars); }

  attr(name, allowed, fallback) {
    const v = this.getAttribute(name);
    return allowed.includes(v) ? v : fallback;
  }

  connectedCallback() {
    if (!this.built) this.build();
  }

  attributeChangedCallback() {
    if (this.built) this.build();
  }

  disconnectedCallback() {
    this.stop();
  }

  build() {
    this.built = true;
    const task = this.attr('task', TASKS, 'who-did-what');
    const wanted = (this.getAttribute('encodings') ?? ENCODINGS.join(',')).split(',').map((s) => s.trim());
    const intAttr = (name, min, max, def) => {
      const v = Number(this.getAttribute(name) ?? def);
      return Number.isInteger(v) && v >= min && v <= max ? v : def;
    };
    this.taskSel = el('select', { onchange: () => this.resetSentence() },
      ...TASKS.map((k) => el('option', { value: k, selected: k === task }, this.t(`task_${k}`))));
    this.attSel = el('select', {}, ...['bidirectional', 'causal'].map((k) =>
      el('option', { value: k, selected: k === this.attr('attention', ['bidirectional', 'causal'], 'bidirectional') }, this.t(`attention_${k}`))));
    this.encBoxes = ENCODINGS.map((k) => el('input', { type: 'checkbox', value: k, checked: wanted.includes(k) }));
    this.dSel = el('select', {}, ...[16, 32, 64].map((d) => el('option', { value: d, selected: d === intAttr('d-model', 16, 64, 32) }, String(d))));
    this.layerSel = el('select', {}, ...[1, 2, 3, 4].map((n) => el('option', { value: n, selected: n === intAttr('layers', 1, 4, 2) }, String(n))));
    this.seedsSel = el('select', {}, ...[1, 3].map((n) => el('option', { value: n, selected: String(n) === (this.getAttribute('seeds') ?? '1') }, String(n))));
    this.bosBox = el('input', { type: 'checkbox', checked: this.hasAttribute('bos') });
    this.randBox = el('input', { type: 'checkbox', checked: this.hasAttribute('randomized') });
    this.bars = el('div', { class: 'lab-bars' });
    this.summary = el('div', { class: 'tables' });
    this.stepsIn = el('input', { type: 'number', min: 25, max: MAX_STEPS, step: 25, value: intAttr('steps', 25, MAX_STEPS, DEFAULT_STEPS) });
    this.trainBtn = el('button', { type: 'button', onclick: () => this.train() }, this.t('train'));
    this.stopBtn = el('button', { type: 'button', onclick: () => this.stop(true), disabled: true }, this.t('stop'));
    this.resetBtn = el('button', { type: 'button', onclick: () => this.reset() }, this.t('reset'));
    this.progress = el('progress', { max: 1, value: 0 });
    this.status = el('p', { role: 'status', class: 'note' }, this.t('idle'));
    const encs = el('span', {}, ...this.encBoxes.map((b, i) => el('label', {}, b, this.t(`enc_${ENCODINGS[i]}`))));
    const lossCanvas = el('canvas');
    const accCanvas = el('canvas');
    const lenCanvas = el('canvas');
    this.mapModel = el('select');
    this.sentence = el('input', { type: 'text', size: 28, maxlength: 120 });
    this.mapsEl = el('div', { class: 'maps' });
    Object.assign(this.mapsEl.style, { display: 'flex', flexWrap: 'wrap', gap: '0.5em' });
    this.mapsNote = el('p', { class: 'caption' });
    this.root.replaceChildren(el('div', { class: 'pe' },
      el('p', { class: 'title' }, this.t('title')),
      el('div', { class: 'controls' },
        labelled(this.t('task'), this.taskSel).label, labelled(this.t('attention'), this.attSel).label,
        el('span', { class: 'lbl' }, this.t('encodings')), encs,
        labelled(this.t('dModel'), this.dSel).label, labelled(this.t('layers'), this.layerSel).label,
        labelled(this.t('steps'), this.stepsIn).label, labelled(this.t('seeds'), this.seedsSel).label,
        el('label', {}, this.bosBox, this.t('bos')), el('label', {}, this.randBox, this.t('randomized')),
        this.trainBtn, this.stopBtn, this.resetBtn),
      this.progress, this.bars, this.status,
      el('div', { class: 'charts' }, ...[lossCanvas, accCanvas, lenCanvas].map(box)),
      el('p', { class: 'caption' }, this.t('newCaption')), this.summary,
      el('p', { class: 'note' }, this.t('leftOut')),
      el('div', { class: 'controls' }, labelled(this.t('model'), this.mapModel).label,
        labelled(this.t('sentence'), this.sentence).label,
        el('button', { type: 'button', onclick: () => this.showMaps() }, this.t('show'))),
      this.mapsNote, this.mapsEl));
    for (const c of this.charts ?? []) c.destroy();
    this.lossChart = lineChart(lossCanvas, { x: this.t('step'), y: this.t('loss'), aspect: 2.2 });
    this.accChart = lineChart(accCanvas, { x: this.t('step'), y: this.t('accuracy'), aspect: 2.2, yExtra: { min: 0, max: 1 } });
    this.lenChart = lineChart(lenCanvas, { x: '', y: this.t('lengthAccuracy'), aspect: 2.2, yExtra: { min: 0, max: 1 } });
    legendWithoutRanges(this.lenChart);
    this.charts = [this.lossChart, this.accChart, this.lenChart];
    this.resetSentence();
    this.redraw();
    this.dataset.state = 'idle';
  }

  resetSentence() {
    const s = SENTENCES[this.taskSel.value];
    this.sentence.value = typeof s === 'string' ? s : s[this.lang];
  }

  options() {
    const task = this.taskSel.value;
    const steps = Math.min(MAX_STEPS, Math.max(25, Math.round(Number(this.stepsIn.value) || DEFAULT_STEPS)));
    const dModel = Number(this.dSel.value);
    return { task, attention: this.attSel.value, dModel, heads: 4, layers: Number(this.layerSel.value), steps,
      seed: 1, trainLengths: LENGTHS[task], progressEvery: 25, bos: this.bosBox.checked,
      randomizedPositions: this.randBox.checked ? RANDOM_RANGE : 0 };
  }

  train() {
    const encodings = this.encBoxes.filter((b) => b.checked).map((b) => b.value);
    if (!encodings.length) {
      this.status.textContent = this.t('noEncoding');
      return;
    }
    if (typeof Worker !== 'function') {
      this.status.textContent = this.t('noWorker');
      return;
    }
    this.stop();
    this.curves.clear();
    this.trained = this.options();
    const id = ++this.runId;
    this.worker = new Worker(WORKER_URL, { type: 'module' });
    this.worker.onmessage = ({ data }) => data.id === id && this.onMessage(data, encodings);
    this.worker.onerror = (e) => this.failed(e.message ?? 'worker error');
    this.pending = encodings.length;
    this.barOf = new Map(encodings.map((k) => [k, el('progress', { max: 1, value: 0, 'aria-label': this.t(`enc_${k}`) })]));
    this.bars.replaceChildren(...encodings.map((k) => el('label', {}, this.t(`enc_${k}`), this.barOf.get(k))));
    this.summary.replaceChildren();
    this.worker.postMessage({ type: 'train', id, lengths: testLengths(this.trained.task), samples: EVAL_SAMPLES,
      seeds: Number(this.seedsSel.value),
      runs: encodings.map((encoding) => ({ ...this.trained, encoding })) });
    this.trainBtn.disabled = true;
    this.stopBtn.disabled = false;
    this.dataset.state = 'training';
    this.mapModel.replaceChildren();
    this.redraw();
  }

  onMessage(m, encodings) {
    const c = this.curves.get(m.encoding) ?? { loss: [], accuracy: [], byLength: [] };
    this.curves.set(m.encoding ?? '', c);
    const done = encodings.indexOf(m.encoding);
    const name = (k) => this.t(`enc_${k}`);
    if (m.type === 'progress') {
      const part = (m.seedIndex + m.step / m.steps) / m.seeds;
      if (m.seedIndex === 0) {
        c.loss.push({ x: m.step, y: m.loss });
        c.accuracy.push({ x: m.step, y: m.accuracy });
      }
      const bar = this.barOf?.get(m.encoding);
      if (bar) bar.value = part;
      this.progress.value = (done + part) / encodings.length;
      this.status.textContent = this.t('training', { encoding: name(m.encoding), step: m.step, steps: m.steps,
        loss: m.loss.toFixed(3), accuracy: `${(100 * m.accuracy).toFixed(1)}%` });
      this.redrawSoon();
    } else if (m.type === 'done') {
      Object.assign(c, { byLength: m.byLength, inRange: m.inRange, fresh: m.fresh, probe: m.probe });
      c.summary = this.t('trained', { encoding: name(m.encoding), steps: m.history.at(-1).step,
        accuracy: `${(100 * m.history.at(-1).accuracy).toFixed(1)}%`, seconds: m.seconds.toFixed(1) });
      this.mapModel.append(el('option', { value: m.encoding }, name(m.encoding)));
      this.redraw();
    } else if (m.type === 'finished') {
      this.progress.value = 1;
      this.status.textContent = encodings.map((k) => this.curves.get(k)?.summary).filter(Boolean).join(' ');
      this.trainBtn.disabled = false;
      this.stopBtn.disabled = true;
      this.dataset.state = 'trained';
      this.dispatchEvent(new CustomEvent('pe-lab-trained', { bubbles: true, composed: true }));
      this.showMaps();
    } else if (m.type === 'attention') {
      this.drawMaps(m);
    } else if (m.type === 'error') {
      this.failed(m.message);
    }
  }

  failed(message) {
    this.status.textContent = message;
    this.trainBtn.disabled = false;
    this.stopBtn.disabled = true;
    this.dataset.state = 'error';
  }

  stop(byUser = false) {
    if (this.worker && this.dataset.state === 'training' && byUser) this.status.textContent = this.t('stopped');
    this.worker?.terminate();
    this.worker = null;
    if (this.trainBtn) {
      this.trainBtn.disabled = false;
      this.stopBtn.disabled = true;
    }
    if (byUser) this.dataset.state = 'stopped';
  }

  reset() {
    this.stop();
    this.curves.clear();
    this.progress.value = 0;
    this.bars.replaceChildren();
    this.summary.replaceChildren();
    this.status.textContent = this.t('idle');
    this.mapsEl.replaceChildren();
    this.mapsNote.textContent = '';
    this.mapModel.replaceChildren();
    this.dataset.state = 'idle';
    this.redraw();
  }

  redrawSoon() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.redraw();
    });
  }

  redraw() {
    const name = (k) => this.t(`enc_${k}`);
    const sets = (key) => ENCODINGS.filter((k) => this.curves.get(k)?.[key].length)
      .map((k) => lineSet(name(k), this.curves.get(k)[key], ENCODINGS.indexOf(k)));
    const task = this.trained?.task ?? this.taskSel.value;
    const [lo, hi] = LENGTHS[task];
    setSeries(this.lossChart, sets('loss'));
    setSeries(this.accChart, sets('accuracy'));
    const words = { min: this.t('min'), max: this.t('max'), chance: this.t('chance'), chanceValue: chance(task) };
    setSeries(this.lenChart, newPositionSets(this.curves, ENCODINGS, name, words), { x: this.t('length', { lo, hi }) });
    const rows = ENCODINGS.filter((k) => this.curves.get(k)?.inRange)
      .map((k) => ({ name: name(k), ...this.curves.get(k) }));
    const headers = [this.t('encodings'), this.t('inRange', { hi }), this.t('newAt'), this.t('probe')];
    this.summary.replaceChildren(...(rows.length ? [summaryTable(headers, rows)] : []));
    this.describe();
  }

  /** Each chart's text alternative: what it plots, and each encoding's latest value (or that nothing ran yet). */
  describe() {
    const pct = (y) => `${(100 * y).toFixed(1)}%`;
    const last = (key, show) => ENCODINGS.filter((k) => this.curves.get(k)?.[key].length)
      .map((k) => { const p = this.curves.get(k)[key].at(-1); return `${this.t(`enc_${k}`)} ${show(p)}`; }).join('; ');
    const alt = (chart, key, what, show) => {
      const values = last(key, show);
      chart.canvas.setAttribute('role', 'img');
      chart.canvas.setAttribute('aria-label', this.t(values ? 'chartAlt' : 'chartAltEmpty', { what: this.t(what), values }));
    };
    alt(this.lossChart, 'loss', 'loss', (p) => `${p.y.toFixed(3)} (${this.t('step')} ${p.x})`);
    alt(this.accChart, 'accuracy', 'accuracy', (p) => `${pct(p.y)} (${this.t('step')} ${p.x})`);
    alt(this.lenChart, 'byLength', 'lengthAccuracy', (p) => `${pct(p.mean)} (${p.length})`);
  }

  showMaps() {
    const encoding = this.mapModel.value;
    if (!encoding || !this.worker || !this.trained) return;
    const { ids, at } = splitWords(this.trained.task, this.sentence.value);
    if (!ids || !ids.length) {
      this.mapsNote.textContent = this.t('unknownWord', { rest: this.sentence.value.slice(Math.max(at, 0), Math.max(at, 0) + 8),
        words: vocabulary(this.trained.task, this.lang).join(' ') });
      this.mapsEl.replaceChildren();
      return;
    }
    // a model trained with a start token reads every sentence after one
    this.mapTokens = [...(this.trained.bos ? [vocabulary(this.trained.task, 'en', true).length - 1] : []), ...ids].slice(0, 24);
    this.worker.postMessage({ type: 'attention', id: this.runId, encoding, tokens: this.mapTokens });
  }

  drawMaps({ shape: [layers, heads, n], data }) {
    const words = vocabulary(this.trained.task, this.lang, this.trained.bos);
    const labels = this.mapTokens.map((i) => words[i]);
    const cell = Math.max(10, Math.min(28, Math.floor(200 / n)));
    const pad = 36;
    const maps = [];
    for (let l = 0; l < layers; l++) {
      for (let h = 0; h < heads; h++) {
        const canvas = el('canvas', { width: pad + n * cell, height: pad + n * cell,
          'aria-label': this.t('layerHead', { l: l + 1, h: h + 1 }) });
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
        const base = ((l * heads) + h) * n * n;
        for (let i = 0; i < n; i++) {
          for (let j = 0; j < n; j++) {
            g.fillStyle = `rgba(51, 88, 196, ${data[base + i * n + j].toFixed(3)})`;
            g.fillRect(pad + j * cell, pad + i * cell, cell - 1, cell - 1);
          }
        }
        // The text alternative names, for each token, the token it attends to most.
        const top = labels.map((w, i) => {
          let best = 0;
          for (let j = 1; j < n; j++) if (data[base + i * n + j] > data[base + i * n + best]) best = j;
          return `${w} → ${labels[best]}`;
        });
        canvas.setAttribute('aria-label', this.t('mapAlt', { l: l + 1, h: h + 1, top: top.join(', ') }));
        maps.push(el('figure', {}, canvas, el('figcaption', {}, this.t('layerHead', { l: l + 1, h: h + 1 }))));
      }
    }
    this.mapsNote.textContent = this.t('mapsCaption');
    this.mapsEl.replaceChildren(...maps);
    this.dataset.maps = String(maps.length);
  }
}

