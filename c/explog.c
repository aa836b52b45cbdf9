/* exp, log and pow to within one ulp, with no tables.
 *
 * exp: x = k ln2 + r, |r| <= ln2/2, e^x = 2^k e^r, e^r by its series with
 * the leading terms 1 + r + r^2/2 summed in double-double.
 * log: x = 2^e m, m in (sqrt(2)/2, sqrt(2)], log m = 2 atanh(s) with
 * s = (m - 1)/(m + 1) in double-double; the result is a double-double, good
 * to ~2^-58 absolute (the series beyond 2s is summed in double). That is what
 * pow needs while |y| is moderate: pow(x, y) = exp(y log x), formed exactly
 * from it, is off by |y| 2^-58 relative at most, under 1 ulp for |y| <= 16. */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "mathlib.h"

static const double LN2_HI = 0x1.62e42ff000000p-1; /* 29 bits: k * LN2_HI is exact for |k| < 2^24 */
static const double LN2_LO = -0x1.718432a1b0e26p-35;
static const double INV_LN2 = 0x1.71547652b82fep+0;
static const double SQRT2 = 0x1.6a09e667f3bcdp+0;
static const double ROUNDER = 0x1.8p52;
static const double EXP_MAX = 709.782712893384;   /* log(DBL_MAX), rounded down */
static const double EXP_MIN = -745.1332191019412; /* below: under half the least subnormal */

/* e^r - 1 - r - r^2/2 = r^3 (E[0] + r E[1] + ...): through r^13/13!. */
static const double E[] = { 1.0 / 6,        1.0 / 24,        1.0 / 120,       1.0 / 720,
                            1.0 / 5040,     1.0 / 40320,     1.0 / 362880,    1.0 / 3628800,
                            1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800 };
/* 2 atanh s - 2s = 2s z (L[0] + z L[1] + ...), z = s^2: through s^25/25. */
static const double L[] = { 1.0 / 3,  1.0 / 5,  1.0 / 7,  1.0 / 9,  1.0 / 11, 1.0 / 13,
                            1.0 / 15, 1.0 / 17, 1.0 / 19, 1.0 / 21, 1.0 / 23, 1.0 / 25 };

/* log is taken once per table, not per element: a plain loop is enough. */
static double horner(const double *c, int n, double z) {
    double p = c[n - 1];
    for (int i = n - 2; i >= 0; i--) p = p * z + c[i];
    return p;
}

PE_INLINE double from_bits(uint64_t b) {
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

PE_INLINE uint64_t to_bits(double d) {
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

/* y * 2^k for |k| <= 1100, as two exact steps through normal powers of two,
 * so that only the last one rounds (into the subnormals, if it must). */
PE_INLINE double scale2(double y, int k) {
    int k1 = k / 2, k2 = k - k1;
    return y * from_bits((uint64_t)(k1 + 1023) << 52) * from_bits((uint64_t)(k2 + 1023) << 52);
}

double pe_exp_dd(pe_dd a) {
    double x = a.hi;
    if (isnan(x)) return x;
    if (x > EXP_MAX) return HUGE_VAL;
    if (x < EXP_MIN) return 0.0;
    double k = (x * INV_LN2 + ROUNDER) - ROUNDER;
    /* x - k LN2_HI is exact: k LN2_HI is, and it is within a factor 2 of x.
     * The low parts are folded in at once, so that what is left of them is
     * too small for its product with r^2 to matter. */
    pe_dd r = pe_two_sum(x - k * LN2_HI, a.lo - k * LN2_LO);
    double rh = r.hi, rl = r.lo;
    pe_dd s = pe_two_sum(1.0, rh);
    pe_dd q = pe_two_prod(rh, rh); /* r^2, halved below */
    pe_dd t = pe_two_sum(s.hi, 0.5 * q.hi);
    double small = rh * q.hi * pe_poly(E, 11, rh) + rl * (1 + rh);
    double y = t.hi + (((s.lo + t.lo) + 0.5 * q.lo) + small);
    return scale2(y, (int)k);
}

double pe_exp(double x) { return pe_exp_dd((pe_dd){ x, 0.0 }); }

pe_dd pe_log_dd(double x) {
    if (isnan(x) || x < 0) return (pe_dd){ NAN, 0.0 };
    if (x == 0) return (pe_dd){ -HUGE_VAL, 0.0 };
    if (isinf(x)) return (pe_dd){ x, 0.0 };
    int e = 0;
    if (x < 0x1p-1022) { /* subnormal: make it normal first */
        x *= 0x1p54;
        e = -54;
    }
    uint64_t b = to_bits(x);
    e += (int)(b >> 52) - 1023;
    double m = from_bits((b & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);
    if (m > SQRT2) {
        m *= 0.5;
        e++;
    }
    double f = m - 1;                  /* exact */
    pe_dd d = pe_fast_two_sum(2.0, f); /* m + 1, exactly */
    double s = f / d.hi;
    pe_dd sd = pe_two_prod(s, d.hi);
    double sl = (((f - sd.hi) - sd.lo) - s * d.lo) / d.hi; /* s + sl = f / (m + 1) to ~2^-106 */
    double z = s * s;
    double tail = 2 * s * z * horner(L, 12, z);
    pe_dd a = pe_two_sum(e * LN2_HI, 2 * s); /* e * LN2_HI is exact */
    return pe_fast_two_sum(a.hi, a.lo + (e * LN2_LO + (2 * sl + tail)));
}

double pe_log(double x) { return pe_log_dd(x).hi; }

double pe_pow(double x, double y) {
    assert(x > 0 && isfinite(x)); /* y may be infinite (ALiBi with a huge max_bias): exp takes it */
    if (y == 0 || x == 1) return 1.0;
    return pe_exp_mul(y, pe_log_dd(x));
}

double pe_exp_mul(double y, pe_dd l) {
    if (l.hi == 0) return 1.0; /* x = 1: also for y infinite */
    double p = y * l.hi;
    /* Far outside exp's range (or with |y| too large to split exactly) the
     * double product already decides the result: overflow or underflow. */
    if (!(fabs(p) < 800) || fabs(y) > 0x1p900) return pe_exp(p);
    pe_dd t = pe_two_prod(y, l.hi);
    /* normalised, so that exp's overflow test sees the value's leading part */
    return pe_exp_dd(pe_fast_two_sum(t.hi, t.lo + y * l.lo));
}
