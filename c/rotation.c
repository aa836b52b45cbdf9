/* The relative-position map M_k of Vaswani et al. section 3.5. */
#include <math.h>
#include <string.h>
#include "internal.h"
#include "mathlib.h"

int pe_rotation(double *out, int32_t d_model, int layout, int freq, double base, double k) {
    if (!out) return PE_ERR_NULL;
    PE_TRY(pe_check_dim(d_model));
    if (d_model > PE_MAX_ROTATION_DIM) return PE_ERR_SIZE;
    PE_TRY(pe_check_bytes((double)d_model * d_model, 8));
    PE_TRY(pe_check_position(k));
    /* A lone sine (odd width) would need the cosine it does not have. */
    if (d_model % 2) return PE_ERR_ODD;
    pe_spec sp;
    PE_TRY(pe_spec_init(&sp, d_model, layout, freq, base));
    size_t d = (size_t)d_model;
    memset(out, 0, d * d * sizeof *out);
    /* sin(a + b) = sin a cos b + cos a sin b, cos(a + b) = cos a cos b - sin a sin b */
    for (int32_t f = 0; f < sp.h; f++) {
        double a = k * sp.w[f], c = pe_cos(a), s = pe_sin(a);
        size_t si = (size_t)pe_sin_col(&sp, f), ci = (size_t)pe_cos_col(&sp, f);
        out[si * d + si] = c;
        out[si * d + ci] = s;
        out[ci * d + si] = -s;
        out[ci * d + ci] = c;
    }
    pe_spec_free(&sp);
    return PE_OK;
}
