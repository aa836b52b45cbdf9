/* Shared by the .c files of the core; not part of the public interface. */
#ifndef POSENC_INTERNAL_H
#define POSENC_INTERNAL_H

#include "posenc.h"

/* Evaluate a status expression and return it from the caller if it failed. */
#define PE_TRY(expr)                                        \
    do {                                                    \
        int pe_try_status_ = (expr);                        \
        if (pe_try_status_ != PE_OK) return pe_try_status_; \
    } while (0)

/* Argument checks and status text: checks.c. */
/* 1 <= n <= PE_MAX_DIM */
int pe_check_dim(int32_t n);
/* elems * elem_bytes (as a real number, so it cannot wrap) <= PE_MAX_BYTES */
int pe_check_bytes(double elems, double elem_bytes);
/* Scratch of `bytes` fits beside what the call already holds (pe_malloc's
 * limit, alloc.c): refused with PE_ERR_SIZE before anything is allocated. */
int pe_check_scratch(double bytes);
int pe_check_dtype(int dtype);
int pe_check_base(double base);
int pe_check_position(double pos);
/* dims {batch, heads, kv_heads, n, m, dk, dv} and scale of attention, its buffers
 * at `bytes` per element, the n x m weights counted when `weights` (attention.c) */
int pe_check_attention(const int32_t *dims, double scale, int weights, double bytes);
/* every one of n values is finite */
int pe_check_finite(const double *x, size_t n);

/* pe_learned_table's normal stream into float64 rows x cols, bounded by the byte
 * limit only (not PE_LEARNED_MAX_ELEMENTS): the seeded B of random Fourier features. */
int pe_normal_table(double *out, int32_t rows, int32_t cols, double seed, double scale);
int pe_normal_row_bound(double *out, int32_t rows, int32_t cols, double seed, double scale);

/* Element i of a float32 or float64 output buffer. */
static inline void pe_store(void *out, int dtype, size_t i, double v) {
    if (dtype == PE_F32) ((float *)out)[i] = (float)v;
    else ((double *)out)[i] = v;
}

/*
 * An encoding spec: the frequencies of one (d_model, layout, rule, base)
 * and where each frequency's sin and cos land in a row.
 */
typedef struct {
    int32_t d; /* d_model */
    int layout;
    int32_t nf; /* number of frequencies */
    int32_t h;  /* number of complete (sin, cos) pairs */
    double *w;  /* nf angular frequencies, owned */
} pe_spec;

/* pe_spec_init's checks alone (width, layout, rule, base), nothing allocated. */
int pe_check_spec(int32_t d_model, int layout, int freq, double base);
int pe_spec_init(pe_spec *s, int32_t d_model, int layout, int freq, double base);
void pe_spec_free(pe_spec *s);
/* Column of the sin (and of the cos, -1 when the frequency has none) of frequency i. */
int32_t pe_sin_col(const pe_spec *s, int32_t i);
int32_t pe_cos_col(const pe_spec *s, int32_t i);

/* Writes [sin(pos w_0) .. sin(pos w_{k-1}) | cos(pos w_0) .. cos(pos w_{k-1})] (or
 * cos first) to out[at .. at + 2k): the half-and-half row of the diffusion and
 * patch-grid tables (patch_grid.c). */
void pe_sincos_halves(void *out, int dtype, size_t at, double pos, const double *w, int32_t k, int cos_first);

#endif
