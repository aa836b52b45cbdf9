// The 16-bit float formats of ML tensors, as Uint16Array bit patterns:
// IEEE binary16 ("float16": 5 exponent bits, 10 fraction bits) and bfloat16
// (8 and 7: float32 with its low 16 bits cut). transformers.js and
// onnxruntime-web hand such tensors over as { type: 'float16', data: Uint16Array }.
// Decoding is exact (every value is a float32); encoding rounds a float64 to
// nearest, ties to even, in one step (through float32 it would round twice).

const FORMATS = { float16: [5, 10], bfloat16: [8, 7] }; // exponent and fraction bits
export const HALF_TYPES = Object.keys(FORMATS);

/** [fraction bits, exponent bias, the pattern of +Infinity] of a format. */
function layout(format) {
  const [e, f] = FORMATS[format];
  return [f, 2 ** (e - 1) - 1, (2 ** e - 1) << f];
}

/** A Float32Array of the values of the bit patterns `bits` (exact). */
export function decodeHalves(bits, format) {
  const [f, bias, inf] = layout(format);
  return Float32Array.from(bits, (b) => {
    const e = (b & inf) >> f, m = b & ((1 << f) - 1);
    // subnormals have no implicit 1 and the exponent of the smallest normal
    const v = (b & 0x7fff) >= inf ? (m ? NaN : Infinity) : (e ? 1 + m / 2 ** f : m / 2 ** f) * 2 ** ((e || 1) - bias);
    return b & 0x8000 ? -v : v;
  });
}

/** An integer rounded to nearest, ties to even (x >= 0; exact below 2^53). */
function roundEven(x) {
  const whole = Math.floor(x), rest = x - whole; // exact: x has no bits below its fraction's
  return rest > 0.5 || (rest === 0.5 && whole % 2) ? whole + 1 : whole;
}

/** The bit pattern of the number `x` in `format`, rounded to nearest even; NaN is the quiet NaN. */
export function encodeHalf(x, format) {
  const [f, bias, inf] = layout(format);
  if (Number.isNaN(x)) return inf | (1 << (f - 1));
  const a = Math.abs(x), sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  if (a >= 2 ** (bias + 1)) return sign | inf;
  // The exponent (2^k <= a < 2^(k+1), not trusting log2's rounding), the
  // smallest normal's for subnormals. The fraction is scaled by a power of
  // two (exact) and rounded; a carry out of it steps the exponent, as the
  // bits of the next binade (or Infinity) say.
  let k = Math.floor(Math.log2(a));
  if (2 ** k > a) k--;
  else if (2 ** (k + 1) <= a) k++;
  k = Math.max(k, 1 - bias);
  return sign | Math.min(inf, ((k + bias - 1) << f) + roundEven(a * 2 ** (f - k)));
}

/** A Uint16Array of the bit patterns of `values` in `format`. */
export const encodeHalves = (values, format) => Uint16Array.from(values, (x) => encodeHalf(x, format));
