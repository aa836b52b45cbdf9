/* Dot products, norms and Gram matrices of row-major matrices. */
#include <math.h>
#include "internal.h"

static double dot(const double *a, const double *b, int32_t n) {
    /* Four partial sums break the dependency chain and let the loop vectorise. */
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
    }
    for (; i < n; i++) s0 += a[i] * b[i];
    return (s0 + s1) + (s2 + s3);
}

static int check_matrix(const double *x, int32_t rows, int32_t cols) {
    if (!x) return PE_ERR_NULL;
    PE_TRY(pe_check_dim(rows));
    PE_TRY(pe_check_dim(cols));
    PE_TRY(pe_check_bytes((double)rows * cols, 8));
    return pe_check_finite(x, (size_t)rows * cols);
}

int pe_dot(double *out, const double *a, const double *b, int32_t n) {
    if (!out || !a || !b) return PE_ERR_NULL;
    PE_TRY(pe_check_dim(n));
    PE_TRY(pe_check_finite(a, (size_t)n));
    PE_TRY(pe_check_finite(b, (size_t)n));
    *out = dot(a, b, n);
    return PE_OK;
}

int pe_norms(double *out, const double *x, int32_t rows, int32_t cols) {
    if (!out) return PE_ERR_NULL;
    PE_TRY(check_matrix(x, rows, cols));
    for (int32_t r = 0; r < rows; r++) {
        const double *row = x + (size_t)r * cols;
        out[r] = sqrt(dot(row, row, cols));
    }
    return PE_OK;
}

/* Rows in a block whose dot products are formed while they sit in cache. */
#define GRAM_BLOCK 32

static void gram_upper(double *g, const double *x, int32_t rows, int32_t cols) {
    for (int32_t ib = 0; ib < rows; ib += GRAM_BLOCK)
        for (int32_t jb = ib; jb < rows; jb += GRAM_BLOCK)
            for (int32_t i = ib; i < ib + GRAM_BLOCK && i < rows; i++)
                for (int32_t j = (jb > i ? jb : i); j < jb + GRAM_BLOCK && j < rows; j++)
                    g[(size_t)i * rows + j] = dot(x + (size_t)i * cols, x + (size_t)j * cols, cols);
}

int pe_gram(void *out, int dtype, const double *x, int32_t rows, int32_t cols, int cosine) {
    if (!out) return PE_ERR_NULL;
    PE_TRY(pe_check_dtype(dtype));
    PE_TRY(check_matrix(x, rows, cols));
    PE_TRY(pe_check_bytes((double)rows * rows, 8));
    double *g = pe_malloc((size_t)rows * rows * sizeof(double));
    if (!g) return PE_ERR_NOMEM;
    gram_upper(g, x, rows, cols);
    for (int32_t i = 0; i < rows; i++) {
        for (int32_t j = i; j < rows; j++) {
            double v = g[(size_t)i * rows + j];
            if (cosine) {
                double nn = sqrt(g[(size_t)i * rows + i]) * sqrt(g[(size_t)j * rows + j]);
                v = nn > 0 ? v / nn : 0.0; /* a zero row is similar to nothing */
            }
            pe_store(out, dtype, (size_t)i * rows + j, v);
            pe_store(out, dtype, (size_t)j * rows + i, v);
        }
    }
    pe_free(g);
    return PE_OK;
}
