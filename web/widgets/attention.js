// <pe-attention>: self-attention weights softmax(X Xᵀ/√d) of a sentence whose
// token vectors are fixed pseudo-random embeddings, with or without a sinusoidal
// PE added. Without PE, a repeated word gets the same row wherever it stands;
// the causal mask sets scores above the diagonal to −∞ before the softmax.
import { PeWidget } from './base.js';
import { encodingSpec, text, oneOf, bool } from './attrs.js';
import { Heatmap } from './heatmap-chart.js';
import { tokenize, embed } from './tokens.js';
import { matrixRows } from './export.js';
import { fmt } from './dom.js';

const MAX_TOKENS = 48;

export class PeAttention extends PeWidget {
  static spec = {
    ...encodingSpec(32, 12),
    sentence: text(400, 'the cat sat on the mat and the dog sat on the cat'),
    pe: oneOf(['none', 'sinusoidal'], 'sinusoidal'),
    causal: bool(false),
  };
  static titleKey = 'attentionTitle';
  static aspect = 1.15;

  render(api, v) {
    const d = Math.min(v['d-model'], 1024);
    if (d < v['d-model']) this.note('clamped', { raw: v['d-model'], max: d }, 'd-model');
    let tok = tokenize(v.sentence);
    if (!tok.length) throw new RangeError(this.t('emptySentence', { name: 'sentence' }));
    if (tok.length > MAX_TOKENS) this.note('cut', { max: MAX_TOKENS }, 'sentence');
    tok = tok.slice(0, MAX_TOKENS);
    const n = tok.length;
    this.control('sentence', 'sentenceLabel', v.sentence, { kind: 'text', maxlength: 400 });
    this.control('pe', 'peMode', v.pe, { kind: 'select', options: [['none', 'pe_none'], ['sinusoidal', 'pe_sinusoidal']] });
    this.control('causal', 'causalLabel', v.causal, { kind: 'checkbox' });
    const X = new Float64Array(n * d);
    tok.forEach((w, i) => X.set(embed(w, d), i * d));
    if (v.pe === 'sinusoidal') {
      const pe = api.table(n, d, { ...PeWidget.encoding(v), dtype: 'float64' }).data;
      for (let i = 0; i < X.length; i++) X[i] += pe[i];
    }
    const m = { rows: n, cols: d, data: X };
    const { weights } = api.attention(m, m, m, { causal: v.causal });
    const w = weights.data;
    const caption = `${this.t('attentionCaption', { n, d, pe: this.t(`pe_${v.pe}`), mask: this.t(v.causal ? 'masked' : 'unmasked') })} ${this.repeats(tok, w, n)}`;
    this.heat ??= new Heatmap(this.chartsEl, { aspect: 1.15 });
    this.heat.update({
      rows: n, cols: n, data: w, range: [0, 1], scale: 'sequential', x: this.t('keyAxis'), y: this.t('queryAxis'), label: caption,
      describe: (i, j) => [`${this.t('query')} ${i}: ${tok[i]}`, `${this.t('key')} ${j}: ${tok[j]}`, `${this.t('weight')} ${fmt(w[i * n + j])}`],
    });
    this.captionEl.textContent = caption;
    this.data = () => matrixRows(weights, 'query', 'key');
  }

  /** Compares the attention rows of the first repeated word's first two occurrences. */
  repeats(tok, w, n) {
    const i = tok.findIndex((t, k) => tok.indexOf(t) !== k);
    if (i < 0) return '';
    const first = tok.indexOf(tok[i]);
    // Compare the rows over the keys both can see (all of them without the mask).
    let diff = 0;
    for (let j = 0; j <= first; j++) diff = Math.max(diff, Math.abs(w[first * n + j] - w[i * n + j]));
    return this.t(diff === 0 ? 'repeatRowsSame' : 'repeatRows', { word: tok[i], a: first, b: i, diff: fmt(diff, 2) });
  }
}
