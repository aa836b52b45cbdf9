/*
 * Native tests of the lab (c/lab/, posenc_lab.h), linked into test_api's
 * binary: under ASan + UBSan with the SIMD kernels and the own allocator, and
 * under gcc -Werror. Every encoding in both attention modes trains a few steps,
 * is evaluated and gives attention maps; every bad argument gives its status;
 * a failing allocation gives PE_ERR_NOMEM and leaks nothing. The node suites
 * check the numbers (float64 gradient check, TensorFlow.js agreement, facts).
 */
#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "lab/lab.h"
#include "work.h" /* pe_set_byte_limit (builds without NDEBUG) */
#include "lab/posenc_lab.h"
#include "check.h"

enum {
    CFG_VOCAB,
    CFG_CLASSES,
    CFG_DMODEL,
    CFG_HEADS,
    CFG_LAYERS,
    CFG_MLP,
    CFG_MAXLEN,
    CFG_BATCH,
    CFG_ENCODING,
    CFG_CAUSAL,
    CFG_LAYOUT,
    CFG_FREQ,
    CFG_BUCKETS,
    CFG_MAXDIST,
    CFG_SEED,
    CFG_RANDPOS
};
enum { F_SINBASE, F_ROPEBASE, F_ALIBI, F_LR, F_BETA1, F_BETA2, F_EPS, F_DECAY, F_CLIP };
enum { MAXLEN = 16, BATCH = 8, LAYERS = 2, HEADS = 2 };

typedef struct {
    int32_t c[PE_LAB_CFG_INTS];
    double f[PE_LAB_CFG_REALS];
} lab_cfg;

/* A small who-did-what model: d_model 8, 2 heads, 2 layers, MLP 16. */
static lab_cfg small_cfg(int encoding, int causal) {
    lab_cfg k = { { 17, 8, 8, HEADS, LAYERS, 16, MAXLEN, BATCH, 0, 0, PE_LAYOUT_INTERLEAVED, PE_FREQ_PAPER, 8,
                    16, 3 },
                  { 10000, 10000, 8, 3e-3, 0.9, 0.98, 1e-8, 0.01, 1 } };
    k.c[CFG_ENCODING] = encoding;
    k.c[CFG_CAUSAL] = causal;
    return k;
}

/* A call's status, while a model is alive (EXPECT_STATUS wants nothing allocated). */
#define EXPECT_IS(call, want) EXPECT((call) == (want))

static int create(void **model, const lab_cfg *k) { return pe_lab_create(model, k->c, k->f); }

static int finite_all(const pe_lab_real *x, int32_t n) {
    for (int32_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return 0;
    return 1;
}

void test_lab_tasks(void) {
    int32_t shape[3], len;
    EXPECT(pe_lab_real_bytes() == (int32_t)sizeof(pe_lab_real));
    EXPECT_STATUS(pe_lab_task_shape(shape, PE_LAB_WHO), PE_OK);
    EXPECT(shape[0] == 17 && shape[1] == 8 && shape[2] == 3);
    EXPECT_STATUS(pe_lab_task_shape(shape, PE_LAB_SHIFT), PE_OK);
    EXPECT(shape[0] == 10 && shape[1] == 10 && shape[2] == 3);
    EXPECT_STATUS(pe_lab_task_shape(shape, PE_LAB_REVERSE), PE_OK);
    EXPECT(shape[0] == 12 && shape[1] == 10 && shape[2] == 1);
    int bad_tasks[] = { -1, PE_LAB_TASKS_, INT_MIN, INT_MAX };
    for (size_t i = 0; i < LEN(bad_tasks); i++) {
        EXPECT_STATUS(pe_lab_task_shape(shape, bad_tasks[i]), PE_ERR_OPTION);
        EXPECT_STATUS(pe_lab_task_seq_len(&len, bad_tasks[i], 4), PE_ERR_OPTION);
    }
    EXPECT_STATUS(pe_lab_task_shape(NULL, PE_LAB_WHO), PE_ERR_NULL);
    EXPECT_STATUS(pe_lab_task_seq_len(NULL, PE_LAB_WHO, 4), PE_ERR_NULL);
    EXPECT_STATUS(pe_lab_task_seq_len(&len, PE_LAB_COPY, 5), PE_OK);
    EXPECT(len == 11);
    EXPECT_STATUS(pe_lab_task_seq_len(&len, PE_LAB_WHO, 2), PE_ERR_SIZE);
    EXPECT_STATUS(pe_lab_task_seq_len(&len, PE_LAB_COPY, PE_LAB_MAX_LENGTH + 1), PE_ERR_SIZE);
    EXPECT_STATUS(pe_lab_task_seq_len(&len, PE_LAB_COPY, INT32_MIN), PE_ERR_SIZE);

    /* who-did-what, length 5: 6 tokens, the answer (the doer, the first name) at the query */
    int32_t tok[4 * 6], tgt[4 * 6], tok2[4 * 6], tgt2[4 * 6];
    EXPECT_STATUS(pe_lab_generate(tok, tgt, PE_LAB_WHO, 5, 4, 7), PE_OK);
    EXPECT_STATUS(pe_lab_generate(tok2, tgt2, PE_LAB_WHO, 5, 4, 7), PE_OK);
    EXPECT(memcmp(tok, tok2, sizeof tok) == 0 && memcmp(tgt, tgt2, sizeof tgt) == 0);
    for (int e = 0; e < 4; e++) {
        const int32_t *t = tok + 6 * e, *y = tgt + 6 * e;
        int32_t first = -1, names = 0;
        for (int i = 0; i < 5; i++)
            if (t[i] < 8) {
                names++;
                if (first < 0) first = t[i];
            }
        EXPECT(names == 2 && t[5] == 16 && y[5] == first);
        for (int i = 0; i < 5; i++) EXPECT(y[i] == -1);
    }
    int32_t one[3], one_t[3];
    double bad_seeds[] = { -1, 0.5, NAN, INFINITY, PE_LAB_MAX_SEED + 1.0, -0.5 };
    for (size_t i = 0; i < LEN(bad_seeds); i++)
        EXPECT_STATUS(pe_lab_generate(one, one_t, PE_LAB_COPY, 1, 1, bad_seeds[i]), PE_ERR_VALUE);
    EXPECT_STATUS(pe_lab_generate(tok, tgt, PE_LAB_COPY, 1, 1, PE_LAB_MAX_SEED), PE_OK);
    EXPECT_STATUS(pe_lab_generate(one, one_t, PE_LAB_COPY, 1, 0, 1), PE_ERR_SIZE);
    EXPECT_STATUS(pe_lab_generate(one, one_t, PE_LAB_COPY, 1, PE_LAB_MAX_EXAMPLES + 1, 1), PE_ERR_SIZE);
    EXPECT_STATUS(pe_lab_generate(one, one_t, PE_LAB_COPY, 0, 1, 1), PE_ERR_SIZE);
    EXPECT_STATUS(pe_lab_generate(NULL, one_t, PE_LAB_COPY, 1, 1, 1), PE_ERR_NULL);
    EXPECT_STATUS(pe_lab_generate(one, NULL, PE_LAB_COPY, 1, 1, 1), PE_ERR_NULL);
}

/* A model's tensors tile its parameters exactly, in order. */
static void expect_tensors(void *model) {
    int32_t rows[PE_LAB_MAX_TENSORS * PE_LAB_TENSOR_FIELDS], count = -1, next = 0;
    EXPECT_IS(pe_lab_tensors(rows, &count, model), PE_OK);
    EXPECT(count > 0 && count <= PE_LAB_MAX_TENSORS);
    for (int32_t t = 0; t < count; t++) {
        const int32_t *r = rows + PE_LAB_TENSOR_FIELDS * t;
        EXPECT(r[0] == next && r[1] >= 1 && r[2] >= 1 && (r[4] == 0 || r[4] == 1));
        next += r[1] * r[2];
    }
    EXPECT(next == pe_lab_param_count(model));
}

/* Attention rows sum to 1; causal rows put nothing after the query. */
static void expect_attention(void *model, int causal, int layers, int heads) {
    const int32_t n = 6, tokens[6] = { 0, 9, 1, 12, 13, 16 };
    pe_lab_real maps[LAYERS * HEADS * 6 * 6];
    EXPECT_IS(pe_lab_attention(maps, model, tokens, n), PE_OK);
    for (int32_t m = 0; m < layers * heads; m++)
        for (int32_t i = 0; i < n; i++) {
            double sum = 0;
            for (int32_t j = 0; j < n; j++) {
                double p = maps[(m * n + i) * n + j];
                EXPECT(p >= 0 && p <= 1);
                if (causal && j > i) EXPECT(p == 0);
                sum += p;
            }
            EXPECT_NEAR(sum, 1, 1e-5);
        }
    EXPECT_IS(pe_lab_attention(maps, model, tokens, 0), PE_ERR_SIZE);
    EXPECT_IS(pe_lab_attention(maps, model, tokens, MAXLEN + 1), PE_ERR_SIZE);
    EXPECT_IS(pe_lab_attention(NULL, model, tokens, n), PE_ERR_NULL);
    EXPECT_IS(pe_lab_attention(maps, model, NULL, n), PE_ERR_NULL);
    EXPECT_IS(pe_lab_attention(maps, NULL, tokens, n), PE_ERR_NULL);
}

/* Every encoding, bidirectional and causal: train, evaluate, loss and
 * gradient, attention maps; then free, nothing left allocated. */
/* Every encoding, both attentions, positions plain and randomized (below 40). */
void test_lab_modes(void) {
    for (int enc = 0; enc < PE_LAB_ENCODINGS_; enc++)
        for (int mode = 0; mode < 4; mode++) {
            int causal = mode % 2;
            lab_cfg k = small_cfg(enc, causal);
            k.c[CFG_RANDPOS] = mode / 2 ? 40 : 0;
            void *model = NULL;
            EXPECT(create(&model, &k) == PE_OK && model != NULL);
            if (!model) continue;
            int32_t count = pe_lab_param_count(model);
            expect_tensors(model);
            EXPECT(finite_all(pe_lab_params(model), count));
            double out[3];
            EXPECT(pe_lab_train(out, model, PE_LAB_WHO, 3, 6, 4) == PE_OK);
            EXPECT(isfinite(out[0]) && out[0] > 0 && out[1] >= 0 && out[1] <= 1);
            EXPECT(finite_all(pe_lab_params(model), count));
            EXPECT(pe_lab_evaluate(out, model, PE_LAB_WHO, 9, 20, 5, 6, PE_LAB_SCORE_ALL)
                   == PE_OK); /* longer than trained */
            EXPECT(isfinite(out[0]) && out[1] >= 0 && out[1] <= 1);
            /* recency with a start token shares who-did-what's words, not its vocabulary */
            EXPECT(pe_lab_evaluate(out, model, PE_LAB_RECENCY | PE_LAB_BOS, 9, 4, 5, 6, 0) == PE_ERR_SHAPE);
            EXPECT(pe_lab_evaluate(out, model, PE_LAB_RECENCY, 12, 20, 5, 8, PE_LAB_SCORE_NEW) == PE_OK);
            EXPECT(out[2] > 0 && out[1] >= 0 && out[1] <= 1);
            EXPECT(pe_lab_evaluate(out, model, PE_LAB_WHO, 5, 20, 5, 6, PE_LAB_SCORE_NEW) == PE_OK
                   && out[2] == 0);
            EXPECT(pe_lab_evaluate(out, model, PE_LAB_WHO, 5, 20, 5, 6, 3) == PE_ERR_OPTION);
            int32_t tok[2 * 5], tgt[2 * 5];
            EXPECT(pe_lab_generate(tok, tgt, PE_LAB_WHO, 4, 2, 1) == PE_OK);
            EXPECT(pe_lab_loss(out, model, tok, tgt, 2, 5, 1) == PE_OK);
            EXPECT(isfinite(out[0]) && out[2] == 2 && out[1] >= 0 && out[1] <= 2);
            EXPECT(finite_all(pe_lab_grads(model), count));
            expect_attention(model, causal, LAYERS, HEADS);
            pe_lab_free(model);
            EXPECT(pe_live_allocations() == 0);
        }
}

/* Training lowers the loss: shift, causal, RoPE, one layer without MLP. */
void test_lab_learns(void) {
    lab_cfg k = small_cfg(PE_LAB_ROPE, 1);
    k.c[CFG_VOCAB] = k.c[CFG_CLASSES] = 10;
    k.c[CFG_LAYERS] = 1;
    k.c[CFG_MLP] = 0;
    k.c[CFG_DMODEL] = 16;
    k.f[F_LR] = 1e-2;
    void *model = NULL;
    EXPECT(create(&model, &k) == PE_OK);
    if (!model) return;
    double first[2], last[2];
    EXPECT(pe_lab_train(first, model, PE_LAB_SHIFT, 6, 6, 20) == PE_OK);
    EXPECT(pe_lab_train(last, model, PE_LAB_SHIFT, 6, 6, 300) == PE_OK);
    EXPECT(pe_lab_train(last, model, PE_LAB_SHIFT, 6, 6, 20) == PE_OK);
    /* chance is ln 10 = 2.30; the margin is wide, the seeds fixed */
    EXPECT(first[0] > 1.8 && last[0] < 0.75 * first[0]);
    EXPECT(last[1] > first[1]);
    pe_lab_free(model);
}

/* Training cut into pe_lab_train_sum calls of 1, 4 and 7 steps sums what one
 * pe_lab_train call of 12 steps averages, to the bit, and leaves the same
 * parameters: the page trains between turns of its event loop this way. */
void test_lab_train_slices(void) {
    lab_cfg k = small_cfg(PE_LAB_ROPE, 1);
    void *whole = NULL, *sliced = NULL;
    EXPECT(create(&whole, &k) == PE_OK && create(&sliced, &k) == PE_OK);
    if (whole && sliced) {
        double out[2], acc[3] = { 0, 0, 0 };
        const int32_t cuts[] = { 1, 4, 7 };
        EXPECT(pe_lab_train(out, whole, PE_LAB_WHO, 3, 6, 12) == PE_OK);
        for (int i = 0; i < 3; i++) EXPECT(pe_lab_train_sum(acc, sliced, PE_LAB_WHO, 3, 6, cuts[i]) == PE_OK);
        EXPECT(acc[0] / 12 == out[0] && acc[2] > 0 && acc[1] / acc[2] == out[1]);
        int32_t count = pe_lab_param_count(whole);
        EXPECT(memcmp(pe_lab_params(whole), pe_lab_params(sliced), (size_t)count * sizeof(pe_lab_real)) == 0);
        /* a refusal adds nothing */
        double before[3];
        memcpy(before, acc, sizeof acc);
        EXPECT(pe_lab_train_sum(acc, sliced, PE_LAB_WHO, 6, 3, 1) == PE_ERR_SIZE);
        EXPECT(memcmp(before, acc, sizeof acc) == 0);
        EXPECT(pe_lab_train_sum(NULL, sliced, PE_LAB_WHO, 3, 6, 1) == PE_ERR_NULL);
        EXPECT(pe_lab_train_sum(acc, NULL, PE_LAB_WHO, 3, 6, 1) == PE_ERR_NULL);
    }
    pe_lab_free(whole);
    pe_lab_free(sliced);
    EXPECT(pe_live_allocations() == 0);
    /* pe_fits: the allocator's limit alone, growing nothing */
    EXPECT(pe_fits(1024) == 1 && pe_fits(PE_MAX_BYTES + 1.0) == 0 && pe_fits(0) == 0 && pe_fits(-1.0) == 0);
}

/* Reference sums of scaled rows, one term at a time in order of p (zero
 * scales skipped where asked), as matrix.c's kernels must give them. */
static void ref_rows(pe_lab_real *o, const pe_lab_real *s, size_t sr, size_t sc, const pe_lab_real *r,
                     int32_t nq, int32_t k, int32_t m, int acc, int skip) {
    for (int32_t q = 0; q < nq; q++)
        for (int32_t j = 0; j < m; j++) {
            pe_lab_real t = acc ? o[(size_t)q * m + j] : 0;
            for (int32_t p = 0; p < k; p++) {
                pe_lab_real sp = s[q * sr + p * sc];
                if (!skip || sp != 0) t += sp * r[(size_t)p * m + j];
            }
            o[(size_t)q * m + j] = t;
        }
}

/* Fills x with values of both signs, every third one exactly 0 (ReLU's zeros). */
static void fill(pe_lab_real *x, size_t n, unsigned *seed) {
    for (size_t i = 0; i < n; i++) {
        *seed = *seed * 1103515245u + 12345u;
        x[i] = i % 3 == 1 ? 0 : (pe_lab_real)((int)(*seed >> 16) % 2001 - 1000) / 317;
    }
}

/* The matrix kernels (matrix.c; with SIMD in the shipped module and here)
 * give the plain loop's bits: same terms, same order, for shapes with and
 * without the kernel's 4-row and 8-column blocks, from +0 and from a sum. */
void test_lab_matrix_order(void) {
    static const int32_t shapes[][3] = {
        { 1, 32, 10 }, { 5, 3, 13 }, { 9, 8, 16 }, { 12, 20, 24 }, { 67, 32, 64 }
    };
    enum { MAX = 67 * 64 };
    static pe_lab_real a[MAX], w[MAX], o[MAX], want[MAX], wt[MAX], start[MAX];
    unsigned seed = 7;
    for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++) {
        int32_t n = shapes[c][0], k = shapes[c][1], m = shapes[c][2];
        fill(a, (size_t)n * (k > m ? k : m), &seed);
        fill(w, (size_t)(k > n ? k : n) * m, &seed);        /* k x m as w, n x m as g */
        ref_rows(start, a, (size_t)k, 1, w, n, k, m, 0, 0); /* a sum, as xmid or grads hold */
        for (int acc = 0; acc <= 1; acc++) {
            /* out (n x m) (+)= a (n x k) w (k x m) */
            memcpy(o, start, sizeof(pe_lab_real) * n * m);
            memcpy(want, start, sizeof(pe_lab_real) * n * m);
            lab_mm_nn(o, a, w, n, k, m, acc);
            ref_rows(want, a, (size_t)k, 1, w, n, k, m, acc, 0);
            EXPECT(memcmp(o, want, sizeof(pe_lab_real) * n * m) == 0);
            /* out (n x k) (+)= g (n x m) w^T, w k x m: the rows of w^T scaled by g, zeros skipped */
            memcpy(o, start, sizeof(pe_lab_real) * n * k);
            memcpy(want, start, sizeof(pe_lab_real) * n * k);
            lab_mm_nt_rows(o, a, w, n, k, m, acc, wt);
            ref_rows(want, a, (size_t)m, 1, wt, n, m, k, acc, 1);
            EXPECT(memcmp(o, want, sizeof(pe_lab_real) * n * k) == 0);
        }
        /* gw (k x m) += a^T (a: n x k) g (n x m): row p sums the rows of g scaled by column p of a */
        memcpy(o, start, sizeof(pe_lab_real) * k * m);
        memcpy(want, start, sizeof(pe_lab_real) * k * m);
        lab_mm_tn(o, a, w, n, k, m);
        ref_rows(want, a, 1, (size_t)k, w, k, n, m, 1, 1);
        EXPECT(memcmp(o, want, sizeof(pe_lab_real) * k * m) == 0);
    }
}

/* pe_lab_create: each bad field gives its status and no model. */
void test_lab_create_errors(void) {
    struct {
        int field;
        int32_t value;
        int status;
    } ints[] = {
        { CFG_VOCAB, 1, PE_ERR_SIZE },
        { CFG_VOCAB, PE_LAB_MAX_VOCAB + 1, PE_ERR_SIZE },
        { CFG_CLASSES, 1, PE_ERR_SIZE },
        { CFG_DMODEL, PE_LAB_MIN_DMODEL - 1, PE_ERR_SIZE },
        { CFG_DMODEL, PE_LAB_MAX_DMODEL + 1, PE_ERR_SIZE },
        { CFG_DMODEL, INT32_MIN, PE_ERR_SIZE },
        { CFG_HEADS, 0, PE_ERR_SIZE },
        { CFG_HEADS, PE_LAB_MAX_HEADS + 1, PE_ERR_SIZE },
        { CFG_LAYERS, 0, PE_ERR_SIZE },
        { CFG_LAYERS, PE_LAB_MAX_LAYERS + 1, PE_ERR_SIZE },
        { CFG_MLP, -1, PE_ERR_SIZE },
        { CFG_MLP, PE_LAB_MAX_MLP + 1, PE_ERR_SIZE },
        { CFG_MAXLEN, 0, PE_ERR_SIZE },
        { CFG_MAXLEN, PE_LAB_MAX_TOKENS + 1, PE_ERR_SIZE },
        { CFG_BATCH, 0, PE_ERR_SIZE },
        { CFG_BATCH, PE_LAB_MAX_BATCH + 1, PE_ERR_SIZE },
        { CFG_HEADS, 3, PE_ERR_SHAPE },
        { CFG_ENCODING, -1, PE_ERR_OPTION },
        { CFG_ENCODING, PE_LAB_ENCODINGS_, PE_ERR_OPTION },
        { CFG_CAUSAL, 2, PE_ERR_OPTION },
        { CFG_SEED, -1, PE_ERR_OPTION },
        { CFG_LAYOUT, 7, PE_ERR_OPTION },
        { CFG_FREQ, -1, PE_ERR_OPTION },
    };
    for (size_t i = 0; i < LEN(ints); i++) {
        lab_cfg k = small_cfg(PE_LAB_SINUSOIDAL, 0);
        k.c[ints[i].field] = ints[i].value;
        void *model = &k;
        EXPECT_STATUS(create(&model, &k), ints[i].status);
        EXPECT(model == NULL);
        double bytes[2] = {
            -1, -1
        }; /* the count checks the config as create does (the layout and rule too: they were pe_table's, found
              after the block was allocated, and counted) */
        EXPECT_STATUS(pe_lab_model_bytes(bytes, k.c, k.f), ints[i].status);
    }
    /* T5's buckets and distance are bounded before the parameters are counted:
     * 2^30 buckets x 2 heads overflowed the int32 count (UBSan) before. */
    int32_t buckets[] = { 1, PE_LAB_MAX_BUCKETS + 1, 1 << 30, INT32_MAX, INT32_MIN };
    for (size_t i = 0; i < LEN(buckets); i++) {
        lab_cfg k = small_cfg(PE_LAB_T5, 0);
        k.c[CFG_BUCKETS] = buckets[i];
        void *model = NULL;
        EXPECT_STATUS(create(&model, &k), PE_ERR_SIZE);
        k = small_cfg(PE_LAB_SINUSOIDAL, 0); /* ignored by the other encodings */
        k.c[CFG_BUCKETS] = buckets[i];
        EXPECT(create(&model, &k) == PE_OK);
        pe_lab_free(model);
    }
    lab_cfg k = small_cfg(PE_LAB_T5, 0);
    void *model = NULL;
    k.c[CFG_MAXDIST] = 0;
    EXPECT_STATUS(create(&model, &k), PE_ERR_SIZE);
    k.c[CFG_MAXDIST] = PE_LAB_MAX_DISTANCE + 1;
    EXPECT_STATUS(create(&model, &k), PE_ERR_SIZE);
    k.c[CFG_MAXDIST] = 2; /* not past the exact buckets: pe_t5_bucket's own check */
    EXPECT_STATUS(create(&model, &k), PE_ERR_VALUE);
    /* pe_t5_bucket's rules are the config's: refused before anything is allocated, by the count too (found by
     * position_data, they were refused after the block had grown wasm memory) */
    double t5bytes[2];
    EXPECT_STATUS(pe_lab_model_bytes(t5bytes, k.c, k.f), PE_ERR_VALUE);
    k.c[CFG_BUCKETS] = 3; /* bidirectional: one bucket each way, none exact */
    k.c[CFG_MAXDIST] = 128;
    EXPECT_STATUS(pe_lab_model_bytes(t5bytes, k.c, k.f), PE_ERR_SIZE);
    EXPECT_STATUS(create(&model, &k), PE_ERR_SIZE);
    k.c[CFG_CAUSAL] = 1; /* causal: 3 buckets, one exact */
    EXPECT(create(&model, &k) == PE_OK);
    pe_lab_free(model);
    k.c[CFG_MAXDIST] = 1;
    EXPECT_STATUS(pe_lab_model_bytes(t5bytes, k.c, k.f), PE_ERR_VALUE);
    k = small_cfg(PE_LAB_ROPE, 0);
    k.c[CFG_HEADS] = 8; /* width 1 per head */
    EXPECT_STATUS(create(&model, &k), PE_ERR_ODD);
    k = small_cfg(PE_LAB_SINUSOIDAL, 0);
    k.f[F_SINBASE] = 1;
    EXPECT_STATUS(create(&model, &k), PE_ERR_BASE);
    /* the sinusoidal base and RoPE's are refused before the block is allocated, and not counted: pe_table and
     * pe_rope_cache found them once it was (a 1 GiB block made to be refused); the other encodings ignore them */
    double bases[] = { 1, 0.5, -2, NAN, INFINITY, -INFINITY };
    for (size_t i = 0; i < LEN(bases); i++) {
        double bytes[2];
        for (int enc = PE_LAB_SINUSOIDAL; enc <= PE_LAB_ROPE; enc += PE_LAB_ROPE - PE_LAB_SINUSOIDAL) {
            k = small_cfg(enc, 0);
            k.f[enc == PE_LAB_ROPE ? F_ROPEBASE : F_SINBASE] = bases[i];
            EXPECT_STATUS(pe_lab_model_bytes(bytes, k.c, k.f), PE_ERR_BASE);
            inject_failure(-1);
            EXPECT_STATUS(create(&model, &k), PE_ERR_BASE);
            EXPECT(malloc_calls == 0); /* nothing allocated, the model's struct neither */
        }
        k = small_cfg(PE_LAB_ALIBI, 0);
        k.f[F_SINBASE] = k.f[F_ROPEBASE] = bases[i];
        EXPECT(create(&model, &k) == PE_OK);
        pe_lab_free(model);
    }
    /* A model next to the limit (pe_set_byte_limit, so that it stays small): the sinusoidal table's and RoPE's
     * scratch are counted with the block. pe_table and pe_rope_cache refused theirs past the limit once the
     * block was made: status 2 for a model counted within the limit, after 1 GiB was allocated (wasm memory
     * grown and kept). Every size across the limit is made, or refused with nothing but the struct allocated. */
    for (int enc = PE_LAB_SINUSOIDAL; enc <= PE_LAB_ROPE; enc += PE_LAB_ROPE - PE_LAB_SINUSOIDAL) {
        const double limit = 10 << 20;
        int made = 0, refused = 0;
        k = small_cfg(enc, 0);
        k.c[CFG_DMODEL] = 64, k.c[CFG_HEADS] = 1, k.c[CFG_MAXLEN] = 64, k.c[CFG_BATCH] = 16;
        EXPECT(pe_set_byte_limit(limit) == limit);
        for (int32_t npos = 64; npos <= PE_LAB_MAX_POSITIONS; npos++) {
            double bytes[2];
            k.c[CFG_RANDPOS] = npos;
            EXPECT_IS(pe_lab_model_bytes(bytes, k.c, k.f), PE_OK);
            if (bytes[0] < limit - 8192 || bytes[0] > limit + 8192) continue;
            inject_failure(-1);
            int st = create(&model, &k);
            if (st == PE_OK) {
                made++;
                EXPECT(bytes[0] <= limit);
                pe_lab_free(model);
            } else {
                refused++;
                EXPECT(st == PE_ERR_NOMEM && model == NULL && malloc_calls <= 1 && pe_live_allocations() == 0);
            }
        }
        EXPECT(pe_set_byte_limit(PE_MAX_BYTES) == PE_MAX_BYTES);
        EXPECT(made > 8 && refused > 8);
    }

    struct {
        int field;
        double value;
    } reals[] = {
        { F_LR, 0 },
        { F_LR, 1.5 },
        { F_LR, NAN },
        { F_BETA1, 1 },
        { F_BETA1, -0.1 },
        { F_BETA2, 1 },
        { F_EPS, 0 },
        { F_EPS, 4.869678384491403e-296 },
        { F_EPS, PE_LAB_MIN_EPS / 2 },
        { F_EPS, INFINITY },
        { F_DECAY, -1 },
        { F_DECAY, 2 },
        { F_CLIP, -1 },
        { F_CLIP, INFINITY },
        { F_CLIP, NAN },
        { F_ALIBI, 0 },
        { F_ALIBI, PE_LAB_MAX_ALIBI_BIAS + 1 },
        { F_ALIBI, NAN },
        { F_EPS, 4.9406564584124654e-324 },
        { F_EPS, 1e-300 }, /* also 0 in float32 (CI's fuzz run) */
        /* a beta that is below 1 in double but rounds to 1 where it is used */
        { F_BETA2, sizeof(pe_lab_real) == 4 ? 1 - 1e-9 : 1 },
        { F_BETA1, sizeof(pe_lab_real) == 4 ? 1 - 1e-9 : 1 },
    };
    for (size_t i = 0; i < LEN(reals); i++) {
        k = small_cfg(PE_LAB_ALIBI, 0);
        k.f[reals[i].field] = reals[i].value;
        EXPECT_STATUS(create(&model, &k), PE_ERR_VALUE);
    }
    k = small_cfg(PE_LAB_NONE, 0);
    EXPECT_STATUS(pe_lab_create(NULL, k.c, k.f), PE_ERR_NULL);
    EXPECT_STATUS(pe_lab_create(&model, NULL, k.f), PE_ERR_NULL);
    EXPECT_STATUS(pe_lab_create(&model, k.c, NULL), PE_ERR_NULL);
    /* the model's accessors take NULL */
    pe_lab_free(NULL);
    EXPECT(pe_lab_param_count(NULL) == 0 && pe_lab_params(NULL) == NULL && pe_lab_grads(NULL) == NULL);
    int32_t rows[PE_LAB_TENSOR_FIELDS], count;
    EXPECT_STATUS(pe_lab_tensors(rows, &count, NULL), PE_ERR_NULL);
    EXPECT_STATUS(pe_lab_tensors(NULL, &count, &k), PE_ERR_NULL);
}

/* train, evaluate and loss: each bad argument gives its status. */
void test_lab_call_errors(void) {
    lab_cfg k = small_cfg(PE_LAB_LEARNED, 0);
    void *model = NULL;
    if (create(&model, &k) != PE_OK) {
        EXPECT(0);
        return;
    }
    double out[3];
    EXPECT(pe_lab_train(out, model, PE_LAB_SHIFT, 3, 6, 1) == PE_ERR_SHAPE); /* another vocabulary */
    EXPECT(pe_lab_train(out, model, -1, 3, 6, 1) == PE_ERR_OPTION);
    EXPECT(pe_lab_train(out, model, PE_LAB_WHO, 6, 3, 1) == PE_ERR_SIZE);
    EXPECT(pe_lab_train(out, model, PE_LAB_WHO, 2, 6, 1) == PE_ERR_SIZE);
    EXPECT(pe_lab_train(out, model, PE_LAB_WHO, 3, 6, 0) == PE_ERR_SIZE);
    EXPECT(pe_lab_train(out, model, PE_LAB_WHO, 3, 6, PE_LAB_MAX_STEPS + 1) == PE_ERR_SIZE);
    EXPECT(pe_lab_train(out, model, PE_LAB_WHO, 3, MAXLEN, 1)
           == PE_ERR_POSITION); /* MAXLEN + 1 tokens, never drawn */
    EXPECT(pe_lab_train(out, model, PE_LAB_WHO, 3, INT32_MAX, 1) == PE_ERR_SIZE);
    /* the refusals above took no step: training now matches a fresh model's */
    void *fresh = NULL;
    double again[2];
    EXPECT(create(&fresh, &k) == PE_OK);
    EXPECT(pe_lab_train(out, model, PE_LAB_WHO, 3, 6, 3) == PE_OK);
    EXPECT(fresh && pe_lab_train(again, fresh, PE_LAB_WHO, 3, 6, 3) == PE_OK);
    EXPECT(fresh && memcmp(out, again, sizeof again) == 0);
    pe_lab_free(fresh);
    EXPECT(pe_lab_train(NULL, model, PE_LAB_WHO, 3, 6, 1) == PE_ERR_NULL);
    EXPECT(pe_lab_train(out, NULL, PE_LAB_WHO, 3, 6, 1) == PE_ERR_NULL);
    EXPECT(pe_lab_evaluate(out, model, PE_LAB_WHO, MAXLEN, 4, 1, 6, PE_LAB_SCORE_ALL) == PE_ERR_POSITION);
    EXPECT(pe_lab_evaluate(out, model, PE_LAB_WHO, 2, 4, 1, 6, PE_LAB_SCORE_ALL) == PE_ERR_SIZE);
    EXPECT(pe_lab_evaluate(out, model, PE_LAB_WHO, 4, 0, 1, 6, PE_LAB_SCORE_ALL) == PE_ERR_SIZE);
    EXPECT(pe_lab_evaluate(out, model, PE_LAB_WHO, 4, PE_LAB_MAX_SAMPLES + 1, 1, 6, PE_LAB_SCORE_ALL)
           == PE_ERR_SIZE);
    EXPECT(pe_lab_evaluate(out, model, PE_LAB_WHO, 4, 4, -1, 6, PE_LAB_SCORE_ALL) == PE_ERR_VALUE);
    EXPECT(pe_lab_evaluate(out, model, PE_LAB_WHO, 4, 4, NAN, 6, PE_LAB_SCORE_ALL) == PE_ERR_VALUE);
    EXPECT(pe_lab_evaluate(out, model, PE_LAB_COPY, 4, 4, 1, 6, PE_LAB_SCORE_ALL) == PE_ERR_SHAPE);
    EXPECT(pe_lab_evaluate(out, model, 99, 4, 4, 1, 6, PE_LAB_SCORE_ALL) == PE_ERR_OPTION);
    EXPECT(pe_lab_evaluate(NULL, model, PE_LAB_WHO, 4, 4, 1, 6, PE_LAB_SCORE_ALL) == PE_ERR_NULL);
    /* an evaluation of more samples than a batch: several batches */
    EXPECT(pe_lab_evaluate(out, model, PE_LAB_WHO, 4, 3 * BATCH + 1, 1, 6, PE_LAB_SCORE_ALL) == PE_OK
           && out[1] >= 0 && out[1] <= 1);

    int32_t tok[BATCH * 4] = { 0 }, tgt[BATCH * 4];
    for (int i = 0; i < BATCH * 4; i++) tgt[i] = -1;
    EXPECT(pe_lab_loss(out, model, tok, tgt, 1, 4, 0) == PE_OK && out[0] == 0
           && out[2] == 0); /* no targets */
    tok[1] = 17;
    EXPECT(pe_lab_loss(out, model, tok, tgt, 1, 4, 1) == PE_ERR_VALUE); /* token past the vocabulary */
    tok[1] = -1;
    EXPECT(pe_lab_loss(out, model, tok, tgt, 1, 4, 0) == PE_ERR_VALUE);
    tok[1] = 0;
    tgt[3] = 8;
    EXPECT(pe_lab_loss(out, model, tok, tgt, 1, 4, 0) == PE_ERR_VALUE); /* class past the classes */
    tgt[3] = -2;
    EXPECT(pe_lab_loss(out, model, tok, tgt, 1, 4, 0) == PE_ERR_VALUE);
    tgt[3] = 1;
    EXPECT(pe_lab_loss(out, model, tok, tgt, BATCH + 1, 4, 0) == PE_ERR_SIZE);
    EXPECT(pe_lab_loss(out, model, tok, tgt, 0, 4, 0) == PE_ERR_SIZE);
    EXPECT(pe_lab_loss(out, model, tok, tgt, 1, MAXLEN + 1, 0) == PE_ERR_SIZE);
    EXPECT(pe_lab_loss(out, model, tok, NULL, 1, 4, 0) == PE_ERR_NULL);
    EXPECT(pe_lab_loss(out, model, tok, tgt, 1, 4, 1) == PE_OK && out[2] == 1);
    pe_lab_free(model);
}

/* The k-th allocation failing, for every k a model needs: PE_ERR_NOMEM, nothing left. */
void test_lab_allocation_failures(void) {
    for (int enc = 0; enc < PE_LAB_ENCODINGS_; enc++) {
        lab_cfg k = small_cfg(enc, 1);
        void *model = NULL;
        inject_failure(-1);
        EXPECT(create(&model, &k) == PE_OK);
        pe_lab_free(model);
        long needed = malloc_calls;
        EXPECT(needed >= 2);
        for (long at = 0; at < needed; at++) {
            inject_failure(at);
            model = &k;
            EXPECT_STATUS(create(&model, &k), PE_ERR_NOMEM);
            EXPECT(model == NULL);
        }
        inject_failure(-1);
    }
    /* a model over the 1 GiB limit is refused, nothing left allocated */
    lab_cfg k = small_cfg(PE_LAB_NONE, 0);
    k.c[CFG_MAXLEN] = PE_LAB_MAX_TOKENS;
    k.c[CFG_BATCH] = PE_LAB_MAX_BATCH;
    k.c[CFG_HEADS] = 8;
    void *model = NULL;
    inject_failure(-1);
    EXPECT_STATUS(create(&model, &k), PE_ERR_SIZE);
    EXPECT(model == NULL);
    /* pe_lab_model_bytes counts it without allocating it: over 2^32 bytes, in double */
    double bytes[2] = { 0, 0 }, small[2] = { 0, 0 };
    EXPECT_STATUS(pe_lab_model_bytes(bytes, k.c, k.f), PE_OK);
    EXPECT(bytes[0] > 4294967296.0 && bytes[0] > PE_MAX_BYTES);
    k = small_cfg(PE_LAB_NONE, 0);
    EXPECT_STATUS(pe_lab_model_bytes(small, k.c, k.f), PE_OK);
    EXPECT(small[0] > 0 && small[0] < PE_MAX_BYTES && create(&model, &k) == PE_OK);
    EXPECT(small[1] == pe_lab_param_count(model)); /* the parameters, counted without the model */
    pe_lab_free(model);
    EXPECT_STATUS(pe_lab_model_bytes(NULL, k.c, k.f), PE_ERR_NULL);
    EXPECT_STATUS(pe_lab_model_bytes(bytes, NULL, k.f), PE_ERR_NULL);
    EXPECT_STATUS(pe_lab_model_bytes(bytes, k.c, NULL), PE_ERR_NULL);
}
