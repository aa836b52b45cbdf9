/*
 * A learned absolute position table, as a model has it at initialisation:
 * trained_len rows of random numbers and nothing beyond. The numbers come
 * from splitmix64 (Steele, Lea and Flood 2014) used as a counter-based
 * generator: draw k is mix(seed + (k + 1) * 0x9E3779B97F4A7C15), so element
 * i = p d + c is the same whatever trained_len is, and any row can be made
 * alone. u_k = top 53 bits of draw k / 2^53; element i takes draw i:
 *   uniform  scale * (2 u_i - 1)
 *   normal   elements 2j and 2j + 1 are the two outputs of one Box-Muller
 *            transform of draws 2j and 2j + 1:
 *            scale * sqrt(-2 ln(1 - u_2j)) * (cos, sin)(2 pi u_2j+1)
 * Using both outputs halves the logarithms and sines a table costs (issue 16:
 * 2^28 draws took 25 s with the cosine alone).
 */
#include <math.h>
#include <string.h>
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

/* out[at .. at + count) = elements first .. first + count - 1. */
PE_NOINLINE static void fill(void *out, int dtype, size_t at, uint64_t first, size_t count, uint64_t seed,
                             int dist, double scale) {
    for (size_t n = 0; n < count;) {
        uint64_t i = first + n;
        if (dist == PE_DIST_UNIFORM) {
            pe_store(out, dtype, at + n++, scale * (2 * uniform(seed, i) - 1));
            continue;
        }
        uint64_t j = i & ~(uint64_t)1; /* the pair's first element */
        double r = scale * sqrt(-2 * pe_log(1 - uniform(seed, j))), s, c;
        pe_sincos_turns(uniform(seed, j + 1), &s, &c);
        if (i == j) pe_store(out, dtype, at + n++, r * c);
        if (n < count) pe_store(out, dtype, at + n++, r * s);
    }
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

/* fill in slices, so that the hot loop is a call V8 optimises (PE_NOINLINE) */
static void fill_sliced(void *out, int dtype, size_t at, uint64_t first, size_t count, uint64_t seed,
                        int dist, double scale) {
    for (size_t n = 0; n < count; n += PE_SLICE)
        fill(out, dtype, at + n, first + n, count - n < PE_SLICE ? count - n : PE_SLICE, seed, dist, scale);
}

PE_INLINE int check_count(double rows, int32_t d_model, int dtype, double max_elements) {
    PE_TRY(pe_check_bytes(rows * d_model, dtype == PE_F32 ? 4 : 8));
    return rows * d_model <= max_elements ? PE_OK : PE_ERR_SIZE;
}

int pe_learned_rows(void *out, int dtype, const int32_t *positions, int32_t n, int32_t trained_len,
                    int32_t d_model, double seed, int dist, double scale) {
    PE_TRY(check_learned(out, dtype, trained_len, d_model, seed, dist, scale));
    if (!positions) return PE_ERR_NULL;
    PE_TRY(pe_check_dim(n));
    PE_TRY(check_count(n, d_model, dtype, PE_LEARNED_MAX_ELEMENTS));
    /* The point of this encoding: there is no row to look up past the trained length. */
    for (int32_t r = 0; r < n; r++)
        if (positions[r] < 0 || positions[r] >= trained_len) return PE_ERR_POSITION;
    for (int32_t r = 0; r < n; r++)
        fill_sliced(out, dtype, (size_t)r * d_model, (uint64_t)positions[r] * (uint64_t)d_model,
                    (size_t)d_model, (uint64_t)seed, dist, scale);
    return PE_OK;
}

static int table(void *out, int dtype, int32_t trained_len, int32_t d_model, double seed, int dist,
                 double scale, double max_elements) {
    PE_TRY(check_learned(out, dtype, trained_len, d_model, seed, dist, scale));
    PE_TRY(check_count(trained_len, d_model, dtype, max_elements));
    fill_sliced(out, dtype, 0, 0, (size_t)trained_len * (size_t)d_model, (uint64_t)seed, dist, scale);
    return PE_OK;
}

int pe_learned_table(void *out, int dtype, int32_t trained_len, int32_t d_model, double seed, int dist,
                     double scale) {
    return table(out, dtype, trained_len, d_model, seed, dist, scale, PE_LEARNED_MAX_ELEMENTS);
}

int pe_normal_table(double *out, int32_t rows, int32_t cols, double seed, double scale) {
    return table(out, PE_F64, rows, cols, seed, PE_DIST_NORMAL, scale, PE_MAX_BYTES / 8);
}

/* max over the rows of pe_normal_table's table of the sum of |element| (summed in row order, as a caller
 * summing the table would), without the table: each row is drawn a slice at a time into the stack, nothing
 * allocated. */
int pe_normal_row_bound(double *out, int32_t rows, int32_t cols, double seed, double scale) {
    double part[256];
    if (!out) return PE_ERR_NULL;
    PE_TRY(check_learned(part, PE_F64, rows, cols, seed, PE_DIST_NORMAL, scale));
    PE_TRY(check_count(rows, cols, PE_F64, PE_MAX_BYTES / 8));
    double best = 0;
    for (int32_t r = 0; r < rows; r++) {
        double sum = 0;
        for (size_t j = 0; j < (size_t)cols; j += 256) {
            size_t n = (size_t)cols - j < 256 ? (size_t)cols - j : 256;
            fill(part, PE_F64, 0, (uint64_t)r * (uint64_t)cols + j, n, (uint64_t)seed, PE_DIST_NORMAL, scale);
            for (size_t k = 0; k < n; k++) sum += fabs(part[k]);
        }
        best = fmax(best, sum);
    }
    *out = best;
    return PE_OK;
}
