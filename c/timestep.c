/*
 * Diffusion timestep embeddings. Hugging Face diffusers' get_timestep_embedding
 * is the general form; the others are its settings:
 *   diffusers defaults, DDPM (Ho et al., diffusion_tf/nn.py)  sin first, shift 1
 *   Stable Diffusion UNet, DiT's TimestepEmbedder, GLIDE/ADM  cos first, shift 0
 * The libraries form the frequencies and angles in float32; here every step is
 * in double (docs/fields.md says what that changes).
 */
#include <math.h>
#include "internal.h"
#include "posenc_fields.h"
#include "mathlib.h"

static int check_timestep(int32_t dim, int32_t half, double shift, double scale, double max_period) {
    PE_TRY(pe_check_dim(dim));
    if (!isfinite(shift) || !isfinite(scale)) return PE_ERR_VALUE;
    /* max_period >= 1 and h - shift > 0 keep every w_i in (0, 1], so |angle| <= |scale t|. */
    if (!isfinite(max_period) || max_period < 1) return PE_ERR_BASE;
    if (half >= 1 && !(half - shift > 0)) return PE_ERR_VALUE;
    return PE_OK;
}

int pe_timestep_embedding(void *out, int dtype, const double *t, int32_t n, int32_t dim, int cos_first,
                          double shift, double scale, double max_period) {
    if (!out || !t) return PE_ERR_NULL;
    PE_TRY(pe_check_dtype(dtype));
    PE_TRY(pe_check_dim(n));
    int32_t half = dim / 2;
    PE_TRY(check_timestep(dim, half, shift, scale, max_period));
    PE_TRY(pe_check_bytes((double)n * dim, dtype == PE_F32 ? 4 : 8));
    for (int32_t r = 0; r < n; r++) {
        if (!isfinite(t[r])) return PE_ERR_VALUE;
        PE_TRY(pe_check_position(scale * t[r]));
    }
    double *w = NULL;
    if (half > 0) {
        PE_TRY(pe_check_scratch((double)half * sizeof *w));
        w = pe_malloc((size_t)half * sizeof *w);
        if (!w) return PE_ERR_NOMEM;
        pe_dd ln_period = pe_log_dd(max_period);
        for (int32_t i = 0; i < half; i++) w[i] = pe_exp_mul(-i / (half - shift), ln_period);
    }
    for (int32_t r = 0; r < n; r++) {
        size_t row = (size_t)r * dim;
        /* diffusers scales the angle t w; scaling t first is the same number to a rounding */
        if (half > 0) pe_sincos_halves(out, dtype, row, scale * t[r], w, half, cos_first);
        if (dim % 2) pe_store(out, dtype, row + dim - 1, 0.0);
    }
    pe_free(w);
    return PE_OK;
}
