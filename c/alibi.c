/*
 * ALiBi (Press et al. 2022): a per-head linear bias -m |i - j| added to the
 * attention scores instead of a positional encoding.
 *
 * Slopes:
 *   press  get_slopes of ofirpress/attention_with_linear_biases (and BLOOM):
 *          n a power of two: m_h = 2^(-max_bias h / n), h = 1..n (max_bias 8);
 *          otherwise, p the largest power of two below n: the p slopes of p,
 *          then slopes(2p)[0::2][:n - p].
 *   mpt    MosaicML MPT gen_slopes(n_heads, alibi_bias_max): N the next power
 *          of two >= n, m_k = 2^(-k max_bias / N), k = 1..N, and for N != n
 *          concat(m[1::2], m[::2])[:n].
 * MPT forms the exponents in float32; here they are double.
 */
#include <math.h>
#include "internal.h"
#include "posenc_variants.h"
#include "mathlib.h"

static int32_t power_of_two_below(int32_t n) { /* largest power of two <= n */
    int32_t p = 1;
    while (p <= n / 2) p *= 2;
    return p;
}

static void press_slopes(double *out, int32_t n, double max_bias) {
    int32_t p = power_of_two_below(n);
    for (int32_t h = 1; h <= p; h++) out[h - 1] = pe_pow(2.0, -max_bias * h / p);
    /* slopes(2p) = 2^(-max_bias k / 2p), k = 1..2p; [0::2] keeps k = 1, 3, 5, ... */
    for (int32_t t = 0; t < n - p; t++) out[p + t] = pe_pow(2.0, -max_bias * (2 * t + 1) / (2.0 * p));
}

static void mpt_slopes(double *out, int32_t n, double max_bias) {
    int32_t big = power_of_two_below(n);
    if (big < n) big *= 2;
    int32_t t = 0;
    if (big != n) { /* m[1::2] (k = 2, 4, ...), then m[::2] (k = 1, 3, ...) */
        for (int32_t k = 2; k <= big && t < n; k += 2) out[t++] = pe_pow(2.0, -max_bias * k / big);
        for (int32_t k = 1; k <= big && t < n; k += 2) out[t++] = pe_pow(2.0, -max_bias * k / big);
        return;
    }
    for (int32_t k = 1; k <= n; k++) out[k - 1] = pe_pow(2.0, -max_bias * k / n);
}

static int check_slopes(int32_t heads, int variant, double max_bias) {
    PE_TRY(pe_check_dim(heads));
    if (heads > PE_MAX_HEADS) return PE_ERR_SIZE;
    if (variant != PE_ALIBI_PRESS && variant != PE_ALIBI_MPT) return PE_ERR_OPTION;
    return (isfinite(max_bias) && max_bias > 0) ? PE_OK : PE_ERR_VALUE;
}

int pe_alibi_slopes(double *out, int32_t heads, int variant, double max_bias) {
    if (!out) return PE_ERR_NULL;
    PE_TRY(check_slopes(heads, variant, max_bias));
    if (variant == PE_ALIBI_PRESS) press_slopes(out, heads, max_bias);
    else mpt_slopes(out, heads, max_bias);
    return PE_OK;
}

int pe_alibi_bias(void *out, int dtype, int32_t heads, int32_t q_len, int32_t k_len, int variant,
                  double max_bias, int mode, double mask_value, int32_t query_offset) {
    if (!out) return PE_ERR_NULL;
    PE_TRY(pe_check_dtype(dtype));
    PE_TRY(check_slopes(heads, variant, max_bias));
    PE_TRY(pe_check_dim(q_len));
    PE_TRY(pe_check_dim(k_len));
    if (mode != PE_ALIBI_CAUSAL && mode != PE_ALIBI_SYMMETRIC) return PE_ERR_OPTION;
    /* -inf is the usual mask; +inf added to a score makes softmax NaN */
    if (isnan(mask_value) || mask_value == INFINITY) return PE_ERR_VALUE;
    PE_TRY(pe_check_position((double)query_offset + q_len));
    PE_TRY(pe_check_bytes((double)heads * q_len * k_len, dtype == PE_F32 ? 4 : 8));
    PE_TRY(pe_check_scratch((double)heads * sizeof(double)));
    double *m = pe_malloc((size_t)heads * sizeof *m);
    if (!m) return PE_ERR_NOMEM;
    if (variant == PE_ALIBI_PRESS) press_slopes(m, heads, max_bias);
    else mpt_slopes(m, heads, max_bias);
    size_t k = 0;
    for (int32_t h = 0; h < heads; h++) {
        for (int32_t i = 0; i < q_len; i++) {
            double qi = (double)i + query_offset;
            for (int32_t j = 0; j < k_len; j++, k++) {
                double dist = qi - j; /* > 0: the key is in the past */
                double v;
                if (mode == PE_ALIBI_CAUSAL && dist < 0) v = mask_value;
                else if (dist == 0) v = 0.0; /* not -0 */
                else v = -m[h] * fabs(dist);
                pe_store(out, dtype, k, v);
            }
        }
    }
    pe_free(m);
    return PE_OK;
}
