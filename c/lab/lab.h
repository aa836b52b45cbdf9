/*
 * The PE lab: a tiny Transformer that trains in WebAssembly, so that a reader
 * can watch position information matter. Not part of the posenc core API:
 * only the posenc/lab module links c/lab/ (see c/exports/lab.txt).
 *
 * Pre-LayerNorm blocks: x += Attn(LN(x)); x += MLP(LN(x)) (MLP optional),
 * then a final LN and a linear head read at every position that has a target.
 * Positions come from the core's own encodings: sinusoidal tables (pe_table),
 * learned tables initialised by pe_learned_table, RoPE angles (pe_rope_cache),
 * ALiBi slopes (pe_alibi_slopes) and T5 buckets (pe_t5_bucket).
 *
 * lab_real is float32 in the shipped module and float64 when built with
 * PE_LAB_F64 (the debug module, where finite differences check the gradients).
 * Sums that decide accuracy (LayerNorm statistics, softmax normalisers, the
 * loss, the gradient norm, Adam's moments' bias correction) are in double.
 */
#ifndef POSENC_LAB_H
#define POSENC_LAB_H

#include "../internal.h"
#include "../posenc_variants.h"
#include "posenc_lab.h"

typedef pe_lab_real lab_real;

/* Integer configuration, in this order (pe_lab_create's cfg). */
enum {
    LAB_C_VOCAB,
    LAB_C_CLASSES,
    LAB_C_DMODEL,
    LAB_C_HEADS,
    LAB_C_LAYERS,
    LAB_C_MLP,
    LAB_C_MAXLEN,
    LAB_C_BATCH,
    LAB_C_ENCODING,
    LAB_C_CAUSAL,
    LAB_C_LAYOUT,
    LAB_C_FREQ,
    LAB_C_BUCKETS,
    LAB_C_MAXDIST,
    LAB_C_SEED,
    LAB_C_RANDPOS, /* 0: positions 0 .. len - 1; else randomized below this range */
    LAB_C_COUNT_
};
/* Real configuration (pe_lab_create's fcfg). */
enum {
    LAB_F_SINBASE,
    LAB_F_ROPEBASE,
    LAB_F_ALIBIBIAS,
    LAB_F_LR,
    LAB_F_BETA1,
    LAB_F_BETA2,
    LAB_F_EPS,
    LAB_F_DECAY,
    LAB_F_CLIP,
    LAB_F_COUNT_
};
/* Parameter kinds, as pe_lab_tensors reports them. */
enum {
    LAB_K_TOKEN = 0,
    LAB_K_POSITION,
    LAB_K_NORM_GAIN,
    LAB_K_NORM_BIAS,
    LAB_K_QUERY,
    LAB_K_KEY,
    LAB_K_VALUE,
    LAB_K_OUT,
    LAB_K_T5,
    LAB_K_MLP_IN,
    LAB_K_MLP_IN_BIAS,
    LAB_K_MLP_OUT,
    LAB_K_MLP_OUT_BIAS,
    LAB_K_HEAD,
    LAB_K_HEAD_BIAS
};

typedef struct {
    int32_t offset, rows, cols, kind, decay;
} lab_tensor;

/* Offsets into params of one block's tensors (-1: absent). */
typedef struct {
    int32_t g1, b1, wq, wk, wv, wo, t5, g2, b2, w1, c1, w2, c2;
} lab_block;

/* What the forward pass keeps of one block for the backward pass. */
typedef struct {
    lab_real *x, *xhat1, *h1, *q, *k, *v, *p, *ctx, *xmid, *xhat2, *h2, *u, *a;
    double *rstd1, *rstd2;
} lab_acts;

typedef struct {
    int32_t cfg[LAB_C_COUNT_];
    double fcfg[LAB_F_COUNT_];
    int32_t d, heads, hd, layers, mlp, vocab, classes, max_len, batch;
    int32_t npos; /* rows of the position tables: max_len, or the randomized range */
    int32_t nparams, ntensors;
    lab_tensor tensors[PE_LAB_MAX_TENSORS];
    lab_block blocks[PE_LAB_MAX_LAYERS];
    int32_t tok, pos, gf, bf, wout, bout;
    lab_real *params, *grads, *m1, *m2;
    double adam_b1t, adam_b2t; /* beta^t */
    int32_t steps;
    /* position data fixed at creation */
    lab_real *sin_table;           /* npos x d (sinusoidal) */
    lab_real *rope_cos, *rope_sin; /* npos x dh/2 */
    double *alibi_slopes;          /* heads */
    int32_t *t5_bucket;            /* 2 npos - 1: bucket of relative j - i, at index j - i + npos - 1 */
    /* activations and scratch, sized for batch x max_len */
    lab_acts acts[PE_LAB_MAX_LAYERS];
    lab_real *xf, *xhatf, *hf, *logits, *dx, *dh, *dq, *dk, *dv, *dctx, *dp, *da, *dmid;
    double *rstdf;
    lab_real *wt; /* a transposed weight (mm_nt_rows) */
    int32_t *tokens, *targets;
    int32_t *posn; /* the position of each row of the current batch */
    uint64_t rng;
    void *block; /* the one allocation every buffer above lives in */
} lab_model;

/* model.c */
int lab_model_create(lab_model **out, const int32_t *cfg, const double *fcfg);
int lab_model_bytes(double *out, const int32_t *cfg, const double *fcfg);
void lab_model_free(lab_model *m);

/* forward.c: loss (mean cross-entropy over the positions with a target >= 0)
 * and the number of correct argmaxes; grads += its gradient when backward != 0.
 * pos_rng: where a model with randomized positions draws them (NULL: 0 .. len - 1). */
int lab_forward(lab_model *m, const int32_t *tokens, const int32_t *targets, int32_t batch, int32_t len,
                double *loss, int32_t *correct, int32_t *counted, int backward, uint64_t *pos_rng);
/* matrix.c: out (n x m) = a (n x k) w (k x m), or += when acc; out (n x k) (+)= g (n x m) w^T,
 * w being k x m (the gradient of an input: lab_mm_nt for a few rows, lab_mm_nt_rows, which
 * transposes w into wt (m x k) first, for many); gw (k x m) += a^T g, a being n x k (the
 * gradient of a weight). */
void lab_mm_nn(lab_real *out, const lab_real *a, const lab_real *w, int32_t n, int32_t k, int32_t m, int acc);
void lab_mm_nt(lab_real *out, const lab_real *g, const lab_real *w, int32_t n, int32_t k, int32_t m, int acc);
void lab_mm_nt_rows(lab_real *out, const lab_real *g, const lab_real *w, int32_t n, int32_t k, int32_t m,
                    int acc, lab_real *wt);
void lab_mm_tn(lab_real *gw, const lab_real *a, const lab_real *g, int32_t n, int32_t k, int32_t m);

/* model.c: m->posn for a batch: 0 .. len - 1 in every example, or, for a model
 * with randomized positions and rng != NULL, a sorted sample of each. */
void lab_positions(lab_model *m, int32_t batch, int32_t len, uint64_t *rng);

/* adam.c */
void lab_adam_step(lab_model *m);

/* tasks.c: the vocabulary and class count of a task, the sequence length of a
 * task length, and a batch of examples drawn from *rng. */
int lab_task_shape(int task, int32_t *vocab, int32_t *classes);
int32_t lab_task_min_length(int task);
int lab_task_seq_len(int task, int32_t length, int32_t *seq_len);
int lab_task_batch(int task, int32_t length, int32_t count, uint64_t *rng, int32_t *tokens, int32_t *targets);
int lab_task_is_new(int task, int32_t length, int32_t trained, int32_t t);

/* rng */
uint64_t lab_next(uint64_t *state);
double lab_uniform(uint64_t *state); /* [0, 1) */

#endif
