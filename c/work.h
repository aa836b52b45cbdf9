/*
 * Counters of work done, for the tests: how many sin/cos pairs were evaluated,
 * how many oscillator rotations and table elements a table took, how many dot
 * products a Gram formed, how many times memory grew. They let tests/work.test.js check how work grows
 * with size (a Toeplitz Gram is O(n d) sin/cos, not O(n^2 d)) without timing
 * anything. Only builds without NDEBUG count; the shipped modules compile
 * PE_WORK to nothing and do not export the counters.
 */
#ifndef POSENC_WORK_H
#define POSENC_WORK_H

enum {
    PE_WORK_SINCOS,      /* pe_sincos evaluations (pe_sin and pe_cos are one each) */
    PE_WORK_ROTATIONS,   /* oscillator steps, one per frequency per position */
    PE_WORK_TABLE_ELEMS, /* elements written into a table by pe_table's kernels */
    PE_WORK_GRAM_DOTS,   /* Gram entries formed as a dot product of two rows */
    PE_WORK_GROWS,       /* times linear memory grew (alloc.c) */
    PE_WORK_KV_BLOCKS,   /* blocks of keys packed by pe_attention_f32 (one per kv head and block) */
    PE_WORK_SCORES,      /* query-key scores pe_attention_f32 formed (a tile's padding included) */
    PE_WORK_KINDS_
};

#ifdef NDEBUG
#define PE_WORK(kind, n) ((void)0)
#else
extern double pe_work_counts[PE_WORK_KINDS_];
#define PE_WORK(kind, n) ((void)(pe_work_counts[kind] += (double)(n)))
/* The count of one kind since the last reset (-1 for an unknown kind). */
double pe_work_count(int kind);
void pe_work_reset(void);
/* Lowers the limit of bytes live at once (alloc.c; 0 < bytes <= PE_MAX_BYTES,
 * other values change nothing) so that tests reach it cheaply; returns the
 * limit in force. */
double pe_set_byte_limit(double bytes);
#endif

#endif
