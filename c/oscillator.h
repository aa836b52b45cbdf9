/*
 * sin(p w_i) and cos(p w_i) for a run of consecutive positions p.
 *
 * Calling sin and cos for every element costs most of a table's time. Moving
 * from p to p + 1 is a rotation by w_i (angle addition), so each step needs
 * four multiplies and two adds per frequency, done two frequencies at a time
 * with WebAssembly SIMD (f64x2). Rounding drifts by about an ulp a step, so
 * every PE_ANCHOR steps the values are recomputed exactly from the angle
 * p * w_i formed in double. Measured against sin/cos of the exact angle in
 * long double (8192 x 1024): 4.56e-13 with PE_ANCHOR 32, 4.67e-13 with 256,
 * 5.05e-13 with 1024; almost all of it is the rounding of p * w_i itself,
 * which every double-angle implementation shares.
 */
#ifndef POSENC_OSCILLATOR_H
#define POSENC_OSCILLATOR_H

#include "internal.h"

/* Exact sin/cos cost ~32 ns a pair in wasm (docs/performance.md); 256 steps spread that to ~0.13 ns. */
#define PE_ANCHOR 256

typedef struct {
    int32_t n;
    const double *w;
    double *s, *c;   /* sin and cos at the current position (n each, padded to even) */
    double *sw, *cw; /* sin and cos of one step */
    double p;        /* current position */
    int32_t since;   /* steps since the last exact anchor */
} pe_osc;

int pe_osc_init(pe_osc *o, const double *w, int32_t n, double p);
void pe_osc_step(pe_osc *o);
/* Steps before the next exact anchor (1..PE_ANCHOR). */
int32_t pe_osc_room(const pe_osc *o);
/* For callers that rotated s and c by `steps` <= pe_osc_room() themselves:
 * moves the position on, and re-anchors when an anchor is due. */
void pe_osc_advance(pe_osc *o, int32_t steps);
/* Moves to position p, its values exact (an anchor). */
void pe_osc_seek(pe_osc *o, double p);
void pe_osc_free(pe_osc *o);

#endif
