/* Double-double arithmetic: a value hi + lo carried to about 106 bits.
 * The elementary functions (trig.c, explog.c) use it where one double would
 * lose the last bits: the argument reduction of sin/cos, and log for pow.
 * No FMA (WebAssembly has none), so exact products use Veltkamp's split.
 * Correct only without reassociation: never build this with -ffast-math. */
#ifndef POSENC_DD_H
#define POSENC_DD_H

#include "inline.h"

typedef struct {
    double hi, lo;
} pe_dd;

/* a + b exactly, for any a, b. */
PE_INLINE pe_dd pe_two_sum(double a, double b) {
    double s = a + b, bb = s - a;
    return (pe_dd){ s, (a - (s - bb)) + (b - bb) };
}

/* a + b exactly, when |a| >= |b| (or a == 0). */
PE_INLINE pe_dd pe_fast_two_sum(double a, double b) {
    double s = a + b;
    return (pe_dd){ s, b - (s - a) };
}

/* a * b exactly (|a|, |b| < 2^995, so the split cannot overflow). */
PE_INLINE pe_dd pe_two_prod(double a, double b) {
    const double split = 134217729.0; /* 2^27 + 1 */
    double ca = split * a, cb = split * b;
    double ah = ca - (ca - a), al = a - ah;
    double bh = cb - (cb - b), bl = b - bh;
    double p = a * b;
    return (pe_dd){ p, ((ah * bh - p) + ah * bl + al * bh) + al * bl };
}

#endif
