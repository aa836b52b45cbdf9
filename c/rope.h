/* What rope.c and rope_axes.c (caches, rotation) share with rope_scaling.c (frequencies). */
#ifndef PE_ROPE_H
#define PE_ROPE_H
#include <stdint.h>
#include "posenc_variants.h"

/* PE_OK for an even dim within the size limit. */
int pe_rope_check_dim(int32_t dim);

/* The dim/2 frequencies theta_i of `scaling` (*w, owned: pe_free it) and the
 * attention factor. seen: the largest position + 1 of the call (HF's seq_len
 * for dynamic and longrope when params give none). */
int pe_rope_make_frequencies(double **w, double *attention, int32_t dim, double base, int scaling,
                             const pe_rope_params *params, double seen);

/* Turns pair i of every head of a row (yr holds xr's copy; h pairs a head, the
 * pairing says where pair i lies) by the angle whose cosine and sine are c and s:
 * (a, b) -> (a c - b s, b c + a s). Shared by the 1-D and the multi-axis rotation. */
static inline void pe_rope_turn_pair(double *yr, const double *xr, int32_t cols, int32_t head_dim, int32_t h,
                                     int32_t i, int pairing, double c, double s) {
    for (int32_t b = 0; b < cols; b += head_dim) {
        int32_t i0 = pairing == PE_ROPE_INTERLEAVED ? b + 2 * i : b + i;
        int32_t i1 = pairing == PE_ROPE_INTERLEAVED ? i0 + 1 : i0 + h;
        double x0 = xr[i0], x1 = xr[i1];
        yr[i0] = x0 * c - x1 * s;
        yr[i1] = x1 * c + x0 * s;
    }
}

#endif
