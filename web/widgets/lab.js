// <pe-lab>: trains the tiny Transformer of posenc/lab in a Web Worker, one
// model per chosen encoding, and draws live loss and accuracy curves, then
// accuracy against test length and the attention maps of a sentence the reader
// types. Attributes (all optional): task, attention, encodings (comma list),
// d-model, layers, steps, lang. Token text is user input: only ever textContent.
import { adoptStyles } from './styles.js';
import { el, labelled } from './dom.js';
import { lineChart, lineSet, setSeries } from './charts.js';
import { translate } from './strings.js';
import { int, oneOf, text } from './attrs.js';
import { TASKS, vocabulary, splitWords } from '../lib/lab/tasks.js';

const ENCODINGS = ['none', 'sinusoidal', 'learned', 'rope', 'alibi', 't5'];
const LENGTHS = { 'who-did-what': [3, 6], shift: [3, 16], copy: [2, 8], reverse: [2, 8] };
const SENTENCES = { 'who-did-what': { en: 'Ann hits Bob ?', zh: '我 打 你 ？' }, shift: '3 1 4 1 5 9 2 6', copy: '3 1 4 1 | _ _ _ _', reverse: '3 1 4 1 | _ _ _ _' };
const MAX_STEPS = 20000;
// The default run: every encoding with positions passes 95% training accuracy
// on who-did-what by step 225 and has levelled off by 300 (bench/lab-browser.mjs
// reports the steps), so 300 steps show the whole story at three quarters of
// the cost of the 400 this used to be.
const DEFAULT_STEPS = 300;
// The worker's bundle sits beside the pages' bundles (dist/web/lab-worker.js);
// the tutorial loads this file as a chunk from dist/web/chunks/.
const WORKER_URL = new URL(import.meta.url.includes('/chunks/') ? '../lab-worker.js' : './lab-worker.js', import.meta.url);

/** Test lengths: from the shortest trained to `factor` times the longest, ~9 points. */
function testLengths(task) {
  const [lo, hi] = LENGTHS[task];
  const top = hi * (task === 'shift' ? 3 : task === 'who-did-what' ? 4 : 3);
  const out = new Set();
  for (let i = 0; i <= 8; i++) out.add(Math.round(lo + (top - lo) * i / 8));
  return [...out];
}

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
  };

  static get observedAttributes() { return ['lang']; }

  constructor() {
    super();
    this.root = this.attachShadow({ mode: 'open' });
    adoptStyles(this.root);
    this.runId = 0;
    this.curves = new Map(); // encoding -> { loss: [], accuracy: [], byLength: [] }
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
    this.seedsSel = el('select', {}, ...[1, 3].map((n) => el('option', { value: n, selected: n === 1 }, String(n))));
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
        labelled(this.t('steps'), this.stepsIn).label, labelled(this.t('seeds'), this.seedsSel).label, this.trainBtn, this.stopBtn, this.resetBtn),
      this.progress, this.status,
      el('div', { class: 'charts' }, ...[lossCanvas, accCanvas, lenCanvas].map(box)),
      el('div', { class: 'controls' }, labelled(this.t('model'), this.mapModel).label,
        labelled(this.t('sentence'), this.sentence).label,
        el('button', { type: 'button', onclick: () => this.showMaps() }, this.t('show'))),
      this.mapsNote, this.mapsEl));
    for (const c of this.charts ?? []) c.destroy();
    this.lossChart = lineChart(lossCanvas, { x: this.t('step'), y: this.t('loss'), aspect: 2.2 });
    this.accChart = lineChart(accCanvas, { x: this.t('step'), y: this.t('accuracy'), aspect: 2.2, yExtra: { min: 0, max: 1 } });
    this.lenChart = lineChart(lenCanvas, { x: '', y: this.t('lengthAccuracy'), aspect: 2.2, yExtra: { min: 0, max: 1 } });
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
      seed: 1, trainLengths: LENGTHS[task], progressEvery: 25 };
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
    this.worker.postMessage({ type: 'train', id, lengths: testLengths(this.trained.task), samples: 256,
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
      c.loss.push({ x: m.step, y: m.loss });
      c.accuracy.push({ x: m.step, y: m.accuracy });
      this.progress.value = (done + m.step / m.steps) / encodings.length;
      this.status.textContent = this.t('training', { encoding: name(m.encoding), step: m.step, steps: m.steps,
        loss: m.loss.toFixed(3), accuracy: `${(100 * m.accuracy).toFixed(1)}%` });
      this.redrawSoon();
    } else if (m.type === 'done') {
      c.byLength = m.byLength.map((p) => ({ x: p.length, y: p.accuracy }));
      c.spread = m.byLength.map((p) => [{ x: p.length, y: p.min }, { x: p.length, y: p.max }]);
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
    const sets = (key) => ENCODINGS.filter((k) => this.curves.get(k)?.[key].length)
      .map((k) => lineSet(this.t(`enc_${k}`), this.curves.get(k)[key], ENCODINGS.indexOf(k), { pointRadius: key === 'byLength' ? 2 : 0 }));
    const [lo, hi] = LENGTHS[this.trained?.task ?? this.taskSel.value];
    setSeries(this.lossChart, sets('loss'));
    setSeries(this.accChart, sets('accuracy'));
    // With several seeds, each encoding's min-max range is a dashed pair of lines around its mean.
    const spread = ENCODINGS.filter((k) => this.curves.get(k)?.spread?.some(([a, b]) => a.y !== b.y)).flatMap((k) => {
      const i = ENCODINGS.indexOf(k);
      const side = (j) => lineSet(`${this.t(`enc_${k}`)} ${this.t(j ? 'max' : 'min')}`, this.curves.get(k).spread.map((p) => p[j]), i,
        { borderDash: [4, 3], borderWidth: 1 });
      return [side(0), side(1)];
    });
    setSeries(this.lenChart, [...sets('byLength'), ...spread], { x: this.t('length', { lo, hi }) });
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
    alt(this.lenChart, 'byLength', 'lengthAccuracy', (p) => `${pct(p.y)} (${p.x})`);
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
    this.mapTokens = ids.slice(0, 24);
    this.worker.postMessage({ type: 'attention', id: this.runId, encoding, tokens: this.mapTokens });
  }

  drawMaps({ shape: [layers, heads, n], data }) {
    const words = vocabulary(this.trained.task, this.lang);
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

