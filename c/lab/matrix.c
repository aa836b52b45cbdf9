/* The lab's matrix products (forward.c's linear layers and their gradients).
 *
 * Every product here is a sum of scaled rows: output row q is
 * init + s_q[0] r[0] + s_q[1] r[1] + ... in that order, each term a float
 * multiply then a float add, terms whose scale is 0 left out where the caller
 * asks (ReLU's zeros add nothing). Keeping that order per output element is
 * what keeps a trained model's bytes the same whatever the kernel, so the
 * faster kernel may only change how many rows and columns it does at once.
 *
 * With wasm SIMD and float32 (the shipped module) four output rows by eight
 * columns stay in registers over the whole sum, so each row of r is loaded
 * once per four output rows; the plain loop below is the other builds' (the
 * float64 debug module, native builds without SIMD) and every edge. */
#include <string.h>
#include "lab.h"
#include "../simd.h"

/* One sum of scaled rows: o[q os + j] = (acc ? o : 0) + sum over p < k of
 * s[q sr + p sc] r[p rs + j], for q < nq and j in [j0, m). */
typedef struct {
    lab_real *o;
    const lab_real *s, *r;
    size_t os, sr, sc, rs;
    int32_t k, m, acc, skip;
} row_sum;

static void plain(const row_sum *x, int32_t q0, int32_t nq, int32_t j0) {
    for (int32_t q = q0; q < q0 + nq; q++) {
        lab_real *o = x->o + (size_t)q * x->os;
        const lab_real *s = x->s + (size_t)q * x->sr;
        for (int32_t j = j0; j < x->m; j++) {
            lab_real t = x->acc ? o[j] : 0;
            for (int32_t p = 0; p < x->k; p++) {
                lab_real sp = s[(size_t)p * x->sc];
                if (!x->skip || sp != 0) t += sp * x->r[(size_t)p * x->rs + j];
            }
            o[j] = t;
        }
    }
}

#if PE_SIMD && !defined(PE_LAB_F64)
/* Rows q0 .. q0 + 3, columns j .. j + 7. Zero scales are not skipped here,
 * and the sums are the same: a sum that starts at +0 (or at one that did)
 * is never -0 (x + y rounds to +0 unless both are -0), so adding 0 r = +-0
 * leaves it as it is. (Only an infinite r would differ, as 0 inf is NaN; a
 * model with infinite activations has diverged anyway.) */
static void block4x8(const row_sum *x, int32_t q0, int32_t j) {
    size_t os = x->os, sr = x->sr, sc = x->sc, rs = x->rs;
    lab_real *o = x->o + (size_t)q0 * os + j;
    v128_t a[4][2];
    for (int q = 0; q < 4; q++)
        for (int h = 0; h < 2; h++)
            a[q][h] = x->acc ? wasm_v128_load(o + q * os + 4 * h) : wasm_f32x4_splat(0.0f);
    const lab_real *s = x->s + (size_t)q0 * sr, *r = x->r + j;
    for (int32_t p = 0; p < x->k; p++, s += sc, r += rs) {
        v128_t r0 = wasm_v128_load(r), r1 = wasm_v128_load(r + 4);
        for (int q = 0; q < 4; q++) {
            v128_t sv = wasm_f32x4_splat(s[q * sr]);
            a[q][0] = wasm_f32x4_add(a[q][0], wasm_f32x4_mul(sv, r0));
            a[q][1] = wasm_f32x4_add(a[q][1], wasm_f32x4_mul(sv, r1));
        }
    }
    for (int q = 0; q < 4; q++)
        for (int h = 0; h < 2; h++) wasm_v128_store(o + q * os + 4 * h, a[q][h]);
}

static void sum_rows_of(const row_sum *x, int32_t n) {
    int32_t wide = x->m - x->m % 8, q = 0;
    for (; q + 4 <= n; q += 4)
        for (int32_t j = 0; j < wide; j += 8) block4x8(x, q, j);
    if (q < n) plain(x, q, n - q, 0);
    if (wide < x->m) plain(x, 0, q, wide);
}
#else
static void sum_rows_of(const row_sum *x, int32_t n) { plain(x, 0, n, 0); }
#endif

void lab_mm_nn(lab_real *out, const lab_real *a, const lab_real *w, int32_t n, int32_t k, int32_t m,
               int acc) {
    row_sum x = { out, a, w, (size_t)m, (size_t)k, 1, (size_t)m, k, m, acc, 0 };
    sum_rows_of(&x, n);
}

void lab_mm_nt(lab_real *out, const lab_real *g, const lab_real *w, int32_t n, int32_t k, int32_t m,
               int acc) {
    for (int32_t i = 0; i < n; i++) {
        const lab_real *gi = g + (size_t)i * m;
        lab_real *o = out + (size_t)i * k;
        for (int32_t p = 0; p < k; p++) {
            const lab_real *wp = w + (size_t)p * m;
            lab_real s = 0;
            for (int32_t j = 0; j < m; j++) s += gi[j] * wp[j];
            o[p] = acc ? o[p] + s : s;
        }
    }
}

void lab_mm_nt_rows(lab_real *out, const lab_real *g, const lab_real *w, int32_t n, int32_t k, int32_t m,
                    int acc, lab_real *wt) {
    for (int32_t p = 0; p < k; p++)
        for (int32_t j = 0; j < m; j++) wt[(size_t)j * k + p] = w[(size_t)p * m + j];
    row_sum x = { out, g, wt, (size_t)k, (size_t)m, 1, (size_t)k, m, k, acc, 1 };
    sum_rows_of(&x, n);
}

void lab_mm_tn(lab_real *gw, const lab_real *a, const lab_real *g, int32_t n, int32_t k, int32_t m) {
    /* output row p sums the rows of g scaled by column p of a, in order of i */
    row_sum x = { gw, a, g, (size_t)m, 1, (size_t)k, (size_t)m, n, m, 1, 1 };
    sum_rows_of(&x, k);
}
