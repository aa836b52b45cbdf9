#include <math.h>
#include "oscillator.h"

static void anchor(pe_osc *o) {
    for (int32_t i = 0; i < o->n; i++) {
        double a = o->p * o->w[i];
        o->s[i] = sin(a);
        o->c[i] = cos(a);
    }
    o->since = 0;
}

int pe_osc_init(pe_osc *o, const double *w, int32_t n, double p) {
    o->n = n;
    o->w = w;
    o->p = p;
    o->s = NULL;
    if (n == 0) return PE_OK;
    o->s = pe_malloc(4 * (size_t)n * sizeof(double));
    if (!o->s) return PE_ERR_NOMEM;
    o->c = o->s + n;
    o->sw = o->c + n;
    o->cw = o->sw + n;
    for (int32_t i = 0; i < n; i++) {
        o->sw[i] = sin(w[i]);
        o->cw[i] = cos(w[i]);
    }
    anchor(o);
    return PE_OK;
}

void pe_osc_step(pe_osc *o) {
    o->p += 1.0;
    if (++o->since == PE_ANCHOR) {
        anchor(o);
        return;
    }
    double *restrict s = o->s, *restrict c = o->c;
    const double *restrict sw = o->sw, *restrict cw = o->cw;
    for (int32_t i = 0; i < o->n; i++) {
        double si = s[i], ci = c[i];
        s[i] = si * cw[i] + ci * sw[i];
        c[i] = ci * cw[i] - si * sw[i];
    }
}

void pe_osc_free(pe_osc *o) {
    pe_free(o->s);
    o->s = NULL;
}
