/*
 * posenc lab: a tiny Transformer that trains in WebAssembly (c/lab/lab.h says
 * how it is built). The lab wasm module's interface: its export list is
 * c/exports/lab.txt. Status codes come from posenc.h.
 *
 * The limits below are the lab's, checked here in C and imported by
 * web/lib/lab through the generated dist/constants.js: they keep one model
 * and one call small enough to train in a browser tab.
 */
#ifndef POSENC_LAB_PUBLIC_H
#define POSENC_LAB_PUBLIC_H

#include "../posenc.h"

/* The shipped module computes in float32; the debug module (PE_LAB_F64), where
 * finite differences check the gradients, in float64. */
#ifdef PE_LAB_F64
typedef double pe_lab_real;
#else
typedef float pe_lab_real;
#endif

/* Position encodings (cfg[8] of pe_lab_create) and tasks (c/lab/tasks.c; a task is one of
 * these, plus PE_LAB_BOS for a start token). */
enum {
    PE_LAB_NONE = 0,
    PE_LAB_SINUSOIDAL = 1,
    PE_LAB_LEARNED = 2,
    PE_LAB_ROPE = 3,
    PE_LAB_ALIBI = 4,
    PE_LAB_T5 = 5,
    PE_LAB_ENCODINGS_ = 6
};
enum {
    PE_LAB_WHO = 0,
    PE_LAB_SHIFT = 1,
    PE_LAB_COPY = 2,
    PE_LAB_REVERSE = 3,
    PE_LAB_RECENCY = 4,
    PE_LAB_WHO_REVERSED = 5, /* who-did-what's probe: the example backwards, query first */
    PE_LAB_TASKS_ = 6
};
/* Added to a task: every example starts with a start token (the task's
 * vocabulary grows by one, its examples by one token). */
#define PE_LAB_BOS 256
/* Which answers pe_lab_evaluate scores: all, those at positions some training
 * example had, or those at new positions (c/lab/tasks.c, lab_task_is_new). */
enum { PE_LAB_SCORE_ALL = 0, PE_LAB_SCORE_TRAINED = 1, PE_LAB_SCORE_NEW = 2 };

/* Model size (pe_lab_create; PE_ERR_SIZE outside). */
#define PE_LAB_MAX_VOCAB 4096 /* tokens and classes */
#define PE_LAB_MIN_DMODEL 2
#define PE_LAB_MAX_DMODEL 512
#define PE_LAB_MAX_HEADS 64
#define PE_LAB_MAX_LAYERS 4
#define PE_LAB_MAX_MLP 4096    /* hidden width; 0: no MLP */
#define PE_LAB_MAX_TOKENS 1024 /* the longest sequence a model takes (maxLength) */
/* Randomized positions (Ruoss et al. 2023): each example's positions are a
 * sorted sample of distinct positions below this range, maxLength .. this. */
#define PE_LAB_MAX_POSITIONS 4096
#define PE_LAB_MAX_BATCH 1024
#define PE_LAB_MIN_BUCKETS 2 /* T5 buckets (and PE_ERR_SIZE outside) */
#define PE_LAB_MAX_BUCKETS 1024
#define PE_LAB_MAX_DISTANCE 1048576 /* T5 max_distance */
#define PE_LAB_MAX_ALIBI_BIAS 64    /* ALiBi's largest slope exponent (PE_ERR_VALUE above) */
#define PE_LAB_MAX_TENSORS 64       /* rows pe_lab_tensors may write */
/* Adam's epsilon lies in [PE_LAB_MIN_EPS, 1] (PE_ERR_VALUE outside): a smaller one
 * rounds to 0 in float32 (0/0 for a zero gradient) or, when a tiny gradient's
 * square underflows, lets |m1| / eps make a step of any size. */
#define PE_LAB_MIN_EPS 1e-12
/* Tasks and calls. */
#define PE_LAB_MAX_LENGTH 1024     /* a task's length n (its examples have more tokens) */
#define PE_LAB_MAX_SEED 2147483647 /* seeds are 0 .. 2^31 - 1 (PE_ERR_VALUE, or PE_ERR_OPTION in cfg) */
#define PE_LAB_MAX_STEPS 1000000   /* steps of one pe_lab_train call */
#define PE_LAB_MAX_SAMPLES 1048576 /* examples one pe_lab_evaluate draws */
#define PE_LAB_MAX_EXAMPLES 65536  /* examples one pe_lab_generate writes */
/* What a caller's call holds besides the bytes pe_lab_model_bytes counts: the model's
 * struct, the cfg and fcfg blocks, small outputs and their allocation headers. The
 * JS API counts it with every model, so that a model within these bytes of the
 * limit is refused before it is made, not after memory grew for it. */
#define PE_LAB_CALL_SLACK 1024
/* Integers and reals of pe_lab_create's cfg and fcfg (their order: c/lab/lab.h). */
#define PE_LAB_CFG_INTS 16
#define PE_LAB_CFG_REALS 9
/* Fields per row of pe_lab_tensors: offset, rows, cols, kind, decay. */
#define PE_LAB_TENSOR_FIELDS 5

/* sizeof(pe_lab_real): 4, or 8 in the debug module. */
PE_API int32_t pe_lab_real_bytes(void);
/* out = [vocabulary, classes, shortest length] of a task. */
PE_API int pe_lab_task_shape(int32_t *out, int task);
/* *out = tokens of one example of the given length. */
PE_API int pe_lab_task_seq_len(int32_t *out, int task, int32_t length);
/* count examples (count x seq_len tokens and targets, -1: no target) drawn from seed. */
PE_API int pe_lab_generate(int32_t *tokens, int32_t *targets, int task, int32_t length, int32_t count,
                           double seed);
/* A seeded model from cfg (PE_LAB_CFG_INTS) and fcfg (PE_LAB_CFG_REALS); *out = NULL on error. */
PE_API int pe_lab_create(void **out, const int32_t *cfg, const double *fcfg);
/* out = [the bytes pe_lab_create would allocate for cfg and fcfg (checked as it checks them),
 * its parameter count], allocating only a few KiB: so a caller can refuse a model that is
 * too big, or parameters that do not fit it, before the model is made. */
PE_API int pe_lab_model_bytes(double *out, const int32_t *cfg, const double *fcfg);
PE_API void pe_lab_free(void *model);
PE_API int32_t pe_lab_param_count(const void *model);
PE_API pe_lab_real *pe_lab_params(void *model);
PE_API pe_lab_real *pe_lab_grads(void *model);
/* out: PE_LAB_TENSOR_FIELDS per tensor, at most PE_LAB_MAX_TENSORS rows; *count rows. */
PE_API int pe_lab_tensors(int32_t *out, int32_t *count, const void *model);
/* out = [loss, correct, counted] of one batch; backward != 0 fills pe_lab_grads. */
PE_API int pe_lab_loss(double *out, void *model, const int32_t *tokens, const int32_t *targets, int32_t batch,
                       int32_t len, int backward);
/* steps Adam steps on fresh batches of lengths in [min_len, max_len]; out = [mean loss, accuracy]. */
PE_API int pe_lab_train(double *out, void *model, int task, int32_t min_len, int32_t max_len, int32_t steps);
/* As pe_lab_train, adding to acc = [loss sum, answers right, answers counted] instead:
 * calls of any sizes in a row sum exactly what one call of all their steps would. */
PE_API int pe_lab_train_sum(double *acc, void *model, int task, int32_t min_len, int32_t max_len,
                            int32_t steps);
/* out = [loss, accuracy, answers scored] on samples fresh examples of one length drawn
 * from seed, scoring the answers `which` (PE_LAB_SCORE_*) picks for a model trained on
 * lengths up to `trained`; no answer scored: out = [0, 0, 0]. */
PE_API int pe_lab_evaluate(double *out, void *model, int task, int32_t length, int32_t samples, double seed,
                           int32_t trained, int which);
/* out = layers x heads x len x len attention weights for one sequence. */
PE_API int pe_lab_attention(pe_lab_real *out, void *model, const int32_t *tokens, int32_t len);

#endif
