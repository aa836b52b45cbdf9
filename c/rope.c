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

int pe_rope_cache(void *cos_out, void *sin_out, int dtype, int32_t max_len, int32_t dim, double base,
                  int scaling, const pe_rope_params *params, double offset, int layout) {
    if (!cos_out || !sin_out) return PE_ERR_NULL;
    PE_TRY(pe_check_dtype(dtype));
    if (layout < PE_ROPE_CACHE_PAIRS || layout > PE_ROPE_CACHE_INTERLEAVED) return PE_ERR_OPTION;
    PE_TRY(pe_check_dim(max_len));
    PE_TRY(pe_rope_check_dim(dim));
    int32_t h = dim / 2, cols = layout == PE_ROPE_CACHE_PAIRS ? h : dim;
    PE_TRY(pe_check_bytes(2.0 * max_len * cols, dtype == PE_F32 ? 4 : 8));
    PE_TRY(pe_check_position(offset));
    PE_TRY(pe_check_position(offset + (max_len - 1)));
    double *w, a;
    PE_TRY(pe_rope_make_frequencies(&w, &a, dim, base, scaling, params, offset + max_len));
    for (int32_t r = 0; r < max_len; r++) {
        double pos = offset + r;
        size_t row = (size_t)r * cols;
        for (int32_t i = 0; i < h; i++) {
            double c, s; /* one pe_sincos: pe_cos and pe_sin would each evaluate both */
            pe_sincos(pos * w[i], &s, &c);
            c *= a;
            s *= a;
            size_t c0, c1;
            switch (layout) {
            case PE_ROPE_CACHE_PAIRS: c0 = c1 = (size_t)i; break;
            case PE_ROPE_CACHE_HALF:
                c0 = (size_t)i;
                c1 = (size_t)(i + h);
                break;
            default:
                c0 = 2 * (size_t)i;
                c1 = c0 + 1;
                break;
            }
            pe_store(cos_out, dtype, row + c0, c);
            pe_store(sin_out, dtype, row + c0, s);
            pe_store(cos_out, dtype, row + c1, c);
            pe_store(sin_out, dtype, row + c1, s);
        }
    }
    pe_free(w);
    return PE_OK;
}

int pe_rope_apply(double *out, const double *x, int32_t rows, int32_t cols, int32_t head_dim,
                  int32_t rotary_dim, int pairing, const double *positions, double offset, double base,
                  int scaling, const pe_rope_params *params) {
    if (!out || !x) return PE_ERR_NULL;
    if (pairing != PE_ROPE_INTERLEAVED && pairing != PE_ROPE_HALF) return PE_ERR_OPTION;
    PE_TRY(pe_check_dim(rows));
    PE_TRY(pe_check_dim(cols));
    PE_TRY(pe_rope_check_dim(head_dim));
    if (cols % head_dim) return PE_ERR_SHAPE;
    int32_t rd = rotary_dim ? rotary_dim : head_dim;
    PE_TRY(pe_rope_check_dim(rd));
    if (rd > head_dim) return PE_ERR_SHAPE;
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
            for (int32_t b = 0; b < cols; b += head_dim) {
                int32_t i0 = pairing == PE_ROPE_INTERLEAVED ? b + 2 * i : b + i;
                int32_t i1 = pairing == PE_ROPE_INTERLEAVED ? i0 + 1 : i0 + h;
                double x0 = xr[i0], x1 = xr[i1];
                yr[i0] = x0 * c - x1 * s;
                yr[i1] = x1 * c + x0 * s;
            }
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
