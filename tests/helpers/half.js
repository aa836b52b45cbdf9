// The 16-bit float formats from their definitions, for the tests: the value
// of a bit pattern (sign, exponent, fraction, written out) and the pattern
// nearest to a number, found by bisection over those values alone. Neither
// uses web/lib/float16.js, which they check.

// [exponent bits, fraction bits, bias] of each format (IEEE 754-2008 binary16; bfloat16).
export const FORMATS = { float16: [5, 10, 15], bfloat16: [8, 7, 127] };

/** The value of bit pattern b, from the definition of the format. */
export function valueOf(b, format) {
  const [eb, fb, bias] = FORMATS[format];
  const s = b >> 15 ? -1 : 1;
  const e = (b >> fb) & ((1 << eb) - 1);
  const f = b & ((1 << fb) - 1);
  if (e === (1 << eb) - 1) return f === 0 ? s * Infinity : NaN;
  if (e === 0) return s * f * Math.pow(2, 1 - bias - fb);
  return s * (Math.pow(2, fb) + f) * Math.pow(2, e - bias - fb);
}

/**
 * The pattern nearest to the finite x, ties to the even pattern, found by
 * bisection over the format's values alone. Past the largest finite value
 * the next step (same gap) is Infinity's.
 */
export function nearestBits(x, format) {
  const fb = FORMATS[format][1];
  const inf = ((1 << FORMATS[format][0]) - 1) << fb;
  const s = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  let lo = 0, hi = inf; // valueOf(lo) <= a < valueOf(hi)
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (valueOf(mid, format) <= a) lo = mid;
    else hi = mid;
  }
  const below = valueOf(lo, format);
  const above = lo + 1 === inf ? below + (below - valueOf(lo - 1, format)) : valueOf(lo + 1, format);
  const up = a - below > above - a || (a - below === above - a && lo % 2 === 1);
  return s | (up ? lo + 1 : lo);
}

