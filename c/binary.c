/*
 * Positions written in binary, least significant bit first: the counter that
 * the sinusoid smooths out. Bit b flips every 2^b positions, as the sinusoid's
 * column pair i turns with wavelength 2 pi / w_i (seed article 004).
 */
#include <math.h>
#include "internal.h"
#include "posenc_variants.h"

int pe_binary_table(void *out, int dtype, int32_t max_len, int32_t bits, double offset, int signed_) {
    if (!out) return PE_ERR_NULL;
    PE_TRY(pe_check_dtype(dtype));
    PE_TRY(pe_check_dim(max_len));
    if (bits < 1 || bits > 64) return PE_ERR_SIZE;
    PE_TRY(pe_check_bytes((double)max_len * bits, dtype == PE_F32 ? 4 : 8));
    PE_TRY(pe_check_position(offset));
    PE_TRY(pe_check_position(offset + (max_len - 1)));
    if (offset < 0 || offset != floor(offset)) return PE_ERR_POSITION;
    for (int32_t r = 0; r < max_len; r++) {
        uint64_t p = (uint64_t)offset + (uint64_t)r;
        for (int32_t b = 0; b < bits; b++) {
            int bit = (int)((p >> b) & 1u); /* b <= 63 */
            pe_store(out, dtype, (size_t)r * bits + b, signed_ ? (bit ? 1.0 : -1.0) : (double)bit);
        }
    }
    return PE_OK;
}
