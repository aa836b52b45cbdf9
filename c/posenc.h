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
#define PE_MAX_DIM 16777216                 /* 2^24: any one dimension */
#define PE_MAX_BYTES 1073741824.0           /* 2^30: bytes one call may allocate or write */
#define PE_MAX_POSITION 2147483648.0        /* 2^31: |position| after offset and shift */

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
PE_API void *pe_malloc(size_t bytes);   /* counted malloc; NULL for 0 bytes or failure */
PE_API void pe_free(void *ptr);         /* counted free; NULL is ignored */
PE_API int32_t pe_live_allocations(void);

/* ---- status text ------------------------------------------------------------- */
PE_API const char *pe_strerror(int status); /* checks.c */

/* ---- sinusoidal encodings (pe_table.c, freq.c) ------------------------------- */
/* Number of (sin, cos) pairs a row of width d_model holds under a layout. */
PE_API int32_t pe_pair_count(int32_t d_model, int layout);

/* out[i] = w_i for i < pe_pair_count(d_model, layout); out must hold that many. */
PE_API int pe_frequencies(double *out, int32_t d_model, int layout, int freq, double base);

/*
 * The max_len x d_model table. Row r encodes position offset + r.
 * zero_row >= 0 sets that row to zero (fairseq's padding row); < 0 means none.
 */
PE_API int pe_table(void *out, int dtype, int32_t max_len, int32_t d_model,
                    int layout, int freq, double base, double offset, int32_t zero_row);

/*
 * The max_len x max_len Gram matrix of that table (cosine != 0: cosine
 * similarity), without forming the table when PE_i . PE_j depends only on i - j.
 */
PE_API int pe_table_gram(void *out, int dtype, int32_t max_len, int32_t d_model,
                         int layout, int freq, double base, double offset,
                         int32_t zero_row, int cosine);

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
                            const double *codes, const double *pos, const double *w,
                            int32_t n, double threshold);

/* ---- scaled dot-product attention (attention.c) ------------------------------ */
/*
 * Q is n x dk, K is m x dk, V is m x dv. weights (n x m) = softmax(scale Q K^T)
 * row by row, out (n x dv) = weights V. causal != 0 masks j > i (top-left
 * aligned, as PyTorch's is_causal) with -inf before the softmax.
 */
PE_API int pe_attention(double *weights, double *out,
                        const double *q, const double *k, const double *v,
                        int32_t n, int32_t m, int32_t dk, int32_t dv,
                        int causal, double scale);

/* ==== variants: RoPE, ALiBi, relative buckets, learned, binary, precision ====
 * (rope.c, alibi.c, relative.c, learned.c, binary.c, precision.c)
 * Appended section; see docs/variants.md for the conventions followed.
 */

/* ---- RoPE (rope.c) -------------------------------------------------------- */
/* Which coordinates form a rotated pair within one head of width dim (even). */
enum {
    PE_ROPE_INTERLEAVED = 0, /* (x_2i, x_2i+1): Meta LLaMA, GPT-J */
    PE_ROPE_HALF = 1         /* (x_i, x_i+dim/2), rotate_half: GPT-NeoX, Hugging Face */
};
/* Frequency scaling (Hugging Face rope_type). */
enum {
    PE_ROPE_DEFAULT = 0, /* theta_i = base^(-2i/dim) */
    PE_ROPE_LINEAR = 1,  /* theta_i / factor (position interpolation) */
    PE_ROPE_NTK = 2,     /* base' = base * factor^(dim/(dim-2)) */
    PE_ROPE_YARN = 3,    /* HF _compute_yarn_parameters */
    PE_ROPE_LLAMA3 = 4   /* HF _compute_llama3_parameters (Llama 3.1) */
};
/* Layout of a cos/sin cache row. */
enum {
    PE_ROPE_CACHE_PAIRS = 0,      /* dim/2 columns: column i is frequency i */
    PE_ROPE_CACHE_HALF = 1,       /* dim columns [f | f] (HF: emb = cat(freqs, freqs)) */
    PE_ROPE_CACHE_INTERLEAVED = 2 /* dim columns f0 f0 f1 f1 ... (GPT-J repeat_interleave) */
};
/* params (PE_ROPE_PARAMS doubles; may be NULL for PE_ROPE_DEFAULT):
 * [0] factor, [1] low_freq_factor, [2] high_freq_factor,
 * [3] original_max_position (YaRN, llama3), [4] beta_fast, [5] beta_slow,
 * [6] attention_factor (YaRN; 0 = the default 0.1 ln(factor) + 1).
 * Each factor, beta and attention factor lies in [PE_ROPE_PARAM_MIN, PE_ROPE_PARAM_MAX],
 * original_max_position in [1, PE_MAX_POSITION]; otherwise PE_ERR_VALUE. */
#define PE_ROPE_PARAMS 7
#define PE_ROPE_PARAM_MIN 1e-3
#define PE_ROPE_PARAM_MAX 1e6

/* out[i] = theta_i for i < dim/2; *attention_factor multiplies cos and sin (1 unless YaRN). */
PE_API int pe_rope_frequencies(double *out, double *attention_factor, int32_t dim, double base,
                               int scaling, const double *params);
/* max_len x cols cos and sin tables (cols per layout); row r is position offset + r. */
PE_API int pe_rope_cache(void *cos_out, void *sin_out, int dtype, int32_t max_len, int32_t dim,
                         double base, int scaling, const double *params, double offset, int layout);
/* Rotates x (rows x cols, cols a multiple of head_dim: one block per head). Row r is at
 * positions[r], or offset + r when positions is NULL. */
PE_API int pe_rope_apply(double *out, const double *x, int32_t rows, int32_t cols, int32_t head_dim,
                         int pairing, const double *positions, double offset,
                         double base, int scaling, const double *params);
/* out[new] = old index, for heads blocks of head_dim: interleaved -> half (HF's LLaMA
 * conversion permute: even coordinates first, then odd); inverse != 0: half -> interleaved. */
PE_API int pe_rope_permutation(int32_t *out, int32_t head_dim, int32_t heads, int inverse);
/* Applies that permutation to the rows (axis 0, weights) or columns (axis 1, vectors) of w. */
PE_API int pe_rope_permute(double *out, const double *w, int32_t rows, int32_t cols,
                           int32_t head_dim, int inverse, int axis);

/* ---- ALiBi (alibi.c) ------------------------------------------------------ */
enum {
    PE_ALIBI_PRESS = 0, /* Press et al. get_slopes (also BLOOM): 2^(-max_bias h/n), non-powers of two interleaved */
    PE_ALIBI_MPT = 1    /* MosaicML MPT gen_slopes(n_heads, alibi_bias_max) */
};
enum { PE_ALIBI_CAUSAL = 0, PE_ALIBI_SYMMETRIC = 1 };
PE_API int pe_alibi_slopes(double *out, int32_t heads, int variant, double max_bias);
/* heads x q_len x k_len; query i sits at position i + query_offset. Symmetric: -m |i - j|;
 * causal: -m (i - j) for j <= i and mask_value (e.g. -inf) for j > i. */
PE_API int pe_alibi_bias(void *out, int dtype, int32_t heads, int32_t q_len, int32_t k_len,
                         int variant, double max_bias, int mode, double mask_value,
                         int32_t query_offset);
/* ---- relative positions (relative.c) ---------------------------------------- */
/* T5 / Hugging Face _relative_position_bucket of each relative position
 * (memory_position - query_position). f32 != 0 forms the log branch in float32
 * as PyTorch does; 0 evaluates it in double. */
PE_API int pe_t5_bucket(int32_t *out, const int32_t *relative, int32_t n, int bidirectional,
                        int32_t num_buckets, int32_t max_distance, int f32);
/* q_len x k_len buckets of j - (i + query_offset). */
PE_API int pe_t5_bucket_matrix(int32_t *out, int32_t q_len, int32_t k_len, int32_t query_offset,
                               int bidirectional, int32_t num_buckets, int32_t max_distance, int f32);
/* Shaw et al.: clip(j - i, -k, k), plus k when shift != 0 (an index into 2k + 1 embeddings). */
PE_API int pe_shaw_matrix(int32_t *out, int32_t q_len, int32_t k_len, int32_t k, int shift);

/* ---- learned absolute table (learned.c) --------------------------------------- */
enum { PE_DIST_NORMAL = 0, PE_DIST_UNIFORM = 1 };
/* Element (p, c) comes from splitmix64 draws number 2(p d + c) and 2(p d + c) + 1 of seed
 * (0 <= seed < 2^53): normal = scale * Box-Muller, uniform = scale * (2u - 1). Rows
 * exist only for positions 0 .. trained_len - 1: any other gives PE_ERR_POSITION. */
PE_API int pe_learned_rows(void *out, int dtype, const int32_t *positions, int32_t n,
                           int32_t trained_len, int32_t d_model, double seed, int dist, double scale);
PE_API int pe_learned_table(void *out, int dtype, int32_t trained_len, int32_t d_model,
                            double seed, int dist, double scale);

/* ---- binary encoding (binary.c) ------------------------------------------------ */
/* max_len x bits: column b is bit b (LSB first) of position offset + r, as 0/1 or, when
 * signed_ != 0, -1/+1. offset is a whole number >= 0. */
PE_API int pe_binary_table(void *out, int dtype, int32_t max_len, int32_t bits, double offset,
                           int signed_);

/* ---- precision (precision.c) ---------------------------------------------------- */
/* Number formats for rounding: PE_F32 and PE_F64 as above, and: */
enum { PE_F16 = 2, PE_BF16 = 3 };
enum { PE_PREC_ANGLE = 0, PE_PREC_RESULT = 1, PE_PREC_BOTH = 2 };
/* x rounded to the format, round to nearest even, as a double (PE_F64: unchanged). */
PE_API int pe_round(double *out, const double *x, int32_t n, int format);
/* The bit pattern of x in the format (float16/bfloat16 in the low 16 bits; not PE_F64). */
PE_API int pe_format_bits(uint32_t *out, const double *x, int32_t n, int format);
/* out[k] = max over the columns of the sinusoidal table row at positions[k] of
 * |value - float64 value|, where value has its angle (position, frequency and their
 * product each rounded), its result, or both held in the format. +inf when the
 * rounded angle is not finite (float16 positions >= 65520). */
PE_API int pe_precision_error(double *out, const double *positions, int32_t n, int32_t d_model,
                              int layout, int freq, double base, int format, int mode);
/* ==== end of variants section ==== */

#endif
