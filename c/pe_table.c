/* The sinusoidal table and its Gram matrix. */
#include <string.h>
#include "oscillator.h"
#include "simd.h"

/*
 * One row from the current sines and cosines, for each output type and layout.
 * s and c hold at least nf values (padded to an even count). Rounding to
 * float32 is round-to-nearest on both paths (SIMD demote and the C cast).
 */
typedef void (*write_row_fn)(void *row, const pe_spec *sp, const double *s, const double *c);

static void interleaved_f32(void *out, const pe_spec *sp, const double *s, const double *c) {
    float *row = out;
    int32_t h = sp->h, i = 0;
#if PE_SIMD
    for (; i + 2 <= h; i += 2) {
        v128_t sv = wasm_f32x4_demote_f64x2_zero(wasm_v128_load(s + i));
        v128_t cv = wasm_f32x4_demote_f64x2_zero(wasm_v128_load(c + i));
        wasm_v128_store(row + 2 * i, wasm_i32x4_shuffle(sv, cv, 0, 4, 1, 5));
    }
#endif
    for (; i < h; i++) {
        row[2 * i] = (float)s[i];
        row[2 * i + 1] = (float)c[i];
    }
    if (sp->nf > h) row[2 * h] = (float)s[h];
}

static void interleaved_f64(void *out, const pe_spec *sp, const double *s, const double *c) {
    double *row = out;
    int32_t h = sp->h, i = 0;
#if PE_SIMD
    for (; i + 2 <= h; i += 2) {
        v128_t sv = wasm_v128_load(s + i), cv = wasm_v128_load(c + i);
        wasm_v128_store(row + 2 * i, wasm_i64x2_shuffle(sv, cv, 0, 2));
        wasm_v128_store(row + 2 * i + 2, wasm_i64x2_shuffle(sv, cv, 1, 3));
    }
#endif
    for (; i < h; i++) {
        row[2 * i] = s[i];
        row[2 * i + 1] = c[i];
    }
    if (sp->nf > h) row[2 * h] = s[h];
}

static void block_f32(float *dst, const double *src, int32_t n) {
    int32_t i = 0;
#if PE_SIMD
    for (; i + 4 <= n; i += 4) {
        v128_t a = wasm_f32x4_demote_f64x2_zero(wasm_v128_load(src + i));
        v128_t b = wasm_f32x4_demote_f64x2_zero(wasm_v128_load(src + i + 2));
        wasm_v128_store(dst + i, wasm_i32x4_shuffle(a, b, 0, 1, 4, 5));
    }
#endif
    for (; i < n; i++) dst[i] = (float)src[i];
}

/* Concatenated and split layouts: a block of sines, then a block of cosines. */
static void blocks_f32(void *out, const pe_spec *sp, const double *s, const double *c) {
    float *row = out;
    block_f32(row, s, sp->nf);
    if (sp->h) block_f32(row + pe_cos_col(sp, 0), c, sp->h);
    if (sp->layout == PE_LAYOUT_CONCAT && sp->d % 2) row[sp->d - 1] = 0;
}

static void blocks_f64(void *out, const pe_spec *sp, const double *s, const double *c) {
    double *row = out;
    for (int32_t i = 0; i < sp->nf; i++) row[i] = s[i];
    if (sp->h) {
        double *cos_block = row + pe_cos_col(sp, 0);
        for (int32_t i = 0; i < sp->h; i++) cos_block[i] = c[i];
    }
    if (sp->layout == PE_LAYOUT_CONCAT && sp->d % 2) row[sp->d - 1] = 0;
}

static int check_table_args(const void *out, int dtype, int32_t max_len, int32_t d_model,
                            double offset) {
    if (!out) return PE_ERR_NULL;
    PE_TRY(pe_check_dtype(dtype));
    PE_TRY(pe_check_dim(max_len));
    PE_TRY(pe_check_dim(d_model));
    PE_TRY(pe_check_position(offset));
    return pe_check_position(offset + (max_len - 1));
}

/* Fills the table for an initialised spec. */
static int fill_table(void *out, int dtype, int32_t max_len, const pe_spec *sp,
                      double offset, int32_t zero_row) {
    pe_osc o;
    PE_TRY(pe_osc_init(&o, sp->w, sp->nf, offset));
    size_t d = (size_t)sp->d, elem = dtype == PE_F32 ? sizeof(float) : sizeof(double);
    int inter = sp->layout == PE_LAYOUT_INTERLEAVED;
    write_row_fn write = dtype == PE_F32 ? (inter ? interleaved_f32 : blocks_f32)
                                         : (inter ? interleaved_f64 : blocks_f64);
    /* Each output element is written exactly once. */
    for (int32_t r = 0; r < max_len; r++) {
        void *row = (char *)out + (size_t)r * d * elem;
        if (r == zero_row) memset(row, 0, d * elem);
        else write(row, sp, o.s, o.c);
        pe_osc_step(&o);
    }
    pe_osc_free(&o);
    return PE_OK;
}

int pe_table(void *out, int dtype, int32_t max_len, int32_t d_model,
             int layout, int freq, double base, double offset, int32_t zero_row) {
    PE_TRY(check_table_args(out, dtype, max_len, d_model, offset));
    PE_TRY(pe_check_bytes((double)max_len * d_model, dtype == PE_F32 ? 4 : 8));
    pe_spec sp;
    PE_TRY(pe_spec_init(&sp, d_model, layout, freq, base));
    int status = fill_table(out, dtype, max_len, &sp, offset, zero_row);
    pe_spec_free(&sp);
    return status;
}

/*
 * When every frequency has both a sine and a cosine, PE_i . PE_j is
 * sum_f cos((i - j) w_f): one profile g[k], k = |i - j|, gives the whole matrix.
 * Laid out symmetrically as sym[n - 1 + k] = g[|k|], row i of the Gram matrix is
 * the contiguous slice sym[n - 1 - i .. 2n - 2 - i], so each row is one copy.
 */
static int toeplitz_gram(void *out, int dtype, int32_t n, const pe_spec *sp, int cosine) {
    size_t elem = dtype == PE_F32 ? sizeof(float) : sizeof(double);
    void *sym = pe_malloc((2 * (size_t)n - 1) * elem);
    if (!sym) return PE_ERR_NOMEM;
    pe_osc o;
    int status = pe_osc_init(&o, sp->w, sp->h, 0.0);
    if (status != PE_OK) {
        pe_free(sym);
        return status;
    }
    /* Every row has norm sqrt(h), so cosine similarity is g / h. */
    double scale = cosine ? (sp->h ? 1.0 / sp->h : 0.0) : 1.0;
    for (int32_t k = 0; k < n; k++) {
        double g = 0.0;
        for (int32_t f = 0; f < sp->h; f++) g += o.c[f];
        pe_store(sym, dtype, (size_t)(n - 1 + k), g * scale);
        pe_store(sym, dtype, (size_t)(n - 1 - k), g * scale);
        pe_osc_step(&o);
    }
    pe_osc_free(&o);
    for (int32_t i = 0; i < n; i++)
        memcpy((char *)out + (size_t)i * n * elem, (char *)sym + (size_t)(n - 1 - i) * elem,
               (size_t)n * elem);
    pe_free(sym);
    return PE_OK;
}

/* A lone sine column or a zeroed row breaks the i - j symmetry: form the table. */
static int direct_gram(void *out, int dtype, int32_t n, const pe_spec *sp,
                       double offset, int32_t zero_row, int cosine) {
    PE_TRY(pe_check_bytes((double)n * sp->d, 8));
    double *table = pe_malloc((size_t)n * sp->d * sizeof(double));
    if (!table) return PE_ERR_NOMEM;
    int status = fill_table(table, PE_F64, n, sp, offset, zero_row);
    if (status == PE_OK) status = pe_gram(out, dtype, table, n, sp->d, cosine);
    pe_free(table);
    return status;
}

int pe_table_gram(void *out, int dtype, int32_t max_len, int32_t d_model,
                  int layout, int freq, double base, double offset,
                  int32_t zero_row, int cosine) {
    PE_TRY(check_table_args(out, dtype, max_len, d_model, offset));
    PE_TRY(pe_check_bytes((double)max_len * max_len, dtype == PE_F32 ? 4 : 8));
    pe_spec sp;
    PE_TRY(pe_spec_init(&sp, d_model, layout, freq, base));
    int toeplitz = sp.nf == sp.h && (zero_row < 0 || zero_row >= max_len);
    int status = toeplitz ? toeplitz_gram(out, dtype, max_len, &sp, cosine)
                          : direct_gram(out, dtype, max_len, &sp, offset, zero_row, cosine);
    pe_spec_free(&sp);
    return status;
}
