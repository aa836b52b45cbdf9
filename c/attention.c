/*
 * Scaled dot-product attention, softmax(scale Q K^T + bias) V, per head of a
 * batch, with grouped-query heads, a causal mask, a 0/1 mask and an additive
 * bias (both broadcast through strides).
 */
#include <math.h>
#include "internal.h"
#include "mathlib.h"

enum { B_, H_, HKV_, N_, M_, DK_, DV_ };

/* The sizes and scale of dims, the buffers (of `bytes` per element) counting the n x m weights when wanted.
 */
int pe_check_attention(const int32_t *d, double scale, int weights, double bytes) {
    for (int i = 0; i <= DV_; i++) PE_TRY(pe_check_dim(d[i]));
    if (d[H_] % d[HKV_]) return PE_ERR_SHAPE;
    double bh = (double)d[B_] * d[H_], bk = (double)d[B_] * d[HKV_];
    double elems = bh * d[N_] * d[DK_] + bk * d[M_] * d[DK_] + bk * d[M_] * d[DV_]
                   + (weights ? bh * d[N_] * d[M_] : 0) + bh * d[N_] * d[DV_];
    PE_TRY(pe_check_bytes(elems, bytes));
    return (isfinite(scale) && scale > 0) ? PE_OK : PE_ERR_VALUE;
}

/* Where one row's mask and bias start, and their key strides; NULL when absent. */
typedef struct {
    const uint8_t *mask;
    const double *bias;
    size_t mstep, bstep;
} row_extras;

/*
 * One query row: scores, a max-shifted softmax (exp never overflows), the mix
 * of V. A key is left out when causal hides it, the mask is 0 or the bias is
 * -inf; a row left with no key gets zero weights and a zero output. Finite
 * inputs can still give a score that overflows (1e200 * 1e200) or is
 * inf - inf; the softmax of such a row would be NaN, so the row fails instead.
 */
static int attend_row(double *wrow, double *orow, const double *qrow, const double *k, const double *v,
                      int32_t m, int32_t dk, int32_t dv, int32_t visible, double scale, const row_extras *x) {
    double mx = -INFINITY;
    for (int32_t j = 0; j < m; j++) {
        wrow[j] = -INFINITY;
        if (j >= visible || (x->mask && !x->mask[j * x->mstep])) continue;
        const double *krow = k + (size_t)j * dk;
        double s = 0.0;
        for (int32_t c = 0; c < dk; c++) s += qrow[c] * krow[c];
        s *= scale;
        if (x->bias) {
            double b = x->bias[j * x->bstep];
            if (b == -INFINITY) continue;
            s += b;
        }
        if (!isfinite(s)) return PE_ERR_VALUE;
        wrow[j] = s;
        if (s > mx) mx = s;
    }
    double total = 0.0;
    for (int32_t j = 0; j < m; j++) total += (wrow[j] = wrow[j] == -INFINITY ? 0.0 : pe_exp(wrow[j] - mx));
    for (int32_t c = 0; c < dv; c++) orow[c] = 0.0;
    if (total == 0.0) return PE_OK; /* nothing to attend */
    for (int32_t j = 0; j < m; j++) {
        if (wrow[j] == 0.0) continue;
        wrow[j] /= total;
        const double *vrow = v + (size_t)j * dv;
        for (int32_t c = 0; c < dv; c++) orow[c] += wrow[j] * vrow[c];
    }
    /* A convex mix of finite values; only rounding next to DBL_MAX can overflow it. */
    return pe_check_finite(orow, (size_t)dv);
}

/*
 * Called through a pointer nothing can see through, so that no compiler (nor
 * wasm-opt) inlines it: V8 runs a call in the code it was entered with (wasm
 * has no on-stack replacement), and a function entered once per row runs in
 * optimised code after the first rows instead of the baseline compiler's.
 */
static int (*volatile attend_row_fn)(double *, double *, const double *, const double *, const double *,
                                     int32_t, int32_t, int32_t, int32_t, double,
                                     const row_extras *) = attend_row;

/* Offset of (b, h, i) under strides s[0..2]. */
static size_t at(const int32_t *s, int32_t b, int32_t h, int32_t i) {
    return (size_t)b * s[0] + (size_t)h * s[1] + (size_t)i * s[2];
}

int pe_attention_heads(double *weights, double *out, const double *q, const double *k, const double *v,
                       const int32_t *dims, int causal, double scale, const uint8_t *mask,
                       const int32_t *mask_strides, const double *bias, const int32_t *bias_strides) {
    if (!out || !q || !k || !v || !dims) return PE_ERR_NULL;
    if ((mask && !mask_strides) || (bias && !bias_strides)) return PE_ERR_NULL;
    PE_TRY(pe_check_attention(dims, scale, weights != NULL, 8));
    int32_t heads = dims[H_], kvh = dims[HKV_], n = dims[N_], m = dims[M_], dk = dims[DK_], dv = dims[DV_];
    size_t qheads = (size_t)dims[B_] * heads, kheads = (size_t)dims[B_] * kvh;
    PE_TRY(pe_check_finite(q, qheads * n * dk));
    PE_TRY(pe_check_finite(k, kheads * m * dk));
    PE_TRY(pe_check_finite(v, kheads * m * dv));
    /* No weights wanted: one row of scores, reused by every row (never n x m). */
    double *row_scores = NULL;
    if (!weights) {
        PE_TRY(pe_check_scratch((double)m * 8));
        if (!(row_scores = pe_malloc((size_t)m * 8))) return PE_ERR_NOMEM;
    }
    int st = PE_OK;
    for (size_t bh = 0; bh < qheads; bh++) {
        int32_t b = (int32_t)(bh / heads), h = (int32_t)(bh % heads);
        size_t kv = (size_t)b * kvh + h / (heads / kvh); /* grouped-query: heads share a kv head */
        const double *kh = k + kv * m * dk, *vh = v + kv * m * dv;
        for (int32_t i = 0; i < n; i++) {
            /* Causal: query i sees keys 0..i (top-left aligned, as PyTorch's is_causal). */
            int32_t visible = causal ? (i + 1 < m ? i + 1 : m) : m;
            row_extras x = { mask ? mask + at(mask_strides, b, h, i) : NULL,
                             bias ? bias + at(bias_strides, b, h, i) : NULL,
                             mask ? (size_t)mask_strides[3] : 0, bias ? (size_t)bias_strides[3] : 0 };
            size_t row = bh * n + i;
            st = attend_row_fn(weights ? weights + row * m : row_scores, out + row * dv, q + row * dk, kh, vh,
                               m, dk, dv, visible, scale, &x);
            if (st) goto done;
        }
    }
done:
    pe_free(row_scores);
    return st;
}

int pe_attention(double *weights, double *out, const double *q, const double *k, const double *v, int32_t n,
                 int32_t m, int32_t dk, int32_t dv, int causal, double scale) {
    int32_t dims[] = { 1, 1, 1, n, m, dk, dv };
    if (!weights) return PE_ERR_NULL;
    return pe_attention_heads(weights, out, q, k, v, dims, causal, scale, NULL, NULL, NULL, NULL);
}
