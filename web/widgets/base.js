// The base of every <pe-*> element: reads and validates its attributes, loads
// the posenc API once (and posenc/variants, the first time a widget that needs
// it renders), renders in a shadow root, shows notes and errors in place
// (an impossible attribute never breaks the rest of the page), offers the export
// buttons, and re-renders when an attribute changes.
import { init } from '../lib/index.js';
import { parseAll, LANGS, shown } from './attrs.js';
import { translate } from './strings.js';
import { adoptStyles } from './styles.js';
import { el } from './dom.js';
import { exportBar } from './export.js';
import { shapeBox, Chart } from './charts.js';

/** The variants' API (RoPE, ALiBi, ...): its entry is imported and its module loaded on first use. */
const variants = () => import('../lib/variants/index.js').then((m) => m.init());
/** The fields' API (timesteps, patch grids, Fourier features), loaded the same way. */
const fields = () => import('../lib/fields/index.js').then((m) => m.init());

/**
 * Off-screen charts cost memory and nothing else. Once more than BUDGET
 * elements of a page hold drawings, those past FAR (in viewport heights) from
 * the screen release their charts and canvases, and redraw when they come
 * back (docs/widgets.md, "Memory"). A page of a few dozen charts never redraws.
 */
export const FAR = '300%';
export const BUDGET = 24;
/** Elements holding a drawing, and elements now far off screen. */
const drawn = new Set();
const farAway = new Set();

/**
 * The page-wide observers, made on first connection: a module that only
 * defines classes imports in Node (SSR builds) where neither observer exists.
 */
let observers = null;
function watch() {
  observers ??= {
    resized: new ResizeObserver((entries) => entries.forEach((e) => e.target.setWidth(e.contentRect.width))),
    near: new IntersectionObserver((entries) => entries.forEach((e) => e.target.setVisible(e.isIntersecting)), { rootMargin: '300px 0px' }),
    far: new IntersectionObserver((entries) => {
      for (const e of entries) farAway[e.isIntersecting ? 'delete' : 'add'](e.target);
      drain();
    }, { rootMargin: `${FAR} 0px` }),
  };
  return observers;
}

/**
 * A task of its own: resolves from a MessageChannel message (setTimeout would
 * wait 4 ms once nested), so what follows the await runs after the browser
 * has had its turn to paint and to handle input.
 */
let channel = null;
const resumes = [];
function nextTask() {
  if (!channel) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => resumes.shift()();
  }
  return new Promise((resolve) => {
    resumes.push(resolve);
    channel.port2.postMessage(0);
  });
}

/** Thrown by a paused render whose element was released meanwhile: it stops drawing. */
const RELEASED = Symbol('released');

/**
 * The page's work waits in one queue and runs one job per task: a job is
 * releasing one far element (while the page holds more drawings than the
 * budget), or one element's render, whose charts draw one per task too
 * (PeWidget.pause). A long page scrolled fast brings many elements near at
 * once; drawing them, or a widget's three charts, in one task would freeze the
 * page for the sum of their times (docs/widgets.md, "Memory").
 */
const queue = new Set();
let draining = false;
async function drain() {
  if (draining) return;
  draining = true;
  try {
    for (;;) {
      await nextTask();
      if (releaseOne()) continue;
      const [widget] = queue;
      if (!widget) return;
      queue.delete(widget);
      widget.pending = false;
      await widget.refresh().catch((e) => reportError(e));
    }
  } finally {
    draining = false;
  }
}

/** Releases one far element while the page holds more drawings than the budget; true if one was. */
function releaseOne() {
  if (drawn.size <= BUDGET) return false;
  for (const widget of farAway) {
    if (!drawn.has(widget)) continue;
    widget.setFar(); // <pe-lab> keeps a run's results: then it stays drawn, and the next is tried
    if (!drawn.has(widget)) return true;
  }
  return false;
}

function enqueue(widget) {
  queue.add(widget);
  drain();
}

/**
 * Every property widget code makes on an element (`this.<name> = ...` in web/widgets; tests/widgets-ssr.test.js
 * holds the list to the sources): release() drops those its constructor did not make, and only those. It dropped
 * every property but the constructor's, a page's or a framework's too (React's __reactProps$…, Vue's _vei,
 * jQuery's expando, Preact's l), and called their destroy(): removed and added back, or scrolled far away, an
 * element lost its framework's event handlers.
 */
export const OWNED = new Set(('accChart answer barOf bars bitmap box canvas captionEl categories chart chartsEl codesBox cols '
  + 'columnsNote controlsEl cosChart ctl curves curvesShown data describe dirty drawnAt errEl exportEl extraEl fg focus frame '
  + 'frameEl freqChart generation heat heats host idsEl image kept kind label language last leftOut lenChart line lines live '
  + 'lossChart main mapLabels mapModel mapsAsked mapsData mapsEl mapsNote newCaption normChart notesEl pairChart pending '
  + 'pendingNotes placeholder play posBox profile progress range renders resetBtn rotChart rows runId runState runner sentence '
  + 'sentenceTask shares showBtn status statusEl stopBtn summaryEl table tables timer tip titleEl trainBtn trainQueued trained '
  + 'values verdicts visible waveChart where width').split(' '));

/** In Node (no DOM) the elements are plain classes that are never defined. */
const Element = globalThis.HTMLElement ?? class {};

export class PeWidget extends Element {
  /** Attribute name -> parser (see attrs.js); subclasses override. */
  static spec = {};
  /** strings.js key of the widget's title. */
  static titleKey = '';
  /** true: render() also gets the variants' API (posenc/variants) as its third argument. */
  static variants = false;
  /** true: render() gets the fields' API (posenc/fields) as its third argument instead. */
  static fields = false;
  /** Width / height of the first chart: its box is reserved before the first render. */
  static aspect = 1.6;
  /** true: render() draws at the element's width itself, so a width change redraws it. */
  static followsWidth = false;

  static get observedAttributes() {
    return [...Object.keys(this.spec), 'lang'];
  }

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root);
    this.titleEl = el('p', { class: 'title' });
    this.notesEl = el('div', { role: 'status' });
    this.errEl = el('p', { class: 'err hidden', role: 'alert' });
    this.controlsEl = el('div', { class: 'controls' });
    this.chartsEl = el('div', { class: 'charts' });
    this.extraEl = el('div');
    this.captionEl = el('p', { class: 'caption' });
    this.exportEl = exportBar(() => this.exportData(), () => this.canvases(), (k) => this.t(k));
    this.main = el('div', {}, this.chartsEl, this.extraEl, this.captionEl, this.exportEl);
    // The first chart's box, so the page does not jump when the chart arrives.
    this.placeholder = this.chartsEl.appendChild(el('div', { class: 'chart' }, el('div', { class: 'plot' })));
    shapeBox(this.placeholder.firstChild, this.constructor.aspect, false);
    // Controls stay visible on error, so a bad value typed into one can be fixed.
    this.frameEl = root.appendChild(el('div', { class: 'pe' }, this.titleEl, this.controlsEl, this.notesEl, this.errEl, this.main));
    this.language = 'en';
    // named from the start (in English until the first render picks the language): the bar shows under the
    // placeholder, and a reader tabbing to a chart not drawn yet heard three buttons without a name
    this.exportEl.relabel();
    this.dirty = true; // nothing drawn yet: draw on first sight
    this.renders = 0;
    /** () => { header, rows } for the CSV/JSON export; built only when asked for. */
    this.data = PeWidget.noData;
    /** Counts releases: a render that started before one draws nothing. */
    this.generation = 0;
    /** The other window whose document holds the element, while it does (connectedCallback). */
    this.host = null;
    // What render() adds to the element (charts, tables, closures over arrays)
    // is everything else: release() drops it, and the next render rebuilds it.
    this.kept = new Set([...Object.keys(this), 'kept']);
  }

  static noData = () => ({ header: [], rows: [] });

  connectedCallback() {
    adoptStyles(this.shadowRoot); // its document's sheet: moved into another, the old one is dropped
    const { near, far, resized } = watch();
    near.observe(this);
    far.observe(this);
    if (this.constructor.followsWidth) resized.observe(this);
    // In another window's document (moved into a same-origin iframe): that window going away (the frame removed
    // or navigated) disconnects nothing, so a <pe-lab> trained on behind it for minutes and its redraws threw
    // (no getComputedStyle of a closed window), and every element stayed drawn, holding the frame's document.
    const view = this.ownerDocument.defaultView;
    if (view && view !== globalThis) {
      this.host = view;
      view.addEventListener('pagehide', this.gone);
    }
  }

  /** The other window's document this element lives in went away: as if removed (not into the back-forward cache). */
  gone = (e) => e.persisted || this.disconnectedCallback();

  /** A removed element keeps nothing alive: no chart in Chart.js's registry, no observer, no array. */
  disconnectedCallback() {
    this.host?.removeEventListener('pagehide', this.gone);
    this.host = null;
    const { near, far, resized } = watch();
    near.unobserve(this);
    far.unobserve(this);
    farAway.delete(this);
    resized.unobserve(this);
    this.visible = false;
    this.release();
    delete this.dataset.state;
  }

  /** Called when the element is far off screen: drops its drawing, keeping its box's height. */
  setFar() {
    if (!this.renders || this.dirty) return;
    const height = this.main.offsetHeight;
    this.release();
    // The box keeps its height until the redraw, so the page does not jump.
    if (height) this.main.style.minHeight = `${height}px`;
  }

  /**
   * Destroys every chart and drops what render() built (its parts are made
   * again with ??= on the next render), so that nothing but the element and
   * its attributes remains. Subclasses with timers or workers stop them first.
   */
  release() {
    this.generation++;
    queue.delete(this);
    drawn.delete(this);
    for (const key of Object.keys(this)) {
      if (this.kept.has(key) || !OWNED.has(key)) continue;
      for (const part of [this[key]].flat()) part?.destroy?.();
      delete this[key];
    }
    for (const canvas of this.shadowRoot.querySelectorAll('canvas')) {
      Chart.getChart(canvas)?.destroy();
      canvas.width = canvas.height = 0; // frees the backing store now, not at the next GC
    }
    this.chartsEl.replaceChildren();
    this.extraEl.replaceChildren();
    this.controlsEl.replaceChildren();
    this.captionEl.textContent = '';
    this.data = PeWidget.noData;
    this.placeholder = this.chartsEl.appendChild(el('div', { class: 'chart' }, el('div', { class: 'plot' })));
    shapeBox(this.placeholder.firstChild, this.constructor.aspect, false);
    this.dirty = true;
    this.pending = false;
  }

  /** Called by the ResizeObserver of widgets that draw at their own width. */
  setWidth(width) {
    if (Math.abs(width - (this.width ?? width)) >= 1) this.schedule();
    this.width = width;
  }

  /** Called by the IntersectionObserver: draws on first sight, or if attributes changed while away. */
  setVisible(visible) {
    this.visible = visible;
    if (visible && this.dirty) this.schedule();
  }

  attributeChangedCallback() {
    if (this.isConnected) this.schedule();
  }

  /** Batches attribute changes made in one task into a single render, in a task of its own (see enqueue). */
  schedule() {
    // Off-screen widgets wait until they are scrolled near: the first screen draws sooner,
    // and a slider drag redraws only what can be seen.
    if (!this.visible) {
      this.dirty = true;
      return;
    }
    this.dirty = false;
    if (this.pending) return;
    this.pending = true;
    enqueue(this);
  }

  t(key, vars) {
    return translate(this.language, key, vars);
  }

  message([key, vars, name]) {
    return this.t(key, { ...vars, name });
  }

  /** Adds a note (clamped value, cut text...) shown above the chart after this render. */
  note(key, vars = {}, name = '') {
    this.pendingNotes.push([key, vars, name]);
  }

  pickLanguage() {
    const raw = this.getAttribute('lang');
    const want = raw?.trim().toLowerCase();
    if (LANGS.includes(want)) return want;
    if (raw !== null) this.note('notOneOf', { raw: shown(raw), list: LANGS.join(', ') }, 'lang');
    const inherited = this.parentElement?.closest('[lang]')?.getAttribute('lang') ?? '';
    return inherited.toLowerCase().startsWith('zh') ? 'zh' : 'en';
  }

  /** Errors ([key, vars, attribute]) for values that are each allowed but not together, as the API would refuse them. */
  static rules() {
    return [];
  }

  /** The APIs render() gets: the core, then posenc/variants or posenc/fields when the class asks for one. */
  static apis() {
    const { variants: v, fields: f } = this;
    return Promise.all(v || f ? [init(), (v ? variants : fields)()] : [init()]);
  }

  async refresh() {
    if (!this.isConnected) return;
    const generation = this.generation;
    let apis;
    try {
      apis = await this.constructor.apis();
    } catch (e) {
      return this.fail(`${e.name}: ${e.message}`);
    }
    // Removed or released while the module loaded: draw nothing, or the drawing would leak.
    if (generation !== this.generation || !this.isConnected) return;
    this.pendingNotes = [];
    this.language = this.pickLanguage();
    const { values, notes, errors } = parseAll(this.constructor.spec, (n) => this.getAttribute(n));
    if (!errors.length) errors.push(...this.constructor.rules(values));
    this.pendingNotes.push(...notes);
    this.titleEl.textContent = this.t(this.constructor.titleKey);
    this.exportEl.relabel();
    this.values = values;
    if (errors.length) return this.fail(errors.map((m) => this.message(m)).join(' '));
    // The box keeps the height it has (the reserve around it, or the last drawing) until the
    // render is done: one that pauses between its charts is taller or shorter meanwhile, and a
    // link followed then landed off its heading by that much.
    const pin = this.frameEl.style;
    pin.height = `${this.frameEl.offsetHeight}px`;
    pin.overflow = 'hidden';
    // Shown before drawing: a chart created inside a display:none box would get size 0.
    this.main.classList.remove('hidden');
    this.placeholder?.remove();
    this.placeholder = null;
    try {
      await this.render(apis[0], values, apis[1]);
    } catch (e) {
      if (e === RELEASED) return;
      return this.fail(`${this.t('apiError')} ${e.name}: ${e.message}`);
    } finally {
      pin.height = pin.overflow = '';
    }
    this.showNotes();
    this.labelScrollBoxes();
    this.errEl.classList.add('hidden');
    this.main.style.minHeight = '';
    drawn.add(this);
    this.renders++;
    this.dataset.state = this.state();
    this.announce();
  }

  /** data-state after a successful render; <pe-lab> reports its run instead. */
  state() {
    return 'ready';
  }

  /** Boxes that scroll sideways (wide tables) take the keyboard focus, so they can be scrolled without a mouse. */
  labelScrollBoxes() {
    for (const box of this.shadowRoot.querySelectorAll('.tables')) {
      box.setAttribute('tabindex', '0');
      box.setAttribute('role', 'region');
      box.setAttribute('aria-label', this.t('tablesRegion'));
    }
  }

  showNotes() {
    this.notesEl.replaceChildren(...(this.pendingNotes ?? []).map((m) => el('p', { class: 'note' }, this.message(m))));
  }

  fail(text) {
    this.showNotes();
    this.errEl.textContent = text;
    this.errEl.classList.remove('hidden');
    this.main.classList.add('hidden');
    this.dataset.state = 'error';
    this.announce(text);
  }

  /** The pe-render event (docs/widgets.md): after every draw, and after every failure with its message. */
  announce(error) {
    const detail = { state: this.dataset.state, renders: this.renders, ...(error ? { error } : {}) };
    this.dispatchEvent(new CustomEvent('pe-render', { bubbles: true, composed: true, detail }));
  }

  /** A control inside the widget writes its attribute; the attribute stays the one source of truth. */
  bind(control, attr, read = (c) => c.value) {
    const write = () => this.setAttribute(attr, read(control));
    control.addEventListener(control.type === 'checkbox' || control.tagName === 'SELECT' ? 'change' : 'input', write);
    return control;
  }

  /** Puts a value back into a control without disturbing one being edited. */
  sync(control, value) {
    if (control.type === 'checkbox') control.checked = Boolean(value);
    else if (control.value !== String(value) && this.shadowRoot.activeElement !== control) control.value = String(value);
  }

  /**
   * A labelled control bound to an attribute: created once, then relabelled and
   * synced on every render. kind: 'number' | 'range' | 'text' | 'checkbox' | 'select'.
   */
  control(attr, labelKey, value, { kind = 'number', options = [], ...props } = {}) {
    this.ctl ??= {};
    let c = this.ctl[attr];
    if (!c) {
      const input = kind === 'select' ? el('select') : el('input', { type: kind, ...props });
      const read = kind === 'checkbox' ? (i) => String(i.checked) : (i) => i.value;
      c = this.ctl[attr] = { input: this.bind(input, attr, read), label: el('span', { class: 'lbl' }) };
      this.controlsEl.append(el('label', {}, c.label, input));
    }
    c.label.textContent = this.t(labelKey);
    if (kind === 'select') {
      // [value, string key], or [value, null, text] for a label that is not in the string files (the RoPE types' names)
      c.input.replaceChildren(...options.map(([v, key, text]) => el('option', { value: v }, key === null ? text : this.t(key))));
      c.input.value = String(value);
    } else {
      for (const [k, v] of Object.entries(props)) c.input.setAttribute(k, v);
      this.sync(c.input, value);
    }
    return c.input;
  }

  /** A new canvas in its own plot box under the charts area (with a sub-title element, canvas.sub). */
  newCanvas(parent = this.chartsEl) {
    const canvas = el('canvas', { role: 'img' });
    const sub = el('p', { class: 'sub' });
    parent.append(el('div', { class: 'chart' }, sub, el('div', { class: 'plot' }, canvas)));
    canvas.sub = sub;
    return canvas;
  }

  /**
   * Subclass hook: draw everything for validated `values` with the core `api`
   * (and `variants`); may throw API errors. It may be async and await pause()
   * between its charts.
   */
  render() {}

  /**
   * For render(): continues in a task of its own, so that a widget's charts
   * draw one per task (a chart's first draw is 10-30 ms of Chart.js and
   * layout; three in one task froze the page). Stops the render if the
   * element was removed or released meanwhile.
   */
  async pause() {
    const generation = this.generation;
    await nextTask();
    if (generation !== this.generation || !this.isConnected) throw RELEASED;
  }

  exportData() {
    return { name: this.localName, params: this.values, ...this.data() };
  }

  canvases() {
    return [...this.shadowRoot.querySelectorAll('canvas')].filter((c) => c.offsetParent !== null);
  }

  /** Encoding options shared by the API calls of most widgets. */
  static encoding(v) {
    return { preset: v.preset, base: v.base };
  }
}
