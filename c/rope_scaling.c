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
    double factor, low, high, orig, beta_fast, beta_slow, attention, scale;
    const double *ext;
} rope_params;

static int in_range(double x) { return x >= PE_ROPE_PARAM_MIN && x <= PE_ROPE_PARAM_MAX; }
static int orig_ok(double x) { return x >= 1 && x <= PE_MAX_POSITION; }
/* An optional parameter: 0 (absent) or within the parameter range. */
static int opt_ok(double x) { return x == 0 || in_range(x); }

/* HF's get_mscale(scale, mscale): 1 for scale <= 1, else 0.1 mscale ln(scale) + 1. */
static double mscale(double factor, double m) { return factor <= 1 ? 1.0 : 0.1 * m * pe_log(factor) + 1.0; }

/* seq_len: params[8] when set, else `seen` (the largest position + 1 of the call,
 * 0 when there are none); dynamic and longrope read it as HF's seq_len. */
static int read_params(rope_params *p, int scaling, const double *params, int32_t dim, double seen) {
    if (scaling < PE_ROPE_DEFAULT || scaling > PE_ROPE_LONGROPE) return PE_ERR_OPTION;
    *p = (rope_params){ .factor = 1.0, .attention = 1.0, .scale = 1.0 };
    if (scaling == PE_ROPE_DEFAULT) return PE_OK;
    if (!params) return PE_ERR_NULL;
    PE_TRY(pe_check_finite(params, PE_ROPE_PARAMS));
    p->factor = params[0];
    p->low = params[1];
    p->high = params[2];
    p->orig = params[3];
    p->beta_fast = params[4];
    p->beta_slow = params[5];
    double max_pos = params[7], seq = params[8] ? params[8] : seen, given = params[6];
    /* Bounded so that no frequency or correction dimension can overflow or
     * vanish: a factor of 1e-300 would turn theta / factor into infinity. */
    int ok = (p->factor == 0 && scaling == PE_ROPE_LONGROPE) || in_range(p->factor);
    ok = ok && opt_ok(given) && (params[8] == 0 || orig_ok(params[8]));
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
        ok = ok && in_range(p->low) && in_range(p->high) && p->high > p->low && orig_ok(p->orig);
        break;
    case PE_ROPE_YARN:
        ok = ok && orig_ok(p->orig) && in_range(p->beta_fast) && in_range(p->beta_slow) && opt_ok(params[9])
             && opt_ok(params[10]);
        /* DeepSeek: with both mscale and mscale_all_dim, their ratio. */
        p->attention = given ? given
                       : params[9] && params[10]
                           ? mscale(p->factor, params[9]) / mscale(p->factor, params[10])
                           : mscale(p->factor, 1);
        break;
    case PE_ROPE_LONGROPE: {
        /* Phi-3: factor defaults to max_position_embeddings / original; ln(orig) divides. */
        ok = ok && orig_ok(p->orig) && p->orig > 1 && (p->factor || orig_ok(max_pos));
        if (!ok) break;
        if (!p->factor) p->factor = max_pos / p->orig;
        p->attention = given ? given : p->factor <= 1 ? 1.0 : sqrt(1 + pe_log(p->factor) / pe_log(p->orig));
        const double *f = params + PE_ROPE_PARAMS;
        for (int32_t i = 0; i < dim; i++) ok = ok && isfinite(f[i]) && in_range(f[i]);
        p->ext = f + (seq > p->orig ? dim / 2 : 0); /* long factors past the original length */
        break;
    }
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
        /* HF find_correction_range (truncate=True): floor / ceil, clamped to
         * [0, dim-1]; equal ends get HF's 0.001 "prevent singularity". */
        lo = floor(correction_dim(p->beta_fast, dim, base, p->orig));
        hi = ceil(correction_dim(p->beta_slow, dim, base, p->orig));
        lo = lo < 0 ? 0 : lo;
        hi = hi > dim - 1 ? dim - 1 : hi;
        if (lo == hi) hi += 0.001;
    }
    for (int32_t i = 0; i < h; i++) {
        double f = pe_pow(base, -2.0 * i / dim), keep = 0; /* keep: the share of f left unscaled */
        switch (scaling) {
        case PE_ROPE_LINEAR: break;
        case PE_ROPE_LLAMA3: {
            double wavelen = TWO_PI / f;
            /* high frequencies kept, low ones divided, a smooth blend between */
            keep = wavelen < p->orig / p->high  ? 1
                   : wavelen > p->orig / p->low ? 0
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

/* theta (dim/2 values, owned: pe_free them) and the attention factor. */
int pe_rope_make_frequencies(double **w, double *attention, int32_t dim, double base, int scaling,
                             const double *params, double seen) {
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
    /* past the per-call limit: a size refusal (status 2), not "out of memory" */
    PE_TRY(pe_check_scratch((double)(dim / 2) * sizeof **w));
    *w = pe_malloc((size_t)(dim / 2) * sizeof **w);
    if (!*w) return PE_ERR_NOMEM;
    fill_frequencies(*w, dim, base, scaling, &p);
    *attention = p.attention;
    return PE_OK;
}

int pe_rope_frequencies(double *out, double *attention_factor, int32_t dim, double base, int scaling,
                        const double *params) {
    if (!out || !attention_factor) return PE_ERR_NULL;
    double *w;
    double a;
    PE_TRY(pe_rope_make_frequencies(&w, &a, dim, base, scaling, params, 0));
    for (int32_t i = 0; i < dim / 2; i++) out[i] = w[i];
    *attention_factor = a;
    pe_free(w);
    return PE_OK;
}
