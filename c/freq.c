/* Frequencies and column placement: the only place that knows the conventions. */
#include <assert.h>
#include <math.h>
#include "internal.h"
#include "mathlib.h"

int32_t pe_pair_count(int32_t d_model, int layout) {
    /* 0 for anything invalid, so that a caller sizing a buffer with it never gets a guess. */
    if (pe_check_dim(d_model) != PE_OK) return 0;
    if (layout < PE_LAYOUT_INTERLEAVED || layout > PE_LAYOUT_SPLIT) return 0;
    /* Concatenated layouts pad an odd width with a zero column; the others
     * give the extra column a sine of its own frequency. */
    return layout == PE_LAYOUT_CONCAT ? d_model / 2 : (d_model + 1) / 2;
}

int pe_check_spec(int32_t d_model, int layout, int freq, double base) {
    PE_TRY(pe_check_dim(d_model));
    if (layout < PE_LAYOUT_INTERLEAVED || layout > PE_LAYOUT_SPLIT) return PE_ERR_OPTION;
    if (freq != PE_FREQ_PAPER && freq != PE_FREQ_GEOM) return PE_ERR_OPTION;
    return pe_check_base(base);
}

static void fill_frequencies(double *w, int32_t nf, int32_t d_model, int freq, double base) {
    if (freq == PE_FREQ_PAPER) {
        pe_dd ln_base = pe_log_dd(base); /* pe_pow(base, y), with the log taken once */
        for (int32_t i = 0; i < nf; i++) w[i] = pe_exp_mul(-2.0 * i / d_model, ln_base);
        return;
    }
    /* tensor2tensor spaces h timescales geometrically between 1 and base; the
     * max() keeps d_model 2 and 3 finite (fairseq itself divides by zero there). */
    int32_t h = d_model / 2;
    double step = pe_log(base) / (h - 1 > 1 ? h - 1 : 1);
    for (int32_t i = 0; i < nf; i++) w[i] = pe_exp(-step * i);
}

int pe_frequencies(double *out, int32_t d_model, int layout, int freq, double base) {
    if (!out) return PE_ERR_NULL;
    PE_TRY(pe_check_spec(d_model, layout, freq, base));
    fill_frequencies(out, pe_pair_count(d_model, layout), d_model, freq, base);
    return PE_OK;
}

int pe_spec_init(pe_spec *s, int32_t d_model, int layout, int freq, double base) {
    PE_TRY(pe_check_spec(d_model, layout, freq, base));
    s->d = d_model;
    s->layout = layout;
    s->nf = pe_pair_count(d_model, layout);
    s->h = d_model / 2;
    s->w = NULL;
    if (s->nf == 0) return PE_OK; /* d_model 1 under concat: a single zero column */
    PE_TRY(pe_check_scratch((double)s->nf * sizeof *s->w));
    s->w = pe_malloc((size_t)s->nf * sizeof *s->w);
    if (!s->w) return PE_ERR_NOMEM;
    fill_frequencies(s->w, s->nf, d_model, freq, base);
    return PE_OK;
}

void pe_spec_free(pe_spec *s) {
    pe_free(s->w);
    s->w = NULL;
}

int32_t pe_sin_col(const pe_spec *s, int32_t i) {
    assert(i >= 0 && i < s->nf);
    return s->layout == PE_LAYOUT_INTERLEAVED ? 2 * i : i;
}

int32_t pe_cos_col(const pe_spec *s, int32_t i) {
    assert(i >= 0 && i < s->nf);
    if (i >= s->h) return -1; /* the lone sine of an odd width */
    switch (s->layout) {
    case PE_LAYOUT_INTERLEAVED: return 2 * i + 1;
    case PE_LAYOUT_CONCAT: return s->h + i;
    default: return (s->d + 1) / 2 + i; /* split: after all ceil(d/2) sines */
    }
}

int pe_columns(int32_t *sin_cols, int32_t *cos_cols, int32_t d_model, int layout) {
    if (!sin_cols || !cos_cols) return PE_ERR_NULL;
    PE_TRY(pe_check_dim(d_model));
    if (layout < PE_LAYOUT_INTERLEAVED || layout > PE_LAYOUT_SPLIT) return PE_ERR_OPTION;
    /* The placement alone: the same pe_sin_col / pe_cos_col that pe_table
     * writes through, on a spec without frequencies. */
    pe_spec s = { d_model, layout, pe_pair_count(d_model, layout), d_model / 2, NULL };
    for (int32_t i = 0; i < s.nf; i++) {
        sin_cols[i] = pe_sin_col(&s, i);
        cos_cols[i] = pe_cos_col(&s, i);
    }
    return PE_OK;
}
