/* The lab module's entry points (c/exports/lab.txt). A model is an opaque
 * pointer from pe_lab_create, freed by pe_lab_free. */
#include <string.h>
#include "lab.h"

/* Seeds of evaluation draws live apart from training's (model.c). */
static uint64_t eval_rng(double seed) {
    return (uint64_t)seed * 0xD1B54A32D192ED03ull + 0x632BE59BD9B4E019ull;
}

static int check_seed(double seed) {
    return seed >= 0 && seed <= PE_LAB_MAX_SEED && seed == (double)(int32_t)seed ? PE_OK : PE_ERR_VALUE;
}

int32_t pe_lab_real_bytes(void) { return (int32_t)sizeof(lab_real); }

int pe_lab_task_shape(int32_t *out, int task) {
    if (!out) return PE_ERR_NULL;
    PE_TRY(lab_task_shape(task, out, out + 1));
    out[2] = lab_task_min_length(task);
    return PE_OK;
}

int pe_lab_task_seq_len(int32_t *out, int task, int32_t length) {
    if (!out) return PE_ERR_NULL;
    return lab_task_seq_len(task, length, out);
}

int pe_lab_generate(int32_t *tokens, int32_t *targets, int task, int32_t length, int32_t count, double seed) {
    if (!tokens || !targets) return PE_ERR_NULL;
    PE_TRY(check_seed(seed));
    if (count < 1 || count > PE_LAB_MAX_EXAMPLES) return PE_ERR_SIZE;
    uint64_t rng = eval_rng(seed);
    return lab_task_batch(task, length, count, &rng, tokens, targets);
}

int pe_lab_create(void **out, const int32_t *cfg, const double *fcfg) {
    return lab_model_create((lab_model **)out, cfg, fcfg);
}

int pe_lab_model_bytes(double *out, const int32_t *cfg, const double *fcfg) {
    return lab_model_bytes(out, cfg, fcfg);
}

void pe_lab_free(void *model) { lab_model_free(model); }

int32_t pe_lab_param_count(const void *model) { return model ? ((const lab_model *)model)->nparams : 0; }
lab_real *pe_lab_params(void *model) { return model ? ((lab_model *)model)->params : NULL; }
lab_real *pe_lab_grads(void *model) { return model ? ((lab_model *)model)->grads : NULL; }

/* out[5 t .. 5 t + 4] = offset, rows, cols, kind, decay of tensor t; *count tensors. */
int pe_lab_tensors(int32_t *out, int32_t *count, const void *model) {
    if (!out || !count || !model) return PE_ERR_NULL;
    const lab_model *m = model;
    for (int32_t t = 0; t < m->ntensors; t++) {
        const lab_tensor *tn = &m->tensors[t];
        int32_t row[5] = { tn->offset, tn->rows, tn->cols, tn->kind, tn->decay };
        memcpy(out + 5 * t, row, sizeof row);
    }
    *count = m->ntensors;
    return PE_OK;
}

/* Loss and accuracy of one given batch; backward != 0 also fills the gradients
 * (pe_lab_grads). out = [loss, correct, counted]. */
int pe_lab_loss(double *out, void *model, const int32_t *tokens, const int32_t *targets, int32_t batch,
                int32_t len, int backward) {
    if (!out || !model || !tokens || !targets) return PE_ERR_NULL;
    int32_t correct, counted;
    PE_TRY(lab_forward(model, tokens, targets, batch, len, out, &correct, &counted, backward, NULL));
    out[1] = correct;
    out[2] = counted;
    return PE_OK;
}

/* A task this model was built for: its vocabulary and classes are the model's. */
static int model_task(const lab_model *m, int task) {
    int32_t vocab, classes;
    PE_TRY(lab_task_shape(task, &vocab, &classes));
    return vocab != m->vocab || classes != m->classes ? PE_ERR_SHAPE : PE_OK;
}

/* steps Adam steps on fresh batches of lengths drawn from [min_len, max_len];
 * out = [mean loss, accuracy] over those steps' batches. */
/* Adds to acc = [loss sum, answers right, answers counted]: a run cut into
 * calls of any sizes sums exactly what one call would (the model holds the
 * random state), so a page can train between turns of its event loop. */
int pe_lab_train_sum(double *acc, void *model, int task, int32_t min_len, int32_t max_len, int32_t steps) {
    if (!acc || !model) return PE_ERR_NULL;
    lab_model *m = model;
    int32_t T;
    PE_TRY(model_task(m, task));
    if (min_len > max_len || steps < 1 || steps > PE_LAB_MAX_STEPS) return PE_ERR_SIZE;
    PE_TRY(lab_task_seq_len(task, min_len, &T));
    PE_TRY(lab_task_seq_len(task, max_len, &T));
    /* refused before any step: the longest draw must fit, not only the ones drawn */
    if (T > m->max_len) return PE_ERR_POSITION;
    for (int32_t s = 0; s < steps; s++) {
        int32_t len = min_len + (int32_t)(lab_uniform(&m->rng) * (max_len - min_len + 1)), correct, counted;
        double loss;
        PE_TRY(lab_task_seq_len(task, len, &T));
        lab_task_batch(task, len, m->batch, &m->rng, m->tokens, m->targets);
        PE_TRY(lab_forward(m, m->tokens, m->targets, m->batch, T, &loss, &correct, &counted, 1, &m->rng));
        lab_adam_step(m);
        acc[0] += loss;
        acc[1] += correct;
        acc[2] += counted;
    }
    return PE_OK;
}

int pe_lab_train(double *out, void *model, int task, int32_t min_len, int32_t max_len, int32_t steps) {
    double acc[3] = { 0, 0, 0 };
    if (!out) return PE_ERR_NULL;
    PE_TRY(pe_lab_train_sum(acc, model, task, min_len, max_len, steps));
    out[0] = acc[0] / steps;
    out[1] = acc[2] ? acc[1] / acc[2] : 0;
    return PE_OK;
}

/* Keeps the targets of the answers `which` scores (PE_LAB_SCORE_*). */
static void score_only(int32_t *targets, int task, int32_t length, int32_t count, int32_t T, int32_t trained,
                       int which) {
    if (which == PE_LAB_SCORE_ALL) return;
    for (int32_t t = 0; t < T; t++)
        if (lab_task_is_new(task, length, trained, t) != (which == PE_LAB_SCORE_NEW))
            for (int32_t b = 0; b < count; b++) targets[(size_t)b * T + t] = -1;
}

/* Loss and accuracy on samples fresh examples of one length, drawn from seed,
 * over the answers `which` picks for a model trained on lengths up to `trained`.
 * A model with randomized positions draws them too, from a stream of the seed's own. */
int pe_lab_evaluate(double *out, void *model, int task, int32_t length, int32_t samples, double seed,
                    int32_t trained, int which) {
    if (!out || !model) return PE_ERR_NULL;
    lab_model *m = model;
    int32_t T, Ttrained;
    PE_TRY(model_task(m, task));
    PE_TRY(lab_task_seq_len(task, length, &T));
    if (T > m->max_len) return PE_ERR_POSITION;
    if (samples < 1 || samples > PE_LAB_MAX_SAMPLES) return PE_ERR_SIZE;
    PE_TRY(check_seed(seed));
    if (which < PE_LAB_SCORE_ALL || which > PE_LAB_SCORE_NEW) return PE_ERR_OPTION;
    if (which != PE_LAB_SCORE_ALL) PE_TRY(lab_task_seq_len(task, trained, &Ttrained));
    uint64_t rng = eval_rng(seed), pos_rng = eval_rng(seed) ^ 0x9E3779B97F4A7C15ull;
    double loss_sum = 0, right = 0, total = 0;
    for (int32_t done = 0; done < samples;) {
        int32_t count = samples - done < m->batch ? samples - done : m->batch, correct, counted;
        double loss;
        lab_task_batch(task, length, count, &rng, m->tokens, m->targets);
        score_only(m->targets, task, length, count, T, trained, which);
        PE_TRY(lab_forward(m, m->tokens, m->targets, count, T, &loss, &correct, &counted, 0, &pos_rng));
        loss_sum += loss * counted;
        right += correct;
        total += counted;
        done += count;
    }
    out[0] = total ? loss_sum / total : 0;
    out[1] = total ? right / total : 0;
    out[2] = total;
    return PE_OK;
}

/* The attention weights of every layer and head for one sequence:
 * out is layers x heads x len x len. */
int pe_lab_attention(lab_real *out, void *model, const int32_t *tokens, int32_t len) {
    if (!out || !model || !tokens) return PE_ERR_NULL;
    lab_model *m = model;
    if (len < 1 || len > m->max_len) return PE_ERR_SIZE;
    double loss;
    int32_t correct, counted;
    for (int32_t t = 0; t < len; t++) m->targets[t] = -1;
    PE_TRY(lab_forward(m, tokens, m->targets, 1, len, &loss, &correct, &counted, 0, NULL));
    size_t per = (size_t)m->heads * len * len;
    for (int32_t l = 0; l < m->layers; l++) memcpy(out + l * per, m->acts[l].p, per * sizeof(lab_real));
    return PE_OK;
}
