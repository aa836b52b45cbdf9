// Sentences into tokens and tokens into vectors, for the widgets that attend
// over a sentence (<pe-toy-attention>, <pe-attention>, <pe-rope>).

/** Words if the text has spaces, otherwise characters (so 我打你 is three tokens). */
export function tokenize(s) {
  const t = s.trim();
  return /\s/.test(t) ? t.split(/\s+/) : Array.from(t);
}

/** A deterministic vector per word (FNV-1a seed, mulberry32 stream), mean 0, variance 1. */
export function embed(word, d) {
  let h = 2166136261;
  for (const ch of word) h = Math.imul(h ^ ch.codePointAt(0), 16777619);
  let s = h >>> 0;
  return Array.from({ length: d }, () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
    return ((((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1) * Math.sqrt(3);
  });
}
