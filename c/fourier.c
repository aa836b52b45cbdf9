/*
 * Fourier features of coordinates. NeRF (Mildenhall et al. 2020) writes
 * gamma(p) = (sin(2^0 pi p), cos(2^0 pi p), ..., sin(2^(L-1) pi p), cos(2^(L-1) pi p))
 * for each coordinate p; its code (bmild/nerf, and the PyTorch port
 * yenchenlin/nerf-pytorch) drops the pi, keeps the input, and orders the
 * columns band by band. Random Fourier features (Tancik et al. 2020) replace
 * the powers of two by a Gaussian matrix B: [sin(2 pi B x) | cos(2 pi B x)].
 */
#include <math.h>
#include "internal.h"
#include "posenc_fields.h"
#include "posenc_variants.h"
#include "mathlib.h"

#define PI 3.141592653589793

/* f_k as torch.linspace spaces it: 2^linspace(0, max_log2, L) or linspace(1, 2^max_log2, L). */
static double band(int32_t k, int32_t levels, double max_log2, int log_sampling) {
    if (levels == 1) return 1.0;
    if (log_sampling) {
        double e = max_log2 * k / (levels - 1);
        return e == floor(e) ? ldexp(1.0, (int)e) : pe_pow(2.0, e); /* exact for whole exponents */
    }
    return 1.0 + k * ((pe_pow(2.0, max_log2) - 1.0) / (levels - 1));
}

static int check_points(const double *x, size_t count, double largest_factor) {
    for (size_t i = 0; i < count; i++) {
        if (!isfinite(x[i])) return PE_ERR_VALUE;
        if (fabs(x[i]) * largest_factor > PE_MAX_ANGLE) return PE_ERR_POSITION;
    }
    return PE_OK;
}

static void write_bands(void *out, int dtype, size_t at, const double *x, int32_t d, const double *f,
                        int32_t levels, int layout) {
    for (int32_t k = 0; k < levels; k++) {
        for (int32_t j = 0; j < d; j++) {
            double s, c;
            pe_sincos(x[j] * f[k], &s, &c);
            /* by frequency: band k holds d sines then d cosines; by coordinate:
             * coordinate j holds (sin, cos) for each band in turn */
            size_t si =
                layout == PE_FOURIER_BY_FREQUENCY ? (size_t)2 * k * d + j : (size_t)2 * (j * levels + k);
            size_t ci = layout == PE_FOURIER_BY_FREQUENCY ? si + d : si + 1;
            pe_store(out, dtype, at + si, s);
            pe_store(out, dtype, at + ci, c);
        }
    }
}

int pe_fourier_features(void *out, int dtype, const double *x, int32_t n, int32_t d, int32_t levels,
                        double max_log2, int log_sampling, int include_input, int use_pi, int layout) {
    if (!out || !x) return PE_ERR_NULL;
    PE_TRY(pe_check_dtype(dtype));
    PE_TRY(pe_check_dim(n));
    PE_TRY(pe_check_dim(d));
    if (levels < 1 || levels > PE_MAX_FOURIER_LEVELS) return PE_ERR_SIZE;
    if (!(fabs(max_log2) <= PE_MAX_FOURIER_LOG2)) return PE_ERR_VALUE;
    if (layout != PE_FOURIER_BY_FREQUENCY && layout != PE_FOURIER_BY_COORDINATE) return PE_ERR_OPTION;
    double cols = (include_input ? (double)d : 0) + 2.0 * levels * d;
    PE_TRY(pe_check_bytes((double)n * cols, dtype == PE_F32 ? 4 : 8));
    PE_TRY(pe_check_bytes(cols, 1.0)); /* a row's width must fit an int32 */
    double f[PE_MAX_FOURIER_LEVELS], largest = 0;
    for (int32_t k = 0; k < levels; k++) {
        f[k] = band(k, levels, max_log2, log_sampling) * (use_pi ? PI : 1.0);
        largest = fmax(largest, f[k]);
    }
    PE_TRY(check_points(x, (size_t)n * d, largest));
    size_t width = (size_t)cols, in = include_input ? (size_t)d : 0;
    for (int32_t r = 0; r < n; r++) {
        const double *p = x + (size_t)r * d;
        for (size_t j = 0; j < in; j++) pe_store(out, dtype, r * width + j, p[j]);
        write_bands(out, dtype, r * width + in, p, d, f, levels, layout);
    }
    return PE_OK;
}

int pe_fourier_random(void *out, int dtype, const double *x, int32_t n, int32_t d, const double *b,
                      int32_t m) {
    if (!out || !x || !b) return PE_ERR_NULL;
    PE_TRY(pe_check_dtype(dtype));
    PE_TRY(pe_check_dim(n));
    PE_TRY(pe_check_dim(d));
    PE_TRY(pe_check_dim(m));
    PE_TRY(pe_check_bytes((double)n * 2 * m, dtype == PE_F32 ? 4 : 8));
    /* the inputs too: m x d and n x d pass 2^32 (and wrap a wasm32 size_t) long before 2^24 each */
    PE_TRY(pe_check_bytes((double)m * d, 8));
    PE_TRY(pe_check_bytes((double)n * d, 8));
    PE_TRY(pe_check_finite(b, (size_t)m * d));
    PE_TRY(pe_check_finite(x, (size_t)n * d));
    /* |2 pi B x| <= 2 pi max_k sum_j |B_kj| max |x|: refused before anything is written */
    double row_sum = 0;
    for (int32_t k = 0; k < m; k++) {
        double s = 0;
        for (int32_t j = 0; j < d; j++) s += fabs(b[(size_t)k * d + j]);
        row_sum = fmax(row_sum, s);
    }
    PE_TRY(check_points(x, (size_t)n * d, 2 * PI * row_sum));
    for (int32_t r = 0; r < n; r++) {
        const double *p = x + (size_t)r * d;
        for (int32_t k = 0; k < m; k++) {
            double v = 0;
            for (int32_t j = 0; j < d; j++) v += b[(size_t)k * d + j] * p[j];
            double s, c;
            pe_sincos(2 * PI * v, &s, &c);
            pe_store(out, dtype, (size_t)r * 2 * m + k, s);
            pe_store(out, dtype, (size_t)r * 2 * m + m + k, c);
        }
    }
    return PE_OK;
}

int pe_fourier_gaussian(double *b, int32_t m, int32_t d, double seed, double sigma) {
    /* one stream for every seeded random matrix of posenc, so B is reproducible
     * from its seed by anything that reproduces the learned table */
    if (m > PE_MAX_FEATURES) return PE_ERR_SIZE;
    return pe_normal_table(b, m, d, seed, sigma);
}

int pe_fourier_gaussian_bound(double *out, int32_t m, int32_t d, double seed, double sigma) {
    if (m > PE_MAX_FEATURES) return PE_ERR_SIZE;
    return pe_normal_row_bound(out, m, d, seed, sigma);
}
