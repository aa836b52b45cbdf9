// Which frequency and which function (sin/cos) each column of a table holds,
// for tooltips and the circle views. The placement comes from the library's
// columns() (c/freq.c defines it once); this only turns it around, column by column.

/** [{ pair, fn }] for the d columns: fn 'sin', 'cos' or 'zero' (concat pads an odd d with zeros). */
export function columnInfos(api, d, enc) {
  const { sin, cos } = api.columns(d, enc);
  const info = Array.from({ length: d }, () => ({ pair: -1, fn: 'zero' }));
  sin.forEach((c, i) => { info[c] = { pair: i, fn: 'sin' }; });
  cos.forEach((c, i) => { if (c >= 0) info[c] = { pair: i, fn: 'cos' }; });
  return info;
}

/** The (sin, cos) pairs that have both columns: [{ i, sin, cos }], i the frequency index. */
export function wholePairs(api, d, enc) {
  const { sin, cos } = api.columns(d, enc);
  return Array.from(sin, (s, i) => ({ i, sin: s, cos: cos[i] })).filter((p) => p.cos >= 0);
}
