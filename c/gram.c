/* Dot products, norms and Gram matrices of row-major matrices. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "internal.h"
#include "simd.h"
#include "work.h"

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
    /* Finite inputs whose products or sum overflow: refused, not inf or NaN. */
    return isfinite(*out) ? PE_OK : PE_ERR_VALUE;
}

/*
 * Squares underflow below |x| ~ 1e-154 and overflow above 1e154, though the
 * norm or cosine they lead to is representable ([1e-200, 1e-200] has norm
 * 1.41e-200, rows of 1e200 have cosine 1). Such rows are scaled first by a
 * power of two that brings their largest magnitude near 1: exact, except for
 * entries some 2^1000 times smaller than the largest, which cannot matter.
 */
#define SAFE_LO 0x1p-200
#define SAFE_HI 0x1p200

static double max_abs(const double *row, int32_t cols) {
    double m = 0;
    for (int32_t k = 0; k < cols; k++) m = fabs(row[k]) > m ? fabs(row[k]) : m;
    return m;
}

static int needs_scaling(double m) { return m != 0 && (m < SAFE_LO || m > SAFE_HI); }

/* 2^k, exactly, for -1022 <= k <= 1023. */
static double pow2(int k) {
    uint64_t b = (uint64_t)(k + 1023) << 52;
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* The two powers of two whose product s makes s * m lie in [1, 2), m > 0 finite. */
static void unit_scale(double m, double s[2]) {
    int e = 0;
    if (m < 0x1p-1000) {
        m *= 0x1p100;
        e = -100;
    } /* subnormal: bring into the normal range */
    uint64_t b;
    memcpy(&b, &m, sizeof b);
    e += (int)(b >> 52) - 1023; /* m in [2^e, 2^(e+1)) */
    s[0] = pow2(-e / 2);
    s[1] = pow2(-e - (-e / 2));
}

/* The norm of one row, scaled first when its squares could under- or overflow. */
static double row_norm(const double *row, int32_t cols) {
    double m = max_abs(row, cols);
    if (!needs_scaling(m)) return sqrt(dot(row, row, cols));
    double s[2], sum = 0;
    unit_scale(m, s);
    for (int32_t k = 0; k < cols; k++) {
        double v = row[k] * s[0] * s[1];
        sum += v * v;
    }
    return sqrt(sum) / s[0] / s[1]; /* may overflow: the norm itself is too large */
}

/* Scales each row that needs it (see above) in place: for a cosine Gram. */
static void scale_rows(double *x, int32_t rows, int32_t cols) {
    for (int32_t r = 0; r < rows; r++) {
        double *row = x + (size_t)r * cols, m = max_abs(row, cols), s[2];
        if (!needs_scaling(m)) continue;
        unit_scale(m, s);
        for (int32_t k = 0; k < cols; k++) row[k] = row[k] * s[0] * s[1];
    }
}

static int any_row_needs_scaling(const double *x, int32_t rows, int32_t cols) {
    for (int32_t r = 0; r < rows; r++)
        if (needs_scaling(max_abs(x + (size_t)r * cols, cols))) return 1;
    return 0;
}

int pe_norms(double *out, const double *x, int32_t rows, int32_t cols) {
    if (!out) return PE_ERR_NULL;
    PE_TRY(check_matrix(x, rows, cols));
    for (int32_t r = 0; r < rows; r++) out[r] = row_norm(x + (size_t)r * cols, cols);
    return pe_check_finite(out, (size_t)rows); /* a norm past DBL_MAX */
}

/* Where the Gram entries go: the output, its type, and (for cosine) the norms. */
typedef struct {
    void *out;
    int dtype;
    int32_t rows;
    const double *norm; /* sqrt of each row's squared norm; NULL: plain Gram */
    int *finite;        /* cleared when an entry overflowed */
} gram_sink;

/*
 * Stores G[i][j] and G[j][i]. Both get the same value, and the mirror costs
 * little here: a tile's lower entries are four consecutive floats of rows j
 * that stay in L1 while the next tiles fill the rest of their cache lines (a
 * separate transposing pass took 10 ms of the 101 of a 2048 x 512 Gram).
 */
static void put(const gram_sink *g, int32_t i, int32_t j, double v) {
    PE_WORK(PE_WORK_GRAM_DOTS, 1);
    if (g->norm) {
        double nn = g->norm[i] * g->norm[j];
        v = nn > 0 ? v / nn : 0.0; /* a zero row is similar to nothing */
    }
    size_t ij = (size_t)i * g->rows + j, ji = (size_t)j * g->rows + i;
    if (g->dtype == PE_F32) {
        float f = (float)v;
        ((float *)g->out)[ij] = f;
        ((float *)g->out)[ji] = f;
        if (!isfinite(f)) *g->finite = 0;
    } else {
        ((double *)g->out)[ij] = v;
        ((double *)g->out)[ji] = v;
        if (!isfinite(v)) *g->finite = 0;
    }
}

#if PE_SIMD
/* One step of a 4x2 tile, in the lane type of `add` and `mul` (float64 or
 * float32): one vector of rows a0..a3 at column k against rows b0 and b1,
 * added into the accumulators c00..c31. tile() and tile32() share it. */
#define TILE_4X2_STEP(add, mul)                                             \
    do {                                                                    \
        v128_t q0 = wasm_v128_load(b0 + k), q1 = wasm_v128_load(b1 + k), p; \
        p = wasm_v128_load(a0 + k);                                         \
        c00 = add(c00, mul(p, q0));                                         \
        c01 = add(c01, mul(p, q1));                                         \
        p = wasm_v128_load(a1 + k);                                         \
        c10 = add(c10, mul(p, q0));                                         \
        c11 = add(c11, mul(p, q1));                                         \
        p = wasm_v128_load(a2 + k);                                         \
        c20 = add(c20, mul(p, q0));                                         \
        c21 = add(c21, mul(p, q1));                                         \
        p = wasm_v128_load(a3 + k);                                         \
        c30 = add(c30, mul(p, q0));                                         \
        c31 = add(c31, mul(p, q1));                                         \
    } while (0)

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
        TILE_4X2_STEP(wasm_f64x2_add, wasm_f64x2_mul);
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

/* ---- float32 input ------------------------------------------------------------
 *
 * pe_gram_f32 multiplies and adds in float32, four lanes of an f32x4, within
 * blocks of F32_BLOCK columns, and adds each block's partial sums into a
 * double: the error is that of a F32_BLOCK-term float32 sum, not of a
 * cols-term one. The order is fixed, whichever path forms an entry: per
 * block, lane l sums the terms k = l (mod 4) in float32; the block's four
 * lanes are added in float32, (l0 + l2) + (l1 + l3), and that to the running
 * double (the tile does this for four entries at once with shuffles: as
 * eight scalar sums it cost a fifth of a 2048 x 512 Gram);
 * the last cols % 4 terms are added afterwards, each product in double.
 * So, as for float64, G[i][j] == G[j][i] and the cosine's norms match the
 * diagonal. Inputs whose magnitudes could overflow or underflow in float32
 * products (see in_f32_range) take the float64 kernel instead.
 */
#define F32_BLOCK 128

#if PE_SIMD
/* (l0 + l2) + (l1 + l3), in float32 */
static double hsum32(v128_t v) {
    v128_t h = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1)); /* l0 + l2, l1 + l3 */
    return (double)(wasm_f32x4_extract_lane(h, 0) + wasm_f32x4_extract_lane(h, 1));
}

/* The same for four accumulators at once: lane r of the result is
 * (c_r0 + c_r2) + (c_r1 + c_r3), in the same order and precision as hsum32. */
static v128_t hsum32x4(v128_t a, v128_t b, v128_t c, v128_t d) {
    v128_t ab = wasm_f32x4_add(wasm_i32x4_shuffle(a, b, 0, 1, 4, 5), wasm_i32x4_shuffle(a, b, 2, 3, 6, 7));
    v128_t cd = wasm_f32x4_add(wasm_i32x4_shuffle(c, d, 0, 1, 4, 5), wasm_i32x4_shuffle(c, d, 2, 3, 6, 7));
    return wasm_f32x4_add(wasm_i32x4_shuffle(ab, cd, 0, 2, 4, 6), wasm_i32x4_shuffle(ab, cd, 1, 3, 5, 7));
}

static double dot32(const float *a, const float *b, int32_t n) {
    int32_t n4 = n & ~3, k = 0;
    double s = 0.0;
    while (k < n4) {
        int32_t end = n4 - k > F32_BLOCK ? k + F32_BLOCK : n4;
        v128_t acc = wasm_f32x4_splat(0.0f);
        for (; k < end; k += 4)
            acc = wasm_f32x4_add(acc, wasm_f32x4_mul(wasm_v128_load(a + k), wasm_v128_load(b + k)));
        s += hsum32(acc);
    }
    for (; k < n; k++) s += (double)a[k] * b[k];
    return s;
}

/* Rows i..i+3 against rows j, j+1, as tile() does for float64. */
static void tile32(const gram_sink *g, const float *x, int32_t cols, int32_t i, int32_t j) {
    const float *a0 = x + (size_t)i * cols, *a1 = a0 + cols, *a2 = a1 + cols, *a3 = a2 + cols;
    const float *b0 = x + (size_t)j * cols, *b1 = b0 + cols;
    /* running sums in double: rows i, i+1 | i+2, i+3 against j, then j + 1 */
    v128_t z = wasm_f32x4_splat(0.0f), s0a = z, s0b = z, s1a = z, s1b = z;
    int32_t n4 = cols & ~3, k = 0;
    while (k < n4) {
        int32_t end = n4 - k > F32_BLOCK ? k + F32_BLOCK : n4;
        v128_t c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z, c30 = z, c31 = z;
        for (; k < end; k += 4) {
            TILE_4X2_STEP(wasm_f32x4_add, wasm_f32x4_mul);
        }
        v128_t h0 = hsum32x4(c00, c10, c20, c30), h1 = hsum32x4(c01, c11, c21, c31);
        s0a = wasm_f64x2_add(s0a, wasm_f64x2_promote_low_f32x4(h0));
        s0b = wasm_f64x2_add(s0b, wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(h0, h0, 2, 3, 0, 1)));
        s1a = wasm_f64x2_add(s1a, wasm_f64x2_promote_low_f32x4(h1));
        s1b = wasm_f64x2_add(s1b, wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(h1, h1, 2, 3, 0, 1)));
    }
    double s00 = wasm_f64x2_extract_lane(s0a, 0), s10 = wasm_f64x2_extract_lane(s0a, 1);
    double s20 = wasm_f64x2_extract_lane(s0b, 0), s30 = wasm_f64x2_extract_lane(s0b, 1);
    double s01 = wasm_f64x2_extract_lane(s1a, 0), s11 = wasm_f64x2_extract_lane(s1a, 1);
    double s21 = wasm_f64x2_extract_lane(s1b, 0), s31 = wasm_f64x2_extract_lane(s1b, 1);
    for (; k < cols; k++) {
        double q0 = b0[k], q1 = b1[k];
        s00 += a0[k] * q0;
        s01 += a0[k] * q1;
        s10 += a1[k] * q0;
        s11 += a1[k] * q1;
        s20 += a2[k] * q0;
        s21 += a2[k] * q1;
        s30 += a3[k] * q0;
        s31 += a3[k] * q1;
    }
    put(g, i, j, s00);
    put(g, i, j + 1, s01);
    put(g, i + 1, j, s10);
    put(g, i + 1, j + 1, s11);
    put(g, i + 2, j, s20);
    put(g, i + 2, j + 1, s21);
    put(g, i + 3, j, s30);
    put(g, i + 3, j + 1, s31);
}
#else
static double dot32(const float *a, const float *b, int32_t n) {
    int32_t n4 = n & ~3, k = 0;
    double s = 0.0;
    while (k < n4) {
        int32_t end = n4 - k > F32_BLOCK ? k + F32_BLOCK : n4;
        float l0 = 0, l1 = 0, l2 = 0, l3 = 0;
        for (; k < end; k += 4) {
            l0 += a[k] * b[k];
            l1 += a[k + 1] * b[k + 1];
            l2 += a[k + 2] * b[k + 2];
            l3 += a[k + 3] * b[k + 3];
        }
        s += (double)((l0 + l2) + (l1 + l3)); /* in float32, as hsum32 */
    }
    for (; k < n; k++) s += (double)a[k] * b[k];
    return s;
}

static void tile32(const gram_sink *g, const float *x, int32_t cols, int32_t i, int32_t j) {
    put(g, i, j, dot32(x + (size_t)i * cols, x + (size_t)j * cols, cols));
}
#endif

/* Row a of x against row b, in the precision of x. */
static double row_dot(const void *x, int f32, int32_t cols, int32_t a, int32_t b) {
    if (f32) return dot32((const float *)x + (size_t)a * cols, (const float *)x + (size_t)b * cols, cols);
    return dot((const double *)x + (size_t)a * cols, (const double *)x + (size_t)b * cols, cols);
}

/*
 * The upper triangle (and its mirror), in column blocks of rows j small
 * enough to stay in the L2 cache (~512 KiB) while every panel of TILE_I rows i
 * above them streams past once.
 */
static void gram_blocked(const gram_sink *g, const void *x, int f32, int32_t rows, int32_t cols) {
    int32_t block = (int32_t)((f32 ? 131072 : 65536) / cols);
    if (block < 16) block = 16;
    block &= ~1;
    for (int32_t jb = 0; jb < rows; jb += block) {
        int32_t jend = rows - jb > block ? jb + block : rows;
        for (int32_t i = 0; i < jend; i += TILE_I) {
            int32_t j = i > jb ? i : jb;
            if (i + TILE_I <= rows) {
                /* Entries left of the diagonal in the first tiles are formed
                 * too, and put() stores the same values there again. */
                for (; j + TILE_J <= jend; j += TILE_J) {
                    if (f32) tile32(g, x, cols, i, j);
                    else tile(g, x, cols, i, j);
                }
                for (; j < jend; j++)
                    for (int32_t a = i; a < i + TILE_I; a++) put(g, a, j, row_dot(x, f32, cols, a, j));
            } else {
                for (int32_t a = i; a < rows; a++)
                    for (int32_t b = a > jb ? a : jb; b < jend; b++)
                        put(g, a, b, row_dot(x, f32, cols, a, b));
            }
        }
    }
}

/* The Gram of x (float32 when f32), then PE_ERR_VALUE if an entry overflowed. */
static int gram_of(void *out, int dtype, const void *x, int f32, int32_t rows, int32_t cols, int cosine) {
    int finite = 1;
    gram_sink g = { out, dtype, rows, NULL, &finite };
    double *norm = NULL;
    if (cosine) {
        PE_TRY(pe_check_scratch((double)rows * sizeof *norm));
        norm = pe_malloc((size_t)rows * sizeof *norm);
        if (!norm) return PE_ERR_NOMEM;
        for (int32_t r = 0; r < rows; r++) norm[r] = sqrt(row_dot(x, f32, cols, r, r));
        g.norm = norm;
    }
    gram_blocked(&g, x, f32, rows, cols);
    pe_free(norm);
    /* Finite inputs whose dot products overflow (|x| near 1e155, or 1e19 for a
     * float32 output) give inf, or NaN where inf meets inf: refused. */
    return finite ? PE_OK : PE_ERR_VALUE;
}

int pe_gram(void *out, int dtype, const double *x, int32_t rows, int32_t cols, int cosine) {
    if (!out) return PE_ERR_NULL;
    PE_TRY(pe_check_dtype(dtype));
    PE_TRY(check_matrix(x, rows, cols));
    /* The limit of the float64 Gram this once formed; kept so that the sizes
     * accepted do not depend on the output type. */
    PE_TRY(pe_check_bytes((double)rows * rows, 8));
    if (!cosine || !any_row_needs_scaling(x, rows, cols))
        return gram_of(out, dtype, x, 0, rows, cols, cosine);
    /* A cosine does not change when a row is scaled: scale a copy. */
    size_t n = (size_t)rows * cols;
    PE_TRY(pe_check_scratch((double)n * sizeof(double)));
    double *scaled = pe_malloc(n * sizeof *scaled);
    if (!scaled) return PE_ERR_NOMEM;
    memcpy(scaled, x, n * sizeof *scaled);
    scale_rows(scaled, rows, cols);
    int status = gram_of(out, dtype, scaled, 0, rows, cols, cosine);
    pe_free(scaled);
    return status;
}

/*
 * Whether every row's largest magnitude is 0 or in [2^-32, 2^32]: then no
 * float32 product or block sum can overflow (cols * 2^64 < 2^128), and the
 * products of a row's largest entries are far from float32's underflow
 * (2^-64 against 2^-126), so float32 keeps its ~1e-7 relative accuracy.
 * Also refuses NaN and infinity (PE_ERR_VALUE).
 */
static int in_f32_range(const float *x, int32_t rows, int32_t cols, int *ok) {
    *ok = 1;
    for (int32_t r = 0; r < rows; r++) {
        const float *row = x + (size_t)r * cols;
        float m = 0.0f;
        for (int32_t k = 0; k < cols; k++) {
            float v = fabsf(row[k]);
            if (!(v <= FLT_MAX)) return PE_ERR_VALUE;
            if (v > m) m = v;
        }
        if (m != 0.0f && (m < 0x1p-32f || m > 0x1p32f)) *ok = 0;
    }
    return PE_OK;
}

int pe_gram_f32(void *out, int dtype, const float *x, int32_t rows, int32_t cols, int cosine) {
    if (!out || !x) return PE_ERR_NULL;
    PE_TRY(pe_check_dtype(dtype));
    PE_TRY(pe_check_dim(rows));
    PE_TRY(pe_check_dim(cols));
    PE_TRY(pe_check_bytes((double)rows * cols, 4));
    int ok;
    PE_TRY(in_f32_range(x, rows, cols, &ok));
    PE_TRY(pe_check_bytes((double)rows * rows, 8)); /* as pe_gram */
    if (ok) return gram_of(out, dtype, x, 1, rows, cols, cosine);
    /* Huge or tiny magnitudes: the float64 kernel, on a float64 copy. */
    size_t n = (size_t)rows * cols;
    PE_TRY(pe_check_scratch((double)n * sizeof(double)));
    double *x64 = pe_malloc(n * sizeof *x64);
    if (!x64) return PE_ERR_NOMEM;
    for (size_t k = 0; k < n; k++) x64[k] = x[k];
    if (cosine) scale_rows(x64, rows, cols);
    int status = gram_of(out, dtype, x64, 0, rows, cols, cosine);
    pe_free(x64);
    return status;
}
