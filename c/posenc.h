/*
 * posenc: Transformer positional encodings, exactly.
 *
 * C99. Every exported symbol starts with pe_. Every function that can fail
 * returns an int status (PE_OK or one of the PE_ERR_* codes below) and writes
 * its results through pointers; pe_strerror() turns a status into text.
 *
 * Matrices are dense and row-major. Inputs are double; table-like outputs are
 * written as float32 or float64 as the caller asks (PE_F32 / PE_F64).
 * Angles are always formed in double: position * frequency, then sin/cos.
 *
 * This header is the core module's interface (c/exports/common.txt and
 * core.txt); posenc_variants.h declares the variants module's.
 *
 * Nothing here keeps state between calls except the allocation counter in
 * alloc.c, which exists so that callers (and tests) can prove nothing leaks.
 */
#ifndef POSENC_H
#define POSENC_H

#include <stddef.h>
#include <stdint.h>

/* Marks the public entry points. What each wasm module exports is chosen by
 * the lists in c/exports/, not here: the core module and the variants module
 * keep only what their own list reaches. */
#define PE_API

/* ---- status codes -------------------------------------------------------- */
enum {
    PE_OK = 0,
    PE_ERR_NULL = 1,     /* a required pointer is NULL */
    PE_ERR_SIZE = 2,     /* a size is < 1, above PE_MAX_DIM, or the bytes exceed PE_MAX_BYTES */
    PE_ERR_BASE = 3,     /* base must be finite and > 1 */
    PE_ERR_OPTION = 4,   /* unknown layout, frequency rule or dtype */
    PE_ERR_ODD = 5,      /* this operation needs an even d_model */
    PE_ERR_NOMEM = 6,    /* allocation failed */
    PE_ERR_VALUE = 7,    /* an input is NaN or infinite, or a result would overflow */
    PE_ERR_POSITION = 8, /* a position, offset or shift is outside +-PE_MAX_POSITION */
    PE_ERR_SHAPE = 9,    /* matrix shapes do not fit together */
    PE_ERR_COUNT_ = 10   /* one past the last code; not a status */
};

/* ---- limits ---------------------------------------------------------------- */
#define PE_MAX_DIM 16777216          /* 2^24: any one dimension */
#define PE_MAX_BYTES 1073741824.0    /* 2^30: bytes one call may allocate or write */
#define PE_MAX_POSITION 2147483648.0 /* 2^31: |position| after offset and shift */
/* 2^14: pe_rotation's d_model (the d x d matrix must also fit in PE_MAX_BYTES) */
#define PE_MAX_ROTATION_DIM 16384

/* ---- enumerations ------------------------------------------------------------ */
enum { PE_F32 = 0, PE_F64 = 1 };

/* Where the sin and cos of frequency i go in a row of width d. */
enum {
    PE_LAYOUT_INTERLEAVED = 0, /* col 2i = sin, col 2i+1 = cos; odd d: the last column is a sin */
    PE_LAYOUT_CONCAT = 1,      /* cols [0,h) = sin, [h,2h) = cos, h = floor(d/2); odd d: last column 0 */
    PE_LAYOUT_SPLIT = 2        /* interleaved columns reordered: even ones first, then odd (HF Marian) */
};

/* How the angular frequency w_i of pair i is formed. */
enum {
    PE_FREQ_PAPER = 0, /* w_i = base^(-2i/d) (Vaswani et al.; TF tutorial for even d) */
    PE_FREQ_GEOM = 1   /* w_i = exp(-i ln(base) / max(h-1, 1)), h = floor(d/2) (tensor2tensor, fairseq) */
};

/* ---- memory ------------------------------------------------------------------ */
/* Counted malloc; NULL for 0 bytes, for failure, or when the bytes live at once
 * (headers included) would pass PE_MAX_BYTES: one call's inputs, outputs and
 * scratch together stay within it. */
PE_API void *pe_malloc(size_t bytes);
PE_API void pe_free(void *ptr); /* counted free; NULL is ignored */
/* Grows memory once so that `bytes` (a call's whole footprint, at most
 * PE_MAX_BYTES) can be allocated without growing again; 1 on success. */
PE_API int pe_reserve(double bytes);
PE_API int32_t pe_live_allocations(void);
/* 1 when `bytes` (> 0) more fit the allocator's limit beside what is live, growing nothing: a call beside a
 * live handle (a KV cache, a rope() handle, a model trainAsync holds) asks before it reads its data whether
 * pe_reserve would refuse it. */
PE_API int pe_fits(double bytes);

/* ---- status text ------------------------------------------------------------- */
PE_API const char *pe_strerror(int status); /* checks.c */

/* ---- sinusoidal encodings (pe_table.c, freq.c) ------------------------------- */
/* Number of (sin, cos) pairs a row of width d_model holds under a layout. */
PE_API int32_t pe_pair_count(int32_t d_model, int layout);

/* out[i] = w_i for i < pe_pair_count(d_model, layout); out must hold that many. */
PE_API int pe_frequencies(double *out, int32_t d_model, int layout, int freq, double base);

/* Where frequency i lands in a row, i < pe_pair_count(d_model, layout): its sine
 * in column sin_cols[i], its cosine in cos_cols[i] (-1: an odd width's lone sine).
 * Columns in neither list are zero (concat, odd d). Each array holds that many. */
PE_API int pe_columns(int32_t *sin_cols, int32_t *cos_cols, int32_t d_model, int layout);

/*
 * The max_len x d_model table. Row r encodes position offset + r.
 * zero_row >= 0 sets that row to zero (fairseq's padding row); < 0 means none.
 */
PE_API int pe_table(void *out, int dtype, int32_t max_len, int32_t d_model, int layout, int freq, double base,
                    double offset, int32_t zero_row);

/*
 * Rows of that table at the given positions: row r encodes positions[r]
 * (each within +-2^31). Runs of consecutive positions cost what a table
 * costs; a scattered position one sine and cosine a frequency. Rows whose
 * position is zero_pos are zero; zero_pos < 0 means none.
 */
PE_API int pe_table_at(void *out, int dtype, int32_t rows, int32_t d_model, int layout, int freq, double base,
                       const double *positions, int32_t zero_pos);

/*
 * The max_len x max_len Gram matrix of that table (cosine != 0: cosine
 * similarity), without forming the table when PE_i . PE_j depends only on i - j.
 */
PE_API int pe_table_gram(void *out, int dtype, int32_t max_len, int32_t d_model, int layout, int freq,
                         double base, double offset, int32_t zero_row, int cosine);

/* ---- dot products (gram.c) --------------------------------------------------- */
/* Finite inputs whose results overflow give PE_ERR_VALUE (in the output type). */
PE_API int pe_dot(double *out, const double *a, const double *b, int32_t n);
PE_API int pe_norms(double *out, const double *x, int32_t rows, int32_t cols);
/* out = X X^T (rows x rows); cosine != 0 divides by the norms (a zero row gives 0). */
PE_API int pe_gram(void *out, int dtype, const double *x, int32_t rows, int32_t cols, int cosine);
/* The same from float32 input, in float32 arithmetic within blocks of 128
 * columns whose sums add up in double (~1e-7 relative to the largest entry);
 * rows with magnitudes past 2^+-32 make it use the float64 kernel. */
PE_API int pe_gram_f32(void *out, int dtype, const float *x, int32_t rows, int32_t cols, int cosine);

/* ---- relative position (rotation.c) ------------------------------------------ */
/* d x d matrix M_k with PE[pos + k] = M_k PE[pos] for every pos; d must be even. */
PE_API int pe_rotation(double *out, int32_t d_model, int layout, int freq, double base, double k);

/* ---- the toy attention of the "我打你 / 你打我" example (toy.c) --------------- */
/*
 * x_i = codes_i + pos_i (pos may be NULL), y_i = x_i * sum_j x_j,
 * sum = sum_i y_i, label = sum > threshold, weighted = sum_i w_i y_i
 * (w may be NULL: w_i = i + 1).
 */
PE_API int pe_toy_attention(double *x, double *y, double *sum, int32_t *label, double *weighted,
                            const double *codes, const double *pos, const double *w, int32_t n,
                            double threshold);

/* ---- scaled dot-product attention (attention.c) ------------------------------ */
/*
 * Q is n x dk, K is m x dk, V is m x dv. weights (n x m) = softmax(scale Q K^T)
 * row by row, out (n x dv) = weights V. causal != 0 masks j > i (top-left
 * aligned, as PyTorch's is_causal) with -inf before the softmax.
 */
PE_API int pe_attention(double *weights, double *out, const double *q, const double *k, const double *v,
                        int32_t n, int32_t m, int32_t dk, int32_t dv, int causal, double scale);

/*
 * The same per head: dims = {batch, heads, kv_heads, n, m, dk, dv}; Q is
 * batch x heads x n x dk, K batch x kv_heads x m x dk, V batch x kv_heads x m x dv,
 * weights and out batch x heads x n x (m or dv). heads % kv_heads == 0 and
 * head h uses kv head h / (heads / kv_heads) (grouped-query attention).
 * mask (NULL: none) is 0/1 bytes, element (b, h, i, j) at
 * b s0 + h s1 + i s2 + j s3 for s = mask_strides (a 0 stride broadcasts);
 * bias (NULL: none) is added to the scaled scores, addressed the same way by
 * bias_strides, -inf leaving the key out. A query with no key left gets zero
 * weights and a zero output. weights may be NULL: the output alone, with one
 * row of scores as scratch.
 */
PE_API int pe_attention_heads(double *weights, double *out, const double *q, const double *k, const double *v,
                              const int32_t *dims, int causal, double scale, const uint8_t *mask,
                              const int32_t *mask_strides, const double *bias, const int32_t *bias_strides);

/*
 * The output of pe_attention_heads (dims, causal, scale as there; no mask or
 * bias) in float32, without the weights: blocked over keys with an online
 * softmax (flash.c), so nothing n x m is held. q, k, v and out are float32.
 * PE_ERR_VALUE for a non-finite input, or when a score or the output
 * overflows float32 (pe_attention_heads, in float64, may still succeed).
 * causal = c > 0 lets query i see keys 0..i + c - 1: 1 is pe_attention_heads'
 * top-left causal; a KV cache of m keys whose n queries are its last
 * positions passes 1 + m - n (bottom-right). A negative c is PE_ERR_VALUE.
 */
PE_API int pe_attention_f32(float *out, const float *q, const float *k, const float *v, const int32_t *dims,
                            int causal, double scale);

#endif
