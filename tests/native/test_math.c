/* The core's elementary functions (c/trig.c, c/explog.c), measured in ulps:
 *   1. against tests/golden/math.txt, exact values from an independent
 *      generator (tests/golden/gen_math.py), at the inputs that matter most:
 *      the core's angles, reductions near multiples of pi/2, subnormals;
 *   2. against long double (x87, 64-bit significand) at a million random
 *      inputs per domain, where long double is itself good to ~0.001 ulp;
 *   3. special values, and identities that must hold exactly.
 * The bound everywhere is the one c/mathlib.h promises: under one ulp.
 * Usage: test_math PATH/TO/math.txt */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mathlib.h"

/* Part 2 needs a long double with at least 11 more bits than double (x87's
 * 64, or the 113 of IEEE quad); where long double is double (MSVC, 32-bit
 * ARM) it would compare the core with itself at best. Refuse to build there. */
#if LDBL_MANT_DIG < 64
#error "test_math.c needs long double with >= 64 significand bits (LDBL_MANT_DIG)"
#endif

static int passed, failed;

static void check(int ok, const char *what) {
    printf("%s - %s\n", ok ? "ok" : "not ok", what);
    if (ok) passed++;
    else failed++;
}

/* |got - want| in units of the last place of doubles in want's binade (so
 * that a want just below a power of two is not measured in the ulp above). */
static double ulps(double got, long double want) {
    double w = (double)want;
    if (isnan(w) || isnan(got)) return isnan(w) && isnan(got) ? 0 : INFINITY;
    if (isinf(w) || isinf(got)) return got == w ? 0 : INFINITY;
    int e;
    frexpl(want, &e); /* |want| in [2^(e-1), 2^e) */
    long double ulp = fabsl(want) < 0x1p-1022L ? 0x1p-1074L : ldexpl(1.0L, e - 53);
    return (double)(fabsl((long double)got - want) / ulp);
}

struct tally {
    const char *name;
    long n, rounded;
    double worst, at;
};

static void add(struct tally *s, double got, long double want, double x) {
    double e = ulps(got, want);
    s->n++;
    if (got == (double)want) s->rounded++;
    if (!(e <= s->worst)) {
        s->worst = e;
        s->at = x;
    }
}

static void report(const struct tally *s, const char *source) {
    char what[200];
    snprintf(what, sizeof what, "%-4s %-12s %7ld cases, max %.3f ulp (at %.17g), %.1f%% correctly rounded",
             s->name, source, s->n, s->worst, s->at, 100.0 * s->rounded / (s->n ? s->n : 1));
    check(s->n > 0 && s->worst < 1.0, what);
}

static double eval(const char *name, double x, double y) {
    if (!strcmp(name, "sin")) return pe_sin(x);
    if (!strcmp(name, "cos")) return pe_cos(x);
    if (!strcmp(name, "exp")) return pe_exp(x);
    if (!strcmp(name, "log")) return pe_log(x);
    return pe_pow(x, y);
}

static const char *NAMES[] = { "sin", "cos", "exp", "log", "pow" };

static void golden(const char *path) {
    FILE *f = fopen(path, "r");
    check(f != NULL, "tests/golden/math.txt opens");
    if (!f) return;
    struct tally st[5] = { { .name = "sin" }, { .name = "cos" }, { .name = "exp" }, { .name = "log" }, { .name = "pow" } };
    char line[256], name[8];
    long lines = 0, unparsed = 0;
    while (fgets(line, sizeof line, f)) {
        lines++;
        char a[40], b[40], c[48];
        int k = sscanf(line, "%7s %39s %39s %47s", name, a, b, c);
        int is_pow = !strcmp(name, "pow");
        if (k != (is_pow ? 4 : 3)) {
            unparsed++;
            continue;
        }
        double x = strtod(a, NULL), y = is_pow ? strtod(b, NULL) : 0;
        long double want = strtold(is_pow ? c : b, NULL);
        for (int i = 0; i < 5; i++)
            if (!strcmp(name, NAMES[i])) add(&st[i], eval(name, x, y), want, x);
    }
    fclose(f);
    check(lines > 2000 && unparsed == 0, "every line of math.txt parses");
    for (int i = 0; i < 5; i++) report(&st[i], "golden");
}

#define N 1000000
static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static double uniform(void) { /* [0, 1) */
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}

/* sin and cos of 2 pi u in long double: quarter turns come off exactly (4u - k
 * is exact), the rest is one long double product and sinl/cosl. */
static void turns_want(double u, long double *s, long double *c) {
    double t = 4 * u, k = nearbyint(t), r = t - k;
    long double th = (long double)r * 1.5707963267948966192313216916397510L, sn = sinl(th), cs = cosl(th);
    long double q[4][2] = { { sn, cs }, { cs, -sn }, { -sn, -cs }, { -cs, sn } };
    int i = (int)((int64_t)k & 3);
    *s = q[i][0];
    *c = q[i][1];
}

/* pe_sincos_turns (the learned table's Box-Muller angles: u a multiple of 2^-53 in [0, 1)) */
static void turns(void) {
    struct tally sn = { .name = "sin2pi" }, cs = { .name = "cos2pi" };
    for (long i = 0; i < N; i++) {
        double u = i % 8 ? uniform() : ldexp(2 * uniform() - 1, (int)(uniform() * 48)), s, c;
        long double ws, wc;
        pe_sincos_turns(u, &s, &c);
        turns_want(u, &ws, &wc);
        add(&sn, s, ws, u);
        add(&cs, c, wc, u);
    }
    report(&sn, "random");
    report(&cs, "random");
}

static void random_inputs(void) {
    struct tally sn = { .name = "sin" }, cs = { .name = "cos" }, ex = { .name = "exp" }, lg = { .name = "log" }, pw = { .name = "pow" };
    for (long i = 0; i < N; i++) {
        /* angles as the core forms them: position * 10000^(-j/256), positions below 2^31 */
        double a = floor(uniform() * 0x1p31) * pe_pow(10000, -floor(uniform() * 256) / 256);
        if (i % 4 == 0) a = ldexp(2 * uniform() - 1, (int)(uniform() * 51)); /* the whole domain, |x| < 2^50 */
        add(&sn, pe_sin(a), sinl(a), a);
        add(&cs, pe_cos(a), cosl(a), a);
        double x = 100 * uniform() - 50;
        add(&ex, pe_exp(x), expl(x), x);
        double l = ldexp(uniform() + 0.5, (int)(uniform() * 2000) - 1000);
        add(&lg, pe_log(l), logl(l), l);
        /* the core's exponents are in [-2, 0]; the promise holds to |y| = 16 */
        double b = i % 2 ? 1 + 1e6 * uniform() : ldexp(uniform() + 0.5, (int)(uniform() * 60) - 30);
        double y = i % 2 ? -2 * uniform() : 32 * uniform() - 16;
        add(&pw, pe_pow(b, y), powl(b, y), b);
    }
    report(&sn, "random");
    report(&cs, "random");
    report(&ex, "random");
    report(&lg, "random");
    report(&pw, "random");
}

static void special_values(void) {
    double s, c;
    pe_sincos(0.0, &s, &c);
    check(s == 0 && !signbit(s) && c == 1, "sincos(0) = (0, 1)");
    pe_sincos(-0.0, &s, &c);
    check(s == 0 && signbit(s) && c == 1, "sincos(-0) = (-0, 1)");
    pe_sincos(NAN, &s, &c);
    check(isnan(s) && isnan(c), "sincos(NaN) is NaN");
    pe_sincos(INFINITY, &s, &c);
    check(isnan(s) && isnan(c), "sincos(inf) is NaN");
    check(pe_sin(0x1p-1074) == 0x1p-1074 && pe_sin(1e-300) == 1e-300, "sin of tiny x is x");
    int odd = 1;
    for (double x = 0.1; x < 1e12; x *= 3.7)
        odd &= pe_sin(-x) == -pe_sin(x) && pe_cos(-x) == pe_cos(x);
    check(odd, "sin is odd and cos even, bit for bit");
    check(pe_exp(0) == 1 && pe_exp(-0.0) == 1, "exp(0) = 1");
    check(pe_exp(710) == INFINITY && pe_exp(INFINITY) == INFINITY, "exp overflows to inf");
    check(pe_exp(-746) == 0 && pe_exp(-INFINITY) == 0, "exp underflows to 0");
    check(isnan(pe_exp(NAN)), "exp(NaN) is NaN");
    const double exp_max = 0x1.62e42fefa39efp+9; /* the largest x with a finite exp(x) */
    check(pe_exp(exp_max) < INFINITY && pe_exp(nextafter(exp_max, INFINITY)) == INFINITY,
          "exp overflows exactly past log(DBL_MAX)");
    check(pe_exp(-0x1.74910d52d3051p+9) == 0x1p-1074 && pe_exp(-0x1.74910d52d3052p+9) == 0,
          "exp underflows exactly below log(2^-1075)");
    /* exp of a double-double whose low part matters: results just below DBL_MAX */
    check(pe_pow(0x1.c763545e357dp+0, 0x1.341487638ed58p+10) == 0x1.fffffffffff85p+1023 &&
              pe_pow(8.054335508654553, 340.2258336079005) < INFINITY,
          "pow just below overflow is finite (exp sees the normalised double-double)");
    check(pe_exp_mul(INFINITY, pe_log_dd(1.0)) == 1.0 && pe_pow(1.0, INFINITY) == 1.0, "pow(1, inf) = 1");
    check(pe_log(1) == 0 && pe_log(2) == 0x1.62e42fefa39efp-1, "log(1) = 0, log(2) = ln 2 rounded");
    check(pe_log(0) == -INFINITY && isnan(pe_log(-1)) && isnan(pe_log(NAN)) && pe_log(INFINITY) == INFINITY,
          "log of 0, negatives, NaN, inf");
    int exact_powers = 1;
    for (int k = -1074; k <= 1023; k++) exact_powers &= pe_log(ldexp(1, k)) == (double)(k * 0.6931471805599453094172321214581765680755L);
    check(exact_powers, "log(2^k) is k ln 2 correctly rounded for every k");
    check(pe_pow(10000, -0.2) == 0.15848931924611134, "pow(10000, -0.2) is correctly rounded (musl's -Oz pow was not)");
    check(pe_pow(7, 0) == 1 && pe_pow(1, 123.5) == 1, "pow(x, 0) = pow(1, y) = 1");
    int twos = 1;
    for (int k = -1074; k <= 1023; k++) twos &= pe_pow(2, k) == ldexp(1, k);
    check(twos, "pow(2, k) = 2^k exactly for every k");
    struct tally big = { .name = "pow" }; /* log 2 is exact, so any y: ALiBi's slopes */
    for (int i = 0; i < 100000; i++) {
        double y = -1074 * uniform();
        add(&big, pe_pow(2, y), exp2l(y), y);
    }
    report(&big, "2^y, y>-1074");
    check(pe_pow(10, 400) == INFINITY && pe_pow(10, -400) == 0, "pow overflows and underflows");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s tests/golden/math.txt\n", argv[0]);
        return 2;
    }
    golden(argv[1]);
    random_inputs();
    turns();
    special_values();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
