// Which frequency and which function (sin/cos) a column of a table holds, for
// each layout of web/lib/index.d.ts. Used by tooltips and the circle views.

/** { pair, fn } where fn is 'sin', 'cos' or 'zero' (t2t/fairseq pad an odd d with zeros). */
export function columnInfo(layout, d, c) {
  if (layout === 'interleaved') return { pair: c >> 1, fn: c % 2 ? 'cos' : 'sin' };
  if (layout === 'split') {
    const s = Math.ceil(d / 2);
    return c < s ? { pair: c, fn: 'sin' } : { pair: c - s, fn: 'cos' };
  }
  const h = Math.floor(d / 2);
  if (c < h) return { pair: c, fn: 'sin' };
  return c < 2 * h ? { pair: c - h, fn: 'cos' } : { pair: -1, fn: 'zero' };
}

/** Columns [sinCol, cosCol] of pair i, or null when the pair has no cosine. */
export function pairColumns(layout, d, i) {
  if (layout === 'interleaved') return 2 * i + 1 < d ? [2 * i, 2 * i + 1] : null;
  if (layout === 'split') {
    const s = Math.ceil(d / 2);
    return i < d - s ? [i, s + i] : null;
  }
  const h = Math.floor(d / 2);
  return i < h ? [i, h + i] : null;
}
