/* Dot products, norms and Gram matrices of row-major matrices. */
#include <math.h>
#include "internal.h"
#include "simd.h"

/*
 * Every dot product here sums in one fixed order, whichever path computes it:
 * even terms in one partial sum, odd terms in another (the two lanes of an
 * f64x2), then the two added, then the last term of an odd length. So a
 * Gram entry is bit-identical whether the SIMD tile or the edge code formed
 * it, G[i][j] == G[j][i] exactly, and the cosine's norms equal its diagonal.
 */
static double dot(const double *a, const double *b, int32_t n) {
    int32_t k = 0;
#if PE_SIMD
    v128_t acc = wasm_f64x2_splat(0.0);
    for (; k + 2 <= n; k += 2)
        acc = wasm_f64x2_add(acc, wasm_f64x2_mul(wasm_v128_load(a + k), wasm_v128_load(b + k)));
    double s = wasm_f64x2_extract_lane(acc, 0) + wasm_f64x2_extract_lane(acc, 1);
#else
    double s0 = 0, s1 = 0;
    for (; k + 2 <= n; k += 2) {
        s0 += a[k] * b[k];
        s1 += a[k + 1] * b[k + 1];
    }
    double s = s0 + s1;
#endif
    if (k < n) s += a[k] * b[k];
    return s;
}

static int check_matrix(const double *x, int32_t rows, int32_t cols) {
    if (!x) return PE_ERR_NULL;
    PE_TRY(pe_check_dim(rows));
    PE_TRY(pe_check_dim(cols));
    PE_TRY(pe_check_bytes((double)rows * cols, 8));
    return pe_check_finite(x, (size_t)rows * cols);
}

int pe_dot(double *out, const double *a, const double *b, int32_t n) {
    if (!out || !a || !b) return PE_ERR_NULL;
    PE_TRY(pe_check_dim(n));
    PE_TRY(pe_check_finite(a, (size_t)n));
    PE_TRY(pe_check_finite(b, (size_t)n));
    *out = dot(a, b, n);
    return PE_OK;
}

int pe_norms(double *out, const double *x, int32_t rows, int32_t cols) {
    if (!out) return PE_ERR_NULL;
    PE_TRY(check_matrix(x, rows, cols));
    for (int32_t r = 0; r < rows; r++) {
        const double *row = x + (size_t)r * cols;
        out[r] = sqrt(dot(row, row, cols));
    }
    return PE_OK;
}

/* Where the Gram entries go: the output, its type, and (for cosine) the norms. */
typedef struct {
    void *out;
    int dtype;
    int32_t rows;
    const double *norm; /* sqrt of each row's squared norm; NULL: plain Gram */
} gram_sink;

/* Stores G[i][j] and G[j][i]. */
static void put(const gram_sink *g, int32_t i, int32_t j, double v) {
    if (g->norm) {
        double nn = g->norm[i] * g->norm[j];
        v = nn > 0 ? v / nn : 0.0; /* a zero row is similar to nothing */
    }
    size_t ij = (size_t)i * g->rows + j, ji = (size_t)j * g->rows + i;
    if (g->dtype == PE_F32) {
        ((float *)g->out)[ij] = (float)v;
        ((float *)g->out)[ji] = (float)v;
    } else {
        ((double *)g->out)[ij] = v;
        ((double *)g->out)[ji] = v;
    }
}

#if PE_SIMD
/* The sum of both lanes, plus the odd last term: the order dot() uses. */
static double finish(v128_t acc, const double *a, const double *b, int32_t k, int32_t n) {
    double s = wasm_f64x2_extract_lane(acc, 0) + wasm_f64x2_extract_lane(acc, 1);
    if (k < n) s += a[k] * b[k];
    return s;
}

/*
 * Rows i..i+3 against rows j, j+1: eight dot products at once, so each load
 * of a row pair of values feeds two (or four) multiply-adds. Eight f64x2
 * accumulators plus six operands fit the 16 SIMD registers of x86-64 and ARM.
 */
static void tile(const gram_sink *g, const double *x, int32_t cols, int32_t i, int32_t j) {
    const double *a0 = x + (size_t)i * cols, *a1 = a0 + cols, *a2 = a1 + cols, *a3 = a2 + cols;
    const double *b0 = x + (size_t)j * cols, *b1 = b0 + cols;
    v128_t z = wasm_f64x2_splat(0.0);
    v128_t c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z, c30 = z, c31 = z;
    int32_t k = 0;
    for (; k + 2 <= cols; k += 2) {
        v128_t q0 = wasm_v128_load(b0 + k), q1 = wasm_v128_load(b1 + k), p;
        p = wasm_v128_load(a0 + k);
        c00 = wasm_f64x2_add(c00, wasm_f64x2_mul(p, q0));
        c01 = wasm_f64x2_add(c01, wasm_f64x2_mul(p, q1));
        p = wasm_v128_load(a1 + k);
        c10 = wasm_f64x2_add(c10, wasm_f64x2_mul(p, q0));
        c11 = wasm_f64x2_add(c11, wasm_f64x2_mul(p, q1));
        p = wasm_v128_load(a2 + k);
        c20 = wasm_f64x2_add(c20, wasm_f64x2_mul(p, q0));
        c21 = wasm_f64x2_add(c21, wasm_f64x2_mul(p, q1));
        p = wasm_v128_load(a3 + k);
        c30 = wasm_f64x2_add(c30, wasm_f64x2_mul(p, q0));
        c31 = wasm_f64x2_add(c31, wasm_f64x2_mul(p, q1));
    }
    put(g, i, j, finish(c00, a0, b0, k, cols));
    put(g, i, j + 1, finish(c01, a0, b1, k, cols));
    put(g, i + 1, j, finish(c10, a1, b0, k, cols));
    put(g, i + 1, j + 1, finish(c11, a1, b1, k, cols));
    put(g, i + 2, j, finish(c20, a2, b0, k, cols));
    put(g, i + 2, j + 1, finish(c21, a2, b1, k, cols));
    put(g, i + 3, j, finish(c30, a3, b0, k, cols));
    put(g, i + 3, j + 1, finish(c31, a3, b1, k, cols));
}
#define TILE_I 4
#define TILE_J 2
#else
#define TILE_I 1
#define TILE_J 1
static void tile(const gram_sink *g, const double *x, int32_t cols, int32_t i, int32_t j) {
    put(g, i, j, dot(x + (size_t)i * cols, x + (size_t)j * cols, cols));
}
#endif

/*
 * The upper triangle (and its mirror), in column blocks of rows j small
 * enough to stay in the L2 cache (~512 KiB) while every panel of TILE_I rows i
 * above them streams past once.
 */
static void gram_blocked(const gram_sink *g, const double *x, int32_t rows, int32_t cols) {
    int32_t block = (int32_t)(65536 / cols);
    if (block < 16) block = 16;
    block &= ~1;
    for (int32_t jb = 0; jb < rows; jb += block) {
        int32_t jend = rows - jb > block ? jb + block : rows;
        for (int32_t i = 0; i < jend; i += TILE_I) {
            int32_t j = i > jb ? i : jb;
            if (i + TILE_I <= rows) {
                /* Entries left of the diagonal in the first tiles are formed
                 * too; they are stored to the same places as their mirrors. */
                for (; j + TILE_J <= jend; j += TILE_J) tile(g, x, cols, i, j);
                for (; j < jend; j++)
                    for (int32_t a = i; a < i + TILE_I; a++)
                        put(g, a, j, dot(x + (size_t)a * cols, x + (size_t)j * cols, cols));
            } else {
                for (int32_t a = i; a < rows; a++)
                    for (int32_t b = a > jb ? a : jb; b < jend; b++)
                        put(g, a, b, dot(x + (size_t)a * cols, x + (size_t)b * cols, cols));
            }
        }
    }
}

int pe_gram(void *out, int dtype, const double *x, int32_t rows, int32_t cols, int cosine) {
    if (!out) return PE_ERR_NULL;
    PE_TRY(pe_check_dtype(dtype));
    PE_TRY(check_matrix(x, rows, cols));
    /* The limit of the float64 Gram this once formed; kept so that the sizes
     * accepted do not depend on the output type. */
    PE_TRY(pe_check_bytes((double)rows * rows, 8));
    gram_sink g = {out, dtype, rows, NULL};
    double *norm = NULL;
    if (cosine) {
        norm = pe_malloc((size_t)rows * sizeof *norm);
        if (!norm) return PE_ERR_NOMEM;
        for (int32_t r = 0; r < rows; r++) {
            const double *row = x + (size_t)r * cols;
            norm[r] = sqrt(dot(row, row, cols));
        }
        g.norm = norm;
    }
    gram_blocked(&g, x, rows, cols);
    pe_free(norm);
    return PE_OK;
}
