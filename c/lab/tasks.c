/* Tasks that need word order, generated from a seed.
 *
 * who-did-what: n tokens hold a doer X, a verb and a receiver Y in that order
 *   at random positions, filler words elsewhere, then a query token; the
 *   answer (read at the query) is X. Without positions X and Y look alike.
 * shift: n random symbols; at each position i >= 2 the answer is the symbol
 *   two places back.
 * copy / reverse: n random symbols, a separator, n blanks; at blank j the
 *   answer is symbol j (copy) or symbol n - 1 - j (reverse).
 * Targets are -1 where there is nothing to predict. */
#include "lab.h"

enum { NAMES = 8, VERBS = 4, FILLERS = 4, SYMBOLS = 10, SHIFT_BACK = 2 };
#define WHO_VERB NAMES
#define WHO_FILLER (NAMES + VERBS)
#define WHO_QUERY (NAMES + VERBS + FILLERS)
#define SEQ_SEP SYMBOLS
#define SEQ_BLANK (SYMBOLS + 1)

static int32_t draw(uint64_t *rng, int32_t n) { return (int32_t)(lab_uniform(rng) * n); }

int lab_task_shape(int task, int32_t *vocab, int32_t *classes) {
    switch (task) {
    case PE_LAB_WHO:
        *vocab = WHO_QUERY + 1;
        *classes = NAMES;
        return PE_OK;
    case PE_LAB_SHIFT:
        *vocab = SYMBOLS;
        *classes = SYMBOLS;
        return PE_OK;
    case PE_LAB_COPY:
    case PE_LAB_REVERSE:
        *vocab = SEQ_BLANK + 1;
        *classes = SYMBOLS;
        return PE_OK;
    default: return PE_ERR_OPTION;
    }
}

/* who-did-what needs its three words; shift, a symbol SHIFT_BACK places back. */
int32_t lab_task_min_length(int task) {
    return task == PE_LAB_WHO ? 3 : task == PE_LAB_SHIFT ? SHIFT_BACK + 1 : 1;
}

int lab_task_seq_len(int task, int32_t length, int32_t *seq_len) {
    if (task < 0 || task >= PE_LAB_TASKS_) return PE_ERR_OPTION;
    if (length < lab_task_min_length(task) || length > PE_LAB_MAX_LENGTH) return PE_ERR_SIZE;
    *seq_len = task == PE_LAB_WHO ? length + 1 : task == PE_LAB_SHIFT ? length : 2 * length + 1;
    return PE_OK;
}

static void who(int32_t n, uint64_t *rng, int32_t *tok, int32_t *tgt) {
    /* three distinct ordered slots among n: draw them, then sort */
    int32_t s[3];
    s[0] = draw(rng, n);
    do s[1] = draw(rng, n);
    while (s[1] == s[0]);
    do s[2] = draw(rng, n);
    while (s[2] == s[0] || s[2] == s[1]);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2 - i; j++)
            if (s[j] > s[j + 1]) {
                int32_t t = s[j];
                s[j] = s[j + 1];
                s[j + 1] = t;
            }
    int32_t x = draw(rng, NAMES), y = draw(rng, NAMES - 1);
    if (y >= x) y++;
    for (int32_t i = 0; i < n; i++) tok[i] = WHO_FILLER + draw(rng, FILLERS);
    tok[s[0]] = x;
    tok[s[1]] = WHO_VERB + draw(rng, VERBS);
    tok[s[2]] = y;
    tok[n] = WHO_QUERY;
    for (int32_t i = 0; i <= n; i++) tgt[i] = -1;
    tgt[n] = x;
}

static void sequence(int task, int32_t n, uint64_t *rng, int32_t *tok, int32_t *tgt) {
    for (int32_t i = 0; i < n; i++) tok[i] = draw(rng, SYMBOLS);
    if (task == PE_LAB_SHIFT) {
        for (int32_t i = 0; i < n; i++) tgt[i] = i >= SHIFT_BACK ? tok[i - SHIFT_BACK] : -1;
        return;
    }
    tok[n] = SEQ_SEP;
    for (int32_t i = 0; i <= n; i++) tgt[i] = -1;
    for (int32_t j = 0; j < n; j++) {
        tok[n + 1 + j] = SEQ_BLANK;
        tgt[n + 1 + j] = tok[task == PE_LAB_COPY ? j : n - 1 - j];
    }
}

int lab_task_batch(int task, int32_t length, int32_t count, uint64_t *rng, int32_t *tokens,
                   int32_t *targets) {
    int32_t T;
    PE_TRY(lab_task_seq_len(task, length, &T));
    for (int32_t b = 0; b < count; b++) {
        int32_t *tok = tokens + (size_t)b * T, *tgt = targets + (size_t)b * T;
        if (task == PE_LAB_WHO) who(length, rng, tok, tgt);
        else sequence(task, length, rng, tok, tgt);
    }
    return PE_OK;
}
