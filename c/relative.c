/*
 * Relative positions: T5's log-spaced buckets and Shaw et al.'s clipping.
 *
 * T5 follows Hugging Face's T5Attention._relative_position_bucket (itself
 * Mesh TensorFlow's): relative_position = memory_position - query_position;
 * bidirectional halves the buckets and gives positive offsets the upper half;
 * unidirectional keeps only the past (-min(rel, 0)). Distances below
 * max_exact = buckets/2 get their own bucket; larger ones
 * max_exact + (int)(log(rel / max_exact) / log(max_distance / max_exact)
 * * (buckets - max_exact)), capped at buckets - 1. PyTorch forms that log
 * branch in float32 (rel.float() / max_exact, torch.log, then float32 division
 * by the double log(max_distance / max_exact) cast to float32, float32
 * multiply, truncation); f32 != 0 reproduces it step by step, f32 == 0 uses
 * double throughout. The two can differ where the product lands on or just
 * below a whole number; tests/golden lists such distances.
 */
#include <math.h>
#include <string.h>
#include "internal.h"
#include "posenc_variants.h"
#include "mathlib.h"

static int check_t5(int bidirectional, int32_t num_buckets, int32_t max_distance) {
    int32_t n = bidirectional ? num_buckets / 2 : num_buckets;
    if (num_buckets < 1 || num_buckets > PE_T5_MAX_BUCKETS) return PE_ERR_SIZE;
    if (n / 2 < 1) return PE_ERR_SIZE;              /* needs max_exact >= 1 */
    if (max_distance <= n / 2) return PE_ERR_VALUE; /* log(max_distance / max_exact) > 0 */
    return PE_OK;
}

static int32_t t5_one(int32_t rel, int bidirectional, int32_t num_buckets, int32_t max_distance, int f32) {
    int32_t ret = 0, n = num_buckets;
    int64_t r = rel;
    if (bidirectional) {
        n /= 2;
        if (r > 0) ret += n;
        r = r < 0 ? -r : r;
    } else {
        r = r < 0 ? -r : 0;
    }
    int32_t max_exact = n / 2;
    if (r < max_exact) return ret + (int32_t)r;
    double v;
    if (f32) {
        float q = (float)r / (float)max_exact;
        float lg = (float)pe_log((double)q); /* correctly rounded float32 log, but for ties */
        float den = (float)pe_log((double)max_distance / max_exact);
        float t = lg / den;
        t = t * (float)(n - max_exact);
        v = t;
    } else {
        v = pe_log((double)r / max_exact) / pe_log((double)max_distance / max_exact) * (n - max_exact);
    }
    /* .to(torch.long) truncates; v >= 0 here and capped below, so no overflow. */
    double big = max_exact + (v < (double)n ? trunc(v) : (double)n);
    return ret + (big > n - 1 ? n - 1 : (int32_t)big);
}

int pe_t5_bucket(int32_t *out, const int32_t *relative, int32_t n, int bidirectional, int32_t num_buckets,
                 int32_t max_distance, int f32) {
    if (!out || !relative) return PE_ERR_NULL;
    PE_TRY(pe_check_dim(n));
    PE_TRY(check_t5(bidirectional, num_buckets, max_distance));
    for (int32_t i = 0; i < n; i++)
        out[i] = t5_one(relative[i], bidirectional, num_buckets, max_distance, f32);
    return PE_OK;
}

int pe_t5_bucket_matrix(int32_t *out, int32_t q_len, int32_t k_len, int32_t query_offset, int bidirectional,
                        int32_t num_buckets, int32_t max_distance, int f32) {
    if (!out) return PE_ERR_NULL;
    PE_TRY(pe_check_dim(q_len));
    PE_TRY(pe_check_dim(k_len));
    PE_TRY(pe_check_bytes((double)q_len * k_len, 4));
    PE_TRY(check_t5(bidirectional, num_buckets, max_distance));
    /* j - (i + offset), and its negation, must fit an int32: every relative position within ±(2^31 - 1). */
    if ((double)query_offset + q_len > 2147483648.0 || (double)query_offset < -2147483648.0 + k_len)
        return PE_ERR_POSITION;
    /* Entry (i, j) depends only on j - i (a Toeplitz matrix): row i is row
     * i - 1 moved one place right, plus one new entry at j = 0. So q_len +
     * k_len buckets are computed, each with its logarithm, and the rest is
     * copying (16384 x 16384 took 41 s one bucket at a time). */
    for (int32_t j = 0; j < k_len; j++)
        out[j] = t5_one(j - query_offset, bidirectional, num_buckets, max_distance, f32);
    for (int32_t i = 1; i < q_len; i++) {
        int32_t *row = out + (size_t)i * k_len;
        memcpy(row + 1, row - k_len, (size_t)(k_len - 1) * sizeof *row);
        row[0] = t5_one(-(i + query_offset), bidirectional, num_buckets, max_distance, f32);
    }
    return PE_OK;
}

int pe_shaw_matrix(int32_t *out, int32_t q_len, int32_t k_len, int32_t k, int shift, int32_t query_offset) {
    if (!out) return PE_ERR_NULL;
    PE_TRY(pe_check_dim(q_len));
    PE_TRY(pe_check_dim(k_len));
    PE_TRY(pe_check_bytes((double)q_len * k_len, 4));
    if (k < 0 || k > PE_MAX_DIM) return PE_ERR_SIZE;
    if (query_offset < -PE_MAX_DIM || query_offset > PE_MAX_DIM) return PE_ERR_POSITION;
    for (int32_t i = 0; i < q_len; i++) {
        for (int32_t j = 0; j < k_len; j++) {
            int32_t d = j - (i + query_offset); /* |d| < 2^26: no overflow */
            d = d < -k ? -k : d > k ? k : d;
            out[(size_t)i * k_len + j] = shift ? d + k : d;
        }
    }
    return PE_OK;
}
