/*
 * posenc variants: RoPE, ALiBi, relative buckets, learned, binary, precision
 * (rope.c, alibi.c, relative.c, learned.c, binary.c, precision.c).
 *
 * The second wasm module's interface (its export list is c/exports/variants.txt).
 * Status codes, limits, dtypes and the sinusoidal layouts it shares with the
 * core come from posenc.h. See docs/variants.md for the conventions followed.
 */
#ifndef POSENC_VARIANTS_H
#define POSENC_VARIANTS_H

#include "posenc.h"

/* ---- RoPE (rope.c) -------------------------------------------------------- */
/* Which coordinates form a rotated pair within one head of width dim (even). */
enum {
    PE_ROPE_INTERLEAVED = 0, /* (x_2i, x_2i+1): Meta LLaMA, GPT-J */
    PE_ROPE_HALF = 1         /* (x_i, x_i+dim/2), rotate_half: GPT-NeoX, Hugging Face */
};
/* Frequency scaling (Hugging Face rope_type). */
enum {
    PE_ROPE_DEFAULT = 0,     /* theta_i = base^(-2i/dim) */
    PE_ROPE_LINEAR = 1,      /* theta_i / factor (position interpolation) */
    PE_ROPE_NTK = 2,         /* base' = base * factor^(dim/(dim-2)) */
    PE_ROPE_YARN = 3,        /* HF _compute_yarn_parameters */
    PE_ROPE_LLAMA3 = 4,      /* HF _compute_llama3_parameters (Llama 3.1) */
    PE_ROPE_DYNAMIC = 5,     /* HF _compute_dynamic_ntk_parameters: NTK with a factor from seq_len */
    PE_ROPE_LONGROPE = 6,    /* HF _compute_longrope_parameters (Phi-3): per-frequency divisors */
    PE_ROPE_PROPORTIONAL = 7 /* HF _compute_proportional_rope_parameters: base^(-2i/dim) for the first
                                rotary_fraction of the pairs, 0 for the rest, all / factor */
};
/* Layout of a cos/sin cache row. */
enum {
    PE_ROPE_CACHE_PAIRS = 0,      /* dim/2 columns: column i is frequency i */
    PE_ROPE_CACHE_HALF = 1,       /* dim columns [f | f] (HF: emb = cat(freqs, freqs)) */
    PE_ROPE_CACHE_INTERLEAVED = 2 /* dim columns f0 f0 f1 f1 ... (GPT-J repeat_interleave) */
};
/* The parameters of a scaling, Hugging Face's rope_parameters under C names
 * (web/lib/variants/rope-types.js declares each one's HF key, JS name, CLI flag,
 * default and bounds; the JS writes this struct field by field, by name).
 * Every field is a double, so the struct has no padding: field k is at byte 8 k.
 * A field a type does not read is ignored; 0 marks an optional value as absent
 * where the comment says so. May be NULL for PE_ROPE_DEFAULT. */
typedef struct pe_rope_params {
    double factor;           /* all but default; yarn, longrope: 0 = max_position / original_max_position */
    double low_freq_factor;  /* llama3 */
    double high_freq_factor; /* llama3 */
    double original_max_position; /* original_max_position_embeddings: yarn, llama3, longrope */
    double beta_fast;             /* yarn */
    double beta_slow;             /* yarn */
    double attention_factor;      /* yarn, longrope; 0 = from the factor */
    double max_position;          /* max_position_embeddings: dynamic; yarn, longrope without a factor */
    double seq_len; /* dynamic, longrope; 0 = the largest position + 1 of the call (none for frequencies) */
    double mscale;  /* yarn, 0 = absent: with mscale_all_dim, the attention factor is */
    double mscale_all_dim;  /* get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim) */
    double truncate;        /* yarn: 1 floors / ceils the correction range (HF's default), 0 keeps it */
    double rotary_fraction; /* proportional: partial_rotary_factor in (0, 1] */
    double factors[];       /* longrope: dim/2 short_factor, then dim/2 long_factor */
} pe_rope_params;
/* Each factor, beta, mscale and attention factor lies in [PE_ROPE_PARAM_MIN, PE_ROPE_PARAM_MAX],
 * each length in [1, PE_MAX_POSITION] (longrope's original length >= 2, as its log divides);
 * otherwise PE_ERR_VALUE. NTK and dynamic need dim >= 4 (PE_ERR_SIZE). */
#define PE_ROPE_PARAM_MIN 1e-3
#define PE_ROPE_PARAM_MAX 1e6

/* out[i] = theta_i for i < dim/2; *attention_factor multiplies cos and sin (1 unless YaRN, longrope). */
PE_API int pe_rope_frequencies(double *out, double *attention_factor, int32_t dim, double base, int scaling,
                               const pe_rope_params *params);
/* What pe_rope_frequencies (seen 0) or pe_rope_cache_begin (seen = offset + max_len, HF's seq_len)
 * checks, an NTK base or an implied factor that overflows being PE_ERR_VALUE, and *attention_factor,
 * with nothing formed or allocated: a caller can refuse a scaling before it allocates for it. The
 * longrope factors are not read (params may end before them). */
PE_API int pe_rope_check(double *attention_factor, int32_t dim, double base, int scaling,
                         const pe_rope_params *params, double seen);
/* max_len x cols cos and sin tables (cols per layout); row r is position offset + r. */
PE_API int pe_rope_cache(void *cos_out, void *sin_out, int dtype, int32_t max_len, int32_t dim, double base,
                         int scaling, const pe_rope_params *params, double offset, int layout);
/* A cache formed a block of rows at a time, so that a caller can copy each block
 * out while it is still in cache: pe_rope_cache_begin checks what pe_rope_cache
 * checks, computes the frequencies once for positions offset .. offset + max_len - 1
 * (HF's seq_len is offset + max_len) and returns the state in *state and the
 * attention factor (already in the values) in *attention_factor.
 * pe_rope_cache_next writes `rows` rows (cols per layout, dtype of begin) of
 * cos and sin: the next consecutive positions when positions is NULL (at most
 * the rows left), else the rows of positions[0 .. rows) (any within
 * +-PE_MAX_POSITION, with begin's frequencies). pe_rope_cache_end frees the state (NULL: nothing).
 * pe_rope_cache is the three in one. */
typedef struct pe_rope_rows pe_rope_rows;
PE_API int pe_rope_cache_begin(pe_rope_rows **state, double *attention_factor, int dtype, int32_t max_len,
                               int32_t dim, double base, int scaling, const pe_rope_params *params,
                               double offset, int layout);
PE_API int pe_rope_cache_next(pe_rope_rows *state, void *cos_out, void *sin_out, int32_t rows,
                              const double *positions);
PE_API void pe_rope_cache_end(pe_rope_rows *state);
/* Rotates x (blocks x rows x cols, cols a multiple of head_dim) by the cos and sin
 * rows given (rows x rotary_dim each, in dtype as x and out, the layout the
 * pairing reads: [f | f] for half, f0 f0 f1 f1 .. for interleaved), as Hugging
 * Face's apply_rotary_pos_emb: y = x cos + rotate(x) sin, element by element, in
 * dtype (float32 stays float32). Row r of every block uses cache row r. The first
 * rotary_dim (even, <= head_dim; 0 = head_dim) coordinates of each head rotate,
 * the others are copied. out may be x (in place). PE_ERR_VALUE when an input or
 * a result is not finite (out is then partly written). */
PE_API int pe_rope_rotate(void *out, const void *x, int dtype, int32_t blocks, int32_t rows, int32_t cols,
                          int32_t head_dim, int32_t rotary_dim, int pairing, const void *cos,
                          const void *sin);
/* Rotates x (rows x cols, cols a multiple of head_dim: one block per head). Row r is at
 * positions[r], or offset + r when positions is NULL. Only the first rotary_dim (even,
 * <= head_dim; 0 = head_dim) coordinates of each head rotate, with the frequencies of
 * a head of width rotary_dim; the others are copied (GPT-J, GPT-NeoX rotary_pct). */
PE_API int pe_rope_apply(double *out, const double *x, int32_t rows, int32_t cols, int32_t head_dim,
                         int32_t rotary_dim, int pairing, const double *positions, double offset, double base,
                         int scaling, const pe_rope_params *params);
/* out[new] = old index, for heads blocks of head_dim: interleaved -> half (HF's LLaMA
 * conversion permute: even coordinates first, then odd); inverse != 0: half -> interleaved. */
PE_API int pe_rope_permutation(int32_t *out, int32_t head_dim, int32_t heads, int inverse);
/* Applies that permutation to the rows (axis 0, weights) or columns (axis 1, vectors) of w. */
PE_API int pe_rope_permute(double *out, const double *w, int32_t rows, int32_t cols, int32_t head_dim,
                           int inverse, int axis);

/* ---- RoPE over several position axes (rope_axes.c) ------------------------- */
/* Qwen2-VL's M-RoPE, FLUX's EmbedND, Pixtral's 2-D RoPE: frequency i (of n_freq)
 * turns by positions[axis[i] * rows + r] * freq[i] in row r. positions is axes x rows
 * (each within +-PE_MAX_POSITION), 1 <= axes <= PE_MAX_DIM, 0 <= axis[i] < axes,
 * 0 <= freq[i] <= PE_ROPE_MAX_FREQ (so that the angle stays where pe_sincos is exact),
 * attention (multiplies cos and sin) in (0, PE_ROPE_MAX_ATTENTION]: every factor
 * pe_rope_frequencies gives, YaRN's ratio of two mscales (7e-7 to 1.4e6) included. */
#define PE_ROPE_MAX_FREQ 1e5
#define PE_ROPE_MAX_ATTENTION 2e6
/* rows x cols cos and sin, cols = n_freq (PE_ROPE_CACHE_PAIRS) or 2 n_freq. */
PE_API int pe_rope_axes_cache(void *cos_out, void *sin_out, int dtype, const double *positions, int32_t rows,
                              int32_t axes, const double *freq, const int32_t *axis, int32_t n_freq,
                              double attention, int layout);
/* Rotates x (rows x cols, one block per head of head_dim) as pe_rope_apply does, the first
 * 2 n_freq (<= head_dim) coordinates of each head by the frequencies above. */
PE_API int pe_rope_axes_apply(double *out, const double *x, int32_t rows, int32_t cols, int32_t head_dim,
                              int pairing, const double *positions, int32_t axes, const double *freq,
                              const int32_t *axis, int32_t n_freq, double attention);

/* ---- ALiBi (alibi.c) ------------------------------------------------------ */
enum {
    PE_ALIBI_PRESS =
        0, /* Press et al. get_slopes (also BLOOM): 2^(-max_bias h/n), non-powers of two interleaved */
    PE_ALIBI_MPT = 1 /* MosaicML MPT gen_slopes(n_heads, alibi_bias_max) */
};
enum { PE_ALIBI_CAUSAL = 0, PE_ALIBI_SYMMETRIC = 1 };
#define PE_MAX_HEADS 65536 /* heads of pe_alibi_slopes and pe_alibi_bias */
PE_API int pe_alibi_slopes(double *out, int32_t heads, int variant, double max_bias);
/* heads x q_len x k_len; query i sits at position i + query_offset. Symmetric: -m |i - j|;
 * causal: -m (i - j) for j <= i and mask_value (-inf or finite) for j > i. */
PE_API int pe_alibi_bias(void *out, int dtype, int32_t heads, int32_t q_len, int32_t k_len, int variant,
                         double max_bias, int mode, double mask_value, int32_t query_offset);
/* ---- relative positions (relative.c) ---------------------------------------- */
#define PE_T5_MAX_BUCKETS 65536 /* num_buckets of pe_t5_bucket and pe_t5_bucket_matrix */
/* T5 / Hugging Face _relative_position_bucket of each relative position
 * (memory_position - query_position). f32 != 0 forms the log branch in float32
 * as PyTorch does; 0 evaluates it in double. */
PE_API int pe_t5_bucket(int32_t *out, const int32_t *relative, int32_t n, int bidirectional,
                        int32_t num_buckets, int32_t max_distance, int f32);
/* q_len x k_len buckets of j - (i + query_offset). */
PE_API int pe_t5_bucket_matrix(int32_t *out, int32_t q_len, int32_t k_len, int32_t query_offset,
                               int bidirectional, int32_t num_buckets, int32_t max_distance, int f32);
/* Shaw et al.: clip(j - (i + query_offset), -k, k), plus k when shift != 0 (an index into
 * 2k + 1 embeddings). tensor2tensor puts query i at k_len - q_len + i; |query_offset| <= PE_MAX_DIM. */
PE_API int pe_shaw_matrix(int32_t *out, int32_t q_len, int32_t k_len, int32_t k, int shift,
                          int32_t query_offset);

/* ---- learned absolute table (learned.c) --------------------------------------- */
enum { PE_DIST_NORMAL = 0, PE_DIST_UNIFORM = 1 };
#define PE_LEARNED_MAX_SCALE 1e6 /* scale lies in [0, PE_LEARNED_MAX_SCALE] */
/* Numbers one call makes: trained_len * d_model, or n * d_model for rows. 2^28 (float32's
 * 1 GiB) took 25 s before issue 16's Box-Muller with both outputs, about half after:
 * still over ten seconds (docs/limits.md, Time). GPT-3's and OPT-175B's tables are
 * 2048 x 12288, about 2^24.6. */
#define PE_LEARNED_MAX_ELEMENTS 67108864
/* Element i = p d + c takes splitmix64 draw number i of seed (0 <= seed < 2^53), u in [0, 1):
 * uniform = scale * (2u - 1); normal: elements 2j and 2j + 1 are scale times the cosine
 * and sine outputs of Box-Muller on draws 2j and 2j + 1. Rows
 * exist only for positions 0 .. trained_len - 1: any other gives PE_ERR_POSITION. */
PE_API int pe_learned_rows(void *out, int dtype, const int32_t *positions, int32_t n, int32_t trained_len,
                           int32_t d_model, double seed, int dist, double scale);
PE_API int pe_learned_table(void *out, int dtype, int32_t trained_len, int32_t d_model, double seed, int dist,
                            double scale);

/* ---- binary encoding (binary.c) ------------------------------------------------ */
/* max_len x bits: column b is bit b (LSB first) of position offset + r, as 0/1 or, when
 * signed_ != 0, -1/+1. offset is a whole number >= 0. */
PE_API int pe_binary_table(void *out, int dtype, int32_t max_len, int32_t bits, double offset, int signed_);

/* ---- precision (precision.c) ---------------------------------------------------- */
/* Number formats for rounding: PE_F32 and PE_F64 as above, and: */
enum { PE_F16 = 2, PE_BF16 = 3 };
enum { PE_PREC_ANGLE = 0, PE_PREC_RESULT = 1, PE_PREC_BOTH = 2 };
/* n * d_model of one pe_precision_error call (each element costs several roundings:
 * 2^25 is 65536 positions x 512 columns, seconds of work; more would run for minutes). */
#define PE_PRECISION_MAX_WORK 33554432.0
/* x rounded to the format, round to nearest even, as a double (PE_F64: unchanged). */
PE_API int pe_round(double *out, const double *x, int32_t n, int format);
/* The bit pattern of x in the format (float16/bfloat16 in the low 16 bits; not PE_F64). */
PE_API int pe_format_bits(uint32_t *out, const double *x, int32_t n, int format);
/* out[k] = max over the columns of the sinusoidal table row at positions[k] of
 * |value - float64 value|, where value has its angle (position, frequency and their
 * product each rounded), its result, or both held in the format. +inf when the
 * rounded angle is not finite (float16 positions >= 65520). */
PE_API int pe_precision_error(double *out, const double *positions, int32_t n, int32_t d_model, int layout,
                              int freq, double base, int format, int mode);

#endif
