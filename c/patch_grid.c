/*
 * Sin-cos tables over arbitrary positions, and the 2-D tables of vision
 * Transformers over a grid of patches (MAE's get_2d_sincos_pos_embed, which DiT
 * and diffusers copy; big_vision's posemb_sincos_2d). Each axis gets half of
 * the width, as a 1-D table [sin | cos] of its own coordinate.
 */
#include <math.h>
#include "internal.h"
#include "posenc_fields.h"
#include "mathlib.h"

void pe_sincos_halves(void *out, int dtype, size_t at, double pos, const double *w, int32_t k,
                      int cos_first) {
    for (int32_t i = 0; i < k; i++) {
        double s, c;
        pe_sincos(pos * w[i], &s, &c);
        pe_store(out, dtype, at + i, cos_first ? c : s);
        pe_store(out, dtype, at + k + i, cos_first ? s : c);
    }
}

/* k frequencies base^(-i/k) or base^(-i/(k-1)), from the log of base taken once. */
static double *grid_frequencies(int32_t k, int rule, double base) {
    double *w = pe_malloc((size_t)k * sizeof *w);
    if (!w) return NULL;
    pe_dd ln_base = pe_log_dd(base);
    double denom = rule == PE_GRID_MAE ? k : k - 1;
    for (int32_t i = 0; i < k; i++) w[i] = pe_exp_mul(-i / denom, ln_base);
    return w;
}

/* Arguments both tables share; k is the number of frequencies per axis. */
static int check_grid(int dtype, int32_t k, int rule, double base) {
    PE_TRY(pe_check_dtype(dtype));
    if (rule != PE_GRID_MAE && rule != PE_GRID_SPACED) return PE_ERR_OPTION;
    if (rule == PE_GRID_SPACED && k < 2) return PE_ERR_SIZE; /* k - 1 would be 0 */
    return pe_check_base(base);
}

static int check_positions(const double *pos, int32_t n) {
    for (int32_t i = 0; i < n; i++) PE_TRY(pe_check_position(pos[i]));
    return PE_OK;
}

int pe_sincos_1d(void *out, int dtype, const double *pos, int32_t n, int32_t dim, int rule, double base) {
    if (!out || !pos) return PE_ERR_NULL;
    PE_TRY(pe_check_dim(n));
    PE_TRY(pe_check_dim(dim));
    if (dim % 2) return PE_ERR_ODD;
    PE_TRY(check_grid(dtype, dim / 2, rule, base));
    PE_TRY(pe_check_bytes((double)n * dim, dtype == PE_F32 ? 4 : 8));
    PE_TRY(check_positions(pos, n));
    PE_TRY(pe_check_scratch((double)(dim / 2) * sizeof(double)));
    double *w = grid_frequencies(dim / 2, rule, base);
    if (!w) return PE_ERR_NOMEM;
    for (int32_t r = 0; r < n; r++) pe_sincos_halves(out, dtype, (size_t)r * dim, pos[r], w, dim / 2, 0);
    pe_free(w);
    return PE_OK;
}

int pe_sincos_2d(void *out, int dtype, const double *pos_h, int32_t gh, const double *pos_w, int32_t gw,
                 int32_t dim, int32_t extra, int h_first, int rule, double base) {
    if (!out || !pos_h || !pos_w) return PE_ERR_NULL;
    PE_TRY(pe_check_dim(gh));
    PE_TRY(pe_check_dim(gw));
    PE_TRY(pe_check_dim(dim));
    if (dim % 4) return PE_ERR_ODD; /* two axes, each a sin half and a cos half */
    if (gh > PE_MAX_GRID || gw > PE_MAX_GRID) return PE_ERR_SIZE;
    if (extra < 0 || extra > PE_MAX_EXTRA_TOKENS) return PE_ERR_SIZE;
    int32_t k = dim / 4;
    PE_TRY(check_grid(dtype, k, rule, base));
    double rows = (double)extra + (double)gh * gw;
    PE_TRY(pe_check_bytes(rows * dim, dtype == PE_F32 ? 4 : 8));
    PE_TRY(check_positions(pos_h, gh));
    PE_TRY(check_positions(pos_w, gw));
    PE_TRY(pe_check_scratch((double)k * sizeof(double)));
    double *w = grid_frequencies(k, rule, base);
    if (!w) return PE_ERR_NOMEM;
    for (size_t i = 0; i < (size_t)extra * dim; i++) pe_store(out, dtype, i, 0.0);
    size_t at = (size_t)extra * dim;
    for (int32_t r = 0; r < gh; r++) {
        for (int32_t c = 0; c < gw; c++, at += dim) {
            pe_sincos_halves(out, dtype, at, h_first ? pos_h[r] : pos_w[c], w, k, 0);
            pe_sincos_halves(out, dtype, at + dim / 2, h_first ? pos_w[c] : pos_h[r], w, k, 0);
        }
    }
    pe_free(w);
    return PE_OK;
}
