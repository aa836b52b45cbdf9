/*
 * RoPE's frequencies and their scalings, with the attention factor; the
 * caches and the rotation that use them are in rope.c.
 *
 * They follow Hugging Face transformers' modeling_rope_utils.py:
 *   default  _compute_default_rope_parameters   theta_i = base^(-2i/dim)
 *   linear   _compute_linear_scaling_rope_parameters   theta_i / factor
 *   ntk      _compute_ntk_parameters             base * factor^(dim/(dim-2))
 *   yarn     _compute_yarn_parameters            ramp between interpolation and
 *            extrapolation over the correction range of beta_fast..beta_slow
 *            rotations; cos and sin are multiplied by the attention factor
 *   llama3   _compute_llama3_parameters          wavelength bands of Llama 3.1
 *   dynamic  _compute_dynamic_ntk_parameters     NTK with the factor grown by seq_len
 *   longrope _compute_longrope_parameters        per-frequency divisors (Phi-3)
 *   proportional _compute_proportional_rope_parameters  base^(-2i/dim) for a
 *            share of the pairs, 0 for the rest, all / factor
 * The struct pe_rope_params carries their parameters by name (posenc_variants.h).
 * HF forms them in float32; here everything is double (angles too), so values
 * are the exact formulas rounded once at the output.
 */
#include <math.h>
#include "internal.h"
#include "posenc_variants.h"
#include "mathlib.h"
#include "rope.h"

static const double TWO_PI = 6.283185307179586476925286766559;

/* Parameters after validation, with defaults filled in. ext: the per-frequency
 * divisors of longrope (short or long set, chosen by seq_len), else NULL. */
typedef struct {
    double factor, low, high, orig, beta_fast, beta_slow, attention, scale, fraction;
    int truncate;
    const double *ext;
} rope_params;

static int in_range(double x) { return x >= PE_ROPE_PARAM_MIN && x <= PE_ROPE_PARAM_MAX; }
static int orig_ok(double x) { return x >= 1 && x <= PE_MAX_POSITION; }
/* An optional parameter: 0 (absent) or within the parameter range. */
static int opt_ok(double x) { return x == 0 || in_range(x); }

/* HF's get_mscale(scale, mscale): 1 for scale <= 1, else 0.1 mscale ln(scale) + 1. */
static double mscale(double factor, double m) { return factor <= 1 ? 1.0 : 0.1 * m * pe_log(factor) + 1.0; }

/* Every double field of q is finite (the longrope factors are checked where read). */
static int fields_finite(const pe_rope_params *q) {
    const double f[] = { q->factor,         q->low_freq_factor, q->high_freq_factor, q->original_max_position,
                         q->beta_fast,      q->beta_slow,       q->attention_factor, q->max_position,
                         q->seq_len,        q->mscale,          q->mscale_all_dim,   q->truncate,
                         q->rotary_fraction };
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        if (!isfinite(f[i])) return 0;
    return 1;
}

/* The factor of yarn and longrope: given, or HF's max_position_embeddings / original. */
static int implied_factor(rope_params *p, const pe_rope_params *q) {
    if (p->factor) return in_range(p->factor);
    if (!orig_ok(q->max_position) || !orig_ok(p->orig)) return 0;
    p->factor = q->max_position / p->orig;
    return in_range(p->factor);
}

/* seq_len: q->seq_len when set, else `seen` (the largest position + 1 of the call,
 * 0 when there are none); dynamic and longrope read it as HF's seq_len. */
static int read_params(rope_params *p, int scaling, const pe_rope_params *q, int32_t dim, double seen) {
    if (scaling < PE_ROPE_DEFAULT || scaling > PE_ROPE_PROPORTIONAL) return PE_ERR_OPTION;
    *p = (rope_params){ .factor = 1.0, .attention = 1.0, .scale = 1.0, .fraction = 1.0 };
    if (scaling == PE_ROPE_DEFAULT) return PE_OK;
    if (!q) return PE_ERR_NULL;
    if (!fields_finite(q)) return PE_ERR_VALUE;
    p->factor = q->factor;
    p->low = q->low_freq_factor;
    p->high = q->high_freq_factor;
    p->orig = q->original_max_position;
    p->beta_fast = q->beta_fast;
    p->beta_slow = q->beta_slow;
    p->truncate = q->truncate != 0;
    double max_pos = q->max_position, seq = q->seq_len ? q->seq_len : seen, given = q->attention_factor;
    /* Bounded so that no frequency or correction dimension can overflow or
     * vanish: a factor of 1e-300 would turn theta / factor into infinity. */
    int lazy = scaling == PE_ROPE_LONGROPE || scaling == PE_ROPE_YARN; /* factor 0: implied */
    int ok = (p->factor == 0 && lazy) || in_range(p->factor);
    ok = ok && opt_ok(given) && (q->seq_len == 0 || orig_ok(q->seq_len));
    if ((scaling == PE_ROPE_NTK || scaling == PE_ROPE_DYNAMIC) && dim < 4)
        return PE_ERR_SIZE; /* dim/(dim-2) */
    switch (scaling) {
    case PE_ROPE_NTK: p->scale = p->factor; break;
    case PE_ROPE_DYNAMIC:
        /* HF _compute_dynamic_ntk_parameters: seq_len = max(seq_len, max_position_embeddings). */
        ok = ok && orig_ok(max_pos);
        if (!ok) break;
        if (seq < max_pos) seq = max_pos;
        p->scale = p->factor * seq / max_pos - (p->factor - 1);
        break;
    case PE_ROPE_LLAMA3:
        /* high <= low is HF's warning, not an error: the blended band is then empty */
        ok = ok && in_range(p->low) && in_range(p->high) && orig_ok(p->orig);
        break;
    case PE_ROPE_YARN:
        ok = ok && orig_ok(p->orig) && in_range(p->beta_fast) && in_range(p->beta_slow) && opt_ok(q->mscale)
             && opt_ok(q->mscale_all_dim) && implied_factor(p, q);
        if (!ok) break;
        /* DeepSeek: with both mscale and mscale_all_dim, their ratio. */
        p->attention = given ? given
                       : q->mscale && q->mscale_all_dim
                           ? mscale(p->factor, q->mscale) / mscale(p->factor, q->mscale_all_dim)
                           : mscale(p->factor, 1);
        break;
    case PE_ROPE_LONGROPE: {
        /* Phi-3: factor defaults to max_position_embeddings / original; ln(orig) divides. */
        ok = ok && orig_ok(p->orig) && p->orig > 1 && implied_factor(p, q);
        if (!ok) break;
        p->attention = given ? given : p->factor <= 1 ? 1.0 : sqrt(1 + pe_log(p->factor) / pe_log(p->orig));
        /* long factors past the original length; each factor is checked where the frequencies are formed */
        p->ext = q->factors + (seq > p->orig ? dim / 2 : 0);
        break;
    }
    case PE_ROPE_PROPORTIONAL:
        p->fraction = q->rotary_fraction;
        ok = ok && p->fraction > 0 && p->fraction <= 1;
        break;
    default: break;
    }
    return ok ? PE_OK : PE_ERR_VALUE;
}

/* HF find_correction_dim: the dimension whose wavelength turns num_rotations times in orig. */
static double correction_dim(double rotations, int32_t dim, double base, double orig) {
    return (dim * pe_log(orig / (rotations * TWO_PI))) / (2 * pe_log(base));
}

static void fill_frequencies(double *w, int32_t dim, double base, int scaling, const rope_params *p) {
    int32_t h = dim / 2;
    double lo = 0, hi = 1;
    if (scaling == PE_ROPE_YARN) {
        /* HF find_correction_range: floor / ceil (truncate, the default), clamped
         * to [0, dim-1]; equal ends get HF's 0.001 "prevent singularity". */
        lo = correction_dim(p->beta_fast, dim, base, p->orig);
        hi = correction_dim(p->beta_slow, dim, base, p->orig);
        if (p->truncate) {
            lo = floor(lo);
            hi = ceil(hi);
        }
        lo = lo < 0 ? 0 : lo;
        hi = hi > dim - 1 ? dim - 1 : hi;
        if (lo == hi) hi += 0.001;
    }
    /* proportional: int(partial_rotary_factor * head_dim // 2) pairs rotate, the rest get 0 */
    int32_t rotating = scaling == PE_ROPE_PROPORTIONAL ? (int32_t)floor(p->fraction * dim / 2) : h;
    for (int32_t i = 0; i < h; i++) {
        double f = i < rotating ? pe_pow(base, -2.0 * i / dim) : 0,
               keep = 0; /* keep: the share of f left unscaled */
        switch (scaling) {
        case PE_ROPE_LINEAR:
        case PE_ROPE_PROPORTIONAL: break;
        case PE_ROPE_LLAMA3: {
            double wavelen = TWO_PI / f;
            /* high frequencies kept, low ones divided, a smooth blend between */
            keep = wavelen < p->orig / p->high  ? 1
                   : wavelen > p->orig / p->low ? 0
                   : p->high <= p->low          ? 0 /* HF: 0/0 there; an empty band here */
                                                : (p->orig / wavelen - p->low) / (p->high - p->low);
            break;
        }
        case PE_ROPE_YARN: {
            double ramp = (i - lo) / (hi - lo);
            keep = 1 - (ramp < 0 ? 0 : ramp > 1 ? 1 : ramp); /* HF's extrapolation factor */
            break;
        }
        default: keep = 1; break; /* default, NTK, dynamic: the base carries the scaling */
        }
        f = (f / p->factor) * (1 - keep) + f * keep;
        w[i] = p->ext ? f / p->ext[i] : f;
    }
}

int pe_rope_check_dim(int32_t dim) {
    PE_TRY(pe_check_dim(dim));
    return dim % 2 ? PE_ERR_ODD : PE_OK;
}

/* theta (dim/2 values, owned: pe_free them) and the attention factor; with w
 * NULL, only the checks and the attention factor (the longrope factors unread). */
int pe_rope_make_frequencies(double **w, double *attention, int32_t dim, double base, int scaling,
                             const pe_rope_params *params, double seen) {
    PE_TRY(pe_rope_check_dim(dim));
    PE_TRY(pe_check_base(base));
    rope_params p;
    PE_TRY(read_params(&p, scaling, params, dim, seen));
    /* HF's NTK base, base * scale^(dim/(dim-2)) (scale: the factor, or dynamic's
     * effective factor): a base near DBL_MAX times a scale > 1 overflows, and
     * every frequency would become 0 (or, through pe_pow's domain, fail an
     * assertion). Refused as a result that overflowed, before anything is allocated. */
    if (p.scale != 1) base *= pe_pow(p.scale, (double)dim / (dim - 2));
    if (!isfinite(base)) return PE_ERR_VALUE;
    *attention = p.attention;
    if (!w) return PE_OK;
    for (int32_t i = 0; p.ext && i < dim; i++)
        if (!in_range(params->factors[i])) return PE_ERR_VALUE;
    /* past the per-call limit: a size refusal (status 2), not "out of memory" */
    PE_TRY(pe_check_scratch((double)(dim / 2) * sizeof **w));
    *w = pe_malloc((size_t)(dim / 2) * sizeof **w);
    if (!*w) return PE_ERR_NOMEM;
    fill_frequencies(*w, dim, base, scaling, &p);
    return PE_OK;
}

int pe_rope_check(double *attention_factor, int32_t dim, double base, int scaling,
                  const pe_rope_params *params, double seen) {
    if (!attention_factor) return PE_ERR_NULL;
    return pe_rope_make_frequencies(NULL, attention_factor, dim, base, scaling, params, seen);
}

int pe_rope_frequencies(double *out, double *attention_factor, int32_t dim, double base, int scaling,
                        const pe_rope_params *params) {
    if (!out || !attention_factor) return PE_ERR_NULL;
    double *w;
    double a;
    PE_TRY(pe_rope_make_frequencies(&w, &a, dim, base, scaling, params, 0));
    for (int32_t i = 0; i < dim / 2; i++) out[i] = w[i];
    *attention_factor = a;
    pe_free(w);
    return PE_OK;
}
