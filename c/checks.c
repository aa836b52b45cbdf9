#include <math.h>
#include "internal.h"

static const char *const messages[PE_ERR_COUNT_] = {
    [PE_OK] = "ok",
    [PE_ERR_NULL] = "a required pointer is NULL",
    [PE_ERR_SIZE] = "a size is below 1, above 2^24, or needs more than 1 GiB",
    [PE_ERR_BASE] = "base must be a finite number greater than 1",
    [PE_ERR_OPTION] = "unknown layout, frequency rule or dtype",
    [PE_ERR_ODD] = "this operation needs an even d_model",
    [PE_ERR_NOMEM] = "out of memory",
    [PE_ERR_VALUE] = "a value is NaN or infinite (an input, or a result that overflowed)",
    [PE_ERR_POSITION] = "a position is not finite or lies outside +-2^31",
    [PE_ERR_SHAPE] = "matrix shapes do not fit together",
};

const char *pe_strerror(int status) {
    if (status < 0 || status >= PE_ERR_COUNT_) return "unknown status code";
    return messages[status];
}

int pe_check_dim(int32_t n) { return (n >= 1 && n <= PE_MAX_DIM) ? PE_OK : PE_ERR_SIZE; }

int pe_check_bytes(double elems, double elem_bytes) {
    return elems * elem_bytes <= PE_MAX_BYTES ? PE_OK : PE_ERR_SIZE;
}

int pe_check_dtype(int dtype) { return (dtype == PE_F32 || dtype == PE_F64) ? PE_OK : PE_ERR_OPTION; }

int pe_check_base(double base) { return (isfinite(base) && base > 1.0) ? PE_OK : PE_ERR_BASE; }

int pe_check_position(double pos) {
    return (isfinite(pos) && fabs(pos) <= PE_MAX_POSITION) ? PE_OK : PE_ERR_POSITION;
}

int pe_check_finite(const double *x, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return PE_ERR_VALUE;
    return PE_OK;
}
