/* The lab model: parameter layout, seeded initialisation, the position data
 * each encoding needs (made by the core's own functions), and one allocation
 * that holds every buffer a training step touches, so a step allocates nothing. */
#include <math.h>
#include <string.h>
#include "lab.h"

#define DTYPE (sizeof(lab_real) == 4 ? PE_F32 : PE_F64)

uint64_t lab_next(uint64_t *state) { /* splitmix64 */
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double lab_uniform(uint64_t *state) { return (double)(lab_next(state) >> 11) * 0x1.0p-53; }

static int32_t add_tensor(lab_model *m, int32_t rows, int32_t cols, int kind, int decay) {
    lab_tensor *t = &m->tensors[m->ntensors++];
    t->offset = m->nparams;
    t->rows = rows;
    t->cols = cols;
    t->kind = kind;
    t->decay = decay;
    m->nparams += rows * cols;
    return t->offset;
}

/* Selection sampling (Knuth's algorithm S): len distinct positions below
 * npos, in increasing order, each subset equally likely. */
static void sorted_sample(int32_t *out, int32_t len, int32_t npos, uint64_t *rng) {
    for (int32_t p = 0, taken = 0; taken < len; p++)
        if (lab_uniform(rng) * (npos - p) < len - taken) out[taken++] = p;
}

void lab_positions(lab_model *m, int32_t batch, int32_t len, uint64_t *rng) {
    for (int32_t b = 0; b < batch; b++) {
        int32_t *p = m->posn + (size_t)b * len;
        if (rng && m->cfg[LAB_C_RANDPOS]) sorted_sample(p, len, m->npos, rng);
        else
            for (int32_t t = 0; t < len; t++) p[t] = t;
    }
}

static void layout_params(lab_model *m) {
    int32_t d = m->d;
    m->tok = add_tensor(m, m->vocab, d, LAB_K_TOKEN, 0);
    m->pos = m->cfg[LAB_C_ENCODING] == PE_LAB_LEARNED ? add_tensor(m, m->npos, d, LAB_K_POSITION, 0) : -1;
    for (int32_t l = 0; l < m->layers; l++) {
        lab_block *b = &m->blocks[l];
        b->g1 = add_tensor(m, 1, d, LAB_K_NORM_GAIN, 0);
        b->b1 = add_tensor(m, 1, d, LAB_K_NORM_BIAS, 0);
        b->wq = add_tensor(m, d, d, LAB_K_QUERY, 1);
        b->wk = add_tensor(m, d, d, LAB_K_KEY, 1);
        b->wv = add_tensor(m, d, d, LAB_K_VALUE, 1);
        b->wo = add_tensor(m, d, d, LAB_K_OUT, 1);
        b->t5 = m->cfg[LAB_C_ENCODING] == PE_LAB_T5
                    ? add_tensor(m, m->heads, m->cfg[LAB_C_BUCKETS], LAB_K_T5, 0)
                    : -1;
        b->g2 = b->b2 = b->w1 = b->c1 = b->w2 = b->c2 = -1;
        if (m->mlp) {
            b->g2 = add_tensor(m, 1, d, LAB_K_NORM_GAIN, 0);
            b->b2 = add_tensor(m, 1, d, LAB_K_NORM_BIAS, 0);
            b->w1 = add_tensor(m, d, m->mlp, LAB_K_MLP_IN, 1);
            b->c1 = add_tensor(m, 1, m->mlp, LAB_K_MLP_IN_BIAS, 0);
            b->w2 = add_tensor(m, m->mlp, d, LAB_K_MLP_OUT, 1);
            b->c2 = add_tensor(m, 1, d, LAB_K_MLP_OUT_BIAS, 0);
        }
    }
    m->gf = add_tensor(m, 1, d, LAB_K_NORM_GAIN, 0);
    m->bf = add_tensor(m, 1, d, LAB_K_NORM_BIAS, 0);
    m->wout = add_tensor(m, d, m->classes, LAB_K_HEAD, 1);
    m->bout = add_tensor(m, 1, m->classes, LAB_K_HEAD_BIAS, 0);
}

/* Uniform with the given standard deviation; gains start at 1, biases at 0. */
static void init_params(lab_model *m) {
    for (int32_t i = 0; i < m->ntensors; i++) {
        const lab_tensor *t = &m->tensors[i];
        lab_real *p = m->params + t->offset;
        int32_t n = t->rows * t->cols;
        double std = 0;
        switch (t->kind) {
        case LAB_K_TOKEN: std = 1; break;
        case LAB_K_QUERY:
        case LAB_K_KEY:
        case LAB_K_VALUE:
        case LAB_K_OUT:
        case LAB_K_MLP_IN:
        case LAB_K_HEAD: std = 1 / sqrt((double)t->rows); break;
        case LAB_K_MLP_OUT: std = 1 / sqrt((double)t->rows); break;
        default: break;
        }
        double half = std * 1.7320508075688772;
        for (int32_t j = 0; j < n; j++)
            p[j] = t->kind == LAB_K_NORM_GAIN ? 1 : (lab_real)(half * (2 * lab_uniform(&m->rng) - 1));
    }
}

/* Carves aligned pieces out of the model's one allocation (or, with base
 * NULL, only counts the bytes). The count is a double: batch x heads x
 * maxLength^2 reals alone can pass 2^32 bytes, which wasm32's size_t wraps
 * (to 0 at exactly 2^32); the total is checked before it becomes a size_t. */
typedef struct {
    unsigned char *base;
    double used;
} carver;

static void *carve(carver *c, double count, size_t size) {
    double bytes = ceil(count * (double)size / 16) * 16;
    void *p = c->base ? c->base + (size_t)c->used : NULL;
    c->used += bytes;
    return p;
}

static void carve_all(lab_model *m, carver *c) {
    size_t R = sizeof(lab_real);
    double n = (double)m->batch * m->max_len, nd = n * m->d, nm = n * (m->mlp ? m->mlp : 1);
    double np = (double)m->batch * m->heads * m->max_len * m->max_len;
    m->params = carve(c, m->nparams, R);
    m->grads = carve(c, m->nparams, R);
    m->m1 = carve(c, m->nparams, R);
    m->m2 = carve(c, m->nparams, R);
    m->sin_table = carve(c, (double)m->npos * m->d, R);
    m->rope_cos = carve(c, (double)m->npos * m->d / 2, R);
    m->rope_sin = carve(c, (double)m->npos * m->d / 2, R);
    m->alibi_slopes = carve(c, m->heads, sizeof(double));
    m->t5_bucket = carve(c, 2.0 * m->npos, sizeof(int32_t));
    for (int32_t l = 0; l < m->layers; l++) {
        lab_acts *a = &m->acts[l];
        a->x = carve(c, nd, R);
        a->xhat1 = carve(c, nd, R);
        a->h1 = carve(c, nd, R);
        a->q = carve(c, nd, R);
        a->k = carve(c, nd, R);
        a->v = carve(c, nd, R);
        a->p = carve(c, np, R);
        a->ctx = carve(c, nd, R);
        a->xmid = carve(c, nd, R);
        a->xhat2 = carve(c, nd, R);
        a->h2 = carve(c, nd, R);
        a->u = carve(c, nm, R);
        a->a = carve(c, nm, R);
        a->rstd1 = carve(c, n, sizeof(double));
        a->rstd2 = carve(c, n, sizeof(double));
    }
    m->xf = carve(c, nd, R);
    m->xhatf = carve(c, nd, R);
    m->hf = carve(c, nd, R);
    m->logits = carve(c, n * m->classes, R);
    m->dx = carve(c, nd, R);
    m->dh = carve(c, nd, R);
    m->dq = carve(c, nd, R);
    m->dk = carve(c, nd, R);
    m->dv = carve(c, nd, R);
    m->dctx = carve(c, nd, R);
    m->dp = carve(c, (double)m->max_len * m->max_len, R);
    m->da = carve(c, nm, R);
    m->dmid = carve(c, nd, R);
    m->rstdf = carve(c, n, sizeof(double));
    m->wt = carve(c, (double)m->d * (m->mlp > m->d ? m->mlp : m->d), R);
    m->tokens = carve(c, n, sizeof(int32_t));
    m->targets = carve(c, n, sizeof(int32_t));
    m->posn = carve(c, n, sizeof(int32_t));
}

static int in_range(int32_t v, int32_t lo, int32_t hi) { return v >= lo && v <= hi; }

static int check_config(const int32_t *c, const double *f) {
    if (!in_range(c[LAB_C_VOCAB], 2, PE_LAB_MAX_VOCAB) || !in_range(c[LAB_C_CLASSES], 2, PE_LAB_MAX_VOCAB)
        || !in_range(c[LAB_C_DMODEL], PE_LAB_MIN_DMODEL, PE_LAB_MAX_DMODEL)
        || !in_range(c[LAB_C_HEADS], 1, PE_LAB_MAX_HEADS) || !in_range(c[LAB_C_LAYERS], 1, PE_LAB_MAX_LAYERS)
        || !in_range(c[LAB_C_MLP], 0, PE_LAB_MAX_MLP) || !in_range(c[LAB_C_MAXLEN], 1, PE_LAB_MAX_TOKENS)
        || !in_range(c[LAB_C_BATCH], 1, PE_LAB_MAX_BATCH))
        return PE_ERR_SIZE;
    if (c[LAB_C_RANDPOS] && !in_range(c[LAB_C_RANDPOS], c[LAB_C_MAXLEN], PE_LAB_MAX_POSITIONS))
        return PE_ERR_SIZE;
    /* T5's bias table is heads x buckets parameters: bounded before the layout counts them */
    if (c[LAB_C_ENCODING] == PE_LAB_T5
        && (!in_range(c[LAB_C_BUCKETS], PE_LAB_MIN_BUCKETS, PE_LAB_MAX_BUCKETS)
            || !in_range(c[LAB_C_MAXDIST], 1, PE_LAB_MAX_DISTANCE)))
        return PE_ERR_SIZE;
    if (c[LAB_C_DMODEL] % c[LAB_C_HEADS]) return PE_ERR_SHAPE;
    if (!in_range(c[LAB_C_ENCODING], 0, PE_LAB_ENCODINGS_ - 1) || !in_range(c[LAB_C_CAUSAL], 0, 1)
        || c[LAB_C_SEED] < 0)
        return PE_ERR_OPTION;
    if (c[LAB_C_ENCODING] == PE_LAB_ROPE && (c[LAB_C_DMODEL] / c[LAB_C_HEADS]) % 2) return PE_ERR_ODD;
    /* T5: pe_t5_bucket's rules (an exact and a logarithmic bucket each way, a distance past the exact ones),
     * here: found by position_data, they were refused after the block had grown wasm memory (788 MiB kept) */
    if (c[LAB_C_ENCODING] == PE_LAB_T5) {
        int32_t exact = (c[LAB_C_CAUSAL] ? c[LAB_C_BUCKETS] : c[LAB_C_BUCKETS] / 2) / 2;
        if (exact < 1) return PE_ERR_SIZE;
        if (c[LAB_C_MAXDIST] <= exact) return PE_ERR_VALUE;
    }
    /* the rest of position_data's checks, here too: a sinusoidal layout, rule or base and a RoPE base
     * were refused by pe_table and pe_rope_cache once the block was made (pe_lab_model_bytes counted them) */
    if (c[LAB_C_ENCODING] == PE_LAB_SINUSOIDAL)
        PE_TRY(pe_check_spec(c[LAB_C_DMODEL], c[LAB_C_LAYOUT], c[LAB_C_FREQ], f[LAB_F_SINBASE]));
    if (c[LAB_C_ENCODING] == PE_LAB_ROPE) PE_TRY(pe_check_base(f[LAB_F_ROPEBASE]));
    /* the betas are tested as stored: one that rounds to 1 in float32 would stop the moments */
    if (!(f[LAB_F_LR] > 0 && f[LAB_F_LR] <= 1) || !(f[LAB_F_BETA1] >= 0 && (lab_real)f[LAB_F_BETA1] < 1)
        || !(f[LAB_F_BETA2] >= 0 && (lab_real)f[LAB_F_BETA2] < 1)
        || !(f[LAB_F_EPS] >= PE_LAB_MIN_EPS && f[LAB_F_EPS] <= 1)
        || !(f[LAB_F_DECAY] >= 0 && f[LAB_F_DECAY] <= 1) || !(f[LAB_F_CLIP] >= 0 && isfinite(f[LAB_F_CLIP]))
        || !(f[LAB_F_ALIBIBIAS] > 0 && f[LAB_F_ALIBIBIAS] <= PE_LAB_MAX_ALIBI_BIAS))
        return PE_ERR_VALUE;
    return PE_OK;
}

/* The position data of the encoding, from the core's own functions. */
static int position_data(lab_model *m) {
    int32_t L = m->npos, enc = m->cfg[LAB_C_ENCODING];
    if (enc == PE_LAB_SINUSOIDAL)
        return pe_table(m->sin_table, DTYPE, L, m->d, m->cfg[LAB_C_LAYOUT], m->cfg[LAB_C_FREQ],
                        m->fcfg[LAB_F_SINBASE], 0, -1);
    if (enc == PE_LAB_LEARNED)
        return pe_learned_table(
            m->params + m->pos, DTYPE, L, m->d, m->cfg[LAB_C_SEED], PE_DIST_UNIFORM,
            1.2247448713915890); /* standard deviation 1/sqrt(2) per element, as a sinusoid's */
    if (enc == PE_LAB_ROPE)
        return pe_rope_cache(m->rope_cos, m->rope_sin, DTYPE, L, m->hd, m->fcfg[LAB_F_ROPEBASE],
                             PE_ROPE_DEFAULT, NULL, 0, PE_ROPE_CACHE_PAIRS);
    if (enc == PE_LAB_ALIBI)
        return pe_alibi_slopes(m->alibi_slopes, m->heads, PE_ALIBI_PRESS, m->fcfg[LAB_F_ALIBIBIAS]);
    if (enc == PE_LAB_T5) {
        /* relative positions j - i for -(L-1) .. L-1, bucketed in place */
        for (int32_t r = 0; r < 2 * L - 1; r++) m->t5_bucket[r] = r - (L - 1);
        return pe_t5_bucket(m->t5_bucket, m->t5_bucket, 2 * L - 1, !m->cfg[LAB_C_CAUSAL],
                            m->cfg[LAB_C_BUCKETS], m->cfg[LAB_C_MAXDIST], 0);
    }
    return PE_OK;
}

/* Fills m's sizes and parameter layout from a checked cfg; returns the bytes
 * of its one block (a double: they may pass 2^32 in wasm32). */
static double model_layout(lab_model *m, const int32_t *cfg, const double *fcfg) {
    memset(m, 0, sizeof *m);
    memcpy(m->cfg, cfg, sizeof m->cfg);
    memcpy(m->fcfg, fcfg, sizeof m->fcfg);
    m->vocab = cfg[LAB_C_VOCAB];
    m->classes = cfg[LAB_C_CLASSES];
    m->d = cfg[LAB_C_DMODEL];
    m->heads = cfg[LAB_C_HEADS];
    m->hd = m->d / m->heads;
    m->layers = cfg[LAB_C_LAYERS];
    m->mlp = cfg[LAB_C_MLP];
    m->max_len = cfg[LAB_C_MAXLEN];
    m->batch = cfg[LAB_C_BATCH];
    m->npos = cfg[LAB_C_RANDPOS] ? cfg[LAB_C_RANDPOS] : m->max_len;
    m->rng = (uint64_t)cfg[LAB_C_SEED] * 0x2545F4914F6CDD1Dull + 1;
    layout_params(m);
    carver c = { NULL, 0 };
    carve_all(m, &c);
    return c.used;
}

/*
 * What position_data allocates beside the block, freed before it returns: pe_table's frequencies and
 * oscillator (its OSC_SCRATCH) or pe_rope_cache's (and its state), with room for their chunks' rounding.
 * Counted with the block: pe_table and pe_rope_cache refused their scratch past the limit once the block was
 * made, so a model counted within a few hundred bytes of it was refused for its size after growing memory by
 * 1 GiB.
 */
static double position_scratch(const int32_t *c) {
    int enc = c[LAB_C_ENCODING];
    if (enc != PE_LAB_SINUSOIDAL && enc != PE_LAB_ROPE) return 0;
    int32_t width = enc == PE_LAB_ROPE ? c[LAB_C_DMODEL] / c[LAB_C_HEADS] : c[LAB_C_DMODEL];
    return 5.0 * 8 * (width / 2 + 2) + 1024;
}

int lab_model_bytes(double *out, const int32_t *cfg, const double *fcfg) {
    if (!out || !cfg || !fcfg) return PE_ERR_NULL;
    PE_TRY(check_config(cfg, fcfg));
    lab_model *m = pe_malloc(sizeof *m);
    if (!m) return PE_ERR_NOMEM;
    out[0] = model_layout(m, cfg, fcfg) + sizeof *m + position_scratch(cfg);
    out[1] = m->nparams;
    pe_free(m);
    return PE_OK;
}

int lab_model_create(lab_model **out, const int32_t *cfg, const double *fcfg) {
    if (!out || !cfg || !fcfg) return PE_ERR_NULL;
    *out = NULL;
    PE_TRY(check_config(cfg, fcfg));
    lab_model *m = pe_malloc(sizeof *m);
    if (!m) return PE_ERR_NOMEM;
    double used = model_layout(m, cfg, fcfg), scratch = position_scratch(cfg);
    int status = pe_check_bytes(used + sizeof *m + scratch, 1); /* what pe_lab_model_bytes counts */
    /* and the room for the block and its scratch beside what is live now, as pe_malloc would find it */
    if (status == PE_OK && pe_check_scratch(used + scratch) != PE_OK) status = PE_ERR_NOMEM;
    if (status == PE_OK && !(m->block = pe_malloc((size_t)used))) status = PE_ERR_NOMEM;
    if (status != PE_OK) {
        pe_free(m);
        return status;
    }
    memset(m->block, 0, (size_t)used);
    carver c = { m->block, 0 };
    carve_all(m, &c);
    init_params(m);
    m->adam_b1t = m->adam_b2t = 1;
    if ((status = position_data(m)) != PE_OK) {
        lab_model_free(m);
        return status;
    }
    *out = m;
    return PE_OK;
}

void lab_model_free(lab_model *m) {
    if (!m) return;
    pe_free(m->block);
    pe_free(m);
}
