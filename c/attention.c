/* Scaled dot-product attention, softmax(scale Q K^T) V, with an optional causal mask. */
#include <math.h>
#include "internal.h"
#include "mathlib.h"

static int check_attention(int32_t n, int32_t m, int32_t dk, int32_t dv, double scale) {
    PE_TRY(pe_check_dim(n));
    PE_TRY(pe_check_dim(m));
    PE_TRY(pe_check_dim(dk));
    PE_TRY(pe_check_dim(dv));
    double elems = (double)n * dk + (double)m * dk + (double)m * dv + (double)n * m + (double)n * dv;
    PE_TRY(pe_check_bytes(elems, 8));
    return (isfinite(scale) && scale > 0) ? PE_OK : PE_ERR_VALUE;
}

/*
 * One query row: scores, a max-shifted softmax (exp never overflows), the mix of V.
 * Finite inputs can still give a score that overflows (1e200 * 1e200) or is
 * inf - inf; the softmax of such a row would be NaN, so the row fails instead.
 */
static int attend_row(double *wrow, double *orow, const double *qrow, const double *k, const double *v,
                      int32_t m, int32_t dk, int32_t dv, int32_t visible, double scale) {
    double mx = -INFINITY;
    for (int32_t j = 0; j < visible; j++) {
        const double *krow = k + (size_t)j * dk;
        double s = 0.0;
        for (int32_t c = 0; c < dk; c++) s += qrow[c] * krow[c];
        wrow[j] = s * scale;
        if (!isfinite(wrow[j])) return PE_ERR_VALUE;
        if (wrow[j] > mx) mx = wrow[j];
    }
    double total = 0.0;
    for (int32_t j = 0; j < visible; j++) total += (wrow[j] = pe_exp(wrow[j] - mx));
    for (int32_t j = 0; j < visible; j++) wrow[j] /= total;
    for (int32_t j = visible; j < m; j++) wrow[j] = 0.0; /* exp(-inf) */
    for (int32_t c = 0; c < dv; c++) orow[c] = 0.0;
    for (int32_t j = 0; j < visible; j++) {
        const double *vrow = v + (size_t)j * dv;
        for (int32_t c = 0; c < dv; c++) orow[c] += wrow[j] * vrow[c];
    }
    /* A convex mix of finite values; only rounding next to DBL_MAX can overflow it. */
    return pe_check_finite(orow, (size_t)dv);
}

int pe_attention(double *weights, double *out, const double *q, const double *k, const double *v, int32_t n,
                 int32_t m, int32_t dk, int32_t dv, int causal, double scale) {
    if (!weights || !out || !q || !k || !v) return PE_ERR_NULL;
    PE_TRY(check_attention(n, m, dk, dv, scale));
    PE_TRY(pe_check_finite(q, (size_t)n * dk));
    PE_TRY(pe_check_finite(k, (size_t)m * dk));
    PE_TRY(pe_check_finite(v, (size_t)m * dv));
    for (int32_t i = 0; i < n; i++) {
        /* Causal: query i sees keys 0..i, so no row is ever fully masked. */
        int32_t visible = causal ? (i + 1 < m ? i + 1 : m) : m;
        PE_TRY(attend_row(weights + (size_t)i * m, out + (size_t)i * dv, q + (size_t)i * dk, k, v, m, dk, dv,
                          visible, scale));
    }
    return PE_OK;
}
