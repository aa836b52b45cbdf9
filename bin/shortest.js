// The shortest decimal that reads back (rounded to float32) as the float32 `v`:
// 0.84147096 rather than the 0.8414709568023682 of the double that holds it.
// At most 9 significant digits are ever needed for a float32.

/** `v` (a float32 value held in a double) as the shortest round-tripping decimal string. */
export function shortestFloat32(v) {
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  if (!Number.isFinite(v)) return String(v);
  for (let digits = 1; digits < 9; digits++) {
    const d = Number(v.toPrecision(digits));
    if (Math.fround(d) === v) return String(d);
  }
  return String(Number(v.toPrecision(9)));
}
