/* The elementary functions of the core, in place of the C library's.
 *
 * musl's versions (what Emscripten links) carry ~10 kB of tables and 7 kB of
 * code, more than half of the wasm; these carry a few constants each and are
 * accurate to within one ulp (tests/native/test_math.c measures them against
 * long double). Domains are the core's, checked by debug assertions:
 *   pe_sin, pe_cos, pe_sincos   |x| <= 2^50, or not finite (NaN out); the core's angles stay below 2^42
 *   pe_exp                      any double
 *   pe_log                      any double (x < 0 gives NaN, 0 gives -inf)
 *   pe_pow                      x > 0 finite; within one ulp for |y| <= 16 (the core's
 *                               exponents are <= 2) or x a power of two (ALiBi's 2^y):
 *                               log x carries ~2^-58 absolute error, which y scales
 *                               (y = +-inf or NaN as in C)
 */
#ifndef POSENC_MATHLIB_H
#define POSENC_MATHLIB_H

#include "dd.h"
#include "inline.h"

void pe_sincos(double x, double *s, double *c);
/* sin and cos of 2 pi u, |u| <= 2^48: whole turns cost no precision. */
void pe_sincos_turns(double u, double *s, double *c);
double pe_sin(double x);
double pe_cos(double x);

double pe_exp(double x);
double pe_log(double x);
double pe_pow(double x, double y);

/* exp(a.hi + a.lo) and log(x) as a double-double. */
double pe_exp_dd(pe_dd a);
pe_dd pe_log_dd(double x);
/* exp(y * l) for l = log_dd(x): pow(x, y) when log x is already known, as
 * when every frequency is a power of the same base. */
double pe_exp_mul(double y, pe_dd l);

/* c[0] + z c[1] + ... + z^(n-1) c[n-1] for n <= 12 by Estrin's scheme: pairs,
 * then pairs of pairs, so the chain of dependent operations is ~8 long
 * instead of 2n. These run at every anchor of a table, where latency, not
 * the count of operations, is what costs. Inline with n constant, the
 * compiler drops the branches. */
PE_INLINE double pe_poly(const double *c, int n, double z) {
    double z2 = z * z, z4 = z2 * z2, z8 = z4 * z4, pair[6], quad[3];
    for (int i = 0; i < 6; i++)
        pair[i] = 2 * i + 1 < n ? c[2 * i] + z * c[2 * i + 1] : (2 * i < n ? c[2 * i] : 0.0);
    for (int i = 0; i < 3; i++) quad[i] = pair[2 * i] + z2 * pair[2 * i + 1];
    return (quad[0] + z4 * quad[1]) + z8 * quad[2];
}

#endif
