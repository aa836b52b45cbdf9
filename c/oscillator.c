#include <assert.h>
#include <math.h>
#include "oscillator.h"
#include "mathlib.h"
#include "simd.h"
#include "work.h"

static void anchor(pe_osc *o) {
    for (int32_t i = 0; i < o->n; i++) {
        pe_sincos(o->p * o->w[i], &o->s[i], &o->c[i]);
    }
    o->since = 0;
}

int pe_osc_init(pe_osc *o, const double *w, int32_t n, double p) {
    o->n = n;
    o->w = w;
    o->p = p;
    o->s = NULL;
    o->since = 0;
    if (n == 0) return PE_OK; /* no frequencies (a one-column concat table): nothing to rotate */
    /* Padded to an even count so that the SIMD step has no tail; the pad
     * frequency is 0 (sin 0, cos 1), which stays put under rotation. */
    size_t n2 = ((size_t)n + 1) & ~(size_t)1;
    PE_TRY(pe_check_scratch(4.0 * n2 * sizeof(double)));
    o->s = pe_malloc(4 * n2 * sizeof(double));
    if (!o->s) return PE_ERR_NOMEM;
    o->c = o->s + n2;
    o->sw = o->c + n2;
    o->cw = o->sw + n2;
    for (int32_t i = 0; i < n; i++) {
        pe_sincos(w[i], &o->sw[i], &o->cw[i]);
    }
    if ((size_t)n < n2) {
        o->s[n] = o->sw[n] = 0.0;
        o->c[n] = o->cw[n] = 1.0;
    }
    anchor(o);
    return PE_OK;
}

void pe_osc_step(pe_osc *o) {
    o->p += 1.0;
    PE_WORK(PE_WORK_ROTATIONS, o->n);
    if (++o->since == PE_ANCHOR) {
        anchor(o);
        return;
    }
    double *restrict s = o->s, *restrict c = o->c;
    const double *restrict sw = o->sw, *restrict cw = o->cw;
    int32_t n = o->n;
#if PE_SIMD
    for (int32_t i = 0; i < n; i += 2) {
        v128_t si = wasm_v128_load(s + i), ci = wasm_v128_load(c + i);
        v128_t swi = wasm_v128_load(sw + i), cwi = wasm_v128_load(cw + i);
        wasm_v128_store(s + i, wasm_f64x2_add(wasm_f64x2_mul(si, cwi), wasm_f64x2_mul(ci, swi)));
        wasm_v128_store(c + i, wasm_f64x2_sub(wasm_f64x2_mul(ci, cwi), wasm_f64x2_mul(si, swi)));
    }
#else
    for (int32_t i = 0; i < n; i++) {
        double si = s[i], ci = c[i];
        s[i] = si * cw[i] + ci * sw[i];
        c[i] = ci * cw[i] - si * sw[i];
    }
#endif
}

int32_t pe_osc_room(const pe_osc *o) { return PE_ANCHOR - o->since; }

void pe_osc_advance(pe_osc *o, int32_t steps) {
    /* Callers step in blocks that divide PE_ANCHOR; overshooting an anchor
     * would let rounding accumulate past the documented bound. */
    assert(steps > 0 && steps <= PE_ANCHOR - o->since);
    o->p += steps;
    o->since += steps;
    if (o->since >= PE_ANCHOR) anchor(o);
}

void pe_osc_seek(pe_osc *o, double p) {
    o->p = p;
    if (o->n) anchor(o);
    o->since = 0;
}

void pe_osc_free(pe_osc *o) {
    pe_free(o->s);
    o->s = NULL;
}
