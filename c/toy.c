/* The three-token toy attention of the "我打你 / 你打我" example. */
#include <math.h>
#include "internal.h"

int pe_toy_attention(double *x, double *y, double *sum, int32_t *label, double *weighted, const double *codes,
                     const double *pos, const double *w, int32_t n, double threshold) {
    if (!x || !y || !sum || !label || !weighted || !codes) return PE_ERR_NULL;
    PE_TRY(pe_check_dim(n));
    PE_TRY(pe_check_finite(codes, (size_t)n));
    if (pos) PE_TRY(pe_check_finite(pos, (size_t)n));
    if (w) PE_TRY(pe_check_finite(w, (size_t)n));
    PE_TRY(pe_check_finite(&threshold, 1));
    double total = 0.0;
    for (int32_t i = 0; i < n; i++) {
        x[i] = codes[i] + (pos ? pos[i] : 0.0);
        total += x[i];
    }
    /* y_i = sum_j x_i x_j: every token attends to every token with weight x_j. */
    double s = 0.0, ws = 0.0;
    for (int32_t i = 0; i < n; i++) {
        y[i] = x[i] * total;
        s += y[i];
        ws += (w ? w[i] : (double)(i + 1)) * y[i];
    }
    /* Finite codes can still overflow (1e308 + 1e308), and inf - inf is NaN:
     * refuse rather than hand back a label decided by a NaN. */
    if (!isfinite(s) || !isfinite(ws)) return PE_ERR_VALUE;
    PE_TRY(pe_check_finite(x, (size_t)n));
    PE_TRY(pe_check_finite(y, (size_t)n));
    *sum = s;
    *label = s > threshold;
    *weighted = ws;
    return PE_OK;
}
