/*
 * float32, float16 and bfloat16: rounding (to nearest, ties to even, straight
 * from double so that nothing is rounded twice) and the error of the
 * sinusoidal table when its angles or its values are held in those formats.
 *
 *   float32   8 exponent bits, 23 fraction bits (IEEE 754 binary32)
 *   float16   5 exponent bits, 10 fraction bits (IEEE 754 binary16; max 65504)
 *   bfloat16  8 exponent bits,  7 fraction bits (float32's range, 8 significant bits)
 */
#include <math.h>
#include <string.h>
#include "internal.h"
#include "posenc_variants.h"
#include "mathlib.h"

typedef struct {
    int ebits, mbits;
} pe_format;

static int format_of(int format, pe_format *f) {
    switch (format) {
    case PE_F32:
        f->ebits = 8;
        f->mbits = 23;
        return PE_OK;
    case PE_F16:
        f->ebits = 5;
        f->mbits = 10;
        return PE_OK;
    case PE_BF16:
        f->ebits = 8;
        f->mbits = 7;
        return PE_OK;
    default: return PE_ERR_OPTION;
    }
}

/* The bit pattern of x rounded to f. */
static uint32_t to_bits(double x, pe_format f) {
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    uint32_t sign = (uint32_t)(b >> 63) << (f.ebits + f.mbits);
    uint32_t exp_all = ((1u << f.ebits) - 1) << f.mbits;
    int dexp = (int)((b >> 52) & 0x7FF);
    uint64_t man = b & ((1ull << 52) - 1);
    if (dexp == 0x7FF) return sign | exp_all | (man ? 1u << (f.mbits - 1) : 0); /* inf, quiet NaN */
    if (dexp == 0) return sign; /* zero, or a double subnormal: far below every format's range */
    int bias = (1 << (f.ebits - 1)) - 1, emin = 1 - bias, e = dexp - 1023;
    if (e > bias) return sign | exp_all;
    uint64_t sig = man | (1ull << 52); /* value = sig * 2^(e - 52) */
    int shift = e >= emin ? 52 - f.mbits : 52 - f.mbits + (emin - e);
    if (shift > 53) return sign; /* below half the smallest subnormal */
    uint64_t q = sig >> shift, rem = sig & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) q++;
    if (e < emin) return sign | (uint32_t)q; /* subnormal; q = 2^mbits is the smallest normal */
    /* q in [2^mbits, 2^(mbits+1)]: adding carries into the exponent, up to infinity. */
    return sign | (((uint32_t)(e + bias) << f.mbits) + (uint32_t)(q - (1ull << f.mbits)));
}

static double from_bits(uint32_t bits, pe_format f) {
    int bias = (1 << (f.ebits - 1)) - 1;
    uint32_t man = bits & ((1u << f.mbits) - 1);
    int e = (int)((bits >> f.mbits) & ((1u << f.ebits) - 1));
    double sign = (bits >> (f.ebits + f.mbits)) & 1 ? -1.0 : 1.0;
    if (e == (1 << f.ebits) - 1) return man ? NAN : sign * INFINITY;
    if (e == 0) return sign * ldexp((double)man, 1 - bias - f.mbits);
    return sign * ldexp((double)(man | (1u << f.mbits)), e - bias - f.mbits);
}

static double round_to(double x, int format) {
    if (format == PE_F64) return x;
    pe_format f;
    format_of(format, &f);
    return from_bits(to_bits(x, f), f);
}

static int check_format(int format) {
    return (format == PE_F32 || format == PE_F64 || format == PE_F16 || format == PE_BF16) ? PE_OK
                                                                                           : PE_ERR_OPTION;
}

int pe_round(double *out, const double *x, int32_t n, int format) {
    if (!out || !x) return PE_ERR_NULL;
    PE_TRY(pe_check_dim(n));
    PE_TRY(check_format(format));
    for (int32_t i = 0; i < n; i++) out[i] = round_to(x[i], format);
    return PE_OK;
}

int pe_format_bits(uint32_t *out, const double *x, int32_t n, int format) {
    if (!out || !x) return PE_ERR_NULL;
    PE_TRY(pe_check_dim(n));
    pe_format f;
    PE_TRY(format_of(format, &f));
    for (int32_t i = 0; i < n; i++) out[i] = to_bits(x[i], f);
    return PE_OK;
}

int pe_precision_error(double *out, const double *positions, int32_t n, int32_t d_model, int layout, int freq,
                       double base, int format, int mode) {
    if (!out || !positions) return PE_ERR_NULL;
    PE_TRY(pe_check_dim(n));
    PE_TRY(check_format(format));
    if (mode < PE_PREC_ANGLE || mode > PE_PREC_BOTH) return PE_ERR_OPTION;
    PE_TRY(pe_check_dim(d_model));
    if ((double)n * d_model > PE_PRECISION_MAX_WORK) return PE_ERR_SIZE;
    for (int32_t k = 0; k < n; k++) PE_TRY(pe_check_position(positions[k]));
    pe_spec sp;
    PE_TRY(pe_spec_init(&sp, d_model, layout, freq, base));
    int status = pe_check_scratch(((double)sp.nf + 1) * sizeof(double));
    double *wr = status ? NULL : pe_malloc(((size_t)sp.nf + 1) * sizeof *wr);
    if (!wr) {
        pe_spec_free(&sp);
        return status ? status : PE_ERR_NOMEM;
    }
    for (int32_t i = 0; i < sp.nf; i++) wr[i] = round_to(sp.w[i], format);
    int angle = mode != PE_PREC_RESULT, result = mode != PE_PREC_ANGLE;
    for (int32_t k = 0; k < n; k++) {
        double p = positions[k], pr = round_to(p, format), worst = 0.0;
        for (int32_t i = 0; i < sp.nf; i++) {
            double a = p * sp.w[i], s, c, s2, c2; /* pe_sincos: both at the cost of one */
            pe_sincos(a, &s, &c);
            /* The product of two values of these formats is exact in double,
             * so rounding it once is the format's own multiplication. */
            double ar = angle ? round_to(pr * wr[i], format) : a;
            if (angle) pe_sincos(ar, &s2, &c2);
            else s2 = s, c2 = c;
            if (result) {
                s2 = round_to(s2, format);
                c2 = round_to(c2, format);
            }
            double es = fabs(s2 - s), ec = i < sp.h ? fabs(c2 - c) : 0.0;
            if (!isfinite(es) || !isfinite(ec)) {
                worst = INFINITY;
                break;
            }
            if (es > worst) worst = es;
            if (ec > worst) worst = ec;
        }
        out[k] = worst;
    }
    pe_free(wr);
    pe_spec_free(&sp);
    return PE_OK;
}
