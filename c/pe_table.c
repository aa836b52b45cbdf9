/* The sinusoidal table and its Gram matrix. */
#include <string.h>
#include "oscillator.h"

/* One row from the current sines and cosines, for either output type. */
#define DEFINE_WRITE_ROW(NAME, T)                                               \
    static void NAME(T *row, const pe_spec *sp, const double *s, const double *c) { \
        int32_t h = sp->h;                                                      \
        if (sp->layout == PE_LAYOUT_INTERLEAVED) {                              \
            for (int32_t i = 0; i < h; i++) {                                   \
                row[2 * i] = (T)s[i];                                           \
                row[2 * i + 1] = (T)c[i];                                       \
            }                                                                   \
            if (sp->nf > h) row[2 * h] = (T)s[h];                               \
            return;                                                             \
        }                                                                       \
        T *cos_block = row + pe_cos_col(sp, 0);                                 \
        for (int32_t i = 0; i < sp->nf; i++) row[i] = (T)s[i];                  \
        for (int32_t i = 0; i < h; i++) cos_block[i] = (T)c[i];                 \
        if (sp->layout == PE_LAYOUT_CONCAT && sp->d % 2) row[sp->d - 1] = 0;    \
    }
DEFINE_WRITE_ROW(write_row_f32, float)
DEFINE_WRITE_ROW(write_row_f64, double)

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
    for (int32_t r = 0; r < max_len; r++) {
        void *row = (char *)out + (size_t)r * d * elem;
        if (r == zero_row) memset(row, 0, d * elem);
        else if (dtype == PE_F32) write_row_f32(row, sp, o.s, o.c);
        else write_row_f64(row, sp, o.s, o.c);
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
