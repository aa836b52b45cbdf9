/* sin and cos to within one ulp for the core's angles, with no tables.
 *
 * x = k (pi/2) + r, |r| <= ~pi/4, then a quadrant of sin r or cos r.
 * pi/2 is carried as three doubles (159 bits) and each k * piece is formed
 * exactly, so r is right to ~2^-110 absolute even for k near 2^50, where one
 * double of pi/2 would leave no correct bit. The kernels are Taylor series
 * (exact rational coefficients) long enough that on |r| <= pi/4 truncation
 * stays 25x (cos) and 700x (sin) below half an ulp. */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include "mathlib.h"
#include "work.h"

static const double INV_PIO2 = 0x1.45f306dc9c883p-1;
static const double PIO2_1 = 0x1.921fb54442d18p+0; /* pi/2 = PIO2_1 + PIO2_2 + PIO2_3 + O(2^-163) */
static const double PIO2_2 = 0x1.1a62633145c07p-54;
static const double PIO2_3 = -0x1.f1976b7ed8fbcp-110;
static const double R_MAX = 0.8; /* the kernels are within one ulp to |r| = 0.8 */
/* Adding and subtracting 1.5 * 2^52 rounds |t| < 2^51 to the nearest integer. */
static const double ROUNDER = 0x1.8p52;

/* sin r = r + r^3 (S[0] + r^2 S[1] + ...): the series through r^17/17!. */
static const double S[] = { -1.0 / 6,        1.0 / 120,        -1.0 / 5040,          1.0 / 362880,
                            -1.0 / 39916800, 1.0 / 6227020800, -1.0 / 1307674368000, 1.0 / 355687428096000 };
/* cos r = 1 - r^2/2 + r^4 (C[0] + r^2 C[1] + ...): through r^16/16!. */
static const double C[] = { 1.0 / 24,        -1.0 / 720,         1.0 / 40320,         -1.0 / 3628800,
                            1.0 / 479001600, -1.0 / 87178291200, 1.0 / 20922789888000 };

/* x - k pi/2 as a double-double. k * PIO2_1 is within a factor 2 of x (or
 * zero), so x minus its high part is exact (Sterbenz); the rest is small. */
PE_INLINE pe_dd reduce(double x, double k) {
    pe_dd p1 = pe_two_prod(k, PIO2_1), p2 = pe_two_prod(k, PIO2_2);
    pe_dd r = pe_two_sum(x - p1.hi, -p1.lo);
    pe_dd u = pe_two_sum(r.hi, -p2.hi);
    return pe_two_sum(u.hi, ((r.lo + u.lo) - p2.lo) - k * PIO2_3);
}

/* sin(r.hi + r.lo); r.lo only needs its first-order term. */
PE_INLINE double sin_kernel(pe_dd r) {
    double x = r.hi, z = x * x;
    return x + (x * z * pe_poly(S, 8, z) + r.lo * (1 - 0.5 * z));
}

/* cos(r.hi + r.lo). 1 - x^2/2 is where the last bit is decided: x^2 is
 * formed exactly and the rounding of 1 - hz is recovered. */
PE_INLINE double cos_kernel(pe_dd r) {
    double x = r.hi;
    pe_dd z = pe_two_prod(x, x);
    double hz = 0.5 * z.hi, w = 1 - hz;
    double small = z.hi * z.hi * pe_poly(C, 7, z.hi) - 0.5 * z.lo - x * r.lo;
    return w + (((1 - w) - hz) + small);
}

/* sin and cos of k pi/2 + r from the kernels at r. */
static void quadrant(pe_dd r, double k, double *sn, double *cs) {
    double s = sin_kernel(r), c = cos_kernel(r);
    switch ((int)((int64_t)k & 3)) { /* two's complement: also right for k < 0 */
    case 0:
        *sn = s;
        *cs = c;
        break;
    case 1:
        *sn = c;
        *cs = -s;
        break;
    case 2:
        *sn = -s;
        *cs = -c;
        break;
    default:
        *sn = -c;
        *cs = s;
        break;
    }
}

void pe_sincos(double x, double *sn, double *cs) {
    PE_WORK(PE_WORK_SINCOS, 1);
    assert(!isfinite(x) || fabs(x) <= 0x1p50);
    if (!isfinite(x)) {
        *sn = *cs = x - x; /* NaN */
        return;
    }
    if (fabs(x) < 0x1p-27) { /* x^3/6 and x^2/2 are below half an ulp; keeps the sign of -0 */
        *sn = x;
        *cs = 1.0;
        return;
    }
    double k = (x * INV_PIO2 + ROUNDER) - ROUNDER;
    pe_dd r;
    /* Near 2^50 the rounded x * 2/pi can pick the neighbouring k, which
     * leaves |r| up to ~0.95, too long for the series: then take the right
     * one. (0.8, not pi/4: of two neighbours, only one can be above it.) */
    for (int pass = 0;; pass++) {
        r = reduce(x, k);
        if (pass || fabs(r.hi) <= R_MAX) break;
        k += r.hi > 0 ? 1 : -1;
    }
    quadrant(r, k, sn, cs);
}

/* Quarter turns are exact in binary: t = 4u - round(4u) has no rounding
 * error, and only t pi/2 is rounded (to a double-double), so this is as good
 * as pe_sincos at a fraction of its reduction. */
void pe_sincos_turns(double u, double *sn, double *cs) {
    PE_WORK(PE_WORK_SINCOS, 1);
    assert(fabs(u) <= 0x1p48);
    double t = 4 * u, k = (t + ROUNDER) - ROUNDER, r = t - k;
    pe_dd p = pe_two_prod(r, PIO2_1);
    quadrant(pe_fast_two_sum(p.hi, p.lo + r * PIO2_2), k, sn, cs);
}

double pe_sin(double x) {
    double s, c;
    pe_sincos(x, &s, &c);
    return s;
}

double pe_cos(double x) {
    double s, c;
    pe_sincos(x, &s, &c);
    return c;
}
