// How far a square matrix is from Toeplitz (constant along each diagonal):
// what the dot-product and RoPE widgets report about their score matrices.

/** Largest (max − min) along any diagonal i − j = const: 0 when the Gram matrix is Toeplitz. */
export function diagonalSpread(g, n) {
  let worst = 0;
  for (let k = -(n - 1); k < n; k++) {
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = Math.max(0, k); i < Math.min(n, n + k); i++) {
      const x = g[i * n + (i - k)];
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
    worst = Math.max(worst, hi - lo);
  }
  return worst;
}
