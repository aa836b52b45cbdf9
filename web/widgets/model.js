// <pe-model>: a published model's positional scheme, read from its config.json
// by the library's ropeFromConfig. Drawn: the wavelength 2π/θ_i of every
// rotated pair before and after the model's scaling against its trained and
// extended context (which pairs are interpolated, which kept), with the
// attention factor and the layer types in the caption; for M-RoPE models
// (Qwen2-VL) the position ids (time, height, width) of a prompt with one
// image, drawn on the image's grid of merged patches with the text tokens
// around it, and for FLUX the ids on its latent grid: tables of numbers, so
// the drawing is its own text alternative. Every number comes from the posenc
// API (ropeFromConfig, mropePositions, ropeGridIds).
import { PeWidget } from './base.js';
import { int, text } from './attrs.js';
import { lineChart, lineSet, setSeries } from './charts.js';
import { LOG } from './log-scale.js';
import { el, fmt } from './dom.js';

const TEXT_BEFORE = 4; // <|im_start|>user\n<|vision_start|>
const TEXT_AFTER = 5; // <|vision_end|> and a short question
const MAX_DRAWN = 4096; // points a wavelength series draws (the widget's choice)

/** The config object of the attribute's JSON text; an error names the attribute. */
function parseConfig(raw) {
  let config;
  try {
    config = JSON.parse(raw);
  } catch (e) {
    throw new SyntaxError(`config is not valid JSON: ${e.message}`);
  }
  if (config === null || typeof config !== 'object' || Array.isArray(config)) throw new TypeError('config must be a JSON object (a config.json)');
  return config;
}

/**
 * The layer types the menu and the caption name, in the config's order (inspect reports as many at once): a config
 * of 30 000 types (180 kB) made a menu of 30 000 options and a caption of 270 kB, and the charts' theme read
 * through them froze the tab 1.5 s a render. Past them, the caption counts the rest; the menu adds the type shown,
 * and the layer index reaches every layer.
 */
const MAX_TYPES = 64;

/** How many layers have each type, in the config's order. */
function layerCounts(types) {
  const counts = new Map();
  for (const t of types ?? []) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}

/** Counts of each layer type, "full_attention × 6, sliding_attention × 28" (the first MAX_TYPES, then "… (+n)"). */
function layerSummary(types) {
  const counts = layerCounts(types);
  const list = [...counts].slice(0, MAX_TYPES).map(([t, n]) => `${t} × ${n}`).join(', ');
  return counts.size > MAX_TYPES ? `${list}, … (+${counts.size - MAX_TYPES})` : list;
}

/** Pairs kept (θ unchanged), interpolated (θ / factor) and blended, from scaled / unscaled θ. */
export function rampCounts(scaled, plain) {
  const ratio = Array.from(scaled, (w, i) => w / plain[i]);
  const lo = ratio.reduce((a, b) => Math.min(a, b)); // a spread of a head_dim 2^20's pairs overflowed the stack
  const kept = ratio.filter((r) => Math.abs(r - 1) < 1e-9).length;
  const divided = lo < 1 - 1e-9 ? ratio.filter((r) => Math.abs(r - lo) < 1e-9 * lo).length : 0;
  return { kept, divided, blended: ratio.length - kept - divided, factor: 1 / lo };
}

export class PeModel extends PeWidget {
  static spec = {
    config: text(200000, ''),
    // The config's own layer types are the menu's entries: ropeFromConfig checks the value against them.
    'layer-type': text(64, ''),
    layer: int(-1, 1048576, -1),
    grid: int(1, 32, 6),
  };
  static variants = true;
  static titleKey = 'modelTitle';
  static aspect = 2;

  render(api, v, variants) {
    const field = this.control('config', 'modelConfigLabel', v.config, { kind: 'text', spellcheck: 'false' });
    field.oninput ??= () => ['layer-type', 'layer'].forEach((a) => this.removeAttribute(a)); // another model: its own layers
    if (!v.config.trim()) throw new TypeError(this.t('modelNoConfig'));
    const config = parseConfig(v.config);
    const model = variants.ropeFromConfig(config); // the layer types and layers the menus offer
    const counts = this.layerControls(v, model, (model.layerTypes ?? model.ropeLayers)?.length);
    const n = (model.layerTypes ?? model.ropeLayers)?.length;
    // the attribute's range is the config's layers; a config without per-layer RoPE gives every layer the same one,
    // so a layer is noted, not passed on (ropeFromConfig's "layerIndex needs a config with per-layer RoPE" failed the
    // whole drawing, naming an option the blogger never wrote)
    const layer = !n ? -1 : v.layer >= n ? n - 1 : v.layer;
    if (!n && v.layer >= 0) this.note('modelLayerSame', { raw: v.layer }, 'layer');
    else if (layer !== v.layer) this.note('clamped', { raw: v.layer, max: layer }, 'layer');
    const r = variants.ropeFromConfig(config, { ...(v['layer-type'] ? { layerType: v['layer-type'] } : {}), ...(layer >= 0 ? { layerIndex: layer } : {}) });
    const menu = this.ctl['layer-type']?.input;
    if (menu) {
      // the type shown has its entry, past the menu's first MAX_TYPES too (picked by the attribute or a layer index)
      if (counts.has(r.layerType) && ![...menu.options].some((o) => o.value === r.layerType)) menu.append(this.typeOption(r.layerType, counts));
      menu.value = r.layerType;
    }
    // the grid's side only for a model with position ids on a grid (M-RoPE, axial of 2 or 3 axes: a latent's
    // (row, column) or (time, row, column), as ropeGridIds makes them; 1 or 4 axes failed the whole drawing with
    // ropeGridIds' "axes must be an integer from 2 to 3", where the wavelengths can still be drawn)
    // M-RoPE's ids likewise for a spatial merge of 1 to 8 patches a side (mropePositions'; HF takes any): another
    // failed the whole drawing with "spatialMergeSize must be an integer from 1 to 8", a name the config does not use
    const merge = config.vision_config?.spatial_merge_size ?? 2;
    const mrope = Boolean(r.mropeSection) && Number.isInteger(merge) && merge >= 1 && merge <= 8;
    const grid = r.axesDim ? r.axesDim.length >= 2 && r.axesDim.length <= 3 : mrope;
    this.dropControl('grid', grid);
    if (grid) this.control('grid', r.axesDim ? 'modelLatentLabel' : 'modelGridLabel', v.grid, { kind: 'number', min: 1, max: 32, step: 1 });
    const parts = [this.describe(r)];
    if (r.type === 'none') {
      this.clearCharts();
      this.captionEl.textContent = this.t('modelNone', { layer });
      return;
    }
    parts.push(this.drawWavelengths(r, variants));
    if (r.type === 'axial' && grid) parts.push(this.drawFluxIds(variants, v.grid, r));
    else if (mrope) parts.push(this.drawMrope(variants, config, merge, v.grid, r));
    else this.idsEl?.replaceChildren();
    if (r.mropeSection && !mrope) this.note('modelMergeSize', { raw: String(JSON.stringify(merge)).slice(0, 40) }, 'vision_config.spatial_merge_size');
    if (r.warnings.length) parts.push(this.t('modelWarnings', { list: r.warnings.join('; ') }));
    this.captionEl.textContent = this.sentences(parts);
  }

  /**
   * The layer type as a menu of the config's own layer types (with how many
   * layers have each), absent when the config has none; the layer index when
   * the config has per-layer RoPE. Picking a type clears the index.
   */
  layerControls(v, model, layers) {
    const counts = layerCounts(model.layerTypes);
    this.dropControl('layer-type', counts.size > 0);
    this.dropControl('layer', layers || v.layer >= 0);
    if (counts.size) {
      const menu = this.control('layer-type', 'modelLayerLabel', v['layer-type'], { kind: 'select' });
      menu.replaceChildren(...[...counts.keys()].slice(0, MAX_TYPES).map((type) => this.typeOption(type, counts)));
      menu.value = v['layer-type'];
      menu.onchange ??= () => this.removeAttribute('layer');
    }
    if (layers || v.layer >= 0) {
      this.control('layer', 'modelLayerIndexLabel', v.layer, { kind: 'number', min: -1, step: 1, ...(layers ? { max: layers - 1 } : {}) });
    }
    return counts;
  }

  /** The menu's entry of a layer type: "sliding_attention (28 layers)". */
  typeOption(type, counts) {
    return el('option', { value: type }, this.t('modelLayerOption', { type, n: counts.get(type) }));
  }

  /** Removes a control (label and input) unless `keep`; control() makes it again when asked. */
  dropControl(attr, keep) {
    const c = this.ctl?.[attr];
    if (keep || !c) return;
    c.input.parentElement.remove();
    delete this.ctl[attr];
  }

  describe(r) {
    const head = this.t('modelHead', {
      type: r.type, theta: String(r.theta), head: r.headDim, rotary: r.rotaryDim, pairing: this.t(`pairing_${r.pairing ?? 'half'}`),
      af: fmt(r.attentionFactor ?? 1, 6),
    });
    const layers = r.layerTypes ? this.t('modelLayers', { list: layerSummary(r.layerTypes), layer: r.layerType }) : '';
    const rope = r.ropeLayers ? this.t('modelRopeLayers', { used: r.ropeLayers.filter(Boolean).length, n: r.ropeLayers.length }) : '';
    return this.sentences([head, layers, rope]);
  }

  /** Sentences one after another: a space between them in English, none after a Chinese full stop. */
  sentences(parts) {
    return parts.filter(Boolean).join(this.language === 'zh' ? '' : ' ');
  }

  clearCharts() {
    this.data = PeWidget.noData;
    this.chartsEl.replaceChildren();
    this.waveChart = null;
    this.idsEl?.replaceChildren();
  }
  /** 2π/θ_i per pair, scaled and unscaled, against the trained and extended context. */
  drawWavelengths(r, variants) {
    const n = r.invFreq.length;
    const plain = r.type === 'axial' ? r.invFreq : variants.ropeFrequencies(r.rotaryDim, { base: r.theta, dtype: 'float64' }).invFreq;
    // At most MAX_DRAWN points a series, every step-th pair and the last (a chart is a few hundred pixels wide):
    // 2^19 pairs a series at head_dim 2^20 froze the page for 5 s (seventeenth pass). The export has every pair.
    const step = Math.ceil(n / MAX_DRAWN);
    const drawn = Array.from({ length: Math.ceil((n - 1) / step) + 1 }, (_, j) => Math.min(j * step, n - 1));
    const wave = (w) => drawn.map((i) => ({ x: i, y: 2 * Math.PI / w[i] }));
    const trained = r.originalMaxPosition ?? r.maxPosition;
    const sets = [
      lineSet(this.t('modelWavePlain', { theta: String(r.theta) }), wave(plain), 7, { pointRadius: 1.5 }),
      lineSet(this.t('modelWaveScaled', { type: r.type }), wave(r.invFreq), 1, { pointRadius: 1.5, borderDash: [5, 3] }),
    ];
    const flat = (y) => [{ x: 0, y }, { x: n - 1, y }];
    // without original_max_position_embeddings the config gives one length, max_position_embeddings: not called trained
    const [lineKey, withinKey] = r.originalMaxPosition ? ['modelTrained', 'modelWithinTrained'] : ['modelContext', 'modelWithinContext'];
    if (trained) sets.push(lineSet(this.t(lineKey, { len: trained }), flat(trained), 2, { pointRadius: 0 }));
    if (r.originalMaxPosition && r.maxPosition > r.originalMaxPosition) {
      sets.push(lineSet(this.t('modelExtended', { len: r.maxPosition }), flat(r.maxPosition), 3, { pointRadius: 0, borderDash: [2, 2] }));
    }
    // The export (CSV / JSON): each pair's θ_i as the model uses it (HF's inv_freq), its wavelength, the unscaled
    // one, and the attention factor that multiplies cos and sin (the same on every row: each row is complete).
    const af = r.attentionFactor ?? 1;
    this.data = () => ({
      header: ['pair', 'inv_freq', 'wavelength', 'unscaled_wavelength', 'attention_factor'],
      rows: Array.from(r.invFreq, (w, i) => [i, w, 2 * Math.PI / w, 2 * Math.PI / plain[i], af]),
    });
    this.waveChart ??= lineChart(this.newCanvas(), { aspect: 2, yExtra: LOG });
    setSeries(this.waveChart, sets, { x: this.t('pairIndex'), y: this.t('modelWavelength') });
    this.waveChart.canvas.sub.textContent = this.t('modelWaveTitle');
    const longer = trained ? Array.from(r.invFreq).filter((w) => 2 * Math.PI / w > trained).length : 0;
    const ramp = rampCounts(r.invFreq, plain);
    const text = this.t(ramp.divided || ramp.blended ? 'modelRamp' : trained ? 'modelNoRamp' : 'modelNoContext', {
      n, kept: ramp.kept, divided: ramp.divided, blended: ramp.blended, factor: fmt(ramp.factor, 4), longer,
      context: trained ? this.t(withinKey, { len: trained }) : '',
    });
    this.waveChart.canvas.setAttribute('aria-label', text);
    return text;
  }

  /**
   * Qwen2-VL's get_rope_index (mropePositions) for text, one grid × grid image
   * (after the spatial merge) and text: the text tokens as a strip (one id,
   * the same in all three rows), the image tokens as three grids of their
   * time, height and width ids, and where the text after the image resumes.
   */
  drawMrope(variants, config, merge, grid, r) {
    const p = variants.mropePositions([{ text: TEXT_BEFORE }, { image: [1, grid * merge, grid * merge] }, { text: TEXT_AFTER }],
      { spatialMergeSize: merge });
    const s = p.shape[1];
    const start = p.tokenTypes.indexOf(1); // the first image token
    const end = p.tokenTypes.lastIndexOf(1) + 1;
    const id = (row, k) => p.data[row * s + k];
    // Which axis each pair reads is the config's (its mrope_section), not the positions': one position tells it. The
    // prompt's cache (grid² × head_dim) held 4 GiB at head_dim 2^20 and grid 32, refused after the wavelengths were drawn.
    const cache = variants.mropeCache({ shape: [3, 1], data: [0, 0, 0] }, r.rotaryDim, { config, layout: 'pairs' });
    const reads = [0, 1, 2].map((k) => cache.axis.filter((a) => a === k).length);
    let top = 0;
    for (let k = start; k < end; k++) top = Math.max(top, id(0, k), id(1, k), id(2, k));
    const chips = (from, to) => Array.from({ length: to - from }, (_, i) => el('li', { class: 'tok' }, String(id(0, from + i))));
    const strip = el('ol', { class: 'strip', 'aria-label': this.t('modelStrip') },
      chips(0, start), el('li', { class: 'tok img' }, this.t('modelImageChip', { n: end - start, grid })), chips(end, s));
    const resume = el('p', { class: 'sub' }, this.t('modelResume', { first: id(0, end), top, index: end }));
    const label = this.t('modelMropeAlt', { s, grid, delta: p.ropeDelta, t: reads[0], h: reads[1], w: reads[2] });
    this.idsView(label, 'modelIdsTitle', [strip, resume], grid, grid, (axis, y, x) => id(axis, start + y * grid + x));
    return label;
  }

  /** FLUX's ids of a grid × grid latent (time 0, row, column), as ropeAxialCache reads them, on the grid. */
  drawFluxIds(variants, grid, r) {
    const ids = variants.ropeGridIds(grid, grid, { axes: r.axesDim.length });
    const a = ids.cols;
    const label = this.t('modelFluxAlt', { grid, axes: r.axesDim.join(', '), theta: String(r.theta) });
    this.idsView(label, 'modelFluxTitle', [], grid, grid, (axis, y, x) => ids.data[(y * grid + x) * a + axis]);
    return label;
  }

  /** One table per axis (time, height, width) of the ids of an h × w grid, each cell holding its id. */
  idsView(label, title, before, h, w, value) {
    this.idsEl ??= this.extraEl.appendChild(el('div', { class: 'ids', role: 'group' }));
    this.idsEl.setAttribute('aria-label', label);
    const grids = [0, 1, 2].map((axis) => {
      const cell = (y, x) => value(axis, y, x);
      let lo = Infinity, hi = -Infinity;
      for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) [lo, hi] = [Math.min(lo, cell(y, x)), Math.max(hi, cell(y, x))];
      const cols = Array.from({ length: w }, (_, x) => x);
      const td = (y, x) => {
        const c = el('td', {}, String(cell(y, x)));
        c.style.setProperty('--v', hi > lo ? String((cell(y, x) - lo) / (hi - lo)) : '0');
        return c;
      };
      return el('table', { class: 'idgrid' },
        el('caption', {}, this.t('modelGridCaption', { axis: this.t(`modelRow_${axis}`), lo, hi })),
        el('thead', {}, el('tr', {}, el('td', {}), cols.map((x) => el('th', { scope: 'col' }, String(x))))),
        el('tbody', {}, Array.from({ length: h }, (_, y) => el('tr', {}, el('th', { scope: 'row' }, String(y)), cols.map((x) => td(y, x))))));
    });
    this.idsEl.replaceChildren(el('p', { class: 'sub' }, this.t(title)), ...before, el('div', { class: 'tables' }, grids));
  }
}
