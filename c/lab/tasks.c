/* Tasks that need word order, generated from a seed.
 *
 * who-did-what: n tokens hold a doer X, a verb and a receiver Y in that order
 *   at random positions, filler words elsewhere, then a query token; the
 *   answer (read at the query) is X. Without positions X and Y look alike.
 *   X is always the name farther from the query, a shortcut that needs
 *   distances only; the probe below tells that shortcut from word order.
 * who-did-what, reversed (a probe, for evaluation): the query first, then a
 *   who-did-what sentence's words backwards ("Y verb X"). Read left to right,
 *   the name before the verb is now Y, and it is the answer; the name farther
 *   from the query is X. A model that learned order answers Y, one that
 *   learned "farther from the query" answers X.
 * shift: n random symbols; at each position i >= 2 the answer is the symbol
 *   two places back.
 * copy / reverse: n random symbols, a separator, n blanks; at blank j the
 *   answer is symbol j (copy) or symbol n - 1 - j (reverse).
 * recency: n tokens, names (one in three, always the first, never the last) among filler
 *   words; at each filler the answer is the nearest name before it. The
 *   nearest matching token decides: ALiBi's distance penalty points at it.
 * With PE_LAB_BOS in the task, every example starts with a start token (id:
 * the task's own vocabulary size) and has one more token.
 * Targets are -1 where there is nothing to predict. */
#include "lab.h"

enum { NAMES = 8, VERBS = 4, FILLERS = 4, SYMBOLS = 10, SHIFT_BACK = 2, RECENCY_ODDS = 3 };
#define WHO_VERB NAMES
#define WHO_FILLER (NAMES + VERBS)
#define WHO_QUERY (NAMES + VERBS + FILLERS)
#define SEQ_SEP SYMBOLS
#define SEQ_BLANK (SYMBOLS + 1)

static int32_t draw(uint64_t *rng, int32_t n) { return (int32_t)(lab_uniform(rng) * n); }

static int task_id(int task) { return task & ~PE_LAB_BOS; }
static int has_bos(int task) { return (task & PE_LAB_BOS) != 0; }

int lab_task_shape(int task, int32_t *vocab, int32_t *classes) {
    switch (task_id(task)) {
    case PE_LAB_WHO:
    case PE_LAB_WHO_REVERSED:
    case PE_LAB_RECENCY:
        *vocab = WHO_QUERY + 1;
        *classes = NAMES;
        break;
    case PE_LAB_SHIFT:
        *vocab = SYMBOLS;
        *classes = SYMBOLS;
        break;
    case PE_LAB_COPY:
    case PE_LAB_REVERSE:
        *vocab = SEQ_BLANK + 1;
        *classes = SYMBOLS;
        break;
    default: return PE_ERR_OPTION;
    }
    *vocab += has_bos(task);
    return PE_OK;
}

/* who-did-what needs its three words; shift, a symbol SHIFT_BACK places back;
 * recency, a name and a filler after it. */
int32_t lab_task_min_length(int task) {
    int id = task_id(task);
    return id == PE_LAB_WHO || id == PE_LAB_WHO_REVERSED ? 3
           : id == PE_LAB_SHIFT                          ? SHIFT_BACK + 1
           : id == PE_LAB_RECENCY                        ? 2
                                                         : 1;
}

int lab_task_seq_len(int task, int32_t length, int32_t *seq_len) {
    int id = task_id(task);
    if (id < 0 || id >= PE_LAB_TASKS_ || (task & ~(PE_LAB_BOS | 0xFF))) return PE_ERR_OPTION;
    if (length < lab_task_min_length(task) || length > PE_LAB_MAX_LENGTH) return PE_ERR_SIZE;
    *seq_len = has_bos(task)
               + (id == PE_LAB_WHO || id == PE_LAB_WHO_REVERSED ? length + 1
                  : id == PE_LAB_SHIFT || id == PE_LAB_RECENCY  ? length
                                                                : 2 * length + 1);
    return PE_OK;
}

/* The example's token t is new when no training example of length up to
 * `trained` had a token there, or (copy, reverse) when the symbol it answers
 * with sat where no trained example had a symbol to copy. */
int lab_task_is_new(int task, int32_t length, int32_t trained, int32_t t) {
    int32_t T;
    if (lab_task_seq_len(task, trained, &T) != PE_OK || t >= T) return 1;
    int id = task_id(task);
    int32_t j = t - has_bos(task) - length - 1;
    if ((id == PE_LAB_COPY || id == PE_LAB_REVERSE) && j >= 0)
        return (id == PE_LAB_COPY ? j : length - 1 - j) >= trained;
    return 0;
}

/* Three distinct sorted slots among n. */
static void three_slots(uint64_t *rng, int32_t n, int32_t *s) {
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
}

static void who(int32_t n, int reversed, uint64_t *rng, int32_t *tok, int32_t *tgt) {
    int32_t s[3];
    three_slots(rng, n, s);
    int32_t x = draw(rng, NAMES), y = draw(rng, NAMES - 1);
    if (y >= x) y++;
    for (int32_t i = 0; i < n; i++) tok[i] = WHO_FILLER + draw(rng, FILLERS);
    tok[s[0]] = x;
    tok[s[1]] = WHO_VERB + draw(rng, VERBS);
    tok[s[2]] = y;
    tok[n] = WHO_QUERY;
    for (int32_t i = 0; i <= n; i++) tgt[i] = -1;
    tgt[n] = x;
    if (!reversed) return;
    /* the whole example backwards: the query first, then "Y verb X" */
    for (int32_t i = 0, j = n; i < j; i++, j--) {
        int32_t t = tok[i];
        tok[i] = tok[j];
        tok[j] = t;
    }
    tgt[n] = -1;
    tgt[0] = y;
}

static void recency(int32_t n, uint64_t *rng, int32_t *tok, int32_t *tgt) {
    int32_t last = -1;
    for (int32_t i = 0; i < n; i++) {
        /* The last token is always a filler, so that every example has an answer to
         * score (one with names only had none; the fuzz invariant caught it). The
         * odds are drawn all the same: the stream, and every other example, stay. */
        int name = i == 0 || (draw(rng, RECENCY_ODDS) == 0 && i < n - 1);
        tok[i] = name ? draw(rng, NAMES) : WHO_FILLER + draw(rng, FILLERS);
        tgt[i] = name ? -1 : last;
        if (name) last = tok[i];
    }
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
    int32_t T, vocab, classes, bos = has_bos(task), id = task_id(task);
    PE_TRY(lab_task_seq_len(task, length, &T));
    PE_TRY(lab_task_shape(task, &vocab, &classes));
    for (int32_t b = 0; b < count; b++) {
        int32_t *tok = tokens + (size_t)b * T, *tgt = targets + (size_t)b * T;
        if (bos) {
            tok[0] = vocab - 1;
            tgt[0] = -1;
        }
        if (id == PE_LAB_WHO || id == PE_LAB_WHO_REVERSED)
            who(length, id == PE_LAB_WHO_REVERSED, rng, tok + bos, tgt + bos);
        else if (id == PE_LAB_RECENCY) recency(length, rng, tok + bos, tgt + bos);
        else sequence(id, length, rng, tok + bos, tgt + bos);
    }
    return PE_OK;
}
