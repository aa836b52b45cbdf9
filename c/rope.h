/* What rope.c (caches, rotation) needs of rope_scaling.c (frequencies). */
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

#endif
