// <pe-model>: a published model's positional scheme, read from its config.json
// by the library's ropeFromConfig. Drawn: the wavelength 2π/θ_i of every
// rotated pair before and after the model's scaling against its trained and
// extended context (which pairs are interpolated, which kept), with the
// attention factor and the layer types in the caption; for M-RoPE models
// (Qwen2-VL) the three position rows (time, height, width) of a prompt with
// one image, and for FLUX the ids of its latent grid. Every number comes from
// the posenc API.
import { PeWidget } from './base.js';
import { int, text } from './attrs.js';
import { Heatmap } from './heatmap-chart.js';
import { lineChart, lineSet, setSeries, points } from './charts.js';
import { LOG } from './log-scale.js';
import { fmt } from './dom.js';

const TEXT_BEFORE = 4; // <|im_start|>user\n<|vision_start|>
const TEXT_AFTER = 5; // <|vision_end|> and a short question

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

/** Counts of each layer type, "full_attention × 6, sliding_attention × 28". */
function layerSummary(types) {
  const counts = new Map();
  for (const t of types ?? []) counts.set(t, (counts.get(t) ?? 0) + 1);
  return [...counts].map(([t, n]) => `${t} × ${n}`).join(', ');
}

/** Pairs kept (θ unchanged), interpolated (θ / factor) and blended, from scaled / unscaled θ. */
function rampCounts(scaled, plain) {
  const ratio = Array.from(scaled, (w, i) => w / plain[i]);
  const lo = Math.min(...ratio);
  const kept = ratio.filter((r) => Math.abs(r - 1) < 1e-9).length;
  const divided = lo < 1 - 1e-9 ? ratio.filter((r) => Math.abs(r - lo) < 1e-9 * lo).length : 0;
  return { kept, divided, blended: ratio.length - kept - divided, factor: 1 / lo };
}

export class PeModel extends PeWidget {
  static spec = {
    config: text(200000, ''),
    'layer-type': text(64, ''),
    layer: int(-1, 1048576, -1),
    grid: int(1, 32, 6),
  };
  static variants = true;
  static titleKey = 'modelTitle';
  static aspect = 2;

  render(api, v, variants) {
    this.control('config', 'modelConfigLabel', v.config, { kind: 'text', spellcheck: 'false' });
    this.control('grid', 'modelGridLabel', v.grid, { kind: 'number', min: 1, max: 32, step: 1 });
    if (!v.config.trim()) throw new TypeError(this.t('modelNoConfig'));
    const config = parseConfig(v.config);
    const layer = { ...(v['layer-type'] ? { layerType: v['layer-type'] } : {}), ...(v.layer >= 0 ? { layerIndex: v.layer } : {}) };
    const r = variants.ropeFromConfig(config, layer);
    this.control('layer-type', 'modelLayerLabel', v['layer-type'], { kind: 'text', spellcheck: 'false' });
    this.control('layer', 'modelLayerIndexLabel', v.layer, { kind: 'number', min: -1, step: 1 });
    const parts = [this.describe(r)];
    if (r.type === 'none') {
      this.clearCharts();
      this.captionEl.textContent = this.t('modelNone', { layer: v.layer });
      return;
    }
    parts.push(this.drawWavelengths(r, variants));
    if (r.type === 'axial') parts.push(this.drawFluxIds(variants, v.grid, r));
    else if (r.mropeSection) parts.push(this.drawMrope(variants, config, v.grid, r));
    else this.ids?.box.classList.add('hidden');
    if (r.warnings.length) parts.push(this.t('modelWarnings', { list: r.warnings.join('; ') }));
    this.captionEl.textContent = parts.join(' ');
  }

  describe(r) {
    const head = this.t('modelHead', {
      type: r.type, theta: String(r.theta), head: r.headDim, rotary: r.rotaryDim, pairing: this.t(`pairing_${r.pairing ?? 'half'}`),
      af: fmt(r.attentionFactor ?? 1, 6),
    });
    const layers = r.layerTypes ? ` ${this.t('modelLayers', { list: layerSummary(r.layerTypes), layer: r.layerType })}` : '';
    const rope = r.ropeLayers ? ` ${this.t('modelRopeLayers', { used: r.ropeLayers.filter(Boolean).length, n: r.ropeLayers.length })}` : '';
    return head + layers + rope;
  }

  clearCharts() {
    this.chartsEl.replaceChildren();
    this.waveChart = null;
    this.ids = null;
  }

  /** 2π/θ_i per pair, scaled and unscaled, against the trained and extended context. */
  drawWavelengths(r, variants) {
    const n = r.invFreq.length;
    const plain = r.type === 'axial' ? r.invFreq : variants.ropeFrequencies(r.rotaryDim, { base: r.theta, dtype: 'float64' }).invFreq;
    const wave = (w) => points(n, (i) => 2 * Math.PI / w[i]);
    const trained = r.originalMaxPosition ?? r.maxPosition;
    const sets = [
      lineSet(this.t('modelWavePlain', { theta: String(r.theta) }), wave(plain), 7, { pointRadius: 1.5 }),
      lineSet(this.t('modelWaveScaled', { type: r.type }), wave(r.invFreq), 1, { pointRadius: 1.5, borderDash: [5, 3] }),
    ];
    const flat = (y) => [{ x: 0, y }, { x: n - 1, y }];
    if (trained) sets.push(lineSet(this.t('modelTrained', { len: trained }), flat(trained), 2, { pointRadius: 0 }));
    if (r.originalMaxPosition && r.maxPosition > r.originalMaxPosition) {
      sets.push(lineSet(this.t('modelExtended', { len: r.maxPosition }), flat(r.maxPosition), 3, { pointRadius: 0, borderDash: [2, 2] }));
    }
    this.waveChart ??= lineChart(this.newCanvas(), { aspect: 2, yExtra: LOG });
    setSeries(this.waveChart, sets, { x: this.t('pairIndex'), y: this.t('modelWavelength') });
    this.waveChart.canvas.sub.textContent = this.t('modelWaveTitle');
    const longer = trained ? Array.from(r.invFreq).filter((w) => 2 * Math.PI / w > trained).length : 0;
    const ramp = rampCounts(r.invFreq, plain);
    const text = this.t(ramp.divided || ramp.blended ? 'modelRamp' : 'modelNoRamp', {
      n, kept: ramp.kept, divided: ramp.divided, blended: ramp.blended, factor: fmt(ramp.factor, 4), longer, trained: trained ?? '—',
    });
    this.waveChart.canvas.setAttribute('aria-label', text);
    return text;
  }

  /** The three rows of get_rope_index for text, one grid × grid image (after merging), text. */
  drawMrope(variants, config, grid, r) {
    const merge = config.vision_config?.spatial_merge_size ?? 2;
    const p = variants.mropePositions([{ text: TEXT_BEFORE }, { image: [1, grid * merge, grid * merge] }, { text: TEXT_AFTER }],
      { spatialMergeSize: merge });
    const s = p.shape[1];
    const cache = variants.mropeCache(p, r.rotaryDim, { config, layout: 'pairs' });
    const rows = [0, 1, 2].map((k) => this.t(`modelRow_${k}`));
    const reads = [0, 1, 2].map((k) => Array.from(cache.axis).filter((a) => a === k).length);
    const label = this.t('modelMropeAlt', { s, grid, delta: p.ropeDelta, t: reads[0], h: reads[1], w: reads[2] });
    this.idsMap(3, s, Float64Array.from(p.data), label, this.t('modelToken'), (row, col) => [
      `${rows[row]}, ${this.t('modelToken')} ${col}`, `id = ${p.data[row * s + col]}`,
    ]);
    return label;
  }

  /** FLUX's ids of a grid × grid latent (time 0, row, column), as ropeAxialCache reads them. */
  drawFluxIds(variants, grid, r) {
    const ids = variants.ropeGridIds(grid, grid, { axes: r.axesDim.length });
    const n = ids.rows;
    const a = ids.cols;
    const byAxis = Float64Array.from({ length: a * n }, (_, i) => ids.data[(i % n) * a + Math.floor(i / n)]);
    const label = this.t('modelFluxAlt', { grid, axes: r.axesDim.join(', '), theta: String(r.theta) });
    this.idsMap(a, n, byAxis, label, this.t('modelPatch'), (row, col) => [`${this.t(`modelRow_${row}`)}, ${this.t('modelPatch')} ${col}`,
      `id = ${byAxis[row * n + col]}`]);
    return label;
  }

  idsMap(rows, cols, data, label, x, describe) {
    this.ids ??= new Heatmap(this.chartsEl, { aspect: 2.4 });
    this.ids.box.classList.remove('hidden');
    this.ids.update({ rows, cols, data, scale: 'sequential', x, y: this.t('modelAxis'), label, describe });
  }
}
