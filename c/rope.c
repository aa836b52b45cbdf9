/*
 * Rotary position embedding (RoPE, Su et al. 2021): the cos/sin caches, the
 * rotation of queries and keys, and the permutation between the two pairings.
 * The frequencies and their scalings are in rope_scaling.c.
 *
 * Pairings: interleaved (x_2i, x_2i+1) is Meta's LLaMA (complex multiply) and
 * GPT-J; half (x_i, x_i+dim/2) is rotate_half of GPT-NeoX and HF. Both rotate
 * a pair (a, b) at position m by m theta_i: (a cos - b sin, b cos + a sin).
 */
#include <math.h>
#include "internal.h"
#include "posenc_variants.h"
#include "mathlib.h"
#include "rope.h"
#include "oscillator.h"
#include "simd.h"
#include "work.h"

/* ---- caches ------------------------------------------------------------------ */

/*
 * Consecutive rows come from the oscillator of the sinusoidal table
 * (oscillator.h): angle addition in double, re-anchored from the exact angle
 * every PE_ANCHOR rows, so each value is within ~1e-12 of sin/cos of the
 * double angle at any position up to 2^31 (tests/rope-kernels.test.js checks
 * rows up to 2^24), and rows are written straight into the caller's dtype.
 * Rows at given positions take one exact sincos per value.
 */
struct pe_rope_rows {
    pe_osc osc; /* sin and cos at the next consecutive position */
    double *w;  /* the h frequencies, owned */
    double a;   /* attention factor */
    int32_t h, cols, left;
    int dtype, layout;
};

/* Rows a block: the state stays in registers down a block (as pe_table.c). */
#define BLOCK_ROWS 32

/* The columns of frequency i in a row of the layout (both i for pairs). */
static void pair_cols(const pe_rope_rows *st, int32_t i, size_t *c0, size_t *c1) {
    switch (st->layout) {
    case PE_ROPE_CACHE_PAIRS: *c0 = *c1 = (size_t)i; break;
    case PE_ROPE_CACHE_HALF:
        *c0 = (size_t)i;
        *c1 = (size_t)(i + st->h);
        break;
    default:
        *c0 = 2 * (size_t)i;
        *c1 = *c0 + 1;
        break;
    }
}

static void put(const pe_rope_rows *st, void *cos, void *sin, size_t row, int32_t i, double c, double s) {
    size_t c0, c1;
    pair_cols(st, i, &c0, &c1);
    row *= (size_t)st->cols;
    pe_store(cos, st->dtype, row + c0, c * st->a);
    pe_store(sin, st->dtype, row + c0, s * st->a);
    pe_store(cos, st->dtype, row + c1, c * st->a);
    pe_store(sin, st->dtype, row + c1, s * st->a);
}

#if PE_SIMD
/* Float32 of four frequencies as [a0 a0 a1 a1] [a2 a2 a3 a3] (interleaved layout). */
#define F32_TWICE_LO(q) wasm_i32x4_shuffle(q, q, 0, 0, 1, 1)
#define F32_TWICE_HI(q) wasm_i32x4_shuffle(q, q, 2, 2, 3, 3)

/* The row loop of one layout and dtype: PUT(row, v0, v1) stores frequencies
 * i..i+3 scaled by a; one loop per kind, as -Oz would not hoist a switch. */
#define QUAD_LOOP(PUT)                                                 \
    for (int32_t r = 0; r < rows; r++, cos += stride, sin += stride) { \
        PUT(cos, wasm_f64x2_mul(c0, a), wasm_f64x2_mul(c1, a));        \
        PUT(sin, wasm_f64x2_mul(s0, a), wasm_f64x2_mul(s1, a));        \
        ROTATE(s0, c0, sw0, cw0);                                      \
        ROTATE(s1, c1, sw1, cw1);                                      \
    }
#define PUT_F32_PAIRS(row, v0, v1) wasm_v128_store(row + 4 * (size_t)i, F32_CAT(v0, v1))
#define PUT_F32_HALF(row, v0, v1)                       \
    do {                                                \
        v128_t q_ = F32_CAT(v0, v1);                    \
        wasm_v128_store(row + 4 * (size_t)i, q_);       \
        wasm_v128_store(row + 4 * (size_t)(i + h), q_); \
    } while (0)
#define PUT_F32_INTERLEAVED(row, v0, v1)                             \
    do {                                                             \
        v128_t q_ = F32_CAT(v0, v1);                                 \
        wasm_v128_store(row + 8 * (size_t)i, F32_TWICE_LO(q_));      \
        wasm_v128_store(row + 8 * (size_t)i + 16, F32_TWICE_HI(q_)); \
    } while (0)
/* Frequencies i..i+3 rotated down `rows` rows, each row stored as it comes. */
static void quad_rows(pe_rope_rows *st, char *cos, char *sin, int32_t rows, int32_t i) {
    pe_osc *o = &st->osc;
    v128_t s0 = wasm_v128_load(o->s + i), s1 = wasm_v128_load(o->s + i + 2);
    v128_t c0 = wasm_v128_load(o->c + i), c1 = wasm_v128_load(o->c + i + 2);
    v128_t sw0 = wasm_v128_load(o->sw + i), sw1 = wasm_v128_load(o->sw + i + 2);
    v128_t cw0 = wasm_v128_load(o->cw + i), cw1 = wasm_v128_load(o->cw + i + 2);
    v128_t a = wasm_f64x2_splat(st->a);
    int32_t h = st->h;
    size_t stride = (size_t)st->cols * (st->dtype == PE_F32 ? 4 : 8);
    switch (st->layout) {
    case PE_ROPE_CACHE_PAIRS: QUAD_LOOP(PUT_F32_PAIRS) break;
    case PE_ROPE_CACHE_HALF: QUAD_LOOP(PUT_F32_HALF) break;
    default: QUAD_LOOP(PUT_F32_INTERLEAVED) break;
    }
    wasm_v128_store(o->s + i, s0);
    wasm_v128_store(o->s + i + 2, s1);
    wasm_v128_store(o->c + i, c0);
    wasm_v128_store(o->c + i + 2, c1);
}
#endif

/* The next `rows` (<= the oscillator's room) consecutive rows. */
static void fill_block(pe_rope_rows *st, void *cos, void *sin, int32_t rows) {
    pe_osc *o = &st->osc;
    int32_t i = 0;
#if PE_SIMD
    /* float32, the caches models use, in SIMD; float64 takes the scalar loop (size: -Oz module) */
    if (st->dtype == PE_F32)
        for (; i + 4 <= st->h; i += 4) quad_rows(st, cos, sin, rows, i);
#endif
    for (; i < st->h; i++) {
        double s = o->s[i], c = o->c[i], sw = o->sw[i], cw = o->cw[i];
        for (int32_t r = 0; r < rows; r++) {
            put(st, cos, sin, (size_t)r, i, c, s);
            double next = s * cw + c * sw;
            c = c * cw - s * sw;
            s = next;
        }
        o->s[i] = s;
        o->c[i] = c;
    }
    PE_WORK(PE_WORK_ROTATIONS, (double)rows * st->h);
    PE_WORK(PE_WORK_TABLE_ELEMS, 2.0 * rows * st->cols);
    pe_osc_advance(o, rows);
}

int pe_rope_cache_begin(pe_rope_rows **state, double *attention_factor, int dtype, int32_t max_len,
                        int32_t dim, double base, int scaling, const pe_rope_params *params, double offset,
                        int layout) {
    if (!state || !attention_factor) return PE_ERR_NULL;
    *state = NULL;
    PE_TRY(pe_check_dtype(dtype));
    if (layout < PE_ROPE_CACHE_PAIRS || layout > PE_ROPE_CACHE_INTERLEAVED) return PE_ERR_OPTION;
    PE_TRY(pe_check_dim(max_len));
    PE_TRY(pe_rope_check_dim(dim));
    int32_t h = dim / 2, cols = layout == PE_ROPE_CACHE_PAIRS ? h : dim;
    PE_TRY(pe_check_bytes(2.0 * max_len * cols, dtype == PE_F32 ? 4 : 8));
    PE_TRY(pe_check_position(offset));
    PE_TRY(pe_check_position(offset + (max_len - 1)));
    PE_TRY(pe_check_scratch(sizeof(pe_rope_rows) + 5.0 * 8 * (h + 2)));
    pe_rope_rows *st = pe_malloc(sizeof *st);
    if (!st) return PE_ERR_NOMEM;
    *st = (pe_rope_rows){ .h = h, .cols = cols, .left = max_len, .dtype = dtype, .layout = layout };
    int status = pe_rope_make_frequencies(&st->w, &st->a, dim, base, scaling, params, offset + max_len);
    if (status == PE_OK) status = pe_osc_init(&st->osc, st->w, h, offset);
    else st->w = NULL;
    if (status != PE_OK) {
        pe_rope_cache_end(st);
        return status;
    }
    *state = st;
    *attention_factor = st->a;
    return PE_OK;
}

static int rows_at(const pe_rope_rows *st, void *cos, void *sin, int32_t rows, const double *positions) {
    for (int32_t r = 0; r < rows; r++) PE_TRY(pe_check_position(positions[r]));
    for (int32_t r = 0; r < rows; r++) {
        for (int32_t i = 0; i < st->h; i++) {
            double c, s; /* one pe_sincos: pe_cos and pe_sin would each evaluate both */
            pe_sincos(positions[r] * st->w[i], &s, &c);
            put(st, cos, sin, (size_t)r, i, c, s);
        }
    }
    return PE_OK;
}

int pe_rope_cache_next(pe_rope_rows *st, void *cos, void *sin, int32_t rows, const double *positions) {
    if (!st || !cos || !sin) return PE_ERR_NULL;
    PE_TRY(pe_check_dim(rows));
    if (positions) return rows_at(st, cos, sin, rows, positions);
    if (rows > st->left) return PE_ERR_SIZE;
    size_t stride = (size_t)st->cols * (st->dtype == PE_F32 ? 4 : 8);
    for (int32_t r = 0; r < rows;) {
        int32_t n = rows - r < BLOCK_ROWS ? rows - r : BLOCK_ROWS;
        if (n > pe_osc_room(&st->osc)) n = pe_osc_room(&st->osc);
        fill_block(st, (char *)cos + r * stride, (char *)sin + r * stride, n);
        r += n;
    }
    st->left -= rows;
    return PE_OK;
}

void pe_rope_cache_end(pe_rope_rows *st) {
    if (!st) return;
    pe_osc_free(&st->osc);
    pe_free(st->w);
    pe_free(st);
}

int pe_rope_cache(void *cos_out, void *sin_out, int dtype, int32_t max_len, int32_t dim, double base,
                  int scaling, const pe_rope_params *params, double offset, int layout) {
    if (!cos_out || !sin_out) return PE_ERR_NULL;
    pe_rope_rows *st;
    double a;
    PE_TRY(pe_rope_cache_begin(&st, &a, dtype, max_len, dim, base, scaling, params, offset, layout));
    int status = pe_rope_cache_next(st, cos_out, sin_out, max_len, NULL);
    pe_rope_cache_end(st);
    return status;
}

/* ---- rotation ------------------------------------------------------------------ */

/* The pairing and a rows x cols block of heads of head_dim, the first *rd
 * (rotary_dim, or head_dim for 0; even, <= head_dim) of each rotating. */
static int check_heads(int pairing, int32_t rows, int32_t cols, int32_t head_dim, int32_t rotary_dim,
                       int32_t *rd) {
    if (pairing != PE_ROPE_INTERLEAVED && pairing != PE_ROPE_HALF) return PE_ERR_OPTION;
    PE_TRY(pe_check_dim(rows));
    PE_TRY(pe_check_dim(cols));
    PE_TRY(pe_rope_check_dim(head_dim));
    if (cols % head_dim) return PE_ERR_SHAPE;
    *rd = rotary_dim ? rotary_dim : head_dim;
    PE_TRY(pe_rope_check_dim(*rd));
    return *rd > head_dim ? PE_ERR_SHAPE : PE_OK;
}

/*
 * HF's apply_rotary_pos_emb, y = x cos + rotate(x) sin element by element, in
 * the dtype of x: rotate_half pairs coordinate i with i + h (its sign - for the
 * first half), the interleaved pairing 2i with 2i + 1. A NaN that any input or
 * overflowing result leaves in the output is caught by summing y * 0 (0 for
 * finite y), one multiply-add more per value instead of a pass over the inputs.
 */
#define ROTATE_HEAD(T, y, x, c, s, from, rd, pairing, bad)                              \
    do {                                                                                \
        int32_t h_ = (rd) / 2;                                                          \
        for (int32_t i_ = (from); i_ < h_; i_++) {                                      \
            int32_t j0_ = (pairing) == PE_ROPE_HALF ? i_ : 2 * i_;                      \
            int32_t j1_ = (pairing) == PE_ROPE_HALF ? i_ + h_ : j0_ + 1;                \
            T a_ = (x)[j0_], b_ = (x)[j1_];                                             \
            T y0_ = a_ * (c)[j0_] - b_ * (s)[j0_], y1_ = b_ * (c)[j1_] + a_ * (s)[j1_]; \
            (y)[j0_] = y0_;                                                             \
            (y)[j1_] = y1_;                                                             \
            bad += y0_ * 0 + y1_ * 0;                                                   \
        }                                                                               \
    } while (0)

#if PE_SIMD
/* One head of float32, four coordinates at a time; returns the pairs done (the
 * rest: ROTATE_HEAD) and adds y * 0 of every value written to *bad. */
static int32_t rotate_head_f32(float *restrict y, const float *x, const float *restrict c,
                               const float *restrict s, int32_t rd, int pairing, v128_t *bad) {
    v128_t zero = wasm_f32x4_splat(0.0f), acc = *bad;
    int32_t i = 0;
    if (pairing == PE_ROPE_HALF) {
        int32_t h = rd / 2;
        for (; i + 4 <= h; i += 4) {
            v128_t a = wasm_v128_load(x + i), b = wasm_v128_load(x + i + h);
            v128_t y0 = wasm_f32x4_sub(wasm_f32x4_mul(a, wasm_v128_load(c + i)),
                                       wasm_f32x4_mul(b, wasm_v128_load(s + i)));
            v128_t y1 = wasm_f32x4_add(wasm_f32x4_mul(b, wasm_v128_load(c + i + h)),
                                       wasm_f32x4_mul(a, wasm_v128_load(s + i + h)));
            wasm_v128_store(y + i, y0);
            wasm_v128_store(y + i + h, y1);
            acc = wasm_f32x4_add(acc, wasm_f32x4_add(wasm_f32x4_mul(y0, zero), wasm_f32x4_mul(y1, zero)));
        }
        *bad = acc;
        return i;
    }
    v128_t sign = wasm_f32x4_make(-1.0f, 1.0f, -1.0f, 1.0f);
    for (; i + 4 <= rd; i += 4) {
        v128_t v = wasm_v128_load(x + i), swapped = wasm_i32x4_shuffle(v, v, 1, 0, 3, 2);
        v128_t yv = wasm_f32x4_add(wasm_f32x4_mul(v, wasm_v128_load(c + i)),
                                   wasm_f32x4_mul(wasm_f32x4_mul(swapped, sign), wasm_v128_load(s + i)));
        wasm_v128_store(y + i, yv);
        acc = wasm_f32x4_add(acc, wasm_f32x4_mul(yv, zero));
    }
    *bad = acc;
    return i / 2;
}
#endif

/* Rotates head by head; returns PE_OK or PE_ERR_VALUE for a non-finite value. */
#define ROTATE_ALL(T, SIMD_HEAD)                                              \
    do {                                                                      \
        T *yo = out;                                                          \
        const T *xi = x, *cc = cos, *ss = sin;                                \
        T bad = 0;                                                            \
        for (size_t b = 0; b < (size_t)blocks; b++) {                         \
            for (int32_t r = 0; r < rows; r++) {                              \
                size_t at = (b * (size_t)rows + (size_t)r) * (size_t)cols;    \
                const T *cr = cc + (size_t)r * rd, *sr = ss + (size_t)r * rd; \
                for (int32_t hd = 0; hd < cols; hd += head_dim) {             \
                    T *y = yo + at + hd;                                      \
                    const T *xv = xi + at + hd;                               \
                    int32_t done = SIMD_HEAD;                                 \
                    ROTATE_HEAD(T, y, xv, cr, sr, done, rd, pairing, bad);    \
                    for (int32_t j = rd; j < head_dim; j++) {                 \
                        y[j] = xv[j];                                         \
                        bad += xv[j] * 0;                                     \
                    }                                                         \
                }                                                             \
            }                                                                 \
        }                                                                     \
        status = bad == 0 ? PE_OK : PE_ERR_VALUE;                             \
    } while (0)

int pe_rope_rotate(void *out, const void *x, int dtype, int32_t blocks, int32_t rows, int32_t cols,
                   int32_t head_dim, int32_t rotary_dim, int pairing, const void *cos, const void *sin) {
    if (!out || !x || !cos || !sin) return PE_ERR_NULL;
    PE_TRY(pe_check_dtype(dtype));
    PE_TRY(pe_check_dim(blocks));
    int32_t rd;
    PE_TRY(check_heads(pairing, rows, cols, head_dim, rotary_dim, &rd));
    double eb = dtype == PE_F32 ? 4 : 8;
    PE_TRY(pe_check_bytes(2.0 * blocks * rows * cols, eb));
    PE_TRY(pe_check_bytes(2.0 * rows * rd, eb));
    int status;
    if (dtype == PE_F32) {
#if PE_SIMD
        v128_t acc = wasm_f32x4_splat(0.0f);
        ROTATE_ALL(float, rotate_head_f32(y, xv, cr, sr, rd, pairing, &acc));
        float lanes[4];
        wasm_v128_store(lanes, acc);
        if (lanes[0] + lanes[1] + lanes[2] + lanes[3] != 0) status = PE_ERR_VALUE;
#else
        ROTATE_ALL(float, 0);
#endif
    } else {
        ROTATE_ALL(double, 0);
    }
    PE_WORK(PE_WORK_ROTATIONS, (double)blocks * rows * (cols / head_dim) * (rd / 2));
    return status;
}

int pe_rope_apply(double *out, const double *x, int32_t rows, int32_t cols, int32_t head_dim,
                  int32_t rotary_dim, int pairing, const double *positions, double offset, double base,
                  int scaling, const pe_rope_params *params) {
    if (!out || !x) return PE_ERR_NULL;
    int32_t rd;
    PE_TRY(check_heads(pairing, rows, cols, head_dim, rotary_dim, &rd));
    PE_TRY(pe_check_bytes(2.0 * rows * cols, 8));
    PE_TRY(pe_check_finite(x, (size_t)rows * cols));
    double seen = offset + rows; /* the largest position + 1, HF's seq_len */
    if (positions) {
        seen = -PE_MAX_POSITION;
        for (int32_t r = 0; r < rows; r++) {
            PE_TRY(pe_check_position(positions[r]));
            if (positions[r] + 1 > seen) seen = positions[r] + 1;
        }
    } else {
        PE_TRY(pe_check_position(offset));
        PE_TRY(pe_check_position(offset + (rows - 1)));
    }
    double *w, a;
    PE_TRY(pe_rope_make_frequencies(&w, &a, rd, base, scaling, params, seen));
    /* GPT-J / GPT-NeoX partial rotary: the first rd coordinates of a head rotate
     * as a head of width rd would; the rest pass through unchanged. */
    int32_t h = rd / 2;
    for (int32_t r = 0; r < rows; r++) {
        double pos = positions ? positions[r] : offset + r;
        const double *xr = x + (size_t)r * cols;
        double *yr = out + (size_t)r * cols;
        for (int32_t c = 0; c < cols; c++) yr[c] = xr[c];
        for (int32_t i = 0; i < h; i++) {
            double c, s; /* one pe_sincos: pe_cos and pe_sin would each evaluate both */
            pe_sincos(pos * w[i], &s, &c);
            c *= a;
            s *= a;
            pe_rope_turn_pair(yr, xr, cols, head_dim, h, i, pairing, c, s);
        }
    }
    pe_free(w);
    return PE_OK;
}

/* Source index (within a head) of new index j. */
static int32_t permuted(int32_t j, int32_t head_dim, int inverse) {
    int32_t h = head_dim / 2;
    if (!inverse) return j < h ? 2 * j : 2 * (j - h) + 1; /* evens first, then odds */
    return j % 2 ? j / 2 + h : j / 2;                     /* undo: re-interleave */
}

int pe_rope_permutation(int32_t *out, int32_t head_dim, int32_t heads, int inverse) {
    if (!out) return PE_ERR_NULL;
    PE_TRY(pe_rope_check_dim(head_dim));
    PE_TRY(pe_check_dim(heads));
    PE_TRY(pe_check_bytes((double)head_dim * heads, 4));
    for (int32_t hd = 0; hd < heads; hd++)
        for (int32_t j = 0; j < head_dim; j++)
            out[(size_t)hd * head_dim + j] = hd * head_dim + permuted(j, head_dim, inverse);
    return PE_OK;
}

int pe_rope_permute(double *out, const double *w, int32_t rows, int32_t cols, int32_t head_dim, int inverse,
                    int axis) {
    if (!out || !w) return PE_ERR_NULL;
    if (axis != 0 && axis != 1) return PE_ERR_OPTION;
    PE_TRY(pe_check_dim(rows));
    PE_TRY(pe_check_dim(cols));
    PE_TRY(pe_rope_check_dim(head_dim));
    PE_TRY(pe_check_bytes(2.0 * rows * cols, 8));
    if ((axis == 0 ? rows : cols) % head_dim) return PE_ERR_SHAPE;
    for (int32_t r = 0; r < rows; r++) {
        for (int32_t c = 0; c < cols; c++) {
            int32_t sr = r, sc = c;
            if (axis == 0) sr = r - r % head_dim + permuted(r % head_dim, head_dim, inverse);
            else sc = c - c % head_dim + permuted(c % head_dim, head_dim, inverse);
            out[(size_t)r * cols + c] = w[(size_t)sr * cols + sc];
        }
    }
    return PE_OK;
}
