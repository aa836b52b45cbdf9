/*
 * Attention in float32 without the weights (pe_attention_f32): the scheme of
 * FlashAttention. Keys are taken a block of BK at a time, and each query row
 * keeps a running max, a running sum of exponentials and an unnormalised
 * output, rescaled when a later block raises the max (the online softmax). No
 * n x m buffer exists: the scratch is one block of K (transposed), four query
 * rows, their scores, and every row's accumulator.
 *
 * The query heads that share a kv head (grouped-query attention) are one run
 * of rows in q, so each K/V block is packed once and serves all of them. Both
 * products, Q K^T and P V, go through one kernel of 4 rows x 8 columns of
 * f32x4 accumulators: 8 accumulators and their operands fit the 16 SIMD
 * registers of x64 and arm64 once V8 compiles the module. Small on purpose:
 * the whole kernel costs about 1 kB of the 15 kB `posenc` entry.
 */
#include <math.h>
#include <string.h>
#include "inline.h"
#include "internal.h"
#include "mathlib.h"
#include "simd.h"
#include "work.h"

enum { B_, H_, HKV_, N_, M_, DK_, DV_ };
#define BK 64       /* keys per block: K^T of a block stays in L1 for dk <= 128 */
#define TR 4        /* query rows per tile */
#define SS (BK + 4) /* a row of scores, and a slot for e^(old max - max) */

/*
 * c[t][x] += sum_l a[t at + l al] b[l bs + x] for t < TR, x < width (a
 * multiple of 8), l < len: C += A B for a TR-row tile. Scores: A the packed
 * queries, B the transposed keys. Output: A the weights, B the values.
 */
static void tile_gemm(float *c, size_t cs, const float *a, size_t at, size_t al, const float *b, size_t bs,
                      int32_t len, int32_t width) {
    for (int32_t x = 0; x < width; x += 8) {
#if PE_SIMD
        v128_t acc[TR][2];
        /* Unrolled, so that -Os keeps the accumulators in registers (4x faster). */
        _Pragma("clang loop unroll(full)") for (int t = 0; t < TR; t++) {
            acc[t][0] = wasm_v128_load(c + t * cs + x);
            acc[t][1] = wasm_v128_load(c + t * cs + x + 4);
        }
        const float *bl = b + x, *al_ = a;
        for (int32_t l = 0; l < len; l++, bl += bs, al_ += al) {
            v128_t b0 = wasm_v128_load(bl), b1 = wasm_v128_load(bl + 4);
            _Pragma("clang loop unroll(full)") for (int t = 0; t < TR; t++) {
                v128_t s = wasm_v128_load32_splat(al_ + t * at);
                acc[t][0] = wasm_f32x4_add(acc[t][0], wasm_f32x4_mul(s, b0));
                acc[t][1] = wasm_f32x4_add(acc[t][1], wasm_f32x4_mul(s, b1));
            }
        }
        _Pragma("clang loop unroll(full)") for (int t = 0; t < TR; t++) {
            wasm_v128_store(c + t * cs + x, acc[t][0]);
            wasm_v128_store(c + t * cs + x + 4, acc[t][1]);
        }
#else
        for (int t = 0; t < TR; t++)
            for (int32_t l = 0; l < len; l++)
                for (int32_t u = x; u < x + 8; u++) c[t * cs + u] += a[t * at + l * al] * b[l * bs + u];
#endif
    }
}

/*
 * e^(s - top) in float32 for s <= top, four at a time: x = s - top = n ln2 + r with
 * |r| <= ln2/2, e^r by its Taylor polynomial of degree 7 (truncation below
 * 5e-9 relative), 2^n built in the exponent bits. Exactly 0 below -87
 * (e^-87 = 1.6e-38, the edge of float32's normal range), at -inf and for NaN
 * (-inf - -inf: a row with no key yet), so a hidden key weighs nothing.
 * n is rounded by adding 1.5 * 2^23 (float32's add rounds to nearest even, as
 * nearest() does), and that sum's low bits are n itself: nearest() and
 * trunc_sat cost about 4% of a prefill in V8. pmax, one maxps on x64, where
 * max() spends several instructions on its NaN rules: about 9%.
 */
static void exp_block(float *s, int32_t count, float top) {
    for (int32_t j = 0; j < count; j += 4) {
#if PE_SIMD
        v128_t x = wasm_f32x4_sub(wasm_v128_load(s + j), wasm_f32x4_splat(top)),
               lo = wasm_f32x4_splat(-87.0f), magic = wasm_f32x4_splat(12582912.0f);
        v128_t keep = wasm_f32x4_gt(x, lo);
        x = wasm_f32x4_pmax(x, lo); /* x < lo ? lo : x; a NaN stays, and keep drops it */
        v128_t t = wasm_f32x4_add(wasm_f32x4_mul(x, wasm_f32x4_splat(1.44269504f)), magic);
        v128_t n = wasm_f32x4_sub(t, magic);
        v128_t r = wasm_f32x4_sub(x, wasm_f32x4_mul(n, wasm_f32x4_splat(0.693145751953125f)));
        r = wasm_f32x4_sub(r, wasm_f32x4_mul(n, wasm_f32x4_splat(1.42860677e-6f)));
        static const float inv_fact[] = { 1.0f, 1.0f, 0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120, 1.0f / 720 };
        v128_t p = wasm_f32x4_splat(1.0f / 5040);
        /* unrolled: a loop over the table read it from memory for every four values */
        _Pragma("clang loop unroll(full)") for (int i = 6; i >= 0; i--) {
            p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(inv_fact[i]));
        }
        v128_t two_n = wasm_i32x4_shl(wasm_i32x4_sub(t, wasm_i32x4_splat(0x4B400000 - 127)), 23);
        wasm_v128_store(s + j, wasm_v128_and(wasm_f32x4_mul(p, two_n), keep));
#else
        for (int32_t u = j; u < j + 4; u++) s[u] = s[u] - top > -87.0f ? (float)pe_exp(s[u] - top) : 0.0f;
#endif
    }
}

#if PE_SIMD
/* The sum of a vector's four lanes, (0 + 2) + (1 + 3), in the order of gram.c's hsum. */
PE_INLINE float lanes_sum(v128_t a) {
    a = wasm_f32x4_add(a, wasm_i32x4_shuffle(a, a, 2, 3, 0, 1));
    return wasm_f32x4_extract_lane(a, 0) + wasm_f32x4_extract_lane(a, 1);
}

/* All bits set in each lane that holds NaN or an infinity (its exponent bits all ones). */
PE_INLINE v128_t non_finite(v128_t x) {
    v128_t ones = wasm_i32x4_splat(0x7f800000);
    return wasm_i32x4_eq(wasm_v128_and(x, ones), ones);
}
#endif

typedef struct {
    int32_t dk, dv, m, n, rows, causal;
    float scale;
    /* dk x BK, TR x dk (the last tile's rows), TR x SS, rows x dv, rows, rows */
    float *kt, *qt, *s, *acc, *mx, *sum;
} flash;

/*
 * The online softmax of tile row t (query row r) over the block's keys
 * [j0, j0 + jn), of which the first `lim` are visible: turns its scores into
 * e^(s - max), max the running max, and rescales the row's earlier sum and
 * output to it. A non-finite score (a product overflowing float32) fails.
 */
static int softmax_row(const flash *f, float *s, int32_t r, int32_t lim, int32_t jn8) {
    float top = f->mx[r], *acc = f->acc + (size_t)r * f->dv, total = 0.0f;
#if PE_SIMD
    /* Four scores at a time: the scalar loops were a sixth of a prefill. Lanes past lim become -inf, whose
     * e^ is exactly 0, so the sum runs over whole vectors (four partial sums, then across lanes). */
    v128_t vt = wasm_f32x4_splat(top), bad = wasm_i32x4_splat(0), at = wasm_i32x4_make(0, 1, 2, 3),
           scale = wasm_f32x4_splat(f->scale);
    for (int32_t j = 0; j < jn8; j += 4, at = wasm_i32x4_add(at, wasm_i32x4_splat(4))) {
        v128_t in = wasm_i32x4_lt(at, wasm_i32x4_splat(lim));
        v128_t x = wasm_f32x4_mul(wasm_v128_load(s + j), scale);
        bad = wasm_v128_or(bad, wasm_v128_and(in, non_finite(x)));
        x = wasm_v128_bitselect(x, wasm_f32x4_splat(-INFINITY), in);
        vt = wasm_f32x4_pmax(vt, x); /* one maxps: a NaN it would pass over is refused below */
        wasm_v128_store(s + j, x);
    }
    if (wasm_v128_any_true(bad)) return PE_ERR_VALUE;
    vt = wasm_f32x4_max(vt, wasm_i32x4_shuffle(vt, vt, 2, 3, 0, 1));
    top = wasm_f32x4_extract_lane(wasm_f32x4_max(vt, wasm_i32x4_shuffle(vt, vt, 1, 0, 3, 2)), 0);
#else
    for (int32_t j = 0; j < jn8; j++) {
        s[j] = j < lim ? s[j] * f->scale : -INFINITY;
        if (j < lim && !isfinite(s[j])) return PE_ERR_VALUE;
        if (s[j] > top) top = s[j];
    }
#endif
    s[jn8] = f->mx[r]; /* e^(old max - max) by the same exp: 0 while the old max is -inf */
    exp_block(s, jn8 + 4, top);
    float r_old = s[jn8];
#if PE_SIMD
    v128_t sum = wasm_f32x4_splat(0.0f);
    for (int32_t j = 0; j < jn8; j += 4) sum = wasm_f32x4_add(sum, wasm_v128_load(s + j));
    total = lanes_sum(sum);
    if (r_old != 1.0f)
        for (int32_t d = 0; d < f->dv; d += 4)
            wasm_v128_store(acc + d, wasm_f32x4_mul(wasm_v128_load(acc + d), wasm_f32x4_splat(r_old)));
#else
    for (int32_t j = 0; j < lim; j++) total += s[j];
    if (r_old != 1.0f)
        for (int32_t d = 0; d < f->dv; d++) acc[d] *= r_old;
#endif
    f->sum[r] = f->sum[r] * r_old + total;
    f->mx[r] = top;
    return PE_OK;
}

/* How many keys query i sees: 0..i + causal - 1, or all m (not causal). */
static int32_t keys_seen(int64_t i, int32_t causal, int32_t m) {
    return causal && i + causal < m ? (int32_t)(i + causal) : m;
}

/* How many of keys [j0, j0 + jn) row r sees (it is query r % n). */
static int32_t row_keys(const flash *f, int32_t r, int32_t j0, int32_t jn) {
    int32_t vis = keys_seen(r % f->n, f->causal, f->m);
    return vis <= j0 ? 0 : vis - j0 < jn ? vis - j0 : jn;
}

/*
 * The group's rows against keys [j0, j0 + jn), K^T already packed. Called
 * through block_fn, which nothing inlines: a long call then re-enters it once
 * a block and runs in V8's optimised code after the first blocks, where one
 * inlined loop would stay in the baseline compiler's (no on-stack replacement).
 */
static int block(const flash *f, const float *q, const float *v, int32_t j0, int32_t jn) {
    int32_t jn8 = (jn + 7) & ~7;
    for (int32_t r0 = 0; r0 < f->rows; r0 += TR) {
        int32_t lim[TR], seen = 0; /* the keys some row of the tile sees */
        for (int t = 0; t < TR; t++) {
            lim[t] = r0 + t < f->rows ? row_keys(f, r0 + t, j0, jn) : 0;
            if (lim[t] > seen) seen = lim[t];
        }
        if (!seen) continue; /* causal: the whole block is in these rows' future */
        /* causal: the keys no row of the tile sees yet are neither scored nor weighed (half of a diagonal
         * block) */
        int32_t seen8 = (seen + 7) & ~7;
        PE_WORK(PE_WORK_SCORES, TR * seen8);
        memset(f->s, 0, sizeof(float) * TR * SS);
        /* the tile's rows of q where they are; a last, partial tile from its zero-padded copy */
        tile_gemm(f->s, SS, r0 + TR > f->rows ? f->qt : q + (size_t)r0 * f->dk, f->dk, 1, f->kt, BK, f->dk,
                  seen8);
        for (int t = 0; t < TR && r0 + t < f->rows; t++)
            PE_TRY(softmax_row(f, f->s + t * SS, r0 + t, lim[t], jn8));
        tile_gemm(f->acc + (size_t)r0 * f->dv, (size_t)f->dv, f->s, SS, 1, v + (size_t)j0 * f->dv,
                  (size_t)f->dv, seen, f->dv);
    }
    return PE_OK;
}

static int (*volatile block_fn)(const flash *, const float *, const float *, int32_t, int32_t) = block;

#if PE_SIMD
/*
 * block() for a kv head of fewer query rows than a tile (a decode step with
 * at most three query heads per kv head, or none grouped), its keys k and
 * values v where they are: a 4-row tile left rows of padding, and packing
 * K^T cost as much as the products. Row by row, each score is a dot product
 * of rows (dk a multiple of 4), summed across lanes in the order of gram.c's
 * hsum; then the weighted sum of the row's visible value rows. (Four keys at
 * a time, four chains of additions, was no faster: the step reads every key
 * once and waits for memory.)
 */
static int few_rows(const flash *f, const float *q, const float *k, const float *v, int32_t j0, int32_t jn) {
    for (int32_t r = 0; r < f->rows; r++) {
        int32_t lim = row_keys(f, r, j0, jn);
        float *s = f->s + r * SS, *acc = f->acc + (size_t)r * f->dv;
        const float *qr = q + (size_t)r * f->dk;
        if (!lim) continue; /* causal: the block is in this row's future */
        PE_WORK(PE_WORK_SCORES, lim);
        for (int32_t j = 0; j < lim; j++) {
            v128_t a = wasm_f32x4_splat(0.0f);
            for (int32_t c = 0; c < f->dk; c += 4)
                a = wasm_f32x4_add(
                    a, wasm_f32x4_mul(wasm_v128_load(qr + c), wasm_v128_load(k + (size_t)j * f->dk + c)));
            s[j] = lanes_sum(a);
        }
        PE_TRY(softmax_row(f, s, r, lim, (jn + 7) & ~7));
        for (int32_t x = 0; x < f->dv; x += 8) {
            v128_t a0 = wasm_v128_load(acc + x), a1 = wasm_v128_load(acc + x + 4);
            for (int32_t l = 0; l < lim; l++) {
                v128_t p = wasm_v128_load32_splat(s + l);
                a0 = wasm_f32x4_add(a0, wasm_f32x4_mul(p, wasm_v128_load(v + (size_t)l * f->dv + x)));
                a1 = wasm_f32x4_add(a1, wasm_f32x4_mul(p, wasm_v128_load(v + (size_t)l * f->dv + x + 4)));
            }
            wasm_v128_store(acc + x, a0);
            wasm_v128_store(acc + x + 4, a1);
        }
    }
    return PE_OK;
}

static int (*volatile few_rows_fn)(const flash *, const float *, const float *, const float *, int32_t,
                                   int32_t) = few_rows;
#endif

/*
 * K^T of a block of jn keys (rows of dk), zero up to a multiple of 8 keys.
 * Four keys at a time by 4 x 4 transposes: key by key, it was a quarter of a
 * decode step, whose few query rows each block serves.
 */
static void pack_kt(float *kt, const float *k, int32_t dk, int32_t jn) {
    int32_t j = 0;
#if PE_SIMD
    for (; !(dk % 4) && j + 4 <= jn; j += 4) /* every common head size is a multiple of 4 */
        for (int32_t c = 0; c < dk; c += 4) {
            const float *r = k + (size_t)j * dk + c;
            v128_t a0 = wasm_v128_load(r), a1 = wasm_v128_load(r + dk), a2 = wasm_v128_load(r + 2 * dk),
                   a3 = wasm_v128_load(r + 3 * dk), t0 = wasm_i32x4_shuffle(a0, a1, 0, 4, 1, 5),
                   t1 = wasm_i32x4_shuffle(a2, a3, 0, 4, 1, 5), t2 = wasm_i32x4_shuffle(a0, a1, 2, 6, 3, 7),
                   t3 = wasm_i32x4_shuffle(a2, a3, 2, 6, 3, 7);
            wasm_v128_store(kt + c * BK + j, wasm_i32x4_shuffle(t0, t1, 0, 1, 4, 5));
            wasm_v128_store(kt + (c + 1) * BK + j, wasm_i32x4_shuffle(t0, t1, 2, 3, 6, 7));
            wasm_v128_store(kt + (c + 2) * BK + j, wasm_i32x4_shuffle(t2, t3, 0, 1, 4, 5));
            wasm_v128_store(kt + (c + 3) * BK + j, wasm_i32x4_shuffle(t2, t3, 2, 3, 6, 7));
        }
#endif
    for (; j < ((jn + 7) & ~7); j++)
        for (int32_t c = 0; c < dk; c++) kt[c * BK + j] = j < jn ? k[(size_t)j * dk + c] : 0.0f;
}

/*
 * One kv head: its f->rows query rows q into out. Row r is query r % n of its
 * head; causal lets it see keys 0..r % n + causal - 1.
 */
static int kv_head(const flash *f, float *out, const float *q, const float *k, const float *v) {
    memset(f->acc, 0, sizeof(float) * (size_t)(f->rows + TR) * f->dv);
    for (int32_t r = 0; r < f->rows; r++) f->mx[r] = -INFINITY, f->sum[r] = 0.0f;
    int32_t tail = f->rows & ~(TR - 1); /* the last tile's rows, zero past rows */
    memset(f->qt, 0, sizeof(float) * TR * f->dk);
    memcpy(f->qt, q + (size_t)tail * f->dk, sizeof(float) * (f->rows - tail) * f->dk);
    /* causal: no row sees a key past n + causal - 2 */
    for (int32_t j0 = 0; j0 < f->m && !(f->causal && j0 >= (int64_t)f->n + f->causal - 1); j0 += BK) {
        int32_t jn = f->m - j0 < BK ? f->m - j0 : BK;
        PE_WORK(PE_WORK_KV_BLOCKS, 1);
#if PE_SIMD
        if (f->rows < TR && !(f->dk % 4)) {
            PE_TRY(few_rows_fn(f, q, k + (size_t)j0 * f->dk, v + (size_t)j0 * f->dv, j0, jn));
            continue;
        }
#endif
        pack_kt(f->kt, k + (size_t)j0 * f->dk, f->dk, jn);
        PE_TRY(block_fn(f, q, v, j0, jn));
    }
#if PE_SIMD
    /* four at a time (dv % 8 == 0): one value at a time, the division was 2-4% of a prefill */
    v128_t bad = wasm_i32x4_splat(0);
    for (size_t i = 0; i < (size_t)f->rows * f->dv; i += 4) {
        v128_t y = wasm_f32x4_div(wasm_v128_load(f->acc + i), wasm_f32x4_splat(f->sum[i / f->dv]));
        bad = wasm_v128_or(bad, non_finite(y));
        wasm_v128_store(out + i, y);
    }
    return wasm_v128_any_true(bad) ? PE_ERR_VALUE : PE_OK;
#else
    for (size_t i = 0; i < (size_t)f->rows * f->dv; i++)
        if (!isfinite(out[i] = f->acc[i] / f->sum[i / f->dv])) return PE_ERR_VALUE;
    return PE_OK;
#endif
}

/* kv_head through a pointer too, as block_fn: the packing of K^T and the last division run in optimised code
 * after the first heads. */
static int (*volatile kv_head_fn)(const flash *, float *, const float *, const float *,
                                  const float *) = kv_head;

/*
 * Every one of n float32 values is finite (its exponent bits are not all
 * ones). Without a branch a value, clang turns the loop into SIMD: the first
 * call of a fresh module runs it in V8's baseline code, where a branching
 * scan was about a tenth of that call.
 */
static int finite_f32(const float *x, size_t n) {
    uint32_t bad = 0, bits;
    for (size_t i = 0; i < n; i++) {
        memcpy(&bits, x + i, 4);
        bad |= (bits & 0x7f800000u) == 0x7f800000u;
    }
    return bad ? PE_ERR_VALUE : PE_OK;
}

int pe_attention_f32(float *out, const float *q, const float *k, const float *v, const int32_t *dims,
                     int causal, double scale) {
    if (!out || !q || !k || !v || !dims) return PE_ERR_NULL;
    PE_TRY(pe_check_attention(dims, scale, 0, 4));
    int32_t dk = dims[DK_], dv = dims[DV_], m = dims[M_], rows = dims[H_] / dims[HKV_] * dims[N_];
    if (dv % 8) return PE_ERR_SHAPE;
    if (causal < 0) return PE_ERR_VALUE;
    size_t heads = (size_t)dims[B_] * dims[HKV_];
    /*
     * A non-finite value of q, or of a key some row sees, makes a score or an output non-finite, which
     * softmax_row and kv_head refuse: every row sees a key, and the last query of each kv head sees all of
     * them but, causal, those past its view. Only those are scanned here: a scan of all of k and v was about
     * half of a decode step.
     */
    int32_t seen = keys_seen((int64_t)dims[N_] - 1, causal, m);
    for (size_t h = 0; h < heads; h++) {
        PE_TRY(finite_f32(k + (h * m + seen) * dk, (size_t)(m - seen) * dk));
        PE_TRY(finite_f32(v + (h * m + seen) * dv, (size_t)(m - seen) * dv));
    }
    /* K^T, the query tile, its scores, and rows (plus one tile of padding) of accumulators, max and sum */
    double floats = (double)(dk + TR) * (BK + TR) + (double)(rows + TR) * (dv + 2);
    PE_TRY(pe_check_scratch(floats * 4));
    float *ws = pe_malloc((size_t)floats * 4);
    if (!ws) return PE_ERR_NOMEM;
    flash f = { dk, dv, m, dims[N_], rows, causal, (float)scale, ws, ws + (size_t)dk * BK, 0, 0, 0, 0 };
    f.s = f.qt + (size_t)dk * TR, f.acc = f.s + TR * SS, f.mx = f.acc + (size_t)(rows + TR) * dv,
    f.sum = f.mx + rows;
    int st = PE_OK;
    for (size_t h = 0; h < heads && st == PE_OK; h++)
        st = kv_head_fn(&f, out + h * rows * dv, q + h * rows * dk, k + h * m * dk, v + h * m * dv);
    pe_free(ws);
    return st;
}
