/*
 * A learned absolute position table, as a model has it at initialisation:
 * trained_len rows of random numbers and nothing beyond. The numbers come
 * from splitmix64 (Steele, Lea and Flood 2014) used as a counter-based
 * generator: draw k is mix(seed + (k + 1) * 0x9E3779B97F4A7C15), so element
 * (p, c) is the same whatever trained_len is, and any row can be made alone.
 * Element (p, c) uses draws 2(p d + c) and 2(p d + c) + 1, u = top 53 bits / 2^53:
 *   normal  scale * sqrt(-2 ln(1 - u1)) * cos(2 pi u2)   (Box-Muller, cosine branch)
 *   uniform scale * (2 u1 - 1)
 */
#include <math.h>
#include "internal.h"
#include "posenc_variants.h"
#include "mathlib.h"

static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform(uint64_t seed, uint64_t k) {
    return (double)(mix(seed + (k + 1) * 0x9E3779B97F4A7C15ull) >> 11) * 0x1.0p-53;
}

static double element(uint64_t seed, uint64_t index, int dist, double scale) {
    double u1 = uniform(seed, 2 * index), u2 = uniform(seed, 2 * index + 1);
    if (dist == PE_DIST_UNIFORM) return scale * (2 * u1 - 1);
    return scale * sqrt(-2 * pe_log(1 - u1)) * pe_cos(6.283185307179586 * u2);
}

static int check_learned(const void *out, int dtype, int32_t trained_len, int32_t d_model, double seed,
                         int dist, double scale) {
    if (!out) return PE_ERR_NULL;
    PE_TRY(pe_check_dtype(dtype));
    PE_TRY(pe_check_dim(trained_len));
    PE_TRY(pe_check_dim(d_model));
    if (dist != PE_DIST_NORMAL && dist != PE_DIST_UNIFORM) return PE_ERR_OPTION;
    if (!(seed >= 0 && seed < 9007199254740992.0 && seed == floor(seed))) return PE_ERR_VALUE;
    return (scale >= 0 && scale <= PE_LEARNED_MAX_SCALE) ? PE_OK : PE_ERR_VALUE;
}

int pe_learned_rows(void *out, int dtype, const int32_t *positions, int32_t n, int32_t trained_len,
                    int32_t d_model, double seed, int dist, double scale) {
    PE_TRY(check_learned(out, dtype, trained_len, d_model, seed, dist, scale));
    if (!positions) return PE_ERR_NULL;
    PE_TRY(pe_check_dim(n));
    PE_TRY(pe_check_bytes((double)n * d_model, dtype == PE_F32 ? 4 : 8));
    /* The point of this encoding: there is no row to look up past the trained length. */
    for (int32_t r = 0; r < n; r++)
        if (positions[r] < 0 || positions[r] >= trained_len) return PE_ERR_POSITION;
    uint64_t s = (uint64_t)seed;
    for (int32_t r = 0; r < n; r++)
        for (int32_t c = 0; c < d_model; c++)
            pe_store(out, dtype, (size_t)r * d_model + c,
                     element(s, (uint64_t)positions[r] * (uint64_t)d_model + (uint64_t)c, dist, scale));
    return PE_OK;
}

int pe_learned_table(void *out, int dtype, int32_t trained_len, int32_t d_model, double seed, int dist,
                     double scale) {
    PE_TRY(check_learned(out, dtype, trained_len, d_model, seed, dist, scale));
    PE_TRY(pe_check_bytes((double)trained_len * d_model, dtype == PE_F32 ? 4 : 8));
    uint64_t s = (uint64_t)seed;
    for (int32_t r = 0; r < trained_len; r++)
        for (int32_t c = 0; c < d_model; c++)
            pe_store(out, dtype, (size_t)r * d_model + c,
                     element(s, (uint64_t)r * (uint64_t)d_model + (uint64_t)c, dist, scale));
    return PE_OK;
}
