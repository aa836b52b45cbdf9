/*
 * sin(p w_i) and cos(p w_i) for a run of consecutive positions p.
 *
 * Calling sin and cos for every element costs most of a table's time. Moving
 * from p to p + 1 is a rotation by w_i (angle addition), so each step needs
 * four multiplies per frequency. Rounding drifts by about an ulp a step, so
 * every PE_ANCHOR steps the values are recomputed exactly from the angle
 * p * w_i formed in double: the error never exceeds ~PE_ANCHOR ulps (1e-14).
 */
#ifndef POSENC_OSCILLATOR_H
#define POSENC_OSCILLATOR_H

#include "internal.h"

#define PE_ANCHOR 32

typedef struct {
    int32_t n;
    const double *w;
    double *s, *c;    /* sin and cos at the current position */
    double *sw, *cw;  /* sin and cos of one step */
    double p;         /* current position */
    int32_t since;    /* steps since the last exact anchor */
} pe_osc;

int pe_osc_init(pe_osc *o, const double *w, int32_t n, double p);
void pe_osc_step(pe_osc *o);
void pe_osc_free(pe_osc *o);

#endif
