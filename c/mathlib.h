/* The elementary functions of the core, in place of the C library's.
 *
 * musl's versions (what Emscripten links) carry ~10 kB of tables and 7 kB of
 * code, more than half of the wasm; these carry a few constants each and are
 * accurate to within one ulp (tests/native/test_math.c measures them against
 * long double). Domains are the core's, checked by debug assertions:
 *   pe_sin, pe_cos, pe_sincos   |x| <= 2^50, or not finite (NaN out); the core's angles stay below 2^42
 *   pe_exp                      any double
 *   pe_log                      any double (x < 0 gives NaN, 0 gives -inf)
 *   pe_pow                      x > 0 finite, y any (y = +-inf or NaN as in C)
 */
#ifndef POSENC_MATHLIB_H
#define POSENC_MATHLIB_H

#include "dd.h"

void pe_sincos(double x, double *s, double *c);
double pe_sin(double x);
double pe_cos(double x);

double pe_exp(double x);
double pe_log(double x);
double pe_pow(double x, double y);

/* exp(a.hi + a.lo) and log(x) as a double-double (pe_pow is exp_dd(y log_dd(x))). */
double pe_exp_dd(pe_dd a);
pe_dd pe_log_dd(double x);

#endif
