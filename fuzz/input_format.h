/*
 * The fuzz input format: the one description that fuzz_api.c decodes
 * (#included) and fuzz/seeds.py writes seeds from (it parses this file).
 *
 *   byte 0   flags: FUZZ_FAIL set makes the k-th malloc of the call fail,
 *            k = flags & FUZZ_FAIL_AT; FUZZ_F32 turns pe_gram into pe_gram_f32 and pe_attention into pe_attention_f32;
 *            FUZZ_CONTINUOUS (without FUZZ_FAIL) draws continuous numbers
 *   byte 1   the entry point: index into FUZZ_ENTRIES, modulo their count
 *   rest     the entry point's parameters and matrix contents, decoded by its
 *            fuzz_* function; missing bytes read as 0. A byte below
 *            FUZZ_PLAIN_BELOW always decodes to something ordinary (a size
 *            1..12, an enum in range, a moderate number); FUZZ_AWKWARD decodes
 *            to an invalid size (-1) and an awkward number (-2^31).
 *
 * FUZZ_ENTRIES lists the entry points in index order as X(name, allocates):
 * allocates = 1 when the call allocates, so that a seed whose first malloc
 * fails exercises its PE_ERR_NOMEM path. Only append: the index is in the
 * committed corpus and regression inputs. pe_lab_create stands for the lab's
 * model: one input makes a model, trains, evaluates, takes a loss and
 * attention maps, and frees it (the other pe_lab_* calls); pe_rope_cache_begin
 * forms a cache in two pieces and at positions, and ends it (_next, _end).
 */
#ifndef POSENC_FUZZ_INPUT_FORMAT_H
#define POSENC_FUZZ_INPUT_FORMAT_H

#define FUZZ_FAIL 0x80
#define FUZZ_FAIL_AT 0x07
#define FUZZ_F32 0x40
/* Without FUZZ_FAIL: every number is a continuous value within a valid range
 * (fuzz_api.c continuous_arg), not from the palette. */
#define FUZZ_CONTINUOUS 0x20
/* Decoder thresholds: bytes below these are ordinary (fuzz_api.c). */
#define FUZZ_SIZE_PLAIN_BELOW 208  /* size_arg: 1 + b % 12; from here, special sizes */
#define FUZZ_NUM_PLAIN_BELOW 96    /* num_arg: (b - 48) / 2; from here, the palette */
#define FUZZ_ELEM_PLAIN_BELOW 216  /* elem: (b - 108) / 16; from here, the palette */
#define FUZZ_ENUM_PLAIN_BELOW 232  /* enum_arg: b % valid; from here, out of range */
/* For seeds: below all four. */
#define FUZZ_PLAIN_BELOW 90
/* FUZZ_SIZE_PLAIN_BELOW + 1: size -1, and palette entry 17 (-2^31) as a number. */
#define FUZZ_AWKWARD 0xD1

#define FUZZ_ENTRIES(X)              \
    X(pe_table, 1)                   \
    X(pe_table_gram, 1)              \
    X(pe_frequencies, 0)             \
    X(pe_dot, 0)                     \
    X(pe_norms, 0)                   \
    X(pe_gram, 1)                    \
    X(pe_rotation, 1)                \
    X(pe_toy_attention, 0)           \
    X(pe_attention, 0)               \
    X(pe_strerror, 0)                \
    X(pe_rope_frequencies, 1)        \
    X(pe_rope_cache, 1)              \
    X(pe_rope_apply, 1)              \
    X(pe_rope_permutation, 0)        \
    X(pe_rope_permute, 0)            \
    X(pe_alibi_slopes, 0)            \
    X(pe_alibi_bias, 1)              \
    X(pe_t5_bucket, 0)               \
    X(pe_t5_bucket_matrix, 0)        \
    X(pe_shaw_matrix, 0)             \
    X(pe_learned_table, 0)           \
    X(pe_learned_rows, 0)            \
    X(pe_binary_table, 0)            \
    X(pe_round, 0)                   \
    X(pe_format_bits, 0)             \
    X(pe_precision_error, 1)         \
    X(pe_timestep_embedding, 1)      \
    X(pe_sincos_1d, 1)               \
    X(pe_sincos_2d, 1)               \
    X(pe_fourier_features, 0)        \
    X(pe_fourier_random, 0)          \
    X(pe_lab_generate, 0)            \
    X(pe_lab_create, 1)              \
    X(pe_columns, 0)                 \
    X(pe_rope_axes_cache, 0)         \
    X(pe_rope_axes_apply, 0)         \
    X(pe_rope_cache_begin, 1)        \
    X(pe_rope_rotate, 0)             \
    X(pe_table_at, 1)

#endif
