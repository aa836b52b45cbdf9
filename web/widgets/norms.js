// <pe-norms>: two facts about the sinusoidal table. Every row has the same length
// √(d/2) (each pair contributes sin² + cos² = 1), and a fixed matrix M_k, built
// from 2×2 rotations, moves PE_pos onto PE_{pos+k} whatever pos is.
import { PeWidget } from './base.js';
import { encodingSpec, int, limitRows } from './attrs.js';
import { lineChart, lineSet, setSeries, points } from './charts.js';
import { fmt } from './dom.js';

const MAX_D = 1024;

export class PeNorms extends PeWidget {
  static spec = { ...encodingSpec(64, 100), pos: int(0, 1e6, 10), k: int(-1e6, 1e6, 5) };
  static titleKey = 'normsTitle';

  async render(api, v) {
    const d = Math.min(v['d-model'], MAX_D);
    if (d < v['d-model']) this.note('clamped', { raw: v['d-model'], max: d }, 'd-model');
    // The whole table is formed for its norms: rows × d stays within MAX_CELLS.
    const [len, lenNote] = limitRows(v['max-len'], d);
    if (lenNote) this.note(...lenNote);
    const enc = PeWidget.encoding(v);
    const norms = api.norms(api.table(len, d, { ...enc, dtype: 'float64' }));
    const expect = Math.sqrt(d / 2);
    const worst = norms.reduce((m, x) => Math.max(m, Math.abs(x - expect)), 0);
    this.control('pos', 'posLabel', v.pos, { min: 0, max: 1e6, step: 1 });
    this.control('k', 'kLabel', v.k, { min: -1e6, max: 1e6, step: 1 });
    this.normChart ??= lineChart(this.newCanvas(), { aspect: 1.6 });
    this.normChart.canvas.sub.textContent = this.t('normChart');
    // A fixed range around √(d/2): otherwise the axis zooms into float32 rounding noise.
    Object.assign(this.normChart.options.scales.y, { min: 0, max: Math.ceil(expect * 1.25) });
    setSeries(this.normChart, [
      lineSet('‖PE_pos‖', points(len, (p) => norms[p]), 0, { pointRadius: len <= 64 ? 2 : 0 }),
      lineSet(`√(d/2) = ${fmt(expect)}`, points(len, () => expect), 1, { borderDash: [6, 4] }),
    ], { x: this.t('position'), y: this.t('norm') });
    const normText = this.t('normCaption', { d, len, expect: fmt(expect), worst: fmt(worst, 2) });
    this.normChart.canvas.setAttribute('aria-label', normText);
    await this.pause();
    const rotText = this.rotationCheck(api, v, d, enc);
    this.captionEl.textContent = `${normText} ${rotText}`;
    this.data = () => ({ header: ['position', 'norm'], rows: Array.from(norms, (x, p) => [p, x]) });
  }

  rotationCheck(api, v, d, enc) {
    this.rotChart ??= lineChart(this.newCanvas(), { aspect: 1.6 });
    const { rotChart } = this;
    let M;
    try {
      M = api.rotation(v.k, d, { ...enc, dtype: 'float64' });
    } catch (e) {
      // An odd d (or a layout without whole pairs) has no such matrix; say why, keep the norm chart.
      rotChart.canvas.sub.textContent = `${this.t('noRotation')} ${e.name}: ${e.message}`;
      setSeries(rotChart, [], {});
      return this.t('noRotation');
    }
    // the sinusoid at p, without fairseq's zero row at position 1: M_k moves rows of sines, not padding
    const row = (p) => Array.from(api.table(1, d, { ...enc, offset: p, paddingIdx: null, dtype: 'float64' }).data);
    const from = row(v.pos);
    const to = row(v.pos + v.k);
    // (M_k PE_pos)_r = M_k[r] · PE_pos, one WASM dot product per row.
    const moved = Array.from({ length: d }, (_, r) => api.dot(M.data.subarray(r * d, (r + 1) * d), from));
    const err = moved.reduce((m, x, i) => Math.max(m, Math.abs(x - to[i])), 0);
    rotChart.canvas.sub.textContent = this.t('rotChart', { k: v.k, pos: v.pos });
    setSeries(rotChart, [
      lineSet(`PE_${v.pos}`, points(d, (i) => from[i]), 7, { borderWidth: 1 }),
      lineSet(`PE_${v.pos + v.k}`, points(d, (i) => to[i]), 0, { borderWidth: 3 }),
      lineSet(`M_${v.k} · PE_${v.pos}`, points(d, (i) => moved[i]), 1, { showLine: false, pointRadius: d <= 128 ? 2.5 : 1 }),
    ], { x: this.t('dimension'), y: this.t('value') });
    const text = this.t('rotCaption', { k: v.k, pos: v.pos, to: v.pos + v.k, err: fmt(err, 2) });
    rotChart.canvas.setAttribute('aria-label', text);
    return text;
  }
}
