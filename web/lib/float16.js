// The 16-bit float formats of ML tensors, as Uint16Array bit patterns:
// IEEE binary16 ("float16": 5 exponent bits, 10 fraction bits) and bfloat16
// (8 and 7: float32 with its low 16 bits cut). transformers.js and
// onnxruntime-web hand such tensors over as { type: 'float16', data: Uint16Array }.
// Decoding is exact (every value is a float32); encoding rounds a float64 to
// nearest, ties to even, in one step (through float32 it would round twice).

import { typedLength, typedArrayBuffer } from './validate.js';
import { Float32Array, Float64Array, Uint32Array, Uint16Array } from './intrinsics.js';

const FORMATS = { float16: [5, 10], bfloat16: [8, 7] }; // exponent and fraction bits
export const HALF_TYPES = Object.keys(FORMATS);

/** [fraction bits, exponent bias, the pattern of +Infinity] of a format. */
const layout = (format, [e, f] = FORMATS[format]) => [f, 2 ** (e - 1) - 1, (2 ** e - 1) << f];

/**
 * A Float32Array of the values of the bit patterns `bits` (exact). Without
 * its sign, a pattern shifted into float32's fields reads as the value times
 * 2^(bias - 127) (subnormals included: both are fractions of a power of two),
 * so one exact multiply restores it. The value-by-value arithmetic it replaced
 * (a callback, a division and two powers) took 150 ns a value. Its length is
 * the engine's own (typedLength): a `length` property planted on the array
 * made a Float32Array of 2^32 values (issue 22, thirteenth pass).
 */
export function decodeHalves(bits, format) {
  const [f, bias, inf] = layout(format);
  const n = typedLength(bits), out = new Float32Array(n), words = new Uint32Array(typedArrayBuffer(out)), scale = 2 ** (127 - bias);
  for (let i = 0; i < n; i++) {
    const b = bits[i] & 0x7fff;
    words[i] = ((bits[i] & 0x8000) << 16) | (b << (23 - f)); // the sign in float32's sign bit
    out[i] *= b < inf ? scale : b > inf ? NaN : Infinity; // Infinity's pattern is not float32's: ± its value times Infinity
  }
  return out;
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
  // (counted and its buffer taken by slot: a length getter planted on %TypedArray%.prototype made a float16 result 8 times too long)
  const x = new Float64Array(values), n = typedLength(x), words = new Uint32Array(typedArrayBuffer(x)), out = new Uint16Array(n);
  // from the midpoint between the largest finite value and 2^(bias + 1), Infinity (ties go to the even Infinity)
  const least = 1 - bias, max = (2 - 2 ** (-1 - f)) * 2 ** bias, lift = 2 ** (f - 20), tiny = 2 ** (f - least);
  for (let i = 0; i < n; i++) {
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
