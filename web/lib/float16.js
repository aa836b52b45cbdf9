// The 16-bit float formats of ML tensors, as Uint16Array bit patterns:
// IEEE binary16 ("float16": 5 exponent bits, 10 fraction bits) and bfloat16
// (8 and 7: float32 with its low 16 bits cut). transformers.js and
// onnxruntime-web hand such tensors over as { type: 'float16', data: Uint16Array }.
// Decoding is exact (every value is a float32); encoding rounds a float64 to
// nearest, ties to even, in one step (through float32 it would round twice).

const FORMATS = {
  float16: { exp: 5, frac: 10 },
  bfloat16: { exp: 8, frac: 7 },
};
export const HALF_TYPES = Object.keys(FORMATS);

/** The value of the bit pattern `bits` in `format` ('float16' or 'bfloat16'). */
export function decodeHalf(bits, format) {
  const { exp, frac } = FORMATS[format];
  const bias = 2 ** (exp - 1) - 1;
  const e = (bits >> frac) & (2 ** exp - 1);
  const f = bits & (2 ** frac - 1);
  const sign = bits & 0x8000 ? -1 : 1;
  if (e === 2 ** exp - 1) return f ? NaN : sign * Infinity;
  // subnormals have no implicit 1 and the exponent of the smallest normal
  return sign * (e ? 1 + f / 2 ** frac : f / 2 ** frac) * 2 ** ((e || 1) - bias);
}

/** An integer rounded to nearest, ties to even (x >= 0; exact below 2^53). */
function roundEven(x) {
  const whole = Math.floor(x);
  const rest = x - whole; // exact: x has no bits below those of its fraction
  return rest > 0.5 || (rest === 0.5 && whole % 2 === 1) ? whole + 1 : whole;
}

/** The exponent e with 2^e <= a < 2^(e+1) (a > 0 finite), without trusting log2's rounding. */
function exponentOf(a) {
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  return e;
}

/** The bit pattern of the number `x` in `format`, rounded to nearest even; NaN is the quiet NaN. */
export function encodeHalf(x, format) {
  const { exp, frac } = FORMATS[format];
  const bias = 2 ** (exp - 1) - 1;
  const top = 2 ** exp - 1; // the exponent field of Infinity and NaN
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  if (Number.isNaN(x)) return (top << frac) | (1 << (frac - 1));
  const a = Math.abs(x);
  if (a === Infinity) return sign | (top << frac);
  const minExp = 1 - bias;
  // Below the smallest normal: whole units of the smallest subnormal (a
  // power-of-two scaling, exact). Rounding up to 2^frac units gives the
  // smallest normal's pattern, which is right.
  if (a < 2 ** minExp) return sign | roundEven(a * 2 ** (frac - minExp));
  let e = exponentOf(a);
  let m = roundEven(a * 2 ** (frac - e)); // 2^frac .. 2^(frac+1)
  if (m === 2 ** (frac + 1)) {
    m /= 2;
    e++;
  }
  if (e + bias >= top) return sign | (top << frac); // past the largest finite: Infinity
  return sign | ((e + bias) << frac) | (m - 2 ** frac);
}

/** A Float32Array of the values of the bit patterns `bits` (exact). */
export function decodeHalves(bits, format) {
  const out = new Float32Array(bits.length);
  // bfloat16 is float32's high half: place the bits, read them as float32
  if (format === 'bfloat16') {
    const words = new Uint32Array(out.buffer);
    for (let i = 0; i < bits.length; i++) words[i] = bits[i] << 16;
    return out;
  }
  for (let i = 0; i < bits.length; i++) out[i] = decodeHalf(bits[i], format);
  return out;
}

/** A Uint16Array of the bit patterns of `values` in `format`, each rounded to nearest even. */
export function encodeHalves(values, format) {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = encodeHalf(values[i], format);
  return out;
}
