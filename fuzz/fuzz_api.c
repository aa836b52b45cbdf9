/*
 * libFuzzer harness over the C API of posenc (c/posenc.h).
 *
 * One input is decoded into: a flag byte (optionally making the k-th malloc of
 * the call fail; for pe_gram, FUZZ_F32 calls pe_gram_f32 instead, and for
 * pe_attention pe_attention_f32), the entry
 * point, its size/enum/number parameters and the contents of its input
 * matrices; input_format.h describes the format (fuzz/seeds.py reads it too). Sizes are mostly small (1..12) so that an
 * input runs in microseconds, with some invalid (0, -1, INT32_MIN, 2^24 + 1,
 * INT32_MAX) and some at the limits (2^24, 2^14 + 1, 11586); numbers come from
 * a palette of awkward doubles (NaN, +-inf, DBL_MAX, denormals, +-2^31, ...)
 * or raw bytes, or (flag 0x20) are continuous values within the valid ranges.
 *
 * Buffers are allocated with their exact sizes, so AddressSanitizer sees any
 * write or read past them. When the sizes are invalid or exceed the 1 GiB
 * limit (by the formula each function documents) the call gets 1-element
 * output buffers and must be refused; an input whose own sizes are valid is
 * still given in full (a function may scan it before it checks the rest).
 * Calls too big to run quickly are skipped.
 *
 * Invariants checked after every call: the status is a known code and not OK
 * for refused sizes; no allocation is outstanding (pe_live_allocations() == 0);
 * a failing malloc gives PE_ERR_NOMEM or a validation error, never a crash or a
 * leak; and on PE_OK the outputs are what they must be (finite, |PE| <= 1,
 * frequencies in (0, 1], symmetric Gram matrices, orthogonal rotations,
 * attention rows summing to 1 with masked entries 0, ...).
 *
 * Built by fuzz/run.sh (clang -fsanitize=fuzzer,address,undefined). With
 * -DPE_FUZZ_REPLAY_MAIN it gets a main() that replays files and directories
 * instead (tests/native/run.sh replays fuzz/corpus and fuzz/regressions).
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "posenc.h"
#include "posenc_variants.h"
#include "posenc_fields.h"
#include "lab/posenc_lab.h"
#include "input_format.h"

/* The thresholds input_format.h promises seeds.py. */
typedef char plain_bytes_are_plain[FUZZ_PLAIN_BELOW <= FUZZ_SIZE_PLAIN_BELOW && FUZZ_PLAIN_BELOW <= FUZZ_NUM_PLAIN_BELOW
    && FUZZ_PLAIN_BELOW <= FUZZ_ELEM_PLAIN_BELOW && FUZZ_PLAIN_BELOW <= FUZZ_ENUM_PLAIN_BELOW
    && FUZZ_AWKWARD == FUZZ_SIZE_PLAIN_BELOW + 1 ? 1 : -1];

/* ---- malloc fault injection (linked with -Wl,--wrap=malloc) ------------------- */
void *__real_malloc(size_t bytes);
void *__wrap_malloc(size_t bytes);
static __thread int armed;      /* only this thread's calls into the core count */
static __thread long calls_left; /* fail the malloc when this reaches 0 */

void *__wrap_malloc(size_t bytes) {
    if (armed && calls_left-- == 0) return NULL;
    return __real_malloc(bytes);
}

/* With -DPE_ARENA the core's own allocator (c/alloc.c) runs over a static
 * arena and asks here before each allocation: the same fault injection. */
int pe_arena_refuse(size_t bytes);
int pe_arena_refuse(size_t bytes) {
    void *p = __wrap_malloc(1);
    (void)bytes;
    free(p);
    return p == NULL;
}

const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

/* ---- failing an invariant ------------------------------------------------------- */
static const char *current = "?";
static char described[1024]; /* the call being checked, for the report */

#define DESCRIBE(...) snprintf(described, sizeof described, __VA_ARGS__)

#define REQUIRE(cond)                                                                 \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "fuzz_api: %s: invariant failed at %s:%d: %s\n  call: %s\n", \
                    current, __FILE__, __LINE__, #cond, described);                   \
            abort();                                                                  \
        }                                                                             \
    } while (0)

/* ---- decoding -------------------------------------------------------------------- */
typedef struct {
    const uint8_t *d;
    size_t n, i;
} src;

static uint8_t byte(src *s) { return s->i < s->n ? s->d[s->i++] : 0; }

static int32_t size_arg(src *s) {
    uint8_t b = byte(s);
    if (b < FUZZ_SIZE_PLAIN_BELOW) return 1 + b % 12;
    switch (b - FUZZ_SIZE_PLAIN_BELOW) {
    case 0: return 0;
    case 1: return -1;
    case 2: return INT32_MIN;
    case 3: return PE_MAX_DIM;
    case 4: return PE_MAX_DIM + 1;
    case 5: return INT32_MAX;
    case 6: return (1 << 14) + 1;
    case 7: return 11586;
    case 8: return 1 << 13;
    case 9: return 64;
    case 10: return 100;
    case 11: return 257;
    case 12: return 33;
    case 13: return -2;
    case 14: return 1 << 15;
    case 15: return 1 << 16;
    default: return 1 + byte(s);
    }
}

/* n - by without overflow (small sizes become small negative ones too) */
static int32_t shifted(int32_t n, int32_t by) { return n >= INT32_MIN + by ? n - by : n; }

/* an enum with `valid` members 0..valid-1, sometimes out of range */
static int enum_arg(src *s, int valid) {
    uint8_t b = byte(s);
    if (b < FUZZ_ENUM_PLAIN_BELOW) return b % valid;
    static const int bad[] = {-1, INT_MIN, INT_MAX, 99};
    return b % 2 ? valid : bad[b % 4];
}

static double palette(uint8_t b, src *s) {
    switch (b % 32) {
    case 0: return 0.0;
    case 1: return -0.0;
    case 2: return 1.0;
    case 3: return -1.0;
    case 4: return 0.5;
    case 5: return 2.5;
    case 6: return 10000.0;
    case 7: return 1e-300;
    case 8: return 1e300;
    case 9: return DBL_MAX;
    case 10: return -DBL_MAX;
    case 11: return DBL_MIN;
    case 12: return 4.9406564584124654e-324;
    case 13: return NAN;
    case 14: return INFINITY;
    case 15: return -INFINITY;
    case 16: return PE_MAX_POSITION;
    case 17: return -PE_MAX_POSITION;
    case 18: return PE_MAX_POSITION + 1.0;
    case 19: return 1.0 + DBL_EPSILON;
    case 20: return 1e150;
    case 21: return -1e200;
    case 22: return 3.0;
    case 23: return -3.5;
    case 24: return 100.0;
    case 25: return 1e6;
    case 26: return 8.0;
    case 27: return 0.1;
    case 28: return PE_MAX_POSITION - 1.0;
    default: {
        uint64_t bits = 0;
        for (int k = 0; k < 8; k++) bits = bits << 8 | byte(s);
        double v;
        memcpy(&v, &bits, sizeof v);
        return v;
    }
    }
}

/* FUZZ_CONTINUOUS (without FUZZ_FAIL): every scalar and matrix element is a continuous
 * value drawn within a range the API accepts, instead of the palette. A fixed
 * set of awkward values never produced NTK's overflow at base 1e306 with
 * factor 1000 (issue 16): values between the palette's matter too. */
static __thread int continuous;

static double continuous_arg(src *s) {
    uint8_t kind = byte(s);
    uint32_t bits = byte(s);
    bits = bits << 8 | byte(s);
    bits = bits << 8 | byte(s);
    double u = bits / 16777215.0; /* [0, 1] */
    switch (kind % 6) {
    case 0: return 1e-3 * pow(1e9, u);                   /* RoPE parameters, scales: [1e-3, 1e6] */
    case 1: {                                            /* a base: (1, DBL_MAX], log-uniform */
        double b = pow(2.0, u * 1024.0);
        return isfinite(b) ? (b > 1 ? b : nextafter(1.0, 2.0)) : DBL_MAX;
    }
    case 2: return (2 * u - 1) * PE_MAX_POSITION;      /* a position or offset */
    case 3: return 2 * u - 1;                            /* a moderate element */
    case 4: return (kind & 8 ? -1 : 1) * pow(2.0, u * 2097.0 - 1074.0); /* any finite magnitude */
    default: return (kind & 8 ? -1 : 1) * pow(10.0, u * 600.0 - 300.0); /* wide, decimal */
    }
}

/* a scalar parameter: small integers and halves mostly, awkward values often */
static double num_arg(src *s) {
    if (continuous) return continuous_arg(s);
    uint8_t b = byte(s);
    if (b < FUZZ_NUM_PLAIN_BELOW) return (b - 48) / 2.0;
    return palette(b, s);
}

/* a matrix element: mostly moderate, sometimes awkward */
static double elem(src *s) {
    if (continuous) return continuous_arg(s);
    uint8_t b = byte(s);
    if (b < FUZZ_ELEM_PLAIN_BELOW) return (b - 108) / 16.0;
    return palette(b, s);
}

/* ---- buffers ------------------------------------------------------------------------ */
#define WORK_CAP 400000.0 /* elements (or element-steps) one call may touch */
#define TINY 1            /* elements given to a call that must be refused */

static int dim_ok(int32_t n) { return n >= 1 && n <= PE_MAX_DIM; }

/* An output buffer of n elements of `bytes` each, filled with a marker. */
static void *out_buf(double n, size_t bytes) {
    size_t count = (size_t)(n < 1 ? 1 : n);
    unsigned char *p = __real_malloc(count * bytes);
    REQUIRE(p != NULL);
    memset(p, 0xA5, count * bytes);
    return p;
}

/* Elements to give an input whose own sizes are `dims_ok`: all of them, or
 * TINY when its sizes are invalid (it cannot be read); -1: too big, skip. */
static double in_count(int dims_ok, double elems) {
    if (!dims_ok) return TINY;
    return elems > WORK_CAP ? -1 : elems;
}

static double *in_buf(src *s, double n, double *max_abs) {
    size_t count = (size_t)(n < 1 ? 1 : n);
    double *p = __real_malloc(count * sizeof *p);
    REQUIRE(p != NULL);
    for (size_t i = 0; i < count; i++) {
        p[i] = elem(s);
        if (max_abs && fabs(p[i]) > *max_abs) *max_abs = fabs(p[i]);
    }
    return p;
}

static double get(const void *out, int dtype, size_t i) {
    return dtype == PE_F32 ? (double)((const float *)out)[i] : ((const double *)out)[i];
}

static int all_finite(const void *out, int dtype, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(get(out, dtype, i))) return 0;
    return 1;
}

/* ---- a call ------------------------------------------------------------------------- */
typedef struct {
    int inject;   /* a malloc is made to fail */
    int refused;  /* the sizes are invalid or over the byte limit: must not be OK */
    int status;
} call_state;

static void begin(call_state *c, long fail_at) {
    c->inject = fail_at >= 0;
    calls_left = fail_at;
    armed = c->inject;
}

static void end(call_state *c, int status) {
    armed = 0;
    c->status = status;
    REQUIRE(status >= 0 && status < PE_ERR_COUNT_);
    REQUIRE(strcmp(pe_strerror(status), "unknown status code") != 0);
    REQUIRE(pe_live_allocations() == 0);
    if (c->refused) REQUIRE(status != PE_OK);
    if (!c->inject) REQUIRE(status != PE_ERR_NOMEM); /* small sizes always fit */
}

/* Whether a valid call would be too slow for fuzzing. */
static int too_big(double work) { return work > WORK_CAP; }

/* ---- entry points --------------------------------------------------------------------- */
static int fuzz_table(src *s, long fail_at, int gram) {
    int dtype = enum_arg(s, 2);
    int32_t len = size_arg(s), d = size_arg(s);
    int layout = enum_arg(s, 3), freq = enum_arg(s, 2);
    double base = byte(s) % 2 ? num_arg(s) : 10000.0;
    double offset = byte(s) % 2 ? num_arg(s) : 0.0;
    int32_t zero_row = byte(s) % 3 == 0 ? shifted(size_arg(s), 2) : -1;
    int cosine = byte(s) % 2;
    size_t elem_bytes = dtype == PE_F32 ? 4 : 8;
    double count = gram ? (double)len * len : (double)len * d;
    call_state c = {0};
    c.refused = !dim_ok(len) || !dim_ok(d) || count * elem_bytes > PE_MAX_BYTES;
    if (!c.refused && too_big(count + (double)len * d)) return 0;
    void *out = out_buf(c.refused ? TINY : count, elem_bytes);
    DESCRIBE("%s(dtype=%d, max_len=%d, d=%d, layout=%d, freq=%d, base=%.17g, offset=%.17g, zero_row=%d, cosine=%d) fail_at=%ld", current, dtype, len, d, layout, freq, base, offset, zero_row, cosine, fail_at);
    begin(&c, fail_at);
    int st = gram ? pe_table_gram(out, dtype, len, d, layout, freq, base, offset, zero_row, cosine)
                  : pe_table(out, dtype, len, d, layout, freq, base, offset, zero_row);
    end(&c, st);
    if (st == PE_OK) {
        size_t n = (size_t)count;
        REQUIRE(all_finite(out, dtype, n));
        if (!gram) {
            /* |sin|, |cos| <= 1 up to the oscillator's few ulps (c/oscillator.h):
             * the recurrence gives cos = 1 + 4.4e-16 at some rows */
            for (size_t i = 0; i < n; i++) REQUIRE(fabs(get(out, dtype, i)) <= 1.0 + 1e-13);
            if (zero_row >= 0 && zero_row < len)
                for (int32_t j = 0; j < d; j++) REQUIRE(get(out, dtype, (size_t)zero_row * d + j) == 0.0);
        } else {
            for (int32_t i = 0; i < len; i++)
                for (int32_t j = 0; j < len; j++) {
                    double g = get(out, dtype, (size_t)i * len + j);
                    REQUIRE(g == get(out, dtype, (size_t)j * len + i));
                    REQUIRE(fabs(g) <= (cosine ? 1.0 + 2 * DBL_EPSILON * d + 1e-12 : d * (1 + 2 * DBL_EPSILON * d) + 1e-9));
                    if (i == j) REQUIRE(g >= -1e-12);
                }
        }
    }
    free(out);
    return 1;
}

/* pe_table_at: positions from the palette, about half of them continuing a run;
 * every row must equal pe_table's row at its position, the rows at zero_pos zero. */
static int fuzz_table_at(src *s, long fail_at) {
    int dtype = enum_arg(s, 2);
    int32_t len = size_arg(s), d = size_arg(s);
    int layout = enum_arg(s, 3), freq = enum_arg(s, 2);
    double base = byte(s) % 2 ? num_arg(s) : 10000.0;
    int32_t zero_pos = byte(s) % 3 == 0 ? shifted(size_arg(s), 2) : -1;
    size_t elem_bytes = dtype == PE_F32 ? 4 : 8;
    double count = (double)len * d, np = in_count(dim_ok(len), len);
    call_state c = {0};
    c.refused = !dim_ok(len) || !dim_ok(d) || count * elem_bytes > PE_MAX_BYTES;
    if (np < 0 || (!c.refused && too_big(2 * count))) return 0;
    double *pos = in_buf(s, np, NULL);
    for (size_t r = 1; r < (size_t)np; r++)
        if (byte(s) % 2) pos[r] = pos[r - 1] + 1;
    void *out = out_buf(c.refused ? TINY : count, elem_bytes), *row = out_buf(c.refused ? TINY : d, elem_bytes);
    DESCRIBE("pe_table_at(dtype=%d, rows=%d, d=%d, layout=%d, freq=%d, base=%.17g, pos[0]=%.17g, zero_pos=%d) fail_at=%ld", dtype, len, d, layout, freq, base, pos[0], zero_pos, fail_at);
    begin(&c, fail_at);
    int st = pe_table_at(out, dtype, len, d, layout, freq, base, pos, zero_pos);
    end(&c, st);
    for (int32_t r = 0; st == PE_OK && r < len; r++) {
        REQUIRE(pe_table(row, dtype, 1, d, layout, freq, base, pos[r], zero_pos >= 0 && pos[r] == zero_pos ? 0 : -1) == PE_OK);
        /* a run's later rows come from the recurrence: a few ulps from the exact row, and the
         * rounding of the angle p w, which grows with |p| */
        double tol = 1e-12 + 8 * DBL_EPSILON * fabs(pos[r]) + (dtype == PE_F32 ? 1.2e-7 : 0);
        for (int32_t j = 0; j < d; j++) REQUIRE(fabs(get(out, dtype, (size_t)r * d + j) - get(row, dtype, (size_t)j)) <= tol);
    }
    free(pos);
    free(out);
    free(row);
    return 1;
}

static int fuzz_frequencies(src *s, long fail_at) {
    int32_t d = size_arg(s);
    int layout = enum_arg(s, 3), freq = enum_arg(s, 2);
    double base = byte(s) % 2 ? num_arg(s) : 10000.0;
    int32_t np = pe_pair_count(d, layout);
    REQUIRE(np >= 0 && np <= (dim_ok(d) ? d / 2 + d % 2 : 0));
    call_state c = {0};
    c.refused = !dim_ok(d);
    if (too_big(d)) return 0;
    double *out = out_buf(np ? np : TINY, 8);
    DESCRIBE("pe_frequencies(d=%d, layout=%d, freq=%d, base=%.17g) fail_at=%ld", d, layout, freq, base, fail_at);
    begin(&c, fail_at);
    int st = pe_frequencies(out, d, layout, freq, base);
    end(&c, st);
    if (st == PE_OK) {
        for (int32_t i = 0; i < np; i++) {
            REQUIRE(isfinite(out[i]) && out[i] >= 0.0 && out[i] <= 1.0);
            if (i == 0) REQUIRE(out[0] == 1.0);
            else REQUIRE(out[i] <= out[i - 1]);
        }
    }
    free(out);
    return 1;
}

/* Every column of a row holds at most one sine or cosine; each frequency has
 * its sine, and its cosine unless it is an odd width's last; the only column
 * left over is concat's zero column at the end of an odd width. */
static int fuzz_columns(src *s, long fail_at) {
    int32_t d = size_arg(s);
    int layout = enum_arg(s, 3);
    int32_t np = pe_pair_count(d, layout);
    call_state c = {0};
    c.refused = !dim_ok(d) || layout < PE_LAYOUT_INTERLEAVED || layout > PE_LAYOUT_SPLIT;
    if (!c.refused && too_big(d)) return 0;
    int32_t *sin_cols = out_buf(np + 1, 4), *cos_cols = out_buf(np + 1, 4);
    unsigned char *used = out_buf(c.refused ? TINY : d, 1);
    DESCRIBE("pe_columns(d=%d, layout=%d) fail_at=%ld", d, layout, fail_at);
    begin(&c, fail_at);
    int st = pe_columns(sin_cols, cos_cols, d, layout);
    end(&c, st);
    if (st == PE_OK) {
        int32_t count = 0;
        memset(used, 0, (size_t)d);
        for (int32_t i = 0; i < np; i++) {
            int32_t cols[2] = {sin_cols[i], cos_cols[i]};
            REQUIRE(cols[1] >= 0 || (i == np - 1 && d % 2));
            for (int k = 0; k < 2 && cols[k] >= 0; k++) {
                REQUIRE(cols[k] < d && !used[cols[k]]);
                used[cols[k]] = 1;
                count++;
            }
        }
        REQUIRE(count == (layout == PE_LAYOUT_CONCAT ? d - d % 2 : d));
        REQUIRE(layout != PE_LAYOUT_CONCAT || d % 2 == 0 || !used[d - 1]);
        REQUIRE(sin_cols[np] == (int32_t)0xA5A5A5A5 && cos_cols[np] == (int32_t)0xA5A5A5A5); /* nothing past np */
    }
    free(sin_cols);
    free(cos_cols);
    free(used);
    return 1;
}

static int fuzz_dot(src *s, long fail_at) {
    int32_t n = size_arg(s);
    call_state c = {0};
    c.refused = !dim_ok(n);
    if (too_big(n)) return 0;
    double big = 0;
    double *a = in_buf(s, in_count(dim_ok(n), n), &big), *b = in_buf(s, in_count(dim_ok(n), n), &big);
    double out = 0;
    DESCRIBE("pe_dot(n=%d) max|x|=%g fail_at=%ld", n, big, fail_at);
    begin(&c, fail_at);
    int st = pe_dot(&out, a, b, n);
    end(&c, st);
    if (st == PE_OK) REQUIRE(isfinite(out)); /* overflow of finite inputs is PE_ERR_VALUE */
    free(a);
    free(b);
    return 1;
}

/* gram: 0 pe_norms, 1 pe_gram, 2 pe_gram_f32 (the same values rounded to float32) */
static int fuzz_norms_gram(src *s, long fail_at, int gram) {
    int32_t rows = size_arg(s), cols = size_arg(s);
    int dtype = enum_arg(s, 2), cosine = byte(s) % 2;
    call_state c = {0};
    double in = (double)rows * cols, in_bytes = gram == 2 ? 4 : 8;
    c.refused = !dim_ok(rows) || !dim_ok(cols) || in * in_bytes > PE_MAX_BYTES ||
                (gram && (double)rows * rows * 8 > PE_MAX_BYTES);
    if (!c.refused && too_big(gram ? in + (double)rows * rows * cols / 8 : in)) return 0;
    double nx = in_count(dim_ok(rows) && dim_ok(cols) && in * in_bytes <= PE_MAX_BYTES, in);
    if (nx < 0) return 0;
    double big = 0;
    double *x = in_buf(s, nx, &big);
    float *x32 = NULL;
    if (gram == 2) {
        size_t count = (size_t)(nx < 1 ? 1 : nx);
        x32 = __real_malloc(count * sizeof *x32);
        REQUIRE(x32 != NULL);
        for (size_t i = 0; i < count; i++) x32[i] = (float)x[i];
    }
    size_t n_out = gram ? (size_t)rows * rows : (size_t)rows;
    void *out = out_buf(c.refused ? TINY : (double)n_out, gram ? (dtype == PE_F32 ? 4 : 8) : 8);
    DESCRIBE("%s(dtype=%d, rows=%d, cols=%d, cosine=%d) max|x|=%g fail_at=%ld", current, dtype, rows, cols, cosine, big, fail_at);
    begin(&c, fail_at);
    int st = gram == 2 ? pe_gram_f32(out, dtype, x32, rows, cols, cosine)
             : gram ? pe_gram(out, dtype, x, rows, cols, cosine) : pe_norms(out, x, rows, cols);
    end(&c, st);
    /* Finite inputs whose results overflow (in the output type) must give
     * PE_ERR_VALUE: on PE_OK every result is finite. */
    int dt = gram ? dtype : PE_F64;
    /* float32 arithmetic rounds at 2^-24 (pe_gram_f32 sums blocks of at most 128 terms) */
    double eps = gram == 2 ? FLT_EPSILON : DBL_EPSILON;
    if (st == PE_OK) {
        REQUIRE(all_finite(out, dt, n_out));
        if (!gram)
            for (size_t i = 0; i < n_out; i++) REQUIRE(get(out, dt, i) >= 0.0);
        else
            for (int32_t i = 0; i < rows; i++)
                for (int32_t j = 0; j < rows; j++) {
                    double g = get(out, dt, (size_t)i * rows + j);
                    REQUIRE(g == get(out, dt, (size_t)j * rows + i));
                    if (cosine) REQUIRE(fabs(g) <= 1.0 + 2 * eps * cols + 1e-12); /* rounding of a cols-term sum */
                    if (i == j) REQUIRE(g >= 0.0);
                }
    }
    free(x);
    free(x32);
    free(out);
    return 1;
}

static int fuzz_rotation(src *s, long fail_at) {
    int32_t d = size_arg(s);
    int layout = enum_arg(s, 3), freq = enum_arg(s, 2);
    double base = byte(s) % 2 ? num_arg(s) : 10000.0;
    double k = num_arg(s);
    call_state c = {0};
    double count = (double)d * d;
    c.refused = !dim_ok(d) || count * 8 > PE_MAX_BYTES;
    if (!c.refused && too_big(count * (d < 64 ? d : 64))) return 0;
    double *out = out_buf(c.refused ? TINY : count, 8);
    DESCRIBE("pe_rotation(d=%d, layout=%d, freq=%d, base=%.17g, k=%.17g) fail_at=%ld", d, layout, freq, base, k, fail_at);
    begin(&c, fail_at);
    int st = pe_rotation(out, d, layout, freq, base, k);
    end(&c, st);
    if (c.refused) REQUIRE(st != PE_OK);
    if (d % 2 && dim_ok(d) && !c.refused) REQUIRE(st != PE_OK);
    if (st == PE_OK) {
        REQUIRE(all_finite(out, PE_F64, (size_t)count));
        /* orthogonal: M M^T = I */
        for (int32_t i = 0; i < d && i < 64; i++)
            for (int32_t j = 0; j < d && j < 64; j++) {
                double sum = 0;
                for (int32_t t = 0; t < d; t++) sum += out[(size_t)i * d + t] * out[(size_t)j * d + t];
                REQUIRE(fabs(sum - (i == j)) <= 1e-12);
            }
    }
    free(out);
    return 1;
}

static int fuzz_toy(src *s, long fail_at) {
    int32_t n = size_arg(s);
    int has_pos = byte(s) % 2, has_w = byte(s) % 2;
    double threshold = num_arg(s);
    call_state c = {0};
    c.refused = !dim_ok(n);
    if (too_big(n)) return 0;
    size_t cnt = (size_t)in_count(dim_ok(n), n);
    double *codes = in_buf(s, (double)cnt, NULL);
    double *pos = has_pos ? in_buf(s, (double)cnt, NULL) : NULL;
    double *w = has_w ? in_buf(s, (double)cnt, NULL) : NULL;
    double *x = out_buf((double)cnt, 8), *y = out_buf((double)cnt, 8);
    double sum = 0, weighted = 0;
    int32_t label = -1;
    DESCRIBE("pe_toy_attention(n=%d, pos=%d, w=%d, threshold=%.17g) fail_at=%ld", n, has_pos, has_w, threshold, fail_at);
    begin(&c, fail_at);
    int st = pe_toy_attention(x, y, &sum, &label, &weighted, codes, pos, w, n, threshold);
    end(&c, st);
    if (st == PE_OK) {
        REQUIRE(isfinite(sum) && isfinite(weighted));
        REQUIRE(label == (sum > threshold));
        REQUIRE(all_finite(x, PE_F64, cnt) && all_finite(y, PE_F64, cnt));
    }
    free(codes);
    free(pos);
    free(w);
    free(x);
    free(y);
    return 1;
}

/*
 * pe_attention_f32 on the float32 rounding of the inputs: when it succeeds
 * (dv a multiple of 8, nothing overflowing float32) every output is finite and
 * within the visible values of its column of v, up to float32 rounding.
 */
static void attention_f32(const double *q, const double *k, const double *v, double nq, double nk, double nv,
                          const int32_t *dims, int causal, double scale, long fail_at) {
    int32_t n = dims[3], m = dims[4], dv = dims[6];
    double in[3] = {nq, nk, nv};
    const double *src64[3] = {q, k, v};
    float *f[3];
    for (int a = 0; a < 3; a++) {
        f[a] = out_buf(in[a], 4);
        for (size_t i = 0; i < (size_t)in[a]; i++) f[a][i] = (float)src64[a][i];
    }
    call_state c = {0};
    c.refused = !dim_ok(n) || !dim_ok(m) || !dim_ok(dims[5]) || !dim_ok(dv) || (nq + nk + nv + (double)n * dv) * 4 > PE_MAX_BYTES;
    if (!c.refused && too_big((double)n * m * (dims[5] + dv))) {
        for (int a = 0; a < 3; a++) free(f[a]);
        return;
    }
    float *o = out_buf(c.refused ? TINY : (double)n * dv, 4);
    DESCRIBE("pe_attention_f32(n=%d, m=%d, dk=%d, dv=%d, causal=%d, scale=%.17g) fail_at=%ld", n, m, dims[5], dv, causal, scale, fail_at);
    begin(&c, fail_at);
    int st = pe_attention_f32(o, f[0], f[1], f[2], dims, causal, scale);
    end(&c, st);
    if (st == PE_OK) {
        REQUIRE(dv % 8 == 0);
        for (int32_t i = 0; i < n; i++)
            for (int32_t t = 0; t < dv; t++) {
                float lo = INFINITY, hi = -INFINITY, y = o[(size_t)i * dv + t];
                for (int32_t j = 0; j < (causal && i + 1 < m ? i + 1 : m); j++) {
                    lo = fminf(lo, f[2][(size_t)j * dv + t]);
                    hi = fmaxf(hi, f[2][(size_t)j * dv + t]);
                }
                float slack = 1e-5f * fmaxf(fabsf(lo), fabsf(hi)) + 1e-30f;
                REQUIRE(isfinite(y) && y >= lo - slack && y <= hi + slack);
            }
    }
    for (int a = 0; a < 3; a++) free(f[a]);
    free(o);
}

static int fuzz_attention(src *s, long fail_at, int f32) {
    int32_t n = size_arg(s), m = size_arg(s), dk = size_arg(s), dv = size_arg(s);
    int causal = byte(s) % 2;
    double scale = byte(s) % 2 ? num_arg(s) : 0.5;
    int heads = byte(s) % 2; /* the batched entry with a broadcast mask of 1 and bias of 0: the same result */
    call_state c = {0};
    double elems = (double)n * dk + (double)m * dk + (double)m * dv + (double)n * m + (double)n * dv;
    c.refused = !dim_ok(n) || !dim_ok(m) || !dim_ok(dk) || !dim_ok(dv) || elems * 8 > PE_MAX_BYTES;
    if (!c.refused && too_big(elems + (double)n * m * (dk + dv))) return 0;
    double nq = in_count(dim_ok(n) && dim_ok(dk), (double)n * dk);
    double nk = in_count(dim_ok(m) && dim_ok(dk), (double)m * dk);
    double nv = in_count(dim_ok(m) && dim_ok(dv), (double)m * dv);
    if (nq < 0 || nk < 0 || nv < 0) return 0;
    double *q = in_buf(s, nq, NULL);
    double *k = in_buf(s, nk, NULL);
    double *v = in_buf(s, nv, NULL);
    double *w = out_buf(c.refused ? TINY : (double)n * m, 8), *o = out_buf(c.refused ? TINY : (double)n * dv, 8);
    DESCRIBE("pe_attention%s(n=%d, m=%d, dk=%d, dv=%d, causal=%d, scale=%.17g) fail_at=%ld", heads ? "_heads" : "", n, m, dk, dv, causal, scale, fail_at);
    const int32_t dims[] = {1, 1, 1, n, m, dk, dv}, strides[] = {0, 0, 0, 0};
    if (f32) {
        attention_f32(q, k, v, nq, nk, nv, dims, causal, scale, fail_at);
        free(q), free(k), free(v), free(w), free(o);
        return 1;
    }
    const uint8_t one = 1;
    const double zero = 0.0;
    begin(&c, fail_at);
    int st = heads ? pe_attention_heads(w, o, q, k, v, dims, causal, scale, &one, strides, &zero, strides)
                   : pe_attention(w, o, q, k, v, n, m, dk, dv, causal, scale);
    end(&c, st);
    if (st == PE_OK) {
        for (int32_t i = 0; i < n; i++) {
            double total = 0;
            for (int32_t j = 0; j < m; j++) {
                double x = w[(size_t)i * m + j];
                REQUIRE(x >= 0.0 && x <= 1.0);
                if (causal && j > i) REQUIRE(x == 0.0);
                total += x;
            }
            REQUIRE(fabs(total - 1.0) <= 2 * DBL_EPSILON * m + 1e-15); /* naive sum of m terms */
            for (int32_t t = 0; t < dv; t++) {
                double lo = INFINITY, hi = -INFINITY, y = o[(size_t)i * dv + t];
                for (int32_t j = 0; j < m; j++) {
                    double vv = v[(size_t)j * dv + t];
                    if (w[(size_t)i * m + j] > 0) {
                        lo = fmin(lo, vv);
                        hi = fmax(hi, vv);
                    }
                }
                REQUIRE(isfinite(y));
                /* a convex mix of the visible values, up to rounding */
                double slack = 1e-12 * fmax(fabs(lo), fabs(hi)) * m + 1e-300;
                if (!(y >= lo - slack && y <= hi + slack))
                    fprintf(stderr, "row %d col %d: %.17g not in [%.17g, %.17g]\n", i, t, y, lo, hi);
                REQUIRE(y >= lo - slack && y <= hi + slack);
            }
        }
    }
    free(q);
    free(k);
    free(v);
    free(w);
    free(o);
    return 1;
}

static int fuzz_strerror(src *s) {
    int32_t st = (int32_t)(byte(s) | (uint32_t)byte(s) << 8 | (uint32_t)byte(s) << 16 | (uint32_t)byte(s) << 24);
    const char *t = pe_strerror(st);
    REQUIRE(t != NULL && strlen(t) > 0);
    REQUIRE((st >= 0 && st < PE_ERR_COUNT_) == (strcmp(t, "unknown status code") != 0));
    void *p = pe_malloc((size_t)(uint8_t)st);
    REQUIRE(pe_live_allocations() == (p ? 1 : 0));
    pe_free(p);
    REQUIRE(pe_live_allocations() == 0);
    /* a reservation of any size allocates nothing, and refuses what no call may hold; a
     * negative size asks whether that room is there, with the same refusals */
    double bytes = num_arg(s);
    int reserved = pe_reserve(bytes);
    REQUIRE(reserved == 0 || reserved == 1);
    REQUIRE(!reserved || (fabs(bytes) > 0 && fabs(bytes) <= PE_MAX_BYTES));
    /* pe_fits: the limit alone (nothing live here), growing nothing */
    REQUIRE(pe_fits(bytes) == (bytes > 0 && bytes <= PE_MAX_BYTES));
    REQUIRE(pe_live_allocations() == 0);
    return 1;
}

static const char *params_text(const pe_rope_params *p) {
    static char text[600];
    if (!p) return "params=NULL";
    snprintf(text, sizeof text,
             "params={factor %.17g, low %.17g, high %.17g, orig %.17g, beta_fast %.17g, beta_slow %.17g, "
             "attention %.17g, max_position %.17g, seq_len %.17g, mscale %.17g, mscale_all_dim %.17g, "
             "truncate %.17g, rotary_fraction %.17g, ...}",
             p->factor, p->low_freq_factor, p->high_freq_factor, p->original_max_position, p->beta_fast,
             p->beta_slow, p->attention_factor, p->max_position, p->seq_len, p->mscale, p->mscale_all_dim,
             p->truncate, p->rotary_fraction);
    return text;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* ---- RoPE and ALiBi ------------------------------------------------------------------------ */
/* Each field of pe_rope_params, then the dim short and long factors longrope reads
 * (NULL past 2^16 of them: the core then refuses the call for its NULL). */
static pe_rope_params *rope_params(src *s, int32_t dim) {
    if (byte(s) % 4 == 0) return NULL;
    int32_t n = dim_ok(dim) ? dim : 0;
    if (n > 65536) return NULL;
    pe_rope_params *p = __real_malloc(sizeof *p + (size_t)n * sizeof(double));
    REQUIRE(p != NULL);
    double *fields[] = {&p->factor, &p->low_freq_factor, &p->high_freq_factor, &p->original_max_position,
                        &p->beta_fast, &p->beta_slow, &p->attention_factor, &p->max_position, &p->seq_len,
                        &p->mscale, &p->mscale_all_dim, &p->truncate, &p->rotary_fraction};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) *fields[i] = num_arg(s);
    for (int32_t i = 0; i < n; i++) p->factors[i] = num_arg(s);
    return p;
}

/* The cos and sin buffers of a rows x dim cache (TINY elements for a call that
 * must be refused, which c->refused records); 0: too big to fuzz. */
static int cache_bufs(call_state *c, int32_t rows, int32_t dim, int layout, int dtype, size_t *n, void **cos,
                      void **sin) {
    int32_t cols = layout == PE_ROPE_CACHE_PAIRS ? dim / 2 : dim;
    size_t eb = dtype == PE_F32 ? 4 : 8;
    double count = (double)rows * cols;
    c->refused = !dim_ok(rows) || !dim_ok(dim) || (dim_ok(dim) && 2.0 * count * eb > PE_MAX_BYTES);
    if (!c->refused && too_big(2 * count)) return 0;
    *n = c->refused ? TINY : (size_t)count;
    *cos = out_buf((double)*n, eb);
    *sin = out_buf((double)*n, eb);
    return 1;
}

static int fuzz_rope(src *s, long fail_at, int which) {
    call_state c = {0};
    int32_t dim = size_arg(s);
    double base = byte(s) % 2 ? num_arg(s) : 10000.0;
    int scaling = enum_arg(s, 8);
    pe_rope_params *params = rope_params(s, dim);
    int dtype = enum_arg(s, 2), layout = enum_arg(s, 3);
    int32_t rows = size_arg(s), heads = size_arg(s);
    double offset = byte(s) % 2 ? num_arg(s) : 0.0;
    int st = PE_OK;
    size_t n1 = 0, n2 = 0;
    void *o1 = NULL, *o2 = NULL;
    double *x = NULL, *pos = NULL;
    int dt = PE_F64;
    double bigx = 0;
    switch (which) {
    case 0: { /* pe_rope_frequencies */
        c.refused = !dim_ok(dim);
        if (too_big(dim)) break;
        n1 = c.refused ? TINY : (size_t)dim / 2 + 1;
        o1 = out_buf((double)n1, 8);
        double attention = 0;
        DESCRIBE("pe_rope_frequencies(dim=%d, base=%.17g, scaling=%d, %s) fail_at=%ld", dim, base, scaling, params_text(params), fail_at);
        begin(&c, fail_at);
        st = pe_rope_frequencies(o1, &attention, dim, base, scaling, params);
        end(&c, st);
        /* pe_rope_check: the frequencies' refusals before they allocate, their attention factor, nothing allocated */
        int32_t live = pe_live_allocations();
        double checked = 0;
        int cst = pe_rope_check(&checked, dim, base, scaling, params, 0);
        REQUIRE(pe_live_allocations() == live);
        if (cst != PE_OK) REQUIRE(st == cst);
        if (st == PE_OK) REQUIRE(cst == PE_OK && checked == attention);
        if (st == PE_OK) {
            REQUIRE(isfinite(attention) && attention > 0);
            n1 = (size_t)dim / 2;
            REQUIRE(all_finite(o1, PE_F64, n1));
            for (size_t i = 0; i < n1; i++) REQUIRE(((double *)o1)[i] >= 0);
        }
        break;
    }
    case 1: { /* pe_rope_cache */
        if (!cache_bufs(&c, rows, dim, layout, dtype, &n1, &o1, &o2)) break;
        DESCRIBE("pe_rope_cache(dtype=%d, max_len=%d, dim=%d, base=%.17g, scaling=%d, %s, offset=%.17g, layout=%d) fail_at=%ld", dtype, rows, dim, base, scaling, params_text(params), offset, layout, fail_at);
        begin(&c, fail_at);
        st = pe_rope_cache(o1, o2, dtype, rows, dim, base, scaling, params, offset, layout);
        end(&c, st);
        dt = dtype;
        if (st == PE_OK)
            REQUIRE(all_finite(o1, dt, n1) && all_finite(o2, dt, n1));
        break;
    }
    case 2: { /* pe_rope_apply */
        int32_t cols = dim_ok(dim) && dim_ok(heads) && (double)dim * heads <= PE_MAX_DIM ? dim * heads : size_arg(s);
        int pairing = enum_arg(s, 2), use_pos = byte(s) % 2;
        int32_t rotary = byte(s) % 2 ? size_arg(s) : 0; /* 0: the whole head */
        double count = (double)rows * cols;
        c.refused = !dim_ok(rows) || !dim_ok(cols) || !dim_ok(dim) || 2.0 * count * 8 > PE_MAX_BYTES;
        if (!c.refused && too_big(count * 2)) break;
        double nx = in_count(dim_ok(rows) && dim_ok(cols), count), np = in_count(dim_ok(rows), rows);
        if (nx < 0 || np < 0) break;
        n1 = c.refused ? TINY : (size_t)count;
        x = in_buf(s, nx, &bigx);
        if (use_pos) pos = in_buf(s, np, NULL);
        o1 = out_buf((double)n1, 8);
        DESCRIBE("pe_rope_apply(rows=%d, cols=%d, head_dim=%d, rotary_dim=%d, pairing=%d, positions=%d, 0, offset=%.17g, base=%.17g, scaling=%d, %s) max|x|=%g fail_at=%ld", rows, cols, dim, rotary, pairing, use_pos, offset, base, scaling, params_text(params), bigx, fail_at);
        begin(&c, fail_at);
        st = pe_rope_apply(o1, x, rows, cols, dim, rotary, pairing, pos, offset, base, scaling, params);
        end(&c, st);
        if (st == PE_OK && bigx <= 1e150)
            REQUIRE(all_finite(o1, PE_F64, n1));
        break;
    }
    case 3: { /* pe_rope_permutation */
        double count = (double)dim * heads;
        c.refused = !dim_ok(dim) || !dim_ok(heads) || count * 4 > PE_MAX_BYTES;
        if (!c.refused && too_big(count)) break;
        n1 = c.refused ? TINY : (size_t)count;
        o1 = out_buf((double)n1, 4);
        int inverse = byte(s) % 2;
        DESCRIBE("pe_rope_permutation(head_dim=%d, heads=%d, inverse=%d) fail_at=%ld", dim, heads, inverse, fail_at);
        begin(&c, fail_at);
        st = pe_rope_permutation(o1, dim, heads, inverse);
        end(&c, st);
        if (st == PE_OK) { /* a permutation within each head block */
            int32_t *perm = o1;
            char *seen = calloc(n1, 1);
            REQUIRE(seen != NULL);
            for (size_t i = 0; i < n1; i++) {
                REQUIRE(perm[i] >= 0 && (size_t)perm[i] < n1 && perm[i] / dim == (int32_t)(i / (size_t)dim));
                REQUIRE(!seen[perm[i]]);
                seen[perm[i]] = 1;
            }
            free(seen);
        }
        break;
    }
    case 5: { /* pe_rope_cache_begin, _next (in two pieces, then at positions), _end */
        if (!cache_bufs(&c, rows, dim, layout, dtype, &n1, &o1, &o2)) break;
        int32_t cols = layout == PE_ROPE_CACHE_PAIRS ? dim / 2 : dim;
        size_t eb = dtype == PE_F32 ? 4 : 8;
        int32_t piece = byte(s) % 2 && rows > 1 ? rows / 2 : rows;
        int use_pos = byte(s) % 2;
        if (use_pos) pos = in_buf(s, dim_ok(rows) ? rows : TINY, NULL);
        DESCRIBE("pe_rope_cache_begin(dtype=%d, max_len=%d, dim=%d, base=%.17g, scaling=%d, %s, offset=%.17g, layout=%d), next(%d), next(rest), positions=%d fail_at=%ld", dtype, rows, dim, base, scaling, params_text(params), offset, layout, piece, use_pos, fail_at);
        begin(&c, fail_at);
        pe_rope_rows *state = (pe_rope_rows *)&c; /* must be overwritten */
        double attention = 0;
        st = pe_rope_cache_begin(&state, &attention, dtype, rows, dim, base, scaling, params, offset, layout);
        if (st == PE_OK) {
            REQUIRE(state != NULL && isfinite(attention) && attention > 0);
            size_t at = (size_t)piece * (size_t)cols * eb;
            st = pe_rope_cache_next(state, o1, o2, piece, NULL);
            if (st == PE_OK && piece < rows) st = pe_rope_cache_next(state, (char *)o1 + at, (char *)o2 + at, rows - piece, NULL);
            if (st == PE_OK) REQUIRE(pe_rope_cache_next(state, o1, o2, 1, NULL) == PE_ERR_SIZE); /* none left */
            if (st == PE_OK && use_pos) st = pe_rope_cache_next(state, o1, o2, rows, pos);
            pe_rope_cache_end(state);
        } else {
            REQUIRE(state == NULL);
        }
        end(&c, st);
        dt = dtype;
        if (st == PE_OK) REQUIRE(all_finite(o1, dt, n1) && all_finite(o2, dt, n1));
        break;
    }
    case 6: { /* pe_rope_rotate */
        int32_t cols = dim_ok(dim) && dim_ok(heads) && (double)dim * heads <= PE_MAX_DIM ? dim * heads : size_arg(s);
        int32_t blocks = size_arg(s), rotary = byte(s) % 2 ? size_arg(s) : 0;
        int pairing = enum_arg(s, 2);
        int32_t rd = rotary ? rotary : dim;
        size_t eb = dtype == PE_F32 ? 4 : 8;
        double count = (double)blocks * rows * cols, ccount = (double)rows * rd;
        c.refused = !dim_ok(blocks) || !dim_ok(rows) || !dim_ok(cols) || !dim_ok(dim) || !dim_ok(rd)
                    || 2.0 * count * eb > PE_MAX_BYTES || 2.0 * ccount * eb > PE_MAX_BYTES;
        if (!c.refused && too_big(count + 2 * ccount)) break;
        double nx = in_count(dim_ok(blocks) && dim_ok(rows) && dim_ok(cols), count);
        double nc = in_count(dim_ok(rows) && dim_ok(rd), ccount);
        if (nx < 0 || nc < 0) break;
        n1 = c.refused ? TINY : (size_t)count;
        x = in_buf(s, nx, &bigx);
        double *cs = in_buf(s, nc, NULL), *sn = in_buf(s, nc, NULL);
        if (dtype == PE_F32) { /* the float32 kernel reads floats: round the inputs */
            for (double *b[3] = {x, cs, sn}, *const *q = b; q < b + 3; q++) {
                size_t n = *q == x ? (size_t)(nx < 1 ? 1 : nx) : (size_t)(nc < 1 ? 1 : nc);
                for (size_t i = 0; i < n; i++) ((float *)*q)[i] = (float)(*q)[i];
            }
        }
        o1 = out_buf((double)n1, eb);
        DESCRIBE("pe_rope_rotate(dtype=%d, blocks=%d, rows=%d, cols=%d, head_dim=%d, rotary_dim=%d, pairing=%d) max|x|=%g fail_at=%ld", dtype, blocks, rows, cols, dim, rotary, pairing, bigx, fail_at);
        begin(&c, fail_at);
        st = pe_rope_rotate(o1, x, dtype, blocks, rows, cols, dim, rotary, pairing, cs, sn);
        end(&c, st);
        dt = dtype;
        /* OK promises finite values: a non-finite input or an overflow is PE_ERR_VALUE */
        if (st == PE_OK) REQUIRE(all_finite(o1, dt, n1));
        free(cs);
        free(sn);
        break;
    }
    default: { /* pe_rope_permute */
        int32_t cols = size_arg(s);
        int inverse = byte(s) % 2, axis = enum_arg(s, 2);
        double count = (double)rows * cols;
        c.refused = !dim_ok(rows) || !dim_ok(cols) || !dim_ok(dim) || 2.0 * count * 8 > PE_MAX_BYTES;
        if (!c.refused && too_big(count)) break;
        double nx = in_count(dim_ok(rows) && dim_ok(cols), count);
        if (nx < 0) break;
        n1 = c.refused ? TINY : (size_t)count;
        x = in_buf(s, nx, NULL);
        o1 = out_buf((double)n1, 8);
        DESCRIBE("pe_rope_permute(rows=%d, cols=%d, head_dim=%d, inverse=%d, axis=%d) fail_at=%ld", rows, cols, dim, inverse, axis, fail_at);
        begin(&c, fail_at);
        st = pe_rope_permute(o1, x, rows, cols, dim, inverse, axis);
        end(&c, st);
        if (st == PE_OK) { /* the same multiset of values, bit for bit */
            uint64_t *a = __real_malloc(n1 * 8), *b = __real_malloc(n1 * 8);
            REQUIRE(a && b);
            memcpy(a, x, n1 * 8);
            memcpy(b, o1, n1 * 8);
            qsort(a, n1, 8, cmp_u64);
            qsort(b, n1, 8, cmp_u64);
            REQUIRE(memcmp(a, b, n1 * 8) == 0);
            free(a);
            free(b);
        }
        break;
    }
    }
    (void)n2;
    free(o1);
    free(o2);
    free(x);
    free(pos);
    free(params);
    return 1;
}

static int fuzz_alibi(src *s, long fail_at, int bias) {
    int32_t heads = size_arg(s), q = size_arg(s), k = size_arg(s);
    int variant = enum_arg(s, 2), mode = enum_arg(s, 2), dtype = enum_arg(s, 2);
    double max_bias = byte(s) % 2 ? num_arg(s) : 8.0;
    double mask = byte(s) % 2 ? num_arg(s) : -INFINITY;
    int32_t qoff = byte(s) % 2 ? shifted(size_arg(s), 1) : 0;
    call_state c = {0};
    int st;
    if (!bias) {
        c.refused = !dim_ok(heads) || heads > PE_MAX_HEADS;
        if (too_big(heads)) return 0;
        size_t n = c.refused ? TINY : (size_t)heads;
        double *o = out_buf((double)n, 8);
        DESCRIBE("pe_alibi_slopes(heads=%d, variant=%d, max_bias=%.17g) fail_at=%ld", heads, variant, max_bias, fail_at);
        begin(&c, fail_at);
        st = pe_alibi_slopes(o, heads, variant, max_bias);
        end(&c, st);
        if (st == PE_OK)
            for (size_t i = 0; i < n; i++) REQUIRE(isfinite(o[i]) && o[i] >= 0 && o[i] <= 1);
        free(o);
        return 1;
    }
    size_t eb = dtype == PE_F32 ? 4 : 8;
    double count = (double)heads * q * k;
    c.refused = !dim_ok(heads) || heads > PE_MAX_HEADS || !dim_ok(q) || !dim_ok(k) || count * eb > PE_MAX_BYTES;
    if (!c.refused && too_big(count)) return 0;
    size_t n = c.refused ? TINY : (size_t)count;
    void *o = out_buf((double)n, eb);
    DESCRIBE("pe_alibi_bias(dtype=%d, heads=%d, q=%d, k=%d, variant=%d, max_bias=%.17g, mode=%d, mask=%.17g, qoff=%d) fail_at=%ld", dtype, heads, q, k, variant, max_bias, mode, mask, qoff, fail_at);
    begin(&c, fail_at);
    st = pe_alibi_bias(o, dtype, heads, q, k, variant, max_bias, mode, mask, qoff);
    end(&c, st);
    if (st == PE_OK)
        for (size_t i = 0; i < n; i++) {
            double v = get(o, dtype, i);
            REQUIRE(!isnan(v));
            REQUIRE(v <= 0.0 || (mode == PE_ALIBI_CAUSAL && v == (dtype == PE_F32 ? (double)(float)mask : mask)));
        }
    free(o);
    return 1;
}

/* ---- relative positions, learned, binary, precision ------------------------------------------ */
static int32_t int_arg(src *s) {
    uint8_t b = byte(s);
    if (b < 200) return (int32_t)b - 100;
    static const int32_t special[] = {INT32_MIN, INT32_MAX, INT32_MIN + 1, INT32_MAX - 1, 1 << 20, -(1 << 20), 128, -128};
    if (b < 208) return special[b - 200];
    int32_t v = 0;
    for (int k = 0; k < 4; k++) v = (int32_t)((uint32_t)v << 8 | byte(s));
    return v;
}

static int fuzz_t5(src *s, long fail_at, int which) {
    int bidirectional = byte(s) % 2, f32 = byte(s) % 2;
    int32_t buckets = byte(s) % 4 ? 2 + byte(s) % 64 : size_arg(s);
    int32_t max_distance = byte(s) % 4 ? 1 + byte(s) : int_arg(s);
    int32_t q = size_arg(s), k = size_arg(s), qoff = byte(s) % 2 ? int_arg(s) : 0;
    int32_t clip = byte(s) % 4 ? byte(s) % 8 : int_arg(s);
    int shift = byte(s) % 2;
    call_state c = {0};
    int st;
    int32_t half = bidirectional ? buckets / 2 : buckets;
    if (which == 0) {
        c.refused = !dim_ok(q);
        if (too_big(q)) return 0;
        size_t n = c.refused ? TINY : (size_t)q;
        int32_t *rel = __real_malloc(n * sizeof *rel), *out = out_buf((double)n, 4);
        REQUIRE(rel != NULL);
        for (size_t i = 0; i < n; i++) rel[i] = int_arg(s);
        DESCRIBE("pe_t5_bucket(n=%d, bidirectional=%d, buckets=%d, max_distance=%d, f32=%d) fail_at=%ld", q, bidirectional, buckets, max_distance, f32, fail_at);
        begin(&c, fail_at);
        st = pe_t5_bucket(out, rel, q, bidirectional, buckets, max_distance, f32);
        end(&c, st);
        if (st == PE_OK)
            for (size_t i = 0; i < n; i++) {
                REQUIRE(out[i] >= 0 && out[i] < buckets);
                /* bidirectional: the upper half is the future */
                if (bidirectional) REQUIRE((out[i] >= half) == (rel[i] > 0));
                if (rel[i] == 0) REQUIRE(out[i] == 0);
            }
        free(rel);
        free(out);
        return 1;
    }
    double count = (double)q * k;
    c.refused = !dim_ok(q) || !dim_ok(k) || count * 4 > PE_MAX_BYTES;
    if (!c.refused && too_big(count)) return 0;
    size_t n = c.refused ? TINY : (size_t)count;
    int32_t *out = out_buf((double)n, 4);
    if (which == 1) {
        DESCRIBE("pe_t5_bucket_matrix(q=%d, k=%d, qoff=%d, bidirectional=%d, buckets=%d, max_distance=%d, f32=%d) fail_at=%ld", q, k, qoff, bidirectional, buckets, max_distance, f32, fail_at);
        begin(&c, fail_at);
        st = pe_t5_bucket_matrix(out, q, k, qoff, bidirectional, buckets, max_distance, f32);
        end(&c, st);
        if (st == PE_OK)
            for (size_t i = 0; i < n; i++) REQUIRE(out[i] >= 0 && out[i] < buckets);
    } else {
        DESCRIBE("pe_shaw_matrix(q=%d, k=%d, clip=%d, shift=%d, query_offset=k-q) fail_at=%ld", q, k, clip, shift, fail_at);
        begin(&c, fail_at);
        st = pe_shaw_matrix(out, q, k, clip, shift, c.refused ? 0 : k - q); /* tensor2tensor: query i at k - q + i */
        end(&c, st);
        if (st == PE_OK)
            for (int32_t i = 0; i < q; i++)
                for (int32_t j = 0; j < k; j++) {
                    int64_t d = (int64_t)j - (i + k - q), want = d < -clip ? -clip : d > clip ? clip : d;
                    REQUIRE(out[(size_t)i * k + j] == want + (shift ? clip : 0));
                }
    }
    free(out);
    return 1;
}

static int fuzz_learned(src *s, long fail_at, int rows_only) {
    int dtype = enum_arg(s, 2), dist = enum_arg(s, 2);
    int32_t len = size_arg(s), d = size_arg(s), n = size_arg(s);
    double seed = byte(s) % 2 ? num_arg(s) : (double)byte(s);
    double scale = byte(s) % 2 ? num_arg(s) : 0.02;
    size_t eb = dtype == PE_F32 ? 4 : 8;
    call_state c = {0};
    int32_t rows = rows_only ? n : len;
    double count = (double)rows * d;
    c.refused = !dim_ok(len) || !dim_ok(d) || !dim_ok(rows) || count * eb > PE_MAX_BYTES;
    if (!c.refused && too_big(count)) return 0;
    size_t cnt = c.refused ? TINY : (size_t)count;
    void *out = out_buf((double)cnt, eb);
    int32_t *pos = NULL;
    int st;
    if (rows_only) {
        double np = in_count(dim_ok(n), n);
        if (np < 0) { free(out); return 0; }
        pos = __real_malloc((size_t)np * sizeof *pos);
        REQUIRE(pos != NULL);
        for (size_t i = 0; i < (size_t)np; i++) pos[i] = byte(s) % 8 ? byte(s) % (len > 0 ? (len < 256 ? len : 256) : 1) : int_arg(s);
        DESCRIBE("pe_learned_rows(dtype=%d, n=%d, trained_len=%d, d=%d, seed=%.17g, dist=%d, scale=%.17g) fail_at=%ld", dtype, n, len, d, seed, dist, scale, fail_at);
        begin(&c, fail_at);
        st = pe_learned_rows(out, dtype, pos, n, len, d, seed, dist, scale);
        end(&c, st);
    } else {
        DESCRIBE("pe_learned_table(dtype=%d, trained_len=%d, d=%d, seed=%.17g, dist=%d, scale=%.17g) fail_at=%ld", dtype, len, d, seed, dist, scale, fail_at);
        begin(&c, fail_at);
        st = pe_learned_table(out, dtype, len, d, seed, dist, scale);
        end(&c, st);
    }
    /* |normal| <= scale sqrt(2 ln 2^53) < 8.6 scale, |uniform| <= scale; finite unless scale is huge */
    if (st == PE_OK && scale <= 1e300)
        for (size_t i = 0; i < cnt; i++) {
            double v = get(out, dtype, i);
            if (dtype == PE_F32 && scale > 1e37 && !isfinite(v)) continue; /* past FLT_MAX */
            REQUIRE(isfinite(v));
            REQUIRE(fabs(v) <= 8.6 * scale * (1 + 1e-12));
        }
    free(out);
    free(pos);
    return 1;
}

static int fuzz_binary(src *s, long fail_at) {
    int dtype = enum_arg(s, 2), signed_ = byte(s) % 2;
    int32_t len = size_arg(s), bits = byte(s) % 4 ? 1 + byte(s) % 64 : size_arg(s);
    double offset = byte(s) % 2 ? num_arg(s) : (double)byte(s);
    size_t eb = dtype == PE_F32 ? 4 : 8;
    call_state c = {0};
    double count = (double)len * bits;
    c.refused = !dim_ok(len) || bits < 1 || bits > 64 || count * eb > PE_MAX_BYTES;
    if (!c.refused && too_big(count)) return 0;
    size_t cnt = c.refused ? TINY : (size_t)count;
    void *out = out_buf((double)cnt, eb);
    DESCRIBE("pe_binary_table(dtype=%d, max_len=%d, bits=%d, offset=%.17g, signed=%d) fail_at=%ld", dtype, len, bits, offset, signed_, fail_at);
    begin(&c, fail_at);
    int st = pe_binary_table(out, dtype, len, bits, offset, signed_);
    end(&c, st);
    if (st == PE_OK)
        for (int32_t r = 0; r < len; r++)
            for (int32_t b = 0; b < bits; b++) {
                uint64_t p = (uint64_t)offset + (uint64_t)r;
                double bit = (double)((p >> b) & 1u);
                REQUIRE(get(out, dtype, (size_t)r * bits + b) == (signed_ ? 2 * bit - 1 : bit));
            }
    free(out);
    return 1;
}

static int fuzz_precision(src *s, long fail_at, int which) {
    int format = enum_arg(s, 4), mode = enum_arg(s, 3), layout = enum_arg(s, 3), freq = enum_arg(s, 2);
    int32_t n = size_arg(s), d = size_arg(s);
    double base = byte(s) % 2 ? num_arg(s) : 10000.0;
    call_state c = {0};
    c.refused = !dim_ok(n);
    if (too_big(n) || (which == 2 && dim_ok(d) && too_big((double)n * d))) return 0;
    size_t cnt = c.refused ? TINY : (size_t)n;
    double *x = in_buf(s, (double)cnt, NULL);
    void *out = out_buf((double)cnt, 8);
    int st;
    if (which == 0) {
        DESCRIBE("pe_round(n=%d, format=%d) fail_at=%ld", n, format, fail_at);
        begin(&c, fail_at);
        st = pe_round(out, x, n, format);
        end(&c, st);
        if (st == PE_OK)
            for (size_t i = 0; i < cnt; i++) {
                double r = ((double *)out)[i];
                REQUIRE(isnan(r) == isnan(x[i]));
                if (!isnan(r)) REQUIRE(signbit(r) == signbit(x[i]) || r == 0);
                if (format == PE_F64) REQUIRE(r == x[i] || isnan(r));
                if (format == PE_F32 && isfinite(x[i]) && fabs(x[i]) < 3e38) REQUIRE(r == (double)(float)x[i]);
                /* within half a step: relative 2^-8 (bfloat16), absolute 2^-25 (float16 subnormals) */
                if (isfinite(r) && isfinite(x[i])) REQUIRE(fabs(r - x[i]) <= fabs(x[i]) * 0x1p-8 + 0x1p-25);
                double again;
                REQUIRE(pe_round(&again, &r, 1, format) == PE_OK); /* idempotent */
                REQUIRE(again == r || (isnan(again) && isnan(r)));
            }
    } else if (which == 1) {
        DESCRIBE("pe_format_bits(n=%d, format=%d) fail_at=%ld", n, format, fail_at);
        begin(&c, fail_at);
        st = pe_format_bits(out, x, n, format);
        end(&c, st);
        if (st == PE_OK && format == PE_F32)
            for (size_t i = 0; i < cnt; i++) {
                float f = (float)x[i];
                uint32_t want;
                memcpy(&want, &f, 4);
                uint32_t got = ((uint32_t *)out)[i];
                REQUIRE(got == want || (isnan(x[i]) && (got & 0x7F800000u) == 0x7F800000u && (got & 0x7FFFFFu)) ||
                        !(fabs(x[i]) < 3e38));
            }
        if (st == PE_OK && format != PE_F32)
            for (size_t i = 0; i < cnt; i++) REQUIRE(((uint32_t *)out)[i] <= 0xFFFFu);
    } else {
        DESCRIBE("pe_precision_error(n=%d, d=%d, layout=%d, freq=%d, base=%.17g, format=%d, mode=%d) fail_at=%ld", n, d, layout, freq, base, format, mode, fail_at);
        begin(&c, fail_at);
        st = pe_precision_error(out, x, n, d, layout, freq, base, format, mode);
        end(&c, st);
        if (st == PE_OK)
            for (size_t i = 0; i < cnt; i++) {
                double e = ((double *)out)[i];
                REQUIRE(!isnan(e) && e >= 0.0 && (e <= 2.0 + 1e-12 || e == INFINITY));
                if (format == PE_F64 || (mode == PE_PREC_RESULT && format == PE_F32)) REQUIRE(e <= 1e-7);
            }
    }
    free(x);
    free(out);
    return 1;
}

/* ---- fields: timesteps, sin-cos grids, Fourier features ------------------------------------- */
/* Every value a sine or cosine (|v| <= 1 up to a few ulps), or 0, or an input copied. */
static void require_unit(const void *out, int dtype, size_t from, size_t to) {
    for (size_t i = from; i < to; i++) REQUIRE(fabs(get(out, dtype, i)) <= 1.0 + 1e-12);
}

static int fuzz_fields(src *s, long fail_at, int which) {
    int dtype = enum_arg(s, 2), flag = byte(s) % 2, rule = enum_arg(s, 3);
    int32_t n = size_arg(s), d = size_arg(s), m = byte(s) % 4 ? 1 + byte(s) % 16 : size_arg(s);
    double a = num_arg(s), b = byte(s) % 2 ? num_arg(s) : 10000.0;
    size_t eb = dtype == PE_F32 ? 4 : 8;
    /* per call: its output count and its inputs' counts (timestep: n, 2-D: n + d positions) */
    double cols = which == 2 ? (double)m : which == 3 ? (flag ? d : 0) + 2.0 * m * d : which == 4 ? 2.0 * m : d;
    double rows = which == 2 ? (double)n * d + (m % 3) : n, count = rows * cols;
    double in1 = which >= 3 ? (double)n * d : n, in2 = which == 2 ? d : which == 4 ? (double)m * d : 0;
    call_state c = {0};
    c.refused = !dim_ok(n) || !dim_ok(d) || (which >= 2 && !dim_ok(m)) || count * eb > PE_MAX_BYTES || (which == 3 && m > 1024);
    /* the Gaussian draw writes only B (m × d) into y: its own sizes decide, not the features' */
    int gaussian = which == 4 && !flag && dim_ok(n);
    if (gaussian) c.refused = !dim_ok(m) || !dim_ok(d) || in2 * 8 > PE_MAX_BYTES;
    if (!c.refused && too_big(count + in1 + in2)) return 0;
    void *out = out_buf(c.refused || gaussian ? TINY : count, eb);
    double *x = in_buf(s, c.refused ? TINY : in1, NULL), *y = in_buf(s, c.refused || !in2 ? TINY : in2, NULL);
    DESCRIBE("%s(dtype=%d, n=%d, d=%d, m=%d, flag=%d, rule=%d, a=%.17g, b=%.17g) fail_at=%ld", current, dtype, n, d, m, flag, rule, a, b, fail_at);
    begin(&c, fail_at);
    int st;
    switch (which) {
    case 0: st = pe_timestep_embedding(out, dtype, x, n, d, flag, a, rule ? b : 1.0, b); break;
    case 1: st = pe_sincos_1d(out, dtype, x, n, d, rule, b); break;
    case 2: st = pe_sincos_2d(out, dtype, x, n, y, d, m, m % 3, flag, rule, b); break;
    case 3: st = pe_fourier_features(out, dtype, x, n, d, m, a, rule % 2, flag, rule == 2, flag); break;
    default: /* B drawn into y, or used from it */
        if (!gaussian) st = pe_fourier_random(out, dtype, x, n, d, y, m);
        else st = pe_fourier_gaussian(y, m, d, floor(fabs(a)), fabs(b));
        break;
    }
    end(&c, st);
    if (gaussian && st == PE_OK) { /* the bound drawn without B (pe_fourier_gaussian_bound): B's largest row sum of |B| */
        double bound = -1, want = 0;
        REQUIRE(pe_fourier_gaussian_bound(&bound, m, d, floor(fabs(a)), fabs(b)) == PE_OK);
        for (int32_t k = 0; k < m; k++) {
            double sum = 0;
            for (int32_t j = 0; j < d; j++) sum += fabs(y[(size_t)k * d + j]);
            want = fmax(want, sum);
        }
        REQUIRE(bound == want);
    }
    if (st == PE_OK) {
        if (which == 3 && flag) {
            size_t w = (size_t)cols;
            for (int32_t r = 0; r < n; r++) require_unit(out, dtype, (size_t)r * w + (size_t)d, (size_t)(r + 1) * w);
        } else if (which != 4 || flag) {
            require_unit(out, dtype, 0, (size_t)count);
        }
        if (which == 0 && d % 2) REQUIRE(get(out, dtype, (size_t)d - 1) == 0.0);
    }
    free(out);
    free(x);
    free(y);
    return 1;
}

/* ---- the lab (c/lab/) ------------------------------------------------------------------------- */
static int lab_seed_ok(double seed) { return seed >= 0 && seed <= PE_LAB_MAX_SEED && seed == floor(seed); }

/* a seed: mostly small and valid, sometimes a palette number */
static double lab_seed_arg(src *s) { return byte(s) % 4 ? byte(s) : num_arg(s); }

static int32_t lab_min_length(int task) {
    return task == PE_LAB_WHO || task == PE_LAB_WHO_REVERSED || task == PE_LAB_SHIFT ? 3 : task == PE_LAB_RECENCY ? 2 : 1;
}

static int lab_length_ok(int task, int32_t n) {
    return task >= 0 && task < PE_LAB_TASKS_ && n >= lab_min_length(task) && n <= PE_LAB_MAX_LENGTH;
}

static int32_t lab_tokens(int task, int32_t n) {
    return task == PE_LAB_WHO || task == PE_LAB_WHO_REVERSED ? n + 1
           : task == PE_LAB_SHIFT || task == PE_LAB_RECENCY  ? n
                                                             : 2 * n + 1;
}

/* pe_lab_task_shape, pe_lab_task_seq_len and pe_lab_generate: examples within
 * the task's vocabulary and classes, every example with a target, the same
 * seed giving the same examples. */
static int fuzz_lab_generate(src *s, long fail_at) {
    int task = enum_arg(s, PE_LAB_TASKS_);
    int32_t length = size_arg(s), count = size_arg(s), shape[3] = {0, 0, 0}, T = -1;
    double seed = lab_seed_arg(s);
    call_state c = {0};
    c.refused = !lab_length_ok(task, length) || count < 1 || count > PE_LAB_MAX_EXAMPLES || !lab_seed_ok(seed);
    double total = c.refused ? TINY : (double)count * lab_tokens(task, length);
    if (too_big(total)) return 0;
    int32_t *tok = out_buf(total, 4), *tgt = out_buf(total, 4);
    DESCRIBE("pe_lab_generate(task=%d, length=%d, count=%d, seed=%.17g) fail_at=%ld", task, length, count, seed, fail_at);
    REQUIRE(pe_lab_real_bytes() == (int32_t)sizeof(pe_lab_real));
    begin(&c, fail_at);
    int st_shape = pe_lab_task_shape(shape, task), st_len = pe_lab_task_seq_len(&T, task, length);
    int st = pe_lab_generate(tok, tgt, task, length, count, seed);
    end(&c, st);
    REQUIRE((st_shape == PE_OK) == (task >= 0 && task < PE_LAB_TASKS_));
    REQUIRE((st_len == PE_OK) == lab_length_ok(task, length));
    if (st_shape == PE_OK) REQUIRE(shape[2] == lab_min_length(task) && shape[1] <= shape[0]);
    if (st == PE_OK) {
        REQUIRE(T == lab_tokens(task, length));
        int32_t *tok2 = out_buf(total, 4), *tgt2 = out_buf(total, 4);
        REQUIRE(pe_lab_generate(tok2, tgt2, task, length, count, seed) == PE_OK);
        REQUIRE(memcmp(tok, tok2, (size_t)total * 4) == 0 && memcmp(tgt, tgt2, (size_t)total * 4) == 0);
        free(tok2);
        free(tgt2);
        for (int32_t e = 0; e < count; e++) {
            int targets = 0;
            for (int32_t i = 0; i < T; i++) {
                size_t at = (size_t)e * T + i;
                REQUIRE(tok[at] >= 0 && tok[at] < shape[0]);
                REQUIRE(tgt[at] >= -1 && tgt[at] < shape[1]);
                targets += tgt[at] >= 0;
            }
            REQUIRE(targets >= 1);
        }
    }
    free(tok);
    free(tgt);
    return 1;
}

/* A model's configuration: mostly valid and small, sometimes any field awkward. */
typedef struct {
    int32_t c[PE_LAB_CFG_INTS];
    double f[PE_LAB_CFG_REALS];
    int task;
} lab_config;

/* One input in four may make any field awkward (one field in four of those);
 * the others decode to a model that is valid but for its enums. */
static __thread int lab_awkward;
static int32_t lab_int(src *s, int32_t plain) { return lab_awkward && byte(s) % 4 == 0 ? size_arg(s) : plain; }
static double lab_real_arg(src *s, double plain) { return lab_awkward && byte(s) % 4 == 0 ? num_arg(s) : plain; }

static lab_config lab_decode(src *s) {
    lab_config k;
    lab_awkward = byte(s) % 4 == 0;
    int32_t shape[3] = {17, 8, 3};
    k.task = enum_arg(s, PE_LAB_TASKS_);
    if (k.task >= 0 && k.task < PE_LAB_TASKS_) pe_lab_task_shape(shape, k.task);
    /* one statement per field: the bytes are read in this order on every compiler */
    int32_t heads = 1 + byte(s) % 4, v;
    k.c[0] = lab_int(s, shape[0]);
    k.c[1] = lab_int(s, shape[1]);
    v = heads * 2 * (1 + byte(s) % 3);
    k.c[2] = lab_int(s, v);
    k.c[3] = lab_int(s, heads);
    v = 1 + byte(s) % 3;
    k.c[4] = lab_int(s, v);
    v = byte(s) % 3 ? 4 * (byte(s) % 5) : 0;
    k.c[5] = lab_int(s, v);
    v = 2 + byte(s) % 24;
    k.c[6] = lab_int(s, v);
    v = 1 + byte(s) % 4;
    k.c[7] = lab_int(s, v);
    k.c[8] = enum_arg(s, PE_LAB_ENCODINGS_);
    k.c[9] = enum_arg(s, 2);
    k.c[10] = enum_arg(s, 3);
    k.c[11] = enum_arg(s, 2);
    v = 4 + byte(s) % 30;
    k.c[12] = lab_int(s, v);
    v = 16 + byte(s) % 100;
    k.c[13] = lab_int(s, v);
    v = byte(s);
    k.c[14] = lab_int(s, v);
    if (byte(s) % 4) v = 0;
    else { /* randomized positions, sometimes; in int64: k.c[6] may be INT32_MAX (signed overflow, UBSan) */
        int64_t r = (int64_t)k.c[6] + byte(s) % 8;
        v = r > INT32_MAX ? INT32_MAX : (int32_t)r;
    }
    k.c[15] = lab_int(s, v);
    static const double plain[PE_LAB_CFG_REALS] = {10000, 10000, 8, 3e-3, 0.9, 0.98, 1e-8, 0.01, 1};
    for (int i = 0; i < PE_LAB_CFG_REALS; i++) k.f[i] = lab_real_arg(s, plain[i]);
    return k;
}

static int in_range(int32_t v, int32_t lo, int32_t hi) { return v >= lo && v <= hi; }

/* The sizes a model must be refused for (pe_lab_create's PE_ERR_SIZE). */
static int lab_sizes_bad(const int32_t *c) {
    return !in_range(c[0], 2, PE_LAB_MAX_VOCAB) || !in_range(c[1], 2, PE_LAB_MAX_VOCAB)
        || !in_range(c[2], PE_LAB_MIN_DMODEL, PE_LAB_MAX_DMODEL) || !in_range(c[3], 1, PE_LAB_MAX_HEADS)
        || !in_range(c[4], 1, PE_LAB_MAX_LAYERS) || !in_range(c[5], 0, PE_LAB_MAX_MLP)
        || !in_range(c[6], 1, PE_LAB_MAX_TOKENS) || !in_range(c[7], 1, PE_LAB_MAX_BATCH)
        || (c[8] == PE_LAB_T5 && (!in_range(c[12], PE_LAB_MIN_BUCKETS, PE_LAB_MAX_BUCKETS)
                                  || !in_range(c[13], 1, PE_LAB_MAX_DISTANCE)))
        || (c[15] && !in_range(c[15], c[6], PE_LAB_MAX_POSITIONS));
}

/* Elements a valid model's buffers hold (its activations dominate). */
static double lab_work(const int32_t *c) {
    double n = (double)c[7] * c[6];
    return c[4] * (n * (16.0 * c[2] + 2.0 * c[5]) + n * c[3] * c[6]) + (double)c[0] * c[2] + 4.0 * c[2] * c[2] * c[4];
}

static void require_distribution(const pe_lab_real *row, int32_t n, int32_t end) {
    double sum = 0;
    for (int32_t j = 0; j < n; j++) {
        REQUIRE(isfinite(row[j]) && row[j] >= 0 && row[j] <= 1);
        if (j >= end) REQUIRE(row[j] == 0);
        sum += row[j];
    }
    REQUIRE(fabs(sum - 1) <= 1e-5 * n);
}

/* What a live model must do: tensors tile the parameters, training, evaluation
 * and loss give finite numbers or a known status, attention rows are distributions. */
static void fuzz_lab_use(src *s, void *model, const lab_config *k) {
    int32_t rows[PE_LAB_MAX_TENSORS * PE_LAB_TENSOR_FIELDS], count = 0, next = 0, len;
    REQUIRE(pe_lab_tensors(rows, &count, model) == PE_OK && count >= 1 && count <= PE_LAB_MAX_TENSORS);
    for (int32_t t = 0; t < count; t++) {
        REQUIRE(rows[PE_LAB_TENSOR_FIELDS * t] == next);
        next += rows[PE_LAB_TENSOR_FIELDS * t + 1] * rows[PE_LAB_TENSOR_FIELDS * t + 2];
    }
    int32_t nparams = pe_lab_param_count(model);
    REQUIRE(next == nparams);
    const pe_lab_real *params = pe_lab_params(model);
    for (int32_t i = 0; i < nparams; i++) REQUIRE(isfinite(params[i]));
    int task = byte(s) % 8 ? k->task : enum_arg(s, PE_LAB_TASKS_);
    int32_t lo = byte(s) % 8 ? 1 + byte(s) % 6 : size_arg(s);
    int32_t hi = byte(s) % 8 ? (lo <= INT32_MAX - 3 ? lo + byte(s) % 4 : lo) : size_arg(s); /* lo + 0..3 */
    int32_t steps = byte(s) % 8 ? 1 + byte(s) % 3 : size_arg(s);
    double out[3], acc[3] = {0, 0, 0};
    /* a step costs about one pass over the model's buffers; even step counts
     * train through the summing entry, with no byte more read from the input */
    int st = in_range(steps, 1, PE_LAB_MAX_STEPS) && too_big(steps * lab_work(k->c)) ? PE_ERR_SIZE
             : steps % 2 ? pe_lab_train(out, model, task, lo, hi, steps)
                         : pe_lab_train_sum(acc, model, task, lo, hi, steps);
    REQUIRE(st >= 0 && st < PE_ERR_COUNT_ && st != PE_ERR_NOMEM);
    if (st == PE_OK && steps % 2 == 0) {
        REQUIRE(acc[1] >= 0 && acc[1] <= acc[2]);
        out[0] = acc[0] / steps;
        out[1] = acc[2] ? acc[1] / acc[2] : 0;
    }
    if (st == PE_OK) {
        REQUIRE(lab_length_ok(task, lo) && lab_length_ok(task, hi) && lo <= hi && lab_tokens(task, hi) <= k->c[6]);
        REQUIRE(isfinite(out[0]) && out[0] >= 0 && out[1] >= 0 && out[1] <= 1);
        for (int32_t i = 0; i < nparams; i++) REQUIRE(isfinite(params[i]));
    }
    int32_t length = byte(s) % 8 ? 1 + byte(s) % 8 : size_arg(s), samples = byte(s) % 8 ? 1 + byte(s) % 20 : size_arg(s);
    double seed = lab_seed_arg(s);
    if (in_range(samples, 1, PE_LAB_MAX_SAMPLES) && lab_length_ok(task, length)
        && too_big((double)samples * lab_tokens(task, length) * (k->c[6] + 16.0 * k->c[2])))
        return;
    st = pe_lab_evaluate(out, model, task, length, samples, seed, 1 + byte(s) % 8, byte(s) % 3);
    REQUIRE(st >= 0 && st < PE_ERR_COUNT_ && st != PE_ERR_NOMEM);
    if (st == PE_OK) {
        REQUIRE(lab_length_ok(task, length) && lab_seed_ok(seed) && in_range(samples, 1, PE_LAB_MAX_SAMPLES));
        REQUIRE(isfinite(out[0]) && out[0] >= 0 && out[1] >= 0 && out[1] <= 1);
    }
    /* the loss of examples of the model's own task, or of raw bytes as tokens */
    int32_t batch = 1 + byte(s) % 4, n = 1 + byte(s) % 12, raw = byte(s) % 4 == 0;
    int32_t tok[4 * 25], tgt[4 * 25];
    if (pe_lab_task_seq_len(&len, k->task, n) == PE_OK && len <= 25 && !raw)
        REQUIRE(pe_lab_generate(tok, tgt, k->task, n, batch, 1) == PE_OK);
    else {
        len = n;
        for (int32_t i = 0; i < batch * len; i++) {
            tok[i] = byte(s) % 20 - 1;
            tgt[i] = byte(s) % 12 - 2;
        }
    }
    int backward = byte(s) % 2;
    st = pe_lab_loss(out, model, tok, tgt, batch, len, backward);
    REQUIRE(st == PE_OK || st == PE_ERR_SIZE || st == PE_ERR_VALUE);
    if (st == PE_OK) {
        REQUIRE(batch <= k->c[7] && len <= k->c[6] && isfinite(out[0]) && out[0] >= 0 && out[1] <= out[2]);
        const pe_lab_real *grads = pe_lab_grads(model);
        if (backward)
            for (int32_t i = 0; i < nparams; i++) REQUIRE(isfinite(grads[i]));
    }
    /* attention maps of one sequence (tokens wrapped into the vocabulary) */
    int32_t alen = byte(s) % 8 ? 1 + byte(s) % 16 : shifted(size_arg(s), 1), L = k->c[4], H = k->c[3];
    int ok_len = alen >= 1 && alen <= k->c[6];
    size_t cells = ok_len ? (size_t)L * H * alen * alen : 1;
    pe_lab_real *maps = out_buf((double)cells, sizeof(pe_lab_real));
    int32_t *seq = out_buf(ok_len ? alen : 1, 4);
    for (int32_t i = 0; i < (ok_len ? alen : 1); i++) seq[i] = byte(s) % k->c[0];
    st = pe_lab_attention(maps, model, seq, alen);
    REQUIRE(st == (ok_len ? PE_OK : PE_ERR_SIZE));
    if (st == PE_OK)
        for (int32_t m = 0; m < L * H; m++)
            for (int32_t i = 0; i < alen; i++)
                require_distribution(maps + ((size_t)m * alen + i) * alen, alen, k->c[9] ? i + 1 : alen);
    free(maps);
    free(seq);
}

/* pe_lab_create and everything a model does, then pe_lab_free: nothing left. */
static int fuzz_lab_model(src *s, long fail_at) {
    lab_config k = lab_decode(s);
    call_state c = {0};
    c.refused = lab_sizes_bad(k.c);
    if (!c.refused && too_big(lab_work(k.c))) return 0;
    DESCRIBE("pe_lab_create(vocab=%d classes=%d d=%d heads=%d layers=%d mlp=%d max_len=%d batch=%d enc=%d "
             "causal=%d layout=%d freq=%d buckets=%d max_dist=%d seed=%d; bases %.17g %.17g alibi %.17g "
             "lr %.17g betas %.17g %.17g eps %.17g decay %.17g clip %.17g) task=%d fail_at=%ld",
             k.c[0], k.c[1], k.c[2], k.c[3], k.c[4], k.c[5], k.c[6], k.c[7], k.c[8], k.c[9], k.c[10], k.c[11],
             k.c[12], k.c[13], k.c[14], k.f[0], k.f[1], k.f[2], k.f[3], k.f[4], k.f[5], k.f[6], k.f[7], k.f[8],
             k.task, fail_at);
    /* the count pe_lab_create checks, without the model: same status unless create fails later */
    double bytes[2] = { -1, -1 };
    int st_bytes = pe_lab_model_bytes(bytes, k.c, k.f);
    REQUIRE(st_bytes != PE_ERR_NOMEM && pe_live_allocations() == 0);
    void *model = &k; /* must become NULL on failure */
    begin(&c, fail_at);
    int st = pe_lab_create(&model, k.c, k.f);
    armed = 0;
    REQUIRE(st >= 0 && st < PE_ERR_COUNT_);
    if (c.refused) REQUIRE(st != PE_OK);
    if (!c.inject) REQUIRE(st != PE_ERR_NOMEM);
    if (st_bytes != PE_OK) REQUIRE(st == st_bytes);
    /* and a config it counts fails only for its size or an allocation: nothing found once the block is made */
    if (st_bytes == PE_OK && st != PE_OK) REQUIRE(st == PE_ERR_NOMEM || (st == PE_ERR_SIZE && bytes[0] > PE_MAX_BYTES));
    if (st == PE_OK) REQUIRE(st_bytes == PE_OK && bytes[0] > 0 && bytes[0] <= PE_MAX_BYTES + 65536);
    if (st != PE_OK) {
        REQUIRE(model == NULL && pe_live_allocations() == 0);
        return 1;
    }
    REQUIRE(model != NULL && bytes[1] == pe_lab_param_count(model));
    fuzz_lab_use(s, model, &k);
    pe_lab_free(model);
    REQUIRE(pe_live_allocations() == 0);
    return 1;
}

/* ---- multi-axis RoPE ------------------------------------------------------------------------ */
/* pe_rope_axes_cache (which 0) and pe_rope_axes_apply (1): positions axes x rows,
 * n_freq frequencies and axes from the input (axes sometimes out of range). */
static int fuzz_rope_axes(src *s, long fail_at, int which) {
    call_state c = {0};
    int32_t rows = size_arg(s), axes = byte(s) % 2 ? size_arg(s) : 1 + byte(s) % 3, nf = size_arg(s);
    int dtype = enum_arg(s, 2), layout = enum_arg(s, 3), pairing = enum_arg(s, 2);
    int32_t head = size_arg(s), heads = 1 + byte(s) % 3;
    double attention = byte(s) % 2 ? num_arg(s) : 1.0;
    int axes_ok = dim_ok(axes);
    double np = in_count(dim_ok(rows) && axes_ok, (double)rows * axes), nw = in_count(dim_ok(nf), nf);
    if (np < 0 || nw < 0) return 0;
    double *pos = in_buf(s, np, NULL), *w = in_buf(s, nw, NULL);
    int32_t *ax = __real_malloc((size_t)nw * sizeof *ax);
    REQUIRE(ax != NULL);
    for (size_t i = 0; i < (size_t)nw; i++) ax[i] = byte(s) < 240 ? byte(s) % (axes_ok ? axes : 1) : axes;
    int st;
    void *o1 = NULL, *o2 = NULL;
    double *x = NULL, bigx = 0;
    size_t n1;
    if (which == 0) {
        double cols = layout == PE_ROPE_CACHE_PAIRS ? nf : 2.0 * nf; /* nf may be any int32: 2 * nf overflowed */
        size_t eb = dtype == PE_F32 ? 4 : 8;
        double count = (double)rows * cols;
        c.refused = !dim_ok(rows) || !dim_ok(nf) || !axes_ok || 2.0 * count * eb > PE_MAX_BYTES;
        if (!c.refused && too_big(2 * count)) goto done;
        n1 = c.refused ? TINY : (size_t)count;
        o1 = out_buf((double)n1, eb);
        o2 = out_buf((double)n1, eb);
        DESCRIBE("pe_rope_axes_cache(dtype=%d, rows=%d, axes=%d, n_freq=%d, attention=%.17g, layout=%d) fail_at=%ld", dtype, rows, axes, nf, attention, layout, fail_at);
        begin(&c, fail_at);
        st = pe_rope_axes_cache(o1, o2, dtype, pos, rows, axes, w, ax, nf, attention, layout);
        end(&c, st);
        if (st == PE_OK) REQUIRE(all_finite(o1, dtype, n1) && all_finite(o2, dtype, n1));
    } else {
        int32_t cols = dim_ok(head) && (double)head * heads <= PE_MAX_DIM ? head * heads : size_arg(s);
        double count = (double)rows * cols;
        c.refused = !dim_ok(rows) || !dim_ok(cols) || !dim_ok(head) || !dim_ok(nf) || !axes_ok || 2.0 * count * 8 > PE_MAX_BYTES;
        if (!c.refused && too_big(2 * count)) goto done;
        double nx = in_count(dim_ok(rows) && dim_ok(cols), count);
        if (nx < 0) goto done;
        n1 = c.refused ? TINY : (size_t)count;
        x = in_buf(s, nx, &bigx);
        o1 = out_buf((double)n1, 8);
        DESCRIBE("pe_rope_axes_apply(rows=%d, cols=%d, head_dim=%d, pairing=%d, axes=%d, n_freq=%d, attention=%.17g) max|x|=%g fail_at=%ld", rows, cols, head, pairing, axes, nf, attention, bigx, fail_at);
        begin(&c, fail_at);
        st = pe_rope_axes_apply(o1, x, rows, cols, head, pairing, pos, axes, w, ax, nf, attention);
        end(&c, st);
        if (st == PE_OK && bigx <= 1e150) REQUIRE(all_finite(o1, PE_F64, n1));
    }
done:
    free(pos);
    free(w);
    free(ax);
    free(x);
    free(o1);
    free(o2);
    return 1;
}

/* ---- entry ------------------------------------------------------------------------------------ */
/* E_pe_table, E_pe_table_gram, ...: the index of each entry point in the input. */
#define INDEX(name, allocates) E_##name,
enum { FUZZ_ENTRIES(INDEX) E_COUNT_ };
#undef INDEX

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    src s = {data, size, 0};
    uint8_t flags = byte(&s);
    long fail_at = flags & FUZZ_FAIL ? (long)(flags & FUZZ_FAIL_AT) : -1;
    continuous = (flags & (FUZZ_FAIL | FUZZ_CONTINUOUS)) == FUZZ_CONTINUOUS;
#define NAME(name, allocates) #name,
    static const char *const names[] = {FUZZ_ENTRIES(NAME)};
#undef NAME
    int which = byte(&s) % (int)(sizeof names / sizeof names[0]);
    current = names[which];
    snprintf(described, sizeof described, "%s (no call made yet)", current);
    switch (which) {
    case E_pe_table: fuzz_table(&s, fail_at, 0); break;
    case E_pe_table_gram: fuzz_table(&s, fail_at, 1); break;
    case E_pe_table_at: fuzz_table_at(&s, fail_at); break;
    case E_pe_frequencies: fuzz_frequencies(&s, fail_at); break;
    case E_pe_dot: fuzz_dot(&s, fail_at); break;
    case E_pe_norms: fuzz_norms_gram(&s, fail_at, 0); break;
    case E_pe_gram:
        if (flags & FUZZ_F32) current = "pe_gram_f32";
        fuzz_norms_gram(&s, fail_at, flags & FUZZ_F32 ? 2 : 1);
        break;
    case E_pe_rotation: fuzz_rotation(&s, fail_at); break;
    case E_pe_toy_attention: fuzz_toy(&s, fail_at); break;
    case E_pe_attention:
        if (flags & FUZZ_F32) current = "pe_attention_f32";
        fuzz_attention(&s, fail_at, flags & FUZZ_F32);
        break;
    case E_pe_strerror: fuzz_strerror(&s); break; /* and pe_malloc/pe_free */
    case E_pe_rope_frequencies: case E_pe_rope_cache: case E_pe_rope_apply:
    case E_pe_rope_permutation: case E_pe_rope_permute:
        fuzz_rope(&s, fail_at, which - E_pe_rope_frequencies);
        break;
    case E_pe_rope_cache_begin: fuzz_rope(&s, fail_at, 5); break; /* and _next, _end */
    case E_pe_rope_rotate: fuzz_rope(&s, fail_at, 6); break;
    case E_pe_alibi_slopes: fuzz_alibi(&s, fail_at, 0); break;
    case E_pe_alibi_bias: fuzz_alibi(&s, fail_at, 1); break;
    case E_pe_t5_bucket: case E_pe_t5_bucket_matrix: case E_pe_shaw_matrix:
        fuzz_t5(&s, fail_at, which - E_pe_t5_bucket);
        break;
    case E_pe_learned_table: case E_pe_learned_rows: fuzz_learned(&s, fail_at, which - E_pe_learned_table); break;
    case E_pe_binary_table: fuzz_binary(&s, fail_at); break;
    case E_pe_round: case E_pe_format_bits: case E_pe_precision_error:
        fuzz_precision(&s, fail_at, which - E_pe_round);
        break;
    case E_pe_timestep_embedding: case E_pe_sincos_1d: case E_pe_sincos_2d:
    case E_pe_fourier_features: case E_pe_fourier_random:
        fuzz_fields(&s, fail_at, which - E_pe_timestep_embedding);
        break;
    case E_pe_lab_generate: fuzz_lab_generate(&s, fail_at); break;
    case E_pe_lab_create: fuzz_lab_model(&s, fail_at); break; /* and every pe_lab_* a model serves */
    case E_pe_columns: fuzz_columns(&s, fail_at); break;
    case E_pe_rope_axes_cache: case E_pe_rope_axes_apply:
        fuzz_rope_axes(&s, fail_at, which - E_pe_rope_axes_cache);
        break;
    }
    REQUIRE(pe_live_allocations() == 0);
    return 0;
}

#ifdef PE_FUZZ_REPLAY_MAIN
/* Replays files, and every file in directories, through the harness; or, with
 * --mutate N SEED, runs N seeded mutations of them.
 *
 * The mutations are what `npm test` runs. libFuzzer's own runs are not
 * repeatable: its coverage feedback differs between runs of one binary (even
 * with -seed, a fixed input order and no ASLR, two runs part ways after about
 * 4000 inputs), so a count of its inputs found a bug on CI's machine and not
 * on ours. These mutations depend on nothing but the committed inputs and
 * SEED: every machine runs the same inputs, and a failure is a failure
 * everywhere. Coverage-guided exploration stays a timed libFuzzer run. */
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#define MAX_INPUT 512 /* libFuzzer's -max_len in fuzz/run.sh */

static uint8_t **inputs;
static char **input_names;
static size_t *input_sizes, input_count;

static char *copy_string(const char *text) {
    char *c = malloc(strlen(text) + 1);
    if (!c) abort();
    return strcpy(c, text);
}

static void add_input(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return;
    uint8_t *buf = malloc(MAX_INPUT);
    size_t n = buf ? fread(buf, 1, MAX_INPUT, f) : 0;
    fclose(f);
    inputs = realloc(inputs, (input_count + 1) * sizeof *inputs);
    input_names = realloc(input_names, (input_count + 1) * sizeof *input_names);
    input_sizes = realloc(input_sizes, (input_count + 1) * sizeof *input_sizes);
    if (!buf || !inputs || !input_names || !input_sizes) abort();
    input_names[input_count] = copy_string(path);
    inputs[input_count] = buf;
    input_sizes[input_count++] = n;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A file, or a directory's files in name order (a listing's order differs between file systems). */
static void add_path(const char *path) {
    DIR *dir = opendir(path);
    if (!dir) {
        add_input(path);
        return;
    }
    char **names = NULL;
    size_t count = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.') continue;
        names = realloc(names, (count + 1) * sizeof *names);
        if (!names) abort();
        char name[4096];
        snprintf(name, sizeof name, "%s/%s", path, e->d_name);
        names[count++] = copy_string(name);
    }
    closedir(dir);
    qsort(names, count, sizeof *names, by_name);
    for (size_t i = 0; i < count; i++) {
        add_input(names[i]);
        free(names[i]);
    }
    free(names);
}

static uint64_t rng_state;
static uint64_t next_random(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}
static size_t below(size_t n) { return n ? (size_t)(next_random() % n) : 0; }

/* One mutation of libFuzzer's kinds: bits, bytes, awkward bytes, insertions, erasures, splices. */
static size_t mutate_once(uint8_t *d, size_t n) {
    static const uint8_t awkward[] = {0, 1, 0x7f, 0x80, 0xff, FUZZ_PLAIN_BELOW - 1, FUZZ_AWKWARD,
                                      FUZZ_NUM_PLAIN_BELOW, FUZZ_ELEM_PLAIN_BELOW, FUZZ_ENUM_PLAIN_BELOW,
                                      FUZZ_FAIL | 1, FUZZ_CONTINUOUS, FUZZ_F32};
    size_t at = below(n);
    switch (below(8)) {
    case 0: if (n) d[at] ^= (uint8_t)(1u << below(8)); break;
    case 1: if (n) d[at] = (uint8_t)next_random(); break;
    case 2: if (n) d[at] = awkward[below(sizeof awkward)]; break;
    case 3: if (n) d[at] += (uint8_t)(below(2) ? 1 : -1); break;
    case 4: /* insert a few random bytes */
        for (size_t k = 1 + below(4); k-- && n < MAX_INPUT; n++) {
            memmove(d + at + 1, d + at, n - at);
            d[at] = (uint8_t)next_random();
        }
        break;
    case 5: { /* erase a few bytes */
        size_t k = n - at < 4 ? n - at : 1 + below(4);
        memmove(d + at, d + at + k, n - at - k);
        n -= k;
        break;
    }
    case 6: { /* splice: the tail of another input */
        size_t o = below(input_count), from = below(input_sizes[o]), k = input_sizes[o] - from;
        if (at + k > MAX_INPUT) k = MAX_INPUT - at;
        memcpy(d + at, inputs[o] + from, k);
        n = at + k;
        break;
    }
    default: d[below(2)] = (uint8_t)next_random(); break; /* another entry point or flag */
    }
    return n;
}

static uint8_t current_input[MAX_INPUT];
static size_t current_size;
static char artifact[4096];

/* Saves the input that failed (an invariant's abort, a sanitizer report, a hang)
 * where fuzz/run.sh replays it from; only async-signal-safe calls. */
static void save_input(void) {
    FILE *f = fopen(artifact, "wb");
    if (f) {
        fwrite(current_input, 1, current_size, f);
        fclose(f);
    }
}
static void on_signal(int sig) {
    save_input();
    if (sig == SIGALRM) fprintf(stderr, "fuzz_api: an input ran for over 120 s\n  call: %s\n", described);
    signal(sig, SIG_DFL);
    raise(sig == SIGALRM ? SIGABRT : sig);
}
/* the sanitizers' hook, when they are linked in */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static int mutate_main(long count, unsigned long long seed, const char *save_as) {
    if (input_count == 0) return 1;
    rng_state = seed;
    snprintf(artifact, sizeof artifact, "%s", save_as);
    signal(SIGABRT, on_signal);
    signal(SIGALRM, on_signal);
    if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(save_input);
    for (long i = 0; i < count; i++) {
        size_t base = below(input_count);
        memcpy(current_input, inputs[base], input_sizes[base]);
        current_size = input_sizes[base];
        for (size_t k = 1 + below(4); k--;) current_size = mutate_once(current_input, current_size);
        /* A hang, not slowness: inputs take milliseconds, but a timed libFuzzer
         * run here once saw a 69 ms input take 11 s on a loaded machine. */
        alarm(120);
        LLVMFuzzerTestOneInput(current_input, current_size);
    }
    alarm(0);
    printf("ok - ran %ld mutations of %zu committed inputs (seed %llu) with no crash, sanitizer report or broken "
           "invariant\n1 passed, 0 failed\n", count, input_count, seed);
    return 0;
}

static int replay_main(void) {
    for (size_t i = 0; i < input_count; i++) {
        LLVMFuzzerTestOneInput(inputs[i], input_sizes[i]);
        fprintf(stderr, "replayed %s: %s\n", input_names[i], described);
    }
    printf("ok - replayed %zu fuzz inputs without a crash or a broken invariant\n", input_count);
    printf("%d passed, %d failed\n", input_count > 0, input_count == 0);
    return input_count > 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    int mutate = argc >= 5 && strcmp(argv[1], "--mutate") == 0;
    for (int a = mutate ? 5 : 1; a < argc; a++) add_path(argv[a]);
    int status = mutate ? mutate_main(atol(argv[2]), strtoull(argv[3], NULL, 10), argv[4]) : replay_main();
    for (size_t i = 0; i < input_count; i++) {
        free(inputs[i]);
        free(input_names[i]);
    }
    free(inputs);
    free(input_names);
    free(input_sizes);
    return status;
}
#endif
