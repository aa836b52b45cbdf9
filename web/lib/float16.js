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
    const v = (b & 0x7fff) >= inf ? (m ? NaN : Infinity) : (e ? 2 ** f + m : m) * 2 ** ((e || 1) - bias - f);
    return b & 0x8000 ? -v : v;
  });
}

/**
 * A Uint16Array of the bit patterns of `values` in `format`, each rounded to
 * nearest, ties to even; NaN is the quiet NaN. A value's exponent and
 * fraction are read from its two 32-bit words (little-endian, as wasm memory
 * is) and the fraction scaled to an integer by constant powers of two, which
 * is exact, so it is rounded once. Working from the number itself took a
 * logarithm and a power a value: 0.5 us (issue 22's eleventh pass).
 */
export function encodeHalves(values, format) {
  const [f, bias, inf] = layout(format);
  const x = new Float64Array(values), words = new Uint32Array(x.buffer), out = new Uint16Array(x.length);
  // from the midpoint between the largest finite value and 2^(bias + 1), Infinity (ties go to the even Infinity)
  const least = 1 - bias, max = (2 - 2 ** (-1 - f)) * 2 ** bias, lift = 2 ** (f - 20), tiny = 2 ** (f - least);
  for (let i = 0; i < x.length; i++) {
    // the exponent (2^k <= a < 2^(k+1)), the smallest normal's for subnormals, and the
    // fraction in units of the format's last place, 2^(k - f), from the bits (or, in the
    // least binade and below, from the value)
    const hi = words[2 * i + 1], a = Math.abs(x[i]), k = Math.max((hi >>> 20 & 0x7ff) - 1023, least);
    const q = k > least ? ((hi & 0xfffff | 0x100000) + words[2 * i] * 2 ** -32) * lift : a * tiny, r = Math.round(q);
    // a tie rounded up to an odd integer goes back down; a carry out of the fraction
    // steps the exponent, as the bits of the next binade say
    out[i] = (hi >>> 16 & 0x8000) | (a < max ? ((k + bias - 1) << f) + r - ((r - q === 0.5) & r) : inf | (a !== a) << (f - 1));
  }
  return out;
}

/** The bit pattern of the number `x` in `format` (encodeHalves of one value). */
export const encodeHalf = (x, format) => encodeHalves([x], format)[0];
