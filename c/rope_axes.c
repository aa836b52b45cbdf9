/*
 * RoPE over several position axes: Qwen2-VL's multimodal RoPE (time, height,
 * width), FLUX's EmbedND and Pixtral's 2-D RoPE. Each model differs only in
 * which frequency reads which axis and in what the frequencies are, so one
 * kernel takes both as arrays: frequency i turns at positions[axis[i]][r] *
 * freq[i]. The assignments and frequencies are formed by the JS API
 * (web/lib/variants/mrope.js) from rope_scaling.c's frequencies.
 */
#include <math.h>
#include "internal.h"
#include "posenc_variants.h"
#include "mathlib.h"
#include "rope.h"

/* The arrays every call shares, checked once: positions axes x rows, freq and
 * axis n_freq long. */
static int check_axes(const double *positions, int32_t rows, int32_t axes, const double *freq,
                      const int32_t *axis, int32_t n_freq, double attention) {
    if (!positions || !freq || !axis) return PE_ERR_NULL;
    PE_TRY(pe_check_dim(rows));
    PE_TRY(pe_check_dim(axes));
    PE_TRY(pe_check_bytes((double)axes * rows, 8));
    PE_TRY(pe_check_dim(n_freq));
    if (!(attention > 0 && attention <= PE_ROPE_MAX_ATTENTION)) return PE_ERR_VALUE;
    for (int32_t i = 0; i < n_freq; i++) {
        if (!(freq[i] >= 0 && freq[i] <= PE_ROPE_MAX_FREQ)) return PE_ERR_VALUE;
        if (axis[i] < 0 || axis[i] >= axes) return PE_ERR_SHAPE;
    }
    for (size_t k = 0; k < (size_t)axes * rows; k++) PE_TRY(pe_check_position(positions[k]));
    return PE_OK;
}

int pe_rope_axes_cache(void *cos_out, void *sin_out, int dtype, const double *positions, int32_t rows,
                       int32_t axes, const double *freq, const int32_t *axis, int32_t n_freq,
                       double attention, int layout) {
    if (!cos_out || !sin_out) return PE_ERR_NULL;
    PE_TRY(pe_check_dtype(dtype));
    if (layout < PE_ROPE_CACHE_PAIRS || layout > PE_ROPE_CACHE_INTERLEAVED) return PE_ERR_OPTION;
    PE_TRY(check_axes(positions, rows, axes, freq, axis, n_freq, attention));
    int32_t cols = layout == PE_ROPE_CACHE_PAIRS ? n_freq : 2 * n_freq;
    PE_TRY(pe_check_bytes(2.0 * rows * cols, dtype == PE_F32 ? 4 : 8));
    for (int32_t r = 0; r < rows; r++) {
        size_t row = (size_t)r * cols;
        for (int32_t i = 0; i < n_freq; i++) {
            double c, s;
            pe_sincos(positions[(size_t)axis[i] * rows + r] * freq[i], &s, &c);
            /* pairs: column i; half: i and i + n (HF's cat(freqs, freqs));
             * interleaved: 2i and 2i + 1 (FLUX, diffusers' repeat_interleave). */
            size_t c0 = layout == PE_ROPE_CACHE_INTERLEAVED ? 2 * (size_t)i : (size_t)i;
            size_t c1 = layout == PE_ROPE_CACHE_HALF    ? c0 + (size_t)n_freq
                        : layout == PE_ROPE_CACHE_PAIRS ? c0
                                                        : c0 + 1;
            pe_store(cos_out, dtype, row + c0, c * attention);
            pe_store(sin_out, dtype, row + c0, s * attention);
            pe_store(cos_out, dtype, row + c1, c * attention);
            pe_store(sin_out, dtype, row + c1, s * attention);
        }
    }
    return PE_OK;
}

int pe_rope_axes_apply(double *out, const double *x, int32_t rows, int32_t cols, int32_t head_dim,
                       int pairing, const double *positions, int32_t axes, const double *freq,
                       const int32_t *axis, int32_t n_freq, double attention) {
    if (!out || !x) return PE_ERR_NULL;
    if (pairing != PE_ROPE_INTERLEAVED && pairing != PE_ROPE_HALF) return PE_ERR_OPTION;
    PE_TRY(pe_check_dim(cols));
    PE_TRY(pe_rope_check_dim(head_dim));
    if (cols % head_dim) return PE_ERR_SHAPE;
    PE_TRY(check_axes(positions, rows, axes, freq, axis, n_freq, attention));
    if (2.0 * n_freq > head_dim) return PE_ERR_SHAPE;
    PE_TRY(pe_check_bytes(2.0 * rows * cols, 8));
    PE_TRY(pe_check_finite(x, (size_t)rows * cols));
    /* The first 2 n_freq coordinates of each head rotate, as a head of that
     * width would (partial rotary); the rest are copied. */
    int32_t h = n_freq;
    for (int32_t r = 0; r < rows; r++) {
        const double *xr = x + (size_t)r * cols;
        double *yr = out + (size_t)r * cols;
        for (int32_t c = 0; c < cols; c++) yr[c] = xr[c];
        for (int32_t i = 0; i < h; i++) {
            double c, s;
            pe_sincos(positions[(size_t)axis[i] * rows + r] * freq[i], &s, &c);
            c *= attention;
            s *= attention;
            pe_rope_turn_pair(yr, xr, cols, head_dim, h, i, pairing, c, s);
        }
    }
    return PE_OK;
}
