/*
 * Native tests of the C core: every pe_ entry point with valid and invalid
 * arguments. Each bad argument must give its exact status code, be refused
 * before anything is written, and leave no allocation behind; each valid call
 * must give known values. tests/native/run.sh builds this with clang's
 * AddressSanitizer + UndefinedBehaviorSanitizer and with gcc -Werror.
 *
 * Golden numbers below are literals from tests/golden/golden.json (computed
 * independently in 320-bit fixed point) or exact by construction.
 *
 * Allocation failure is injected by linking with -Wl,--wrap=malloc: the core
 * calls malloc only in c/alloc.c, and __wrap_malloc below can make the k-th
 * call fail, so every "fails half way" path is run for real.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "posenc.h"
#include "posenc_variants.h"
#include "posenc_fields.h"
#include "check.h"
#include "work.h" /* pe_set_byte_limit (builds without NDEBUG) */

/* ---- malloc fault injection ------------------------------------------------- */
void *__real_malloc(size_t bytes);
void *__wrap_malloc(size_t bytes);
long malloc_calls;             /* calls seen since the last reset */
static long malloc_fail_at = -1; /* fail the call with this index (0-based); -1: never */

void *__wrap_malloc(size_t bytes) {
    long i = malloc_calls++;
    if (i == malloc_fail_at) return NULL;
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

void inject_failure(long at) {
    malloc_calls = 0;
    malloc_fail_at = at;
}

/* huge malloc requests must come back NULL under ASan too, not abort */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1:detect_leaks=1"; }

int case_failures;

/* ---- shared inputs ---------------------------------------------------------------- */
static const int32_t BAD_SIZES[] = {0, -1, -7, INT32_MIN, PE_MAX_DIM + 1, INT32_MAX};
static const int BAD_LAYOUTS[] = {-1, 3, 99, INT_MIN, INT_MAX};
static const int BAD_FREQS[] = {-1, 2, 99, INT_MIN, INT_MAX};
static const int BAD_DTYPES[] = {-1, 2, 99, INT_MIN, INT_MAX};
#define SENTINEL 12345.5

static double bad_bases[8];
static double bad_positions[6];
static double nonfinite[3];

static void init_inputs(void) {
    double b[] = {NAN, INFINITY, -INFINITY, 1.0, 0.5, 0.0, -2.0, -0.0};
    memcpy(bad_bases, b, sizeof b);
    double p[] = {NAN, INFINITY, -INFINITY, PE_MAX_POSITION + 1.0, -PE_MAX_POSITION - 1.0, 1e300};
    memcpy(bad_positions, p, sizeof p);
    double n[] = {NAN, INFINITY, -INFINITY};
    memcpy(nonfinite, n, sizeof n);
}

static void fill(double *x, size_t n, double v) {
    for (size_t i = 0; i < n; i++) x[i] = v;
}

static int all_equal(const double *x, size_t n, double v) {
    for (size_t i = 0; i < n; i++)
        if (x[i] != v) return 0;
    return 1;
}

/* vaswani d=6, rows 0..4 (golden.json seedExample.correct) */
static const double VASWANI6[5][6] = {
    {0.0, 1.0, 0.0, 1.0, 0.0, 1.0},
    {0.8414709848078965, 0.5403023058681398, 0.04639922346473127, 0.9989229760406304,
     0.002154433023365604, 0.9999976792064809},
    {0.9092974268256817, -0.4161468365471424, 0.09269850077872722, 0.9956942241237399,
     0.004308856046742812, 0.9999907168366957},
    {0.1411200080598672, -0.9899924966004454, 0.13879810108005053, 0.990320699135675,
     0.006463259070189643, 0.9999791129229608},
    {-0.7568024953079282, -0.6536436208636119, 0.1845987236206174, 0.9828139759067526,
     0.00861763209385695, 0.9999628675191369},
};

static void expect_vaswani6(const double *t, int rows) {
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < 6; c++) EXPECT_NEAR(t[r * 6 + c], VASWANI6[r][c], 1e-15);
}

/* ---- memory --------------------------------------------------------------------------- */
static void test_memory(void) {
    EXPECT(pe_live_allocations() == 0);
    EXPECT(pe_malloc(0) == NULL);
    EXPECT(pe_live_allocations() == 0);
    void *p = pe_malloc(64);
    EXPECT(p != NULL);
    EXPECT(pe_live_allocations() == 1);
    void *q = pe_malloc(1);
    EXPECT(pe_live_allocations() == 2);
    pe_free(p);
    pe_free(q);
    EXPECT(pe_live_allocations() == 0);
    pe_free(NULL);
    EXPECT(pe_live_allocations() == 0);
    /* a request no allocator can meet: NULL, and nothing counted */
    EXPECT(pe_malloc(SIZE_MAX) == NULL);
    EXPECT(pe_malloc(SIZE_MAX / 2) == NULL);
    EXPECT(pe_live_allocations() == 0);
    /* a reservation grows memory for a call's footprint, allocating nothing;
     * none for a footprint no call may hold */
    EXPECT(pe_reserve(0) == 0 && pe_reserve(-0.0) == 0 && pe_reserve(NAN) == 0 && pe_reserve(-NAN) == 0);
    EXPECT(pe_reserve(PE_MAX_BYTES + 1) == 0 && pe_reserve(-(PE_MAX_BYTES + 1.0)) == 0);
    EXPECT(pe_reserve(1 << 20) == 1);
    /* a negative size only asks whether that room is there (it is now), growing nothing */
    EXPECT(pe_reserve(-(1 << 20)) == 1);
    EXPECT(pe_live_allocations() == 0);
    p = pe_malloc(1 << 20);
    EXPECT(p != NULL);
    pe_free(p);
    EXPECT(pe_live_allocations() == 0);
    inject_failure(0);
    EXPECT(pe_malloc(8) == NULL);
    inject_failure(-1);
    EXPECT(pe_live_allocations() == 0);
#ifndef NDEBUG
    /* What one call holds at once (buffers and the core's scratch) stays within
     * the byte limit, lowered here to 1 MiB: refused as a size (status 2). */
    EXPECT(pe_set_byte_limit(0) == PE_MAX_BYTES);
    EXPECT(pe_set_byte_limit(1 << 20) == 1 << 20);
    void *half = pe_malloc(1 << 19);
    EXPECT(half != NULL);
    EXPECT(pe_malloc((1 << 19) + 16) == NULL); /* 16 bytes past the limit */
    static float row[1 << 14];
    /* 2^14 columns: output 64 KiB, scratch 4 + 16 bytes a column = 320 KiB: fits beside half */
    EXPECT(pe_table(row, PE_F32, 1, 1 << 14, PE_LAYOUT_INTERLEAVED, PE_FREQ_PAPER, 1e4, 0.0, -1) == PE_OK);
    pe_free(half);
    half = pe_malloc(900 << 10); /* now 320 KiB of scratch cannot fit */
    EXPECT(pe_table(row, PE_F32, 1, 1 << 14, PE_LAYOUT_INTERLEAVED, PE_FREQ_PAPER, 1e4, 0.0, -1) == PE_ERR_SIZE);
    EXPECT(pe_live_allocations() == 1); /* half only: nothing of the refused call */
    pe_free(half);
    EXPECT(pe_set_byte_limit(PE_MAX_BYTES) == PE_MAX_BYTES);
    EXPECT(pe_live_allocations() == 0);
#endif
}

/* ---- status text ------------------------------------------------------------------------ */
static void test_strerror(void) {
    for (int s = 0; s < PE_ERR_COUNT_; s++) {
        const char *text = pe_strerror(s);
        EXPECT(text != NULL && strlen(text) > 0);
        EXPECT(strcmp(text, "unknown status code") != 0);
        for (int t = 0; t < s; t++) EXPECT(strcmp(text, pe_strerror(t)) != 0);
    }
    int bad[] = {-1, PE_ERR_COUNT_, 11, 1000, INT_MIN, INT_MAX};
    for (size_t i = 0; i < LEN(bad); i++) EXPECT(strcmp(pe_strerror(bad[i]), "unknown status code") == 0);
    EXPECT(strcmp(pe_strerror(PE_OK), "ok") == 0);
}

/* ---- pair count and frequencies ----------------------------------------------------------- */
static void test_pair_count(void) {
    EXPECT(pe_pair_count(6, PE_LAYOUT_INTERLEAVED) == 3);
    EXPECT(pe_pair_count(7, PE_LAYOUT_INTERLEAVED) == 4);
    EXPECT(pe_pair_count(7, PE_LAYOUT_CONCAT) == 3);
    EXPECT(pe_pair_count(7, PE_LAYOUT_SPLIT) == 4);
    EXPECT(pe_pair_count(1, PE_LAYOUT_CONCAT) == 0);
    EXPECT(pe_pair_count(1, PE_LAYOUT_INTERLEAVED) == 1);
    EXPECT(pe_pair_count(PE_MAX_DIM, PE_LAYOUT_SPLIT) == PE_MAX_DIM / 2);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) EXPECT(pe_pair_count(BAD_SIZES[i], PE_LAYOUT_INTERLEAVED) == 0);
    for (size_t i = 0; i < LEN(BAD_LAYOUTS); i++) EXPECT(pe_pair_count(6, BAD_LAYOUTS[i]) == 0);
    EXPECT(pe_live_allocations() == 0);
}

/* Where frequency i's sin and cos land: the d = 7 rows of tests/golden/golden_columns.json
 * (gen_columns.py), and the same columns as pe_table fills. */
static void test_columns(void) {
    int32_t sin_cols[8], cos_cols[8];
    EXPECT_STATUS(pe_columns(NULL, cos_cols, 6, PE_LAYOUT_INTERLEAVED), PE_ERR_NULL);
    EXPECT_STATUS(pe_columns(sin_cols, NULL, 6, PE_LAYOUT_INTERLEAVED), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) EXPECT_STATUS(pe_columns(sin_cols, cos_cols, BAD_SIZES[i], PE_LAYOUT_INTERLEAVED), PE_ERR_SIZE);
    for (size_t i = 0; i < LEN(BAD_LAYOUTS); i++) EXPECT_STATUS(pe_columns(sin_cols, cos_cols, 6, BAD_LAYOUTS[i]), PE_ERR_OPTION);
    static const int32_t want[3][2][5] = {
        {{0, 2, 4, 6, -9}, {1, 3, 5, -1, -9}},  /* interleaved: the last sine has no cosine */
        {{0, 1, 2, -9, -9}, {3, 4, 5, -9, -9}}, /* concat: column 6 is zero */
        {{0, 1, 2, 3, -9}, {4, 5, 6, -1, -9}},  /* split: all ceil(7/2) sines first */
    };
    double row[7], w[4];
    for (int layout = PE_LAYOUT_INTERLEAVED; layout <= PE_LAYOUT_SPLIT; layout++) {
        for (int i = 0; i < 8; i++) sin_cols[i] = cos_cols[i] = -9; /* untouched past pe_pair_count */
        EXPECT_STATUS(pe_columns(sin_cols, cos_cols, 7, layout), PE_OK);
        for (int i = 0; i < 5; i++) EXPECT(sin_cols[i] == want[layout][0][i] && cos_cols[i] == want[layout][1][i]);
        EXPECT_STATUS(pe_table(row, PE_F64, 1, 7, layout, PE_FREQ_PAPER, 1e4, 2, -1), PE_OK);
        EXPECT_STATUS(pe_frequencies(w, 7, layout, PE_FREQ_PAPER, 1e4), PE_OK);
        for (int32_t i = 0; i < pe_pair_count(7, layout); i++) {
            EXPECT_NEAR(row[sin_cols[i]], sin(2 * w[i]), 1e-15);
            if (cos_cols[i] >= 0) EXPECT_NEAR(row[cos_cols[i]], cos(2 * w[i]), 1e-15);
        }
    }
    sin_cols[0] = -9;
    EXPECT_STATUS(pe_columns(sin_cols, cos_cols, 1, PE_LAYOUT_CONCAT), PE_OK); /* no pair: nothing written */
    EXPECT(sin_cols[0] == -9);
    EXPECT(pe_live_allocations() == 0);
}

static void test_frequencies(void) {
    double w[8];
    EXPECT_STATUS(pe_frequencies(NULL, 6, PE_LAYOUT_INTERLEAVED, PE_FREQ_PAPER, 1e4), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) {
        fill(w, 8, SENTINEL);
        EXPECT_STATUS(pe_frequencies(w, BAD_SIZES[i], PE_LAYOUT_INTERLEAVED, PE_FREQ_PAPER, 1e4), PE_ERR_SIZE);
        EXPECT(all_equal(w, 8, SENTINEL));
    }
    for (size_t i = 0; i < LEN(BAD_LAYOUTS); i++)
        EXPECT_STATUS(pe_frequencies(w, 6, BAD_LAYOUTS[i], PE_FREQ_PAPER, 1e4), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(BAD_FREQS); i++)
        EXPECT_STATUS(pe_frequencies(w, 6, PE_LAYOUT_INTERLEAVED, BAD_FREQS[i], 1e4), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(bad_bases); i++) {
        fill(w, 8, SENTINEL);
        EXPECT_STATUS(pe_frequencies(w, 6, PE_LAYOUT_INTERLEAVED, PE_FREQ_PAPER, bad_bases[i]), PE_ERR_BASE);
        EXPECT(all_equal(w, 8, SENTINEL));
    }
    /* golden: vaswani d=6 and d=7 */
    fill(w, 8, SENTINEL);
    EXPECT_STATUS(pe_frequencies(w, 6, PE_LAYOUT_INTERLEAVED, PE_FREQ_PAPER, 1e4), PE_OK);
    EXPECT_NEAR(w[0], 1.0, 0);
    EXPECT_NEAR(w[1], 0.04641588833612779, 1e-15 * 0.0465);
    EXPECT_NEAR(w[2], 0.002154434690031884, 1e-15 * 0.00216);
    EXPECT(w[3] == SENTINEL); /* exactly pe_pair_count values written */
    fill(w, 8, SENTINEL);
    EXPECT_STATUS(pe_frequencies(w, 7, PE_LAYOUT_INTERLEAVED, PE_FREQ_PAPER, 1e4), PE_OK);
    EXPECT_NEAR(w[3], 0.000372759372031494, 1e-15 * 0.00038); /* -6/7 rounded, times ln 1e4: a few ulps */
    EXPECT(w[4] == SENTINEL);
    /* geometric d=6: h = 3, w_i = 10000^(-i/2) = 1, 0.01, 0.0001 */
    EXPECT_STATUS(pe_frequencies(w, 6, PE_LAYOUT_CONCAT, PE_FREQ_GEOM, 1e4), PE_OK);
    EXPECT_NEAR(w[1], 0.01, 1e-15 * 0.01);
    EXPECT_NEAR(w[2], 1e-4, 1e-15 * 1e-4);
    /* geometric d = 2 and 3: the max(h - 1, 1) denominator keeps them finite */
    EXPECT_STATUS(pe_frequencies(w, 3, PE_LAYOUT_INTERLEAVED, PE_FREQ_GEOM, 1e4), PE_OK);
    EXPECT(w[0] == 1.0 && isfinite(w[1]) && w[1] > 0);
    /* base just above 1 is valid */
    EXPECT_STATUS(pe_frequencies(w, 4, PE_LAYOUT_INTERLEAVED, PE_FREQ_PAPER, 1.0 + DBL_EPSILON), PE_OK);
    EXPECT(w[1] > 0 && w[1] < 1);
    EXPECT_STATUS(pe_frequencies(w, 4, PE_LAYOUT_INTERLEAVED, PE_FREQ_PAPER, DBL_MAX), PE_OK);
    EXPECT(w[1] > 0 && w[1] < 1e-100);
}

/* ---- tables ---------------------------------------------------------------------------------- */
static void test_table_errors(void) {
    double t[64];
    /* each bad argument alone, the rest valid; nothing written */
    EXPECT_STATUS(pe_table(NULL, PE_F64, 2, 6, 0, 0, 1e4, 0, -1), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_DTYPES); i++)
        EXPECT_STATUS(pe_table(t, BAD_DTYPES[i], 2, 6, 0, 0, 1e4, 0, -1), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) {
        fill(t, 64, SENTINEL);
        EXPECT_STATUS(pe_table(t, PE_F64, BAD_SIZES[i], 6, 0, 0, 1e4, 0, -1), PE_ERR_SIZE);
        EXPECT_STATUS(pe_table(t, PE_F64, 2, BAD_SIZES[i], 0, 0, 1e4, 0, -1), PE_ERR_SIZE);
        EXPECT(all_equal(t, 64, SENTINEL));
    }
    for (size_t i = 0; i < LEN(BAD_LAYOUTS); i++)
        EXPECT_STATUS(pe_table(t, PE_F64, 2, 6, BAD_LAYOUTS[i], 0, 1e4, 0, -1), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(BAD_FREQS); i++)
        EXPECT_STATUS(pe_table(t, PE_F64, 2, 6, 0, BAD_FREQS[i], 1e4, 0, -1), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(bad_bases); i++)
        EXPECT_STATUS(pe_table(t, PE_F64, 2, 6, 0, 0, bad_bases[i], 0, -1), PE_ERR_BASE);
    for (size_t i = 0; i < LEN(bad_positions); i++)
        EXPECT_STATUS(pe_table(t, PE_F64, 2, 6, 0, 0, 1e4, bad_positions[i], -1), PE_ERR_POSITION);
    /* the last row's position counts too: offset 2^31 is fine for one row, not for two */
    EXPECT_STATUS(pe_table(t, PE_F64, 2, 6, 0, 0, 1e4, PE_MAX_POSITION, -1), PE_ERR_POSITION);
    EXPECT_STATUS(pe_table(t, PE_F64, PE_MAX_DIM, 1, 0, 0, 1e4, PE_MAX_POSITION - 10, -1), PE_ERR_POSITION);
    /* byte limit: refused before any allocation (the buffer here is tiny) */
    inject_failure(0); /* an allocation would fail as NOMEM: the status proves none happened */
    EXPECT_STATUS(pe_table(t, PE_F32, PE_MAX_DIM, PE_MAX_DIM, 0, 0, 1e4, 0, -1), PE_ERR_SIZE);
    /* 2^14 x 2^13 doubles is exactly 1 GiB, allowed; one row more is not */
    EXPECT_STATUS(pe_table(t, PE_F64, (1 << 14) + 1, 1 << 13, 0, 0, 1e4, 0, -1), PE_ERR_SIZE);
    EXPECT_STATUS(pe_table(t, PE_F32, (1 << 14) + 1, 1 << 14, 0, 0, 1e4, 0, -1), PE_ERR_SIZE);
    inject_failure(-1);
    EXPECT(all_equal(t, 64, SENTINEL));
}

static void test_table_values(void) {
    double t[5 * 6];
    float tf[5 * 6];
    EXPECT_STATUS(pe_table(t, PE_F64, 5, 6, PE_LAYOUT_INTERLEAVED, PE_FREQ_PAPER, 1e4, 0, -1), PE_OK);
    expect_vaswani6(t, 5);
    EXPECT_STATUS(pe_table(tf, PE_F32, 5, 6, PE_LAYOUT_INTERLEAVED, PE_FREQ_PAPER, 1e4, 0, -1), PE_OK);
    for (int i = 0; i < 30; i++) EXPECT(tf[i] == (float)t[i]);
    /* offset: rows 1..4 of the same table */
    EXPECT_STATUS(pe_table(t, PE_F64, 4, 6, PE_LAYOUT_INTERLEAVED, PE_FREQ_PAPER, 1e4, 1, -1), PE_OK);
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 6; c++) EXPECT_NEAR(t[r * 6 + c], VASWANI6[r + 1][c], 1e-15);
    /* zero_row: that row is 0; out-of-range rows change nothing */
    EXPECT_STATUS(pe_table(t, PE_F64, 5, 6, PE_LAYOUT_INTERLEAVED, PE_FREQ_PAPER, 1e4, 0, 2), PE_OK);
    EXPECT(all_equal(t + 12, 6, 0.0));
    EXPECT_NEAR(t[6], VASWANI6[1][0], 1e-15);
    EXPECT_NEAR(t[18], VASWANI6[3][0], 1e-15);
    int32_t odd_rows[] = {-1, -5, 5, INT32_MAX, INT32_MIN};
    for (size_t i = 0; i < LEN(odd_rows); i++) {
        EXPECT_STATUS(pe_table(t, PE_F64, 5, 6, PE_LAYOUT_INTERLEAVED, PE_FREQ_PAPER, 1e4, 0, odd_rows[i]), PE_OK);
        expect_vaswani6(t, 5);
    }
    /* the other layouts place the same numbers: concat = [sin | cos], split = marian */
    EXPECT_STATUS(pe_table(t, PE_F64, 5, 6, PE_LAYOUT_CONCAT, PE_FREQ_PAPER, 1e4, 0, -1), PE_OK);
    for (int r = 0; r < 5; r++)
        for (int f = 0; f < 3; f++) {
            EXPECT_NEAR(t[r * 6 + f], VASWANI6[r][2 * f], 1e-15);
            EXPECT_NEAR(t[r * 6 + 3 + f], VASWANI6[r][2 * f + 1], 1e-15);
        }
    /* odd width: concat pads a zero column, interleaved ends with a sine */
    double t7[4 * 7];
    EXPECT_STATUS(pe_table(t7, PE_F64, 4, 7, PE_LAYOUT_CONCAT, PE_FREQ_GEOM, 1e4, 0, -1), PE_OK);
    for (int r = 0; r < 4; r++) EXPECT(t7[r * 7 + 6] == 0.0);
    EXPECT_STATUS(pe_table(t7, PE_F64, 4, 7, PE_LAYOUT_INTERLEAVED, PE_FREQ_PAPER, 1e4, 0, -1), PE_OK);
    EXPECT_NEAR(t7[1 * 7 + 6], sin(0.000372759372031494), 1e-15);
    /* d = 1 in each layout */
    double t1[3];
    EXPECT_STATUS(pe_table(t1, PE_F64, 3, 1, PE_LAYOUT_CONCAT, PE_FREQ_GEOM, 1e4, 0, -1), PE_OK);
    EXPECT(all_equal(t1, 3, 0.0));
    EXPECT_STATUS(pe_table(t1, PE_F64, 3, 1, PE_LAYOUT_INTERLEAVED, PE_FREQ_PAPER, 1e4, 0, -1), PE_OK);
    EXPECT_NEAR(t1[2], sin(2.0), 1e-15);
    EXPECT_STATUS(pe_table(t1, PE_F64, 3, 1, PE_LAYOUT_SPLIT, PE_FREQ_PAPER, 1e4, 0, -1), PE_OK);
    EXPECT_NEAR(t1[1], sin(1.0), 1e-15);
    /* the extreme positions: exact angles at the first row of a run */
    EXPECT_STATUS(pe_table(t, PE_F64, 2, 6, PE_LAYOUT_INTERLEAVED, PE_FREQ_PAPER, 1e4, PE_MAX_POSITION - 1, -1), PE_OK);
    EXPECT_NEAR(t[0], sin(PE_MAX_POSITION - 1), 1e-15);
    EXPECT_NEAR(t[6], sin(PE_MAX_POSITION), 1e-12);
    EXPECT_STATUS(pe_table(t, PE_F64, 1, 6, PE_LAYOUT_INTERLEAVED, PE_FREQ_PAPER, 1e4, -PE_MAX_POSITION, -1), PE_OK);
    EXPECT_NEAR(t[0], sin(-PE_MAX_POSITION), 1e-15);
    EXPECT_NEAR(t[1], cos(-PE_MAX_POSITION), 1e-15);
    EXPECT_STATUS(pe_table(t, PE_F64, 2, 6, PE_LAYOUT_INTERLEAVED, PE_FREQ_PAPER, 1e4, 2.5, -1), PE_OK);
    EXPECT_NEAR(t[0], sin(2.5), 1e-15);
}

/* Rows at positions: each run of consecutive positions is the table from its
 * first position, bit for bit; a lone position the table of one row there. */
static void test_table_at(void) {
    double pos[] = {5, 6, 7, 0, 1, 40000, -3, -2, 1, 1};
    enum { N = LEN(pos), D = 7 };
    double t[N * D], want[3 * D];
    float tf[N * D];
    double bad[] = {NAN, INFINITY, PE_MAX_POSITION + 1.0, -PE_MAX_POSITION - 1.0};
    EXPECT_STATUS(pe_table_at(t, PE_F64, N, D, 0, 0, 1e4, NULL, -1), PE_ERR_NULL);
    EXPECT_STATUS(pe_table_at(NULL, PE_F64, N, D, 0, 0, 1e4, pos, -1), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(bad); i++) {
        fill(t, N * D, SENTINEL);
        pos[8] = bad[i];
        EXPECT_STATUS(pe_table_at(t, PE_F64, N, D, 0, 0, 1e4, pos, -1), PE_ERR_POSITION);
        EXPECT(all_equal(t, N * D, SENTINEL)); /* refused before any row is written */
    }
    pos[8] = 1;
    EXPECT_STATUS(pe_table_at(t, PE_F64, 0, D, 0, 0, 1e4, pos, -1), PE_ERR_SIZE);
    EXPECT_STATUS(pe_table_at(t, 2, N, D, 0, 0, 1e4, pos, -1), PE_ERR_OPTION);
    EXPECT_STATUS(pe_table_at(t, PE_F64, N, D, 0, 0, 1.0, pos, -1), PE_ERR_BASE);
    for (int layout = 0; layout < 3; layout++) {
        EXPECT_STATUS(pe_table_at(t, PE_F64, N, D, layout, PE_FREQ_PAPER, 1e4, pos, 1), PE_OK);
        EXPECT_STATUS(pe_table_at(tf, PE_F32, N, D, layout, PE_FREQ_PAPER, 1e4, pos, 1), PE_OK);
        /* runs: rows 0-2 (5, 6, 7), 3-4 (0, 1), 5, 6-7 (-3, -2), 8, 9 (1 twice: not a run) */
        int32_t starts[] = {0, 3, 5, 6, 8, 9, N};
        for (size_t k = 0; k + 1 < LEN(starts); k++) {
            int32_t r = starts[k], n = starts[k + 1] - r;
            EXPECT_STATUS(pe_table(want, PE_F64, n, D, layout, PE_FREQ_PAPER, 1e4, pos[r], -1), PE_OK);
            for (int32_t i = 0; i < n * D; i++) {
                /* position 1 (zero_pos) is zero wherever it stands */
                double w = pos[r + i / D] == 1 ? 0.0 : want[i];
                EXPECT(memcmp(&t[r * D + i], &w, sizeof w) == 0);
                EXPECT(tf[r * D + i] == (float)w);
            }
        }
    }
    /* a zero_pos below every position, or negative, zeroes nothing */
    EXPECT_STATUS(pe_table_at(t, PE_F64, 1, D, 0, 0, 1e4, pos + 6, -3), PE_OK);
    EXPECT(t[1] != 0.0);
    EXPECT(pe_live_allocations() == 0);
}

/* Every layout, rule, width and dtype: finite, |value| <= 1 (+ rounding), sin^2 + cos^2 = 1. */
static void test_table_bounds(void) {
    enum { LEN_ = 70, DMAX = 33 };
    static double t[LEN_ * DMAX];
    static float tf[LEN_ * DMAX];
    double bases[] = {1.0000001, 2.5, 1e4, 1e300};
    for (int layout = 0; layout <= 2; layout++)
        for (int freq = 0; freq <= 1; freq++)
            for (int32_t d = 1; d <= DMAX; d += 4)
                for (size_t b = 0; b < LEN(bases); b++) {
                    EXPECT_STATUS(pe_table(t, PE_F64, LEN_, d, layout, freq, bases[b], -35.5, 3), PE_OK);
                    EXPECT_STATUS(pe_table(tf, PE_F32, LEN_, d, layout, freq, bases[b], -35.5, 3), PE_OK);
                    for (int i = 0; i < LEN_ * d; i++) {
                        /* the oscillator may pass 1 by a few ulps (c/oscillator.h) */
                        EXPECT(isfinite(t[i]) && fabs(t[i]) <= 1.0 + 1e-13);
                        EXPECT(tf[i] == (float)t[i]);
                    }
                    EXPECT(all_equal(t + 3 * d, (size_t)d, 0.0));
                    if (layout == PE_LAYOUT_INTERLEAVED)
                        for (int r = 0; r < LEN_; r++)
                            for (int i = 0; r != 3 && i + 1 < d; i += 2) {
                                double s = t[r * d + i], c = t[r * d + i + 1];
                                EXPECT_NEAR(s * s + c * c, 1.0, 1e-13);
                            }
                }
}

/* The largest width accepted: d = 2^24, one row. */
static void test_table_max_dim(void) {
    float *t = calloc(PE_MAX_DIM, sizeof *t);
    EXPECT(t != NULL);
    if (!t) return;
    EXPECT_STATUS(pe_table(t, PE_F32, 1, PE_MAX_DIM, PE_LAYOUT_INTERLEAVED, PE_FREQ_PAPER, 1e4, 0, -1), PE_OK);
    int ok = 1;
    for (int32_t i = 0; i < PE_MAX_DIM; i++) ok &= t[i] == (float)(i % 2);
    EXPECT(ok);
    EXPECT_STATUS(pe_table(t, PE_F32, PE_MAX_DIM, 1, PE_LAYOUT_INTERLEAVED, PE_FREQ_PAPER, 1e4, 0, -1), PE_OK);
    EXPECT_NEAR(t[PE_MAX_DIM - 1], sin((double)(PE_MAX_DIM - 1)), 1e-6);
    free(t);
}

/* ---- table Gram ------------------------------------------------------------------------------ */
static void test_table_gram(void) {
    double g[36], t[36], ref[36];
    EXPECT_STATUS(pe_table_gram(NULL, PE_F64, 2, 6, 0, 0, 1e4, 0, -1, 0), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_DTYPES); i++)
        EXPECT_STATUS(pe_table_gram(g, BAD_DTYPES[i], 2, 6, 0, 0, 1e4, 0, -1, 0), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) {
        fill(g, 36, SENTINEL);
        EXPECT_STATUS(pe_table_gram(g, PE_F64, BAD_SIZES[i], 6, 0, 0, 1e4, 0, -1, 0), PE_ERR_SIZE);
        EXPECT_STATUS(pe_table_gram(g, PE_F64, 2, BAD_SIZES[i], 0, 0, 1e4, 0, -1, 1), PE_ERR_SIZE);
        EXPECT(all_equal(g, 36, SENTINEL));
    }
    for (size_t i = 0; i < LEN(BAD_LAYOUTS); i++)
        EXPECT_STATUS(pe_table_gram(g, PE_F64, 2, 6, BAD_LAYOUTS[i], 0, 1e4, 0, -1, 0), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(BAD_FREQS); i++)
        EXPECT_STATUS(pe_table_gram(g, PE_F64, 2, 6, 0, BAD_FREQS[i], 1e4, 0, -1, 0), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(bad_bases); i++)
        EXPECT_STATUS(pe_table_gram(g, PE_F64, 2, 6, 0, 0, bad_bases[i], 0, -1, 0), PE_ERR_BASE);
    for (size_t i = 0; i < LEN(bad_positions); i++)
        EXPECT_STATUS(pe_table_gram(g, PE_F64, 2, 6, 0, 0, 1e4, bad_positions[i], -1, 0), PE_ERR_POSITION);
    inject_failure(0);
    EXPECT_STATUS(pe_table_gram(g, PE_F32, PE_MAX_DIM, 2, 0, 0, 1e4, 0, -1, 0), PE_ERR_SIZE);
    EXPECT_STATUS(pe_table_gram(g, PE_F64, (1 << 14) + 1, 2, 0, 0, 1e4, 0, -1, 0), PE_ERR_SIZE);
    inject_failure(-1);

    /* golden: vaswani d=6 and 7, Gram = table * table^T; the Toeplitz path (even
     * d, no zero row) and the direct path (odd d, or a zero row) */
    int32_t widths[] = {6, 5};
    int32_t zero_rows[] = {-1, 2};
    for (size_t wi = 0; wi < LEN(widths); wi++)
        for (size_t zi = 0; zi < LEN(zero_rows); zi++)
            for (int cosine = 0; cosine <= 1; cosine++) {
                int32_t d = widths[wi], z = zero_rows[zi];
                EXPECT_STATUS(pe_table(t, PE_F64, 6, d, 0, 0, 1e4, 1.5, z), PE_OK);
                for (int i = 0; i < 6; i++)
                    for (int j = 0; j < 6; j++) {
                        double s = 0, ni = 0, nj = 0;
                        for (int c = 0; c < d; c++) {
                            s += t[i * d + c] * t[j * d + c];
                            ni += t[i * d + c] * t[i * d + c];
                            nj += t[j * d + c] * t[j * d + c];
                        }
                        ref[i * 6 + j] = !cosine ? s : (ni > 0 && nj > 0 ? s / sqrt(ni * nj) : 0.0);
                    }
                EXPECT_STATUS(pe_table_gram(g, PE_F64, 6, d, 0, 0, 1e4, 1.5, z, cosine), PE_OK);
                for (int i = 0; i < 36; i++) EXPECT_NEAR(g[i], ref[i], 1e-13);
            }
    /* golden.json "gram vaswani d=64 len=20": diagonal 32, first neighbour 30.916831661619025 */
    static double big[20 * 20];
    EXPECT_STATUS(pe_table_gram(big, PE_F64, 20, 64, 0, 0, 1e4, 0, -1, 0), PE_OK);
    EXPECT_NEAR(big[0], 32.0, 1e-13);
    EXPECT_NEAR(big[1], 30.916831661619025, 1e-13);
    EXPECT_NEAR(big[20 * 19 + 18], 30.916831661619025, 1e-13);
    /* d = 1 under concat: an all-zero table */
    EXPECT_STATUS(pe_table_gram(g, PE_F64, 3, 1, PE_LAYOUT_CONCAT, 0, 1e4, 0, -1, 1), PE_OK);
    EXPECT(all_equal(g, 9, 0.0));
}

/* ---- dot, norms, gram ------------------------------------------------------------------------- */
static void test_dot(void) {
    double a[] = {1, 2, 3}, b[] = {4, 5, 6}, out = SENTINEL;
    EXPECT_STATUS(pe_dot(NULL, a, b, 3), PE_ERR_NULL);
    EXPECT_STATUS(pe_dot(&out, NULL, b, 3), PE_ERR_NULL);
    EXPECT_STATUS(pe_dot(&out, a, NULL, 3), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) EXPECT_STATUS(pe_dot(&out, a, b, BAD_SIZES[i]), PE_ERR_SIZE);
    for (size_t i = 0; i < LEN(nonfinite); i++) {
        double x[] = {1, nonfinite[i], 3};
        EXPECT_STATUS(pe_dot(&out, x, b, 3), PE_ERR_VALUE);
        EXPECT_STATUS(pe_dot(&out, a, x, 3), PE_ERR_VALUE);
    }
    EXPECT(out == SENTINEL);
    EXPECT_STATUS(pe_dot(&out, a, b, 3), PE_OK);
    EXPECT(out == 32.0);
    double c[] = {0.5, -1.25, 2.0, 0.1}, e[] = {4.0, 0.1, -3.0, 0.7};
    EXPECT_STATUS(pe_dot(&out, c, e, 4), PE_OK);
    EXPECT_NEAR(out, -4.055, 1e-15);
    /* finite inputs whose products overflow: inf + -inf would be NaN */
    double big[] = {1e200, 1e200}, mixed[] = {1e200, -1e200};
    EXPECT_STATUS(pe_dot(&out, big, mixed, 2), PE_ERR_VALUE);
    EXPECT_STATUS(pe_dot(&out, big, big, 2), PE_ERR_VALUE);
}

static void test_norms(void) {
    double x[] = {3, 4, 0, 0, 1, 1, -2, 0.5}, out[4];
    EXPECT_STATUS(pe_norms(NULL, x, 4, 2), PE_ERR_NULL);
    EXPECT_STATUS(pe_norms(out, NULL, 4, 2), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) {
        EXPECT_STATUS(pe_norms(out, x, BAD_SIZES[i], 2), PE_ERR_SIZE);
        EXPECT_STATUS(pe_norms(out, x, 4, BAD_SIZES[i]), PE_ERR_SIZE);
    }
    EXPECT_STATUS(pe_norms(out, x, PE_MAX_DIM, PE_MAX_DIM), PE_ERR_SIZE);
    EXPECT_STATUS(pe_norms(out, x, 1 << 14, (1 << 13) + 1), PE_ERR_SIZE); /* > 1 GiB of input */
    for (size_t i = 0; i < LEN(nonfinite); i++) {
        double y[] = {3, 4, 0, 0, 1, 1, -2, nonfinite[i]};
        fill(out, 4, SENTINEL);
        EXPECT_STATUS(pe_norms(out, y, 4, 2), PE_ERR_VALUE);
        EXPECT(all_equal(out, 4, SENTINEL));
    }
    EXPECT_STATUS(pe_norms(out, x, 4, 2), PE_OK);
    EXPECT(out[0] == 5.0 && out[1] == 0.0);
    EXPECT_NEAR(out[2], 1.4142135623730951, 0);
    EXPECT_NEAR(out[3], 2.0615528128088303, 0);
    /* squares that overflow or underflow, of norms that do not: scaled first (issue 16) */
    double big[] = {1, 1, 1e200, 1e200}, tiny[] = {1e-200, 1e-200, 3e-300, 4e-300}, huge[] = {DBL_MAX, DBL_MAX};
    EXPECT_STATUS(pe_norms(out, big, 2, 2), PE_OK);
    EXPECT_NEAR(out[1], 1.4142135623730951e200, 1e185);
    EXPECT_STATUS(pe_norms(out, tiny, 2, 2), PE_OK);
    EXPECT_NEAR(out[0], 1.4142135623730951e-200, 1e-215);
    EXPECT_NEAR(out[1], 5e-300, 1e-315);
    EXPECT_STATUS(pe_norms(out, huge, 1, 2), PE_ERR_VALUE); /* the norm itself passes DBL_MAX */
}

static void test_gram(void) {
    double x[] = {1, 2, 3, 4}, g[4];
    float gf[4];
    EXPECT_STATUS(pe_gram(NULL, PE_F64, x, 2, 2, 0), PE_ERR_NULL);
    EXPECT_STATUS(pe_gram(g, PE_F64, NULL, 2, 2, 0), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_DTYPES); i++) EXPECT_STATUS(pe_gram(g, BAD_DTYPES[i], x, 2, 2, 0), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) {
        EXPECT_STATUS(pe_gram(g, PE_F64, x, BAD_SIZES[i], 2, 0), PE_ERR_SIZE);
        EXPECT_STATUS(pe_gram(g, PE_F64, x, 2, BAD_SIZES[i], 1), PE_ERR_SIZE);
    }
    for (size_t i = 0; i < LEN(nonfinite); i++) {
        double y[] = {1, 2, nonfinite[i], 4};
        EXPECT_STATUS(pe_gram(g, PE_F64, y, 2, 2, 0), PE_ERR_VALUE);
    }
    /* rows^2 doubles would exceed 1 GiB: refused before the scratch Gram is allocated */
    int32_t rows = 11586; /* 11586^2 * 8 > 2^30 */
    double *tall = calloc((size_t)rows, sizeof *tall);
    EXPECT(tall != NULL);
    inject_failure(0);
    if (tall) EXPECT_STATUS(pe_gram(g, PE_F64, tall, rows, 1, 0), PE_ERR_SIZE);
    inject_failure(-1);
    free(tall);
    EXPECT_STATUS(pe_gram(g, PE_F64, x, 2, 2, 0), PE_OK);
    EXPECT(g[0] == 5 && g[1] == 11 && g[2] == 11 && g[3] == 25);
    EXPECT_STATUS(pe_gram(gf, PE_F32, x, 2, 2, 1), PE_OK);
    EXPECT(gf[0] == 1.0f && gf[3] == 1.0f);
    EXPECT(gf[1] == (float)(11 / sqrt(125.0)) && gf[2] == gf[1]);
    double z[] = {0, 0, 3, 4};
    EXPECT_STATUS(pe_gram(g, PE_F64, z, 2, 2, 1), PE_OK);
    EXPECT(g[0] == 0 && g[1] == 0 && g[2] == 0 && g[3] == 1);
    /* more rows than one block of the blocked loop */
    enum { R = 70, C = 3 };
    static double m[R * C], gg[R * R];
    for (int i = 0; i < R * C; i++) m[i] = (i % 7) - 3;
    EXPECT_STATUS(pe_gram(gg, PE_F64, m, R, C, 0), PE_OK);
    for (int i = 0; i < R; i++)
        for (int j = 0; j < R; j++) {
            double s = 0;
            for (int c = 0; c < C; c++) s += m[i * C + c] * m[j * C + c];
            EXPECT(gg[i * R + j] == s);
        }
    /* finite inputs whose dot products overflow, also only in the float32 output */
    double big[] = {1e200, 1e200, 1e200, -1e200}, mid[] = {1e20, 0, 0, 1};
    EXPECT_STATUS(pe_gram(g, PE_F64, big, 2, 2, 0), PE_ERR_VALUE);
    EXPECT_STATUS(pe_gram(gf, PE_F32, big, 2, 2, 0), PE_ERR_VALUE);
    /* a cosine is the same for scaled rows: it is computed (issue 16) */
    EXPECT_STATUS(pe_gram(g, PE_F64, big, 2, 2, 1), PE_OK);
    EXPECT(g[0] == 1 && g[1] == 0 && g[2] == 0 && g[3] == 1);
    for (int k = 0; k < 4; k++) big[k] = big[k] * 1e-200 * 1e-200; /* rows of +-1e-200 */
    EXPECT_STATUS(pe_gram(g, PE_F64, big, 2, 2, 1), PE_OK);
    EXPECT(g[0] == 1 && g[1] == 0 && g[2] == 0 && g[3] == 1);
    EXPECT_STATUS(pe_gram(gf, PE_F32, mid, 2, 2, 0), PE_ERR_VALUE);
    EXPECT_STATUS(pe_gram(g, PE_F64, mid, 2, 2, 0), PE_OK);
    EXPECT_STATUS(pe_gram(gf, PE_F32, mid, 2, 2, 1), PE_OK);
}

/* The float32-input Gram against pe_gram of the same values (as doubles). */
static void gram_f32_agrees(const float *x, int32_t rows, int32_t cols, int cosine) {
    size_t n = (size_t)rows * cols, nn = (size_t)rows * rows;
    double *x64 = malloc(n * sizeof *x64), *want = malloc(nn * sizeof *want), *got = malloc(nn * sizeof *got);
    float *got32 = malloc(nn * sizeof *got32);
    EXPECT(x64 && want && got && got32);
    if (!(x64 && want && got && got32)) return;
    for (size_t k = 0; k < n; k++) x64[k] = x[k];
    double scale = 0;
    EXPECT_STATUS(pe_gram(want, PE_F64, x64, rows, cols, cosine), PE_OK);
    for (size_t k = 0; k < nn; k++) if (fabs(want[k]) > scale) scale = fabs(want[k]);
    EXPECT_STATUS(pe_gram_f32(got, PE_F64, x, rows, cols, cosine), PE_OK);
    EXPECT_STATUS(pe_gram_f32(got32, PE_F32, x, rows, cols, cosine), PE_OK);
    for (int32_t i = 0; i < rows; i++)
        for (int32_t j = 0; j < rows; j++) {
            size_t ij = (size_t)i * rows + j, ji = (size_t)j * rows + i;
            EXPECT(got[ij] == got[ji] && got32[ij] == got32[ji]);
            EXPECT(fabs(got[ij] - want[ij]) <= 1e-6 * scale);
            EXPECT(got32[ij] == (float)got[ij]);
        }
    free(x64); free(want); free(got); free(got32);
}

static void test_gram_f32(void) {
    float x[] = {1, 2, 3, 4}, gf[4];
    double g[4];
    EXPECT_STATUS(pe_gram_f32(NULL, PE_F64, x, 2, 2, 0), PE_ERR_NULL);
    EXPECT_STATUS(pe_gram_f32(g, PE_F64, NULL, 2, 2, 0), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_DTYPES); i++) EXPECT_STATUS(pe_gram_f32(g, BAD_DTYPES[i], x, 2, 2, 0), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) {
        EXPECT_STATUS(pe_gram_f32(g, PE_F64, x, BAD_SIZES[i], 2, 0), PE_ERR_SIZE);
        EXPECT_STATUS(pe_gram_f32(g, PE_F64, x, 2, BAD_SIZES[i], 1), PE_ERR_SIZE);
    }
    EXPECT_STATUS(pe_gram_f32(g, PE_F64, x, PE_MAX_DIM, PE_MAX_DIM, 0), PE_ERR_SIZE);
    for (size_t i = 0; i < LEN(nonfinite); i++) {
        float y[] = {1, 2, (float)nonfinite[i], 4};
        EXPECT_STATUS(pe_gram_f32(g, PE_F64, y, 2, 2, 0), PE_ERR_VALUE);
    }
    int32_t rows = 11586; /* 11586^2 * 8 > 2^30, as pe_gram */
    float *tall = calloc((size_t)rows, sizeof *tall);
    EXPECT(tall != NULL);
    inject_failure(0);
    if (tall) EXPECT_STATUS(pe_gram_f32(g, PE_F64, tall, rows, 1, 0), PE_ERR_SIZE);
    inject_failure(-1);
    free(tall);
    EXPECT_STATUS(pe_gram_f32(g, PE_F64, x, 2, 2, 0), PE_OK);
    EXPECT(g[0] == 5 && g[1] == 11 && g[2] == 11 && g[3] == 25);
    EXPECT_STATUS(pe_gram_f32(gf, PE_F32, x, 2, 2, 1), PE_OK);
    EXPECT(gf[0] == 1.0f && gf[3] == 1.0f && gf[1] == gf[2]);
    float z[] = {0, 0, 3, 4};
    EXPECT_STATUS(pe_gram_f32(g, PE_F64, z, 2, 2, 1), PE_OK);
    EXPECT(g[0] == 0 && g[1] == 0 && g[2] == 0 && g[3] == 1);
    /* huge and tiny magnitudes take the float64 kernel: exact here, and overflow refused */
    float huge[] = {1e30f, 0, 0, 1e-30f};
    EXPECT_STATUS(pe_gram_f32(g, PE_F64, huge, 2, 2, 0), PE_OK);
    EXPECT(g[0] == (double)1e30f * 1e30f && g[1] == 0 && g[3] == (double)1e-30f * 1e-30f);
    EXPECT_STATUS(pe_gram_f32(gf, PE_F32, huge, 2, 2, 0), PE_ERR_VALUE); /* 1e60 is past FLT_MAX */
    EXPECT_STATUS(pe_gram_f32(gf, PE_F32, huge, 2, 2, 1), PE_OK);
    EXPECT(gf[0] == 1 && gf[3] == 1 && gf[1] == 0);
    float over[] = {3e38f, 3e38f};
    EXPECT_STATUS(pe_gram_f32(g, PE_F64, over, 1, 2, 0), PE_OK); /* 1.8e77 fits a double */
    inject_failure(0); /* the float64 copy cannot be allocated */
    EXPECT_STATUS(pe_gram_f32(g, PE_F64, huge, 2, 2, 0), PE_ERR_NOMEM);
    inject_failure(-1);
    /* against the float64 kernel: several column blocks, odd tails, edge rows */
    enum { R = 37, C = 261 };
    static float m[R * C];
    uint32_t state = 12345;
    for (int i = 0; i < R * C; i++) {
        state ^= state << 13; state ^= state >> 17; state ^= state << 5;
        m[i] = (float)((state >> 8) / 8388608.0 - 1.0);
    }
    for (int cosine = 0; cosine < 2; cosine++) {
        gram_f32_agrees(m, R, C, cosine);
        gram_f32_agrees(m, 9, 7, cosine);
        gram_f32_agrees(m, 70, 3, cosine);
        gram_f32_agrees(m, 1, 1, cosine);
    }
}

/* ---- rotation ---------------------------------------------------------------------------------- */
static void test_rotation(void) {
    double r[36];
    EXPECT_STATUS(pe_rotation(NULL, 4, 0, 0, 1e4, 1), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) {
        fill(r, 36, SENTINEL);
        EXPECT_STATUS(pe_rotation(r, BAD_SIZES[i], 0, 0, 1e4, 1), PE_ERR_SIZE);
        EXPECT(all_equal(r, 36, SENTINEL));
    }
    EXPECT_STATUS(pe_rotation(r, PE_MAX_DIM, 0, 0, 1e4, 1), PE_ERR_SIZE);
    EXPECT_STATUS(pe_rotation(r, 16384, 0, 0, 1e4, 1), PE_ERR_SIZE); /* 2 GiB */
    EXPECT_STATUS(pe_rotation(r, 11586, 0, 0, 1e4, 1), PE_ERR_SIZE); /* just over 1 GiB */
    EXPECT_STATUS(pe_rotation(r, PE_MAX_ROTATION_DIM + 2, 0, 0, 1e4, 1), PE_ERR_SIZE);
    int32_t odd[] = {1, 3, 7, 11585, PE_MAX_DIM - 1};
    for (size_t i = 0; i < LEN(odd); i++) {
        fill(r, 36, SENTINEL);
        EXPECT_STATUS(pe_rotation(r, odd[i], 0, 0, 1e4, 1), odd[i] == PE_MAX_DIM - 1 ? PE_ERR_SIZE : PE_ERR_ODD);
        EXPECT(all_equal(r, 36, SENTINEL));
    }
    for (size_t i = 0; i < LEN(BAD_LAYOUTS); i++) EXPECT_STATUS(pe_rotation(r, 4, BAD_LAYOUTS[i], 0, 1e4, 1), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(BAD_FREQS); i++) EXPECT_STATUS(pe_rotation(r, 4, 0, BAD_FREQS[i], 1e4, 1), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(bad_bases); i++) EXPECT_STATUS(pe_rotation(r, 4, 0, 0, bad_bases[i], 1), PE_ERR_BASE);
    for (size_t i = 0; i < LEN(bad_positions); i++) {
        fill(r, 36, SENTINEL);
        EXPECT_STATUS(pe_rotation(r, 4, 0, 0, 1e4, bad_positions[i]), PE_ERR_POSITION);
        EXPECT(all_equal(r, 36, SENTINEL));
    }
    /* golden: tensor2tensor d=4 k=1 */
    static const double T2T[16] = {0.5403023058681398, 0.0, 0.8414709848078965, 0.0,
                                   0.0, 0.999999995, 0.0, 9.999999983333333e-05,
                                   -0.8414709848078965, 0.0, 0.5403023058681398, 0.0,
                                   0.0, -9.999999983333333e-05, 0.0, 0.999999995};
    EXPECT_STATUS(pe_rotation(r, 4, PE_LAYOUT_CONCAT, PE_FREQ_GEOM, 1e4, 1), PE_OK);
    for (int i = 0; i < 16; i++) EXPECT_NEAR(r[i], T2T[i], 1e-16);
    /* M_k PE[p] = PE[p + k] for each layout, with k = 3 and k = -2.5 (PE rows
     * as column vectors: PE[p + k]_j = sum_i M[j][i] PE[p]_i) */
    double ks[] = {3.0, -2.5};
    for (int layout = 0; layout <= 2; layout++)
        for (size_t ki = 0; ki < LEN(ks); ki++) {
            EXPECT_STATUS(pe_rotation(r, 6, layout, PE_FREQ_PAPER, 1e4, ks[ki]), PE_OK);
            double p0[6], p1[6];
            EXPECT_STATUS(pe_table(p0, PE_F64, 1, 6, layout, PE_FREQ_PAPER, 1e4, 10, -1), PE_OK);
            EXPECT_STATUS(pe_table(p1, PE_F64, 1, 6, layout, PE_FREQ_PAPER, 1e4, 10 + ks[ki], -1), PE_OK);
            for (int j = 0; j < 6; j++) {
                double s = 0;
                for (int i = 0; i < 6; i++) s += r[j * 6 + i] * p0[i];
                EXPECT_NEAR(s, p1[j], 1e-14);
            }
        }
    /* the largest k */
    EXPECT_STATUS(pe_rotation(r, 2, 0, 0, 1e4, -PE_MAX_POSITION), PE_OK);
    EXPECT_NEAR(r[0], cos(PE_MAX_POSITION), 1e-15);
}

/* ---- toy attention -------------------------------------------------------------------------------- */
static void test_toy(void) {
    double codes[] = {1, 2, 3}, pos[] = {10, 20, 30}, x[3], y[3], sum = SENTINEL, weighted = SENTINEL;
    int32_t label = -7;
    EXPECT_STATUS(pe_toy_attention(NULL, y, &sum, &label, &weighted, codes, pos, NULL, 3, 30), PE_ERR_NULL);
    EXPECT_STATUS(pe_toy_attention(x, NULL, &sum, &label, &weighted, codes, pos, NULL, 3, 30), PE_ERR_NULL);
    EXPECT_STATUS(pe_toy_attention(x, y, NULL, &label, &weighted, codes, pos, NULL, 3, 30), PE_ERR_NULL);
    EXPECT_STATUS(pe_toy_attention(x, y, &sum, NULL, &weighted, codes, pos, NULL, 3, 30), PE_ERR_NULL);
    EXPECT_STATUS(pe_toy_attention(x, y, &sum, &label, NULL, codes, pos, NULL, 3, 30), PE_ERR_NULL);
    EXPECT_STATUS(pe_toy_attention(x, y, &sum, &label, &weighted, NULL, pos, NULL, 3, 30), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++)
        EXPECT_STATUS(pe_toy_attention(x, y, &sum, &label, &weighted, codes, pos, NULL, BAD_SIZES[i], 30), PE_ERR_SIZE);
    for (size_t i = 0; i < LEN(nonfinite); i++) {
        double bad[] = {1, nonfinite[i], 3};
        EXPECT_STATUS(pe_toy_attention(x, y, &sum, &label, &weighted, bad, pos, NULL, 3, 30), PE_ERR_VALUE);
        EXPECT_STATUS(pe_toy_attention(x, y, &sum, &label, &weighted, codes, bad, NULL, 3, 30), PE_ERR_VALUE);
        EXPECT_STATUS(pe_toy_attention(x, y, &sum, &label, &weighted, codes, pos, bad, 3, 30), PE_ERR_VALUE);
        EXPECT_STATUS(pe_toy_attention(x, y, &sum, &label, &weighted, codes, pos, NULL, 3, nonfinite[i]), PE_ERR_VALUE);
    }
    /* finite inputs whose sums overflow: refused, not a NaN label */
    double huge[] = {1e308, 1e308, -1e308};
    EXPECT_STATUS(pe_toy_attention(x, y, &sum, &label, &weighted, huge, NULL, NULL, 3, 30), PE_ERR_VALUE);
    double big[] = {1e200, 1e200, 1e200};
    EXPECT_STATUS(pe_toy_attention(x, y, &sum, &label, &weighted, big, NULL, NULL, 3, 30), PE_ERR_VALUE);
    double wbig[] = {1e306, 1e306, 1e306};
    EXPECT_STATUS(pe_toy_attention(x, y, &sum, &label, &weighted, codes, pos, wbig, 3, 30), PE_ERR_VALUE);
    EXPECT(sum == SENTINEL && weighted == SENTINEL && label == -7);
    /* golden: 我打你 with PE [10, 20, 30] */
    EXPECT_STATUS(pe_toy_attention(x, y, &sum, &label, &weighted, codes, pos, NULL, 3, 30), PE_OK);
    EXPECT(x[0] == 11 && x[1] == 22 && x[2] == 33);
    EXPECT(y[0] == 726 && y[1] == 1452 && y[2] == 2178);
    EXPECT(sum == 4356 && label == 1 && weighted == 10164);
    double rev[] = {3, 2, 1};
    EXPECT_STATUS(pe_toy_attention(x, y, &sum, &label, &weighted, rev, pos, NULL, 3, 30), PE_OK);
    EXPECT(sum == 4356 && weighted == 9900);
    EXPECT_STATUS(pe_toy_attention(x, y, &sum, &label, &weighted, codes, NULL, NULL, 3, 36), PE_OK);
    EXPECT(sum == 36 && label == 0 && weighted == 84);
    double w[] = {0, 0, 1};
    EXPECT_STATUS(pe_toy_attention(x, y, &sum, &label, &weighted, codes, NULL, w, 3, 35.5), PE_OK);
    EXPECT(label == 1 && weighted == 18);
}

/* ---- scaled dot-product attention ------------------------------------------------------------------- */
static void test_attention(void) {
    double q[] = {1, 0, 0, 1, 1, 1}, k[] = {1, 0, 0, 1, 0.5, -0.5}, v[] = {1, 2, 3, 4, 5, 6};
    double w[9], o[6];
    double s = 1 / sqrt(2.0);
    EXPECT_STATUS(pe_attention(NULL, o, q, k, v, 3, 3, 2, 2, 0, s), PE_ERR_NULL);
    EXPECT_STATUS(pe_attention(w, NULL, q, k, v, 3, 3, 2, 2, 0, s), PE_ERR_NULL);
    EXPECT_STATUS(pe_attention(w, o, NULL, k, v, 3, 3, 2, 2, 0, s), PE_ERR_NULL);
    EXPECT_STATUS(pe_attention(w, o, q, NULL, v, 3, 3, 2, 2, 0, s), PE_ERR_NULL);
    EXPECT_STATUS(pe_attention(w, o, q, k, NULL, 3, 3, 2, 2, 0, s), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) {
        int32_t b = BAD_SIZES[i];
        EXPECT_STATUS(pe_attention(w, o, q, k, v, b, 3, 2, 2, 0, s), PE_ERR_SIZE);
        EXPECT_STATUS(pe_attention(w, o, q, k, v, 3, b, 2, 2, 0, s), PE_ERR_SIZE);
        EXPECT_STATUS(pe_attention(w, o, q, k, v, 3, 3, b, 2, 0, s), PE_ERR_SIZE);
        EXPECT_STATUS(pe_attention(w, o, q, k, v, 3, 3, 2, b, 0, s), PE_ERR_SIZE);
    }
    /* n x m weights alone past 1 GiB: refused before the (tiny) inputs are read */
    EXPECT_STATUS(pe_attention(w, o, q, k, v, 1 << 14, 1 << 13, 1, 1, 0, s), PE_ERR_SIZE);
    EXPECT_STATUS(pe_attention(w, o, q, k, v, PE_MAX_DIM, PE_MAX_DIM, PE_MAX_DIM, PE_MAX_DIM, 1, s), PE_ERR_SIZE);
    double bad_scales[] = {0.0, -0.0, -1.0, NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < LEN(bad_scales); i++)
        EXPECT_STATUS(pe_attention(w, o, q, k, v, 3, 3, 2, 2, 0, bad_scales[i]), PE_ERR_VALUE);
    for (size_t i = 0; i < LEN(nonfinite); i++) {
        double bq[6], bk[6], bv[6];
        memcpy(bq, q, sizeof q);
        memcpy(bk, k, sizeof k);
        memcpy(bv, v, sizeof v);
        bq[5] = bk[3] = bv[4] = nonfinite[i];
        EXPECT_STATUS(pe_attention(w, o, bq, k, v, 3, 3, 2, 2, 0, s), PE_ERR_VALUE);
        EXPECT_STATUS(pe_attention(w, o, q, bk, v, 3, 3, 2, 2, 0, s), PE_ERR_VALUE);
        EXPECT_STATUS(pe_attention(w, o, q, k, bv, 3, 3, 2, 2, 1, s), PE_ERR_VALUE);
    }
    /* finite inputs whose scores overflow (+inf, -inf, inf - inf): refused, not NaN */
    double hq[] = {1e200}, hk1[] = {1e200, -1e200}, hk2[] = {-1e200, -1e200}, hv[] = {1, 2};
    double hq2[] = {1e200, 1e200}, hk3[] = {1e200, -1e200};
    EXPECT_STATUS(pe_attention(w, o, hq, hk1, hv, 1, 2, 1, 1, 0, 1.0), PE_ERR_VALUE);
    EXPECT_STATUS(pe_attention(w, o, hq, hk2, hv, 1, 2, 1, 1, 0, 1.0), PE_ERR_VALUE);
    EXPECT_STATUS(pe_attention(w, o, hq2, hk3, hv, 1, 1, 2, 1, 0, 1.0), PE_ERR_VALUE);
    EXPECT_STATUS(pe_attention(w, o, hq, hq, hv, 1, 1, 1, 1, 0, DBL_MAX), PE_ERR_VALUE);
    /* output pushed past DBL_MAX only by rounding of a convex mix */
    double mq[] = {0}, mk[] = {0, 0}, mv[] = {DBL_MAX, DBL_MAX};
    EXPECT_STATUS(pe_attention(w, o, mq, mk, mv, 1, 2, 1, 1, 0, 1.0), PE_OK);
    EXPECT(o[0] == DBL_MAX || o[0] == nextafter(DBL_MAX, 0));
    /* golden: "n=3 m=3 dk=2 dv=2" and its causal form */
    static const double W[9] = {0.45552749049879915, 0.22460634363480042, 0.3198661658664004,
                                0.2680747034562285, 0.5436863222802805, 0.18823897426349098,
                                0.4011120926797859, 0.4011120926797859, 0.19777581464042818};
    static const double O[6] = {2.7286773507352025, 3.7286773507352025, 2.8403285416145247,
                                3.8403285416145247, 2.5933274439212846, 3.5933274439212846};
    EXPECT_STATUS(pe_attention(w, o, q, k, v, 3, 3, 2, 2, 0, s), PE_OK);
    for (int i = 0; i < 9; i++) EXPECT_NEAR(w[i], W[i], 1e-15);
    for (int i = 0; i < 6; i++) EXPECT_NEAR(o[i], O[i], 1e-14);
    static const double WC[9] = {1.0, 0.0, 0.0, 0.33023845067334306, 0.6697615493266569, 0.0,
                                 0.4011120926797859, 0.4011120926797859, 0.19777581464042818};
    EXPECT_STATUS(pe_attention(w, o, q, k, v, 3, 3, 2, 2, 1, s), PE_OK);
    for (int i = 0; i < 9; i++) EXPECT_NEAR(w[i], WC[i], 1e-15);
    EXPECT_NEAR(o[2], 2.3395230986533138, 1e-14);
    /* huge but finite scores softmax without overflow: one-hot */
    double bq[] = {1e150}, bk[] = {1e150, -1e150};
    EXPECT_STATUS(pe_attention(w, o, bq, bk, hv, 1, 2, 1, 1, 0, 1.0), PE_OK);
    EXPECT(w[0] == 1.0 && w[1] == 0.0 && o[0] == 1.0);
    /* causal with more queries than keys: every row still sums to 1 */
    double q4[4] = {1, 2, 3, 4}, k2[2] = {1, -1}, v2[2] = {10, 20}, w8[8], o4[4];
    EXPECT_STATUS(pe_attention(w8, o4, q4, k2, v2, 4, 2, 1, 1, 1, 1.0), PE_OK);
    for (int i = 0; i < 4; i++) EXPECT_NEAR(w8[2 * i] + w8[2 * i + 1], 1.0, 1e-15);
    EXPECT(w8[0] == 1.0 && w8[1] == 0.0);
}

/* Heads: two query heads share one kv head; a mask broadcast over heads; a -inf bias. */
static void test_attention_heads(void) {
    const double q[8] = {1, 0, 0, 1, 0.5, 0.5, -1, 2}; /* [1, 2, 2, 2] */
    const double k[4] = {1, 0, 0, 1}, v[4] = {1, 2, 3, 4}; /* [1, 1, 2, 2] */
    double w[8], o[8];
    int32_t dims[7] = {1, 2, 1, 2, 2, 2, 2};
    EXPECT_STATUS(pe_attention_heads(w, o, q, k, v, NULL, 0, 1.0, NULL, NULL, NULL, NULL), PE_ERR_NULL);
    const uint8_t mask[2] = {1, 0};
    EXPECT_STATUS(pe_attention_heads(w, o, q, k, v, dims, 0, 1.0, mask, NULL, NULL, NULL), PE_ERR_NULL);
    int32_t bad[7] = {1, 3, 2, 2, 2, 2, 2};
    EXPECT_STATUS(pe_attention_heads(w, o, q, k, v, bad, 0, 1.0, NULL, NULL, NULL, NULL), PE_ERR_SHAPE);
    /* every head and query sees only key 0: weights one-hot, output = v row 0 */
    const int32_t ms[4] = {0, 0, 0, 1};
    EXPECT_STATUS(pe_attention_heads(w, o, q, k, v, dims, 0, 1.0, mask, ms, NULL, NULL), PE_OK);
    for (int r = 0; r < 4; r++) EXPECT(w[2 * r] == 1.0 && w[2 * r + 1] == 0.0 && o[2 * r] == 1.0 && o[2 * r + 1] == 2.0);
    /* head 1's second query: bias -inf on both keys, nothing left: zeros, not NaN */
    const double bias[8] = {0, 0, 0, 0, 0, 0, -INFINITY, -INFINITY};
    const int32_t bs[4] = {0, 4, 2, 1};
    EXPECT_STATUS(pe_attention_heads(w, o, q, k, v, dims, 0, 1.0, NULL, NULL, bias, bs), PE_OK);
    EXPECT(w[6] == 0.0 && w[7] == 0.0 && o[6] == 0.0 && o[7] == 0.0);
    /* head 0 query 0: scores (1, 0): weights e/(e+1), 1/(e+1) */
    EXPECT_NEAR(w[0], exp(1.0) / (exp(1.0) + 1), 1e-15);
    const double nan_bias[1] = {NAN}, inf_bias[1] = {INFINITY};
    const int32_t zs[4] = {0, 0, 0, 0};
    EXPECT_STATUS(pe_attention_heads(w, o, q, k, v, dims, 0, 1.0, NULL, NULL, nan_bias, zs), PE_ERR_VALUE);
    EXPECT_STATUS(pe_attention_heads(w, o, q, k, v, dims, 0, 1.0, NULL, NULL, inf_bias, zs), PE_ERR_VALUE);
}

/*
 * The float32 kernel without weights against pe_attention_heads in float64:
 * grouped heads, causal with more queries than keys, key counts across block
 * edges (64) and not a multiple of 8 (a last block of 7 keys: the packing of K^T four keys at a time stops
 * short of it), rows not a multiple of the 4-row tile.
 */
static void test_attention_f32(void) {
    static const int32_t shapes[][8] = {/* dims, causal */
                                        {1, 4, 2, 5, 3, 3, 8, 1}, {2, 3, 1, 7, 130, 5, 16, 0},
                                        {1, 32, 8, 1, 199, 16, 8, 0}, {1, 2, 2, 70, 70, 9, 24, 1},
                                        /* keys past the last query's view, which only the scan sees */
                                        {1, 2, 1, 3, 100, 8, 8, 1},
                                        /* fewer query rows a kv head than a tile (their own path when dk % 4
                                           == 0): one row over 150 keys (two full blocks, then 22), causal, and
                                           dk 6; two and three grouped heads; two and three queries, causal,
                                           with keys past the last one's view */
                                        {2, 3, 3, 1, 150, 12, 16, 0}, {1, 2, 2, 1, 70, 8, 8, 1}, {1, 1, 1, 1, 9, 6, 8, 0},
                                        {1, 4, 2, 1, 130, 8, 16, 0}, {2, 6, 2, 1, 77, 12, 8, 0}, {1, 2, 2, 2, 70, 8, 8, 1},
                                        {1, 1, 1, 3, 100, 8, 8, 1}};
    for (size_t t = 0; t < LEN(shapes); t++) {
        const int32_t *d = shapes[t];
        int causal = d[7];
        size_t nq = (size_t)d[0] * d[1] * d[3] * d[5], nk = (size_t)d[0] * d[2] * d[4] * d[5];
        size_t nv = (size_t)d[0] * d[2] * d[4] * d[6], no = (size_t)d[0] * d[1] * d[3] * d[6];
        float *q = malloc(nq * 4), *k = malloc(nk * 4), *v = malloc(nv * 4), *o = malloc(no * 4);
        double *q64 = malloc(nq * 8), *k64 = malloc(nk * 8), *v64 = malloc(nv * 8), *o64 = malloc(no * 8);
        uint32_t x = 12345u + (uint32_t)t;
        float *in[] = {q, k, v};
        double *in64[] = {q64, k64, v64};
        size_t count[] = {nq, nk, nv};
        for (int a = 0; a < 3; a++)
            for (size_t i = 0; i < count[a]; i++) {
                x = x * 1103515245u + 12345u;
                in64[a][i] = in[a][i] = (float)((x >> 8) / 8388608.0 - 1.0) * 2.0f;
            }
        double s = 1 / sqrt((double)d[5]);
        EXPECT_STATUS(pe_attention_heads(NULL, o64, q64, k64, v64, d, causal, s, NULL, NULL, NULL, NULL), PE_OK);
        EXPECT_STATUS(pe_attention_f32(o, q, k, v, d, causal, s), PE_OK);
        for (size_t i = 0; i < no; i++) EXPECT_NEAR(o[i], o64[i], 2e-6);
        /* refusals: a non-finite input, dv not a multiple of 8, a bad scale, NULL */
        /* ±inf or NaN anywhere in q, k or v is refused, whether a query sees it (the kernel's own checks of
           scores and outputs) or not (the scan of the keys past the last query's view); a subnormal and -0
           are finite. Every element of the small inputs, about 500 spread over each large one. */
        const float bad[] = {NAN, INFINITY, -INFINITY, 1e-45f, -0.0f};
        for (int a = 0; a < 3; a++)
            for (size_t at = 0; at < count[a]; at += 1 + count[a] / 500) {
                float keep = in[a][at];
                for (int b = 0; b < 5; b++) {
                    in[a][at] = bad[b];
                    EXPECT_STATUS(pe_attention_f32(o, q, k, v, d, causal, s), b < 3 ? PE_ERR_VALUE : PE_OK);
                }
                in[a][at] = keep;
            }
        k[nk - 1] = NAN;
        EXPECT_STATUS(pe_attention_f32(o, q, k, v, d, causal, s), PE_ERR_VALUE);
        int32_t odd[7] = {d[0], d[1], d[2], d[3], d[4], d[5], 7};
        EXPECT_STATUS(pe_attention_f32(o, q, k, v, odd, causal, s), PE_ERR_SHAPE);
        EXPECT_STATUS(pe_attention_f32(o, q, k, v, d, causal, 0.0), PE_ERR_VALUE);
        EXPECT_STATUS(pe_attention_f32(o, NULL, k, v, d, causal, s), PE_ERR_NULL);
        free(q), free(k), free(v), free(o), free(q64), free(k64), free(v64), free(o64);
    }
    /* scores past float32's range: refused (the JS falls back to float64) */
    float hq[8] = {1e20f, 0, 0, 0, 0, 0, 0, 0}, hv[8] = {1, 2, 3, 4, 5, 6, 7, 8}, ho[8];
    const int32_t one[7] = {1, 1, 1, 1, 1, 8, 8};
    EXPECT_STATUS(pe_attention_f32(ho, hq, hq, hv, one, 0, 1.0), PE_ERR_VALUE);
}

/* ---- RoPE ------------------------------------------------------------------------------------------ */
static const pe_rope_params rope_ok = {.factor = 2.0,
                                       .low_freq_factor = 1.0,
                                       .high_freq_factor = 4.0,
                                       .original_max_position = 64.0,
                                       .beta_fast = 32.0,
                                       .beta_slow = 1.0,
                                       .truncate = 1.0};
/* Every fixed field of pe_rope_params, to set each one bad in turn. */
static const size_t ROPE_FIELDS[] = {
    offsetof(pe_rope_params, factor),         offsetof(pe_rope_params, low_freq_factor),
    offsetof(pe_rope_params, high_freq_factor), offsetof(pe_rope_params, original_max_position),
    offsetof(pe_rope_params, beta_fast),      offsetof(pe_rope_params, beta_slow),
    offsetof(pe_rope_params, attention_factor), offsetof(pe_rope_params, max_position),
    offsetof(pe_rope_params, seq_len),        offsetof(pe_rope_params, mscale),
    offsetof(pe_rope_params, mscale_all_dim), offsetof(pe_rope_params, truncate),
    offsetof(pe_rope_params, rotary_fraction)};

/* A zeroed pe_rope_params with room for n longrope factors (calloc: the struct ends in a flexible array). */
static pe_rope_params *rope_params_new(int32_t n) {
    pe_rope_params *p = calloc(1, sizeof *p + (size_t)n * sizeof(double));
    EXPECT(p != NULL);
    return p;
}

static void test_rope_frequencies(void) {
    double w[8], a = SENTINEL;
    EXPECT_STATUS(pe_rope_frequencies(NULL, &a, 8, 1e4, PE_ROPE_DEFAULT, NULL), PE_ERR_NULL);
    EXPECT_STATUS(pe_rope_frequencies(w, NULL, 8, 1e4, PE_ROPE_DEFAULT, NULL), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) EXPECT_STATUS(pe_rope_frequencies(w, &a, BAD_SIZES[i], 1e4, 0, NULL), PE_ERR_SIZE);
    int32_t odd[] = {1, 3, 7, PE_MAX_DIM - 1};
    for (size_t i = 0; i < LEN(odd); i++) EXPECT_STATUS(pe_rope_frequencies(w, &a, odd[i], 1e4, 0, NULL), PE_ERR_ODD);
    for (size_t i = 0; i < LEN(bad_bases); i++) EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, bad_bases[i], 0, NULL), PE_ERR_BASE);
    int bad_scalings[] = {-1, 8, INT_MIN, INT_MAX};
    for (size_t i = 0; i < LEN(bad_scalings); i++) EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, bad_scalings[i], &rope_ok), PE_ERR_OPTION);
    for (int sc = PE_ROPE_LINEAR; sc <= PE_ROPE_LLAMA3; sc++) {
        EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, sc, NULL), PE_ERR_NULL); /* params required */
        for (size_t k = 0; k < LEN(ROPE_FIELDS); k++)
            for (size_t i = 0; i < LEN(nonfinite); i++) {
                pe_rope_params p = rope_ok;
                memcpy((char *)&p + ROPE_FIELDS[k], &nonfinite[i], sizeof(double));
                EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, sc, &p), PE_ERR_VALUE);
            }
        pe_rope_params p = rope_ok;
        p.factor = 0.0; /* factor must be > 0 (yarn: or implied by max_position, here 0) */
        EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, sc, &p), PE_ERR_VALUE);
        EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, sc, &rope_ok), PE_OK);
        for (int i = 0; i < 4; i++) EXPECT(isfinite(w[i]) && w[i] > 0 && w[i] <= 1);
        EXPECT(isfinite(a) && a >= 1);
    }
    EXPECT_STATUS(pe_rope_frequencies(w, &a, 2, 1e4, PE_ROPE_NTK, &rope_ok), PE_ERR_SIZE); /* dim/(dim-2) */
    { /* issue 16: NTK's base * factor^(dim/(dim-2)) past DBL_MAX is refused, not turned into zeros */
        double big[128];
        pe_rope_params p = rope_ok;
        p.factor = 1000;
        EXPECT_STATUS(pe_rope_frequencies(big, &a, 128, 1e306, PE_ROPE_NTK, &p), PE_ERR_VALUE);
        p.factor = 2;
        EXPECT_STATUS(pe_rope_frequencies(big, &a, 8, DBL_MAX, PE_ROPE_NTK, &p), PE_ERR_VALUE);
        EXPECT_STATUS(pe_rope_cache(big, big + 64, PE_F64, 1, 8, DBL_MAX, PE_ROPE_NTK, &p, 0, 0), PE_ERR_VALUE);
        p.factor = 1e-3; /* a factor below 1 shrinks the base: allowed */
        EXPECT_STATUS(pe_rope_frequencies(big, &a, 8, DBL_MAX, PE_ROPE_NTK, &p), PE_OK);
        for (int i = 0; i < 4; i++) EXPECT(isfinite(big[i]) && big[i] > 0 && big[i] <= 1);
    }
    fill(w, 8, SENTINEL);
    EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_DEFAULT, NULL), PE_OK);
    EXPECT(w[0] == 1.0 && a == 1.0 && w[4] == SENTINEL);
    EXPECT_NEAR(w[1], 0.1, 1e-16);
    EXPECT_NEAR(w[3], 0.001, 1e-18);
    EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_LINEAR, &rope_ok), PE_OK);
    EXPECT_NEAR(w[1], 0.05, 1e-16);
}

/* pe_rope_check: what pe_rope_frequencies and the cache refuse, the same attention factor, nothing
 * formed; the longrope factors unread (a params that ends before them is enough), as the JS gives it
 * (eighth pass). */
static void test_rope_check(void) {
    double w[64], a = SENTINEL, a2 = SENTINEL;
    pe_rope_params p = rope_ok;
    EXPECT_STATUS(pe_rope_check(NULL, 8, 1e4, PE_ROPE_LINEAR, &p, 0), PE_ERR_NULL);
    EXPECT_STATUS(pe_rope_check(&a, 8, 1e4, PE_ROPE_LINEAR, NULL, 0), PE_ERR_NULL);
    EXPECT_STATUS(pe_rope_check(&a, 7, 1e4, PE_ROPE_DEFAULT, NULL, 0), PE_ERR_ODD);
    EXPECT_STATUS(pe_rope_check(&a, PE_MAX_DIM + 2, 1e4, PE_ROPE_DEFAULT, NULL, 0), PE_ERR_SIZE);
    EXPECT_STATUS(pe_rope_check(&a, 8, 1, PE_ROPE_DEFAULT, NULL, 0), PE_ERR_BASE);
    EXPECT_STATUS(pe_rope_check(&a, 8, 1e4, 99, &p, 0), PE_ERR_OPTION);
    p.factor = 1000; /* NTK's base past DBL_MAX */
    EXPECT_STATUS(pe_rope_check(&a, 128, 1e306, PE_ROPE_NTK, &p, 0), PE_ERR_VALUE);
    p = (pe_rope_params){.original_max_position = 1, .max_position = PE_MAX_POSITION, .beta_fast = 32, .beta_slow = 1, .truncate = 1};
    EXPECT_STATUS(pe_rope_check(&a, 8, 1e4, PE_ROPE_YARN, &p, 0), PE_ERR_VALUE); /* implied factor 2^31 */
    p.max_position = 8;                                                         /* implied factor 8 */
    EXPECT_STATUS(pe_rope_check(&a, 8, 1e4, PE_ROPE_YARN, &p, 0), PE_OK);
    EXPECT_STATUS(pe_rope_frequencies(w, &a2, 8, 1e4, PE_ROPE_YARN, &p), PE_OK);
    EXPECT(a == a2 && a > 1);
    /* longrope: the check reads no factor (none here); the frequencies refuse one out of range */
    pe_rope_params q = {.original_max_position = 4, .max_position = 16};
    EXPECT_STATUS(pe_rope_check(&a, 64, 1e4, PE_ROPE_LONGROPE, &q, 0), PE_OK);
    pe_rope_params *l = rope_params_new(64);
    *l = q;
    for (int i = 0; i < 64; i++) l->factors[i] = 1;
    EXPECT_STATUS(pe_rope_frequencies(w, &a2, 64, 1e4, PE_ROPE_LONGROPE, l), PE_OK);
    EXPECT(a == a2);
    l->factors[63] = 0; /* a long factor out of range */
    EXPECT_STATUS(pe_rope_frequencies(w, &a2, 64, 1e4, PE_ROPE_LONGROPE, l), PE_ERR_VALUE);
    free(l);
    /* dynamic NTK scales its base by the largest position + 1: fine at 0, past DBL_MAX at 2^16, as the cache finds it */
    pe_rope_params d = {.factor = 1e6, .max_position = 1};
    double c[4], sn[4];
    EXPECT_STATUS(pe_rope_check(&a, 8, 1e300, PE_ROPE_DYNAMIC, &d, 0), PE_OK);
    EXPECT_STATUS(pe_rope_check(&a, 8, 1e300, PE_ROPE_DYNAMIC, &d, 65536), PE_ERR_VALUE);
    EXPECT_STATUS(pe_rope_cache(c, sn, PE_F64, 1, 8, 1e300, PE_ROPE_DYNAMIC, &d, 65535, PE_ROPE_CACHE_PAIRS), PE_ERR_VALUE);
}

/* dynamic, YaRN's mscale pair and implied factor, longrope (issue 13), proportional and
 * llama3 with equal band factors (Llama 4, issue 23): statuses and the formulas. */
static void test_rope_scalings(void) {
    double w[4], w0[4], a = SENTINEL;
    pe_rope_params p = {0};
    EXPECT_STATUS(pe_rope_frequencies(w0, &a, 8, 1e4, PE_ROPE_DEFAULT, NULL), PE_OK);
    /* dynamic: factor 2, max_position 16; no seq_len: HF at init, unscaled */
    p.factor = 2;
    EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_DYNAMIC, &p), PE_ERR_VALUE); /* max_position 0 */
    p.max_position = 16;
    EXPECT_STATUS(pe_rope_frequencies(w, &a, 2, 1e4, PE_ROPE_DYNAMIC, &p), PE_ERR_SIZE);
    EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_DYNAMIC, &p), PE_OK);
    for (int i = 0; i < 4; i++) EXPECT(w[i] == w0[i]);
    p.seq_len = 64; /* scale 2 * 64/16 - 1 = 7: base 1e4 * 7^(8/6) */
    EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_DYNAMIC, &p), PE_OK);
    EXPECT_NEAR(w[1], pow(1e4 * pow(7, 8.0 / 6), -0.25), 1e-15);
    EXPECT(a == 1.0);
    double bad_len[] = {-1, 0.5, PE_MAX_POSITION + 1, NAN};
    for (size_t i = 0; i < LEN(bad_len); i++) {
        p.seq_len = bad_len[i];
        EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_DYNAMIC, &p), PE_ERR_VALUE);
    }
    p.seq_len = 0;
    /* the cache's seq_len is offset + max_len: positions 0..63 scale as seq_len 64 */
    double c[64 * 4], s[64 * 4];
    EXPECT_STATUS(pe_rope_cache(c, s, PE_F64, 64, 8, 1e4, PE_ROPE_DYNAMIC, &p, 0, PE_ROPE_CACHE_PAIRS), PE_OK);
    EXPECT_NEAR(c[63 * 4 + 1], cos(63 * pow(1e4 * pow(7, 8.0 / 6), -0.25)), 1e-13);
    p.factor = 1e6; /* base 1e300 * (1e6 * (1e9 + 1) / 16)^(4/3) overflows: refused */
    EXPECT_STATUS(pe_rope_cache(c, s, PE_F64, 1, 8, 1e300, PE_ROPE_DYNAMIC, &p, 1e9, 0), PE_ERR_VALUE);
    /* YaRN: mscale and mscale_all_dim, both or neither (HF); each in range or 0 */
    pe_rope_params y = {.factor = 4, .original_max_position = 64, .beta_fast = 32, .beta_slow = 1,
                        .mscale = 1, .mscale_all_dim = 0.5, .truncate = 1};
    EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_YARN, &y), PE_OK);
    EXPECT_NEAR(a, (0.1 * log(4) + 1) / (0.05 * log(4) + 1), 1e-15);
    y.mscale_all_dim = 0;
    EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_YARN, &y), PE_OK);
    EXPECT_NEAR(a, 0.1 * log(4) + 1, 1e-15);
    y.mscale_all_dim = -1;
    EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_YARN, &y), PE_ERR_VALUE);
    y.mscale_all_dim = 0.5, y.mscale = 2e6;
    EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_YARN, &y), PE_ERR_VALUE);
    /* YaRN without a factor: max_position / original (HF 5), 256 / 64 = 4 as above */
    double w4[4];
    y.mscale = 0, y.mscale_all_dim = 0;
    EXPECT_STATUS(pe_rope_frequencies(w4, &a, 8, 1e4, PE_ROPE_YARN, &y), PE_OK);
    y.factor = 0, y.max_position = 256;
    EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_YARN, &y), PE_OK);
    for (int i = 0; i < 4; i++) EXPECT(w[i] == w4[i]);
    y.max_position = 0;
    EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_YARN, &y), PE_ERR_VALUE);
    /* longrope: short factors up to seq_len = original, long past it */
    pe_rope_params *l = rope_params_new(8);
    l->original_max_position = 8, l->max_position = 32;
    const double lf[8] = {1, 2, 4, 8, 3, 5, 7, 9};
    memcpy(l->factors, lf, sizeof lf);
    EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_LONGROPE, NULL), PE_ERR_NULL);
    EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_LONGROPE, l), PE_OK);
    for (int i = 0; i < 4; i++) EXPECT_NEAR(w[i], w0[i] / lf[i], 1e-18);
    EXPECT_NEAR(a, sqrt(1 + log(4) / log(8)), 1e-15); /* factor 32 / 8 */
    l->seq_len = 9;
    EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_LONGROPE, l), PE_OK);
    for (int i = 0; i < 4; i++) EXPECT_NEAR(w[i], w0[i] / lf[4 + i], 1e-18);
    double x[2 * 8] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, o[16], pos[2] = {0, 8};
    l->seq_len = 0; /* positions 0 and 8: seq_len 9 > 8, long factors (3) */
    EXPECT_STATUS(pe_rope_apply(o, x, 2, 8, 8, 0, PE_ROPE_HALF, pos, 0, 1e4, PE_ROPE_LONGROPE, l), PE_OK);
    EXPECT_NEAR(o[8], a * (cos(8.0 / 3) - sin(8.0 / 3)), 1e-15); /* (x_0, x_4) = (1, 1) */
    l->max_position = 0; /* neither factor nor max_position */
    EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_LONGROPE, l), PE_ERR_VALUE);
    l->factor = 2, l->original_max_position = 1; /* ln(original) divides */
    EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_LONGROPE, l), PE_ERR_VALUE);
    l->original_max_position = 8;
    EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_LONGROPE, l), PE_OK);
    for (size_t i = 0; i < LEN(nonfinite); i++) {
        l->factors[6] = nonfinite[i];
        EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_LONGROPE, l), PE_ERR_VALUE);
    }
    l->factors[6] = 0;
    EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_LONGROPE, l), PE_ERR_VALUE);
    free(l);
    /* proportional: int(0.5 * 8 // 2) = 2 pairs rotate with base^(-2i/8), then zeros; all / factor 2 */
    pe_rope_params q = {.factor = 2, .rotary_fraction = 0.5};
    EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_PROPORTIONAL, &q), PE_OK);
    EXPECT(w[0] == 0.5 && w[2] == 0 && w[3] == 0 && a == 1);
    EXPECT_NEAR(w[1], 0.05, 1e-17);
    double bad_fraction[] = {0, -0.5, 1.5, NAN};
    for (size_t i = 0; i < LEN(bad_fraction); i++) {
        q.rotary_fraction = bad_fraction[i];
        EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_PROPORTIONAL, &q), PE_ERR_VALUE);
    }
    /* llama3 with low_freq_factor == high_freq_factor (Llama 4 Scout): no blended band, HF only warns */
    pe_rope_params b = {.factor = 16, .low_freq_factor = 1, .high_freq_factor = 1, .original_max_position = 64};
    EXPECT_STATUS(pe_rope_frequencies(w, &a, 8, 1e4, PE_ROPE_LLAMA3, &b), PE_OK);
    for (int i = 0; i < 4; i++) EXPECT(w[i] == (6.283185307179586 / w0[i] > 64 ? w0[i] / 16 : w0[i]));
}

static void test_rope_cache(void) {
    double c[6 * 8], s[6 * 8];
    EXPECT_STATUS(pe_rope_cache(NULL, s, PE_F64, 6, 8, 1e4, 0, NULL, 0, 0), PE_ERR_NULL);
    EXPECT_STATUS(pe_rope_cache(c, NULL, PE_F64, 6, 8, 1e4, 0, NULL, 0, 0), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_DTYPES); i++) EXPECT_STATUS(pe_rope_cache(c, s, BAD_DTYPES[i], 6, 8, 1e4, 0, NULL, 0, 0), PE_ERR_OPTION);
    int bad_layouts[] = {-1, 3, INT_MAX};
    for (size_t i = 0; i < LEN(bad_layouts); i++) EXPECT_STATUS(pe_rope_cache(c, s, PE_F64, 6, 8, 1e4, 0, NULL, 0, bad_layouts[i]), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) {
        EXPECT_STATUS(pe_rope_cache(c, s, PE_F64, BAD_SIZES[i], 8, 1e4, 0, NULL, 0, 0), PE_ERR_SIZE);
        EXPECT_STATUS(pe_rope_cache(c, s, PE_F64, 6, BAD_SIZES[i], 1e4, 0, NULL, 0, 0), PE_ERR_SIZE);
    }
    EXPECT_STATUS(pe_rope_cache(c, s, PE_F64, 6, 7, 1e4, 0, NULL, 0, 0), PE_ERR_ODD);
    inject_failure(0);
    EXPECT_STATUS(pe_rope_cache(c, s, PE_F32, PE_MAX_DIM, 1 << 10, 1e4, 0, NULL, 0, PE_ROPE_CACHE_HALF), PE_ERR_SIZE);
    inject_failure(-1);
    for (size_t i = 0; i < LEN(bad_positions); i++) EXPECT_STATUS(pe_rope_cache(c, s, PE_F64, 6, 8, 1e4, 0, NULL, bad_positions[i], 0), PE_ERR_POSITION);
    EXPECT_STATUS(pe_rope_cache(c, s, PE_F64, 6, 8, 1e4, 0, NULL, PE_MAX_POSITION - 2, 0), PE_ERR_POSITION);
    for (size_t i = 0; i < LEN(bad_bases); i++) EXPECT_STATUS(pe_rope_cache(c, s, PE_F64, 6, 8, bad_bases[i], 0, NULL, 0, 0), PE_ERR_BASE);
    EXPECT_STATUS(pe_rope_cache(c, s, PE_F64, 6, 8, 1e4, PE_ROPE_YARN, NULL, 0, 0), PE_ERR_NULL);
    /* golden "pairs d8": row 1 */
    EXPECT_STATUS(pe_rope_cache(c, s, PE_F64, 6, 8, 1e4, 0, NULL, 0, PE_ROPE_CACHE_PAIRS), PE_OK);
    static const double C1[4] = {0.5403023058681398, 0.9950041652780258, 0.9999500004166653, 0.9999995000000417};
    static const double S1[4] = {0.8414709848078965, 0.09983341664682815, 0.009999833334166664, 0.0009999998333333417};
    for (int i = 0; i < 4; i++) {
        EXPECT_NEAR(c[4 + i], C1[i], 1e-15);
        EXPECT_NEAR(s[4 + i], S1[i], 1e-15);
    }
    /* half layout repeats the pairs: [f | f]; interleaved: f0 f0 f1 f1 ... */
    EXPECT_STATUS(pe_rope_cache(c, s, PE_F64, 6, 8, 1e4, 0, NULL, 0, PE_ROPE_CACHE_HALF), PE_OK);
    for (int i = 0; i < 4; i++) EXPECT(c[8 + i] == c[8 + 4 + i] && s[8 + i] == s[8 + 4 + i]);
    EXPECT_NEAR(c[8 + 1], C1[1], 1e-15);
    EXPECT_STATUS(pe_rope_cache(c, s, PE_F64, 6, 8, 1e4, 0, NULL, 0, PE_ROPE_CACHE_INTERLEAVED), PE_OK);
    EXPECT_NEAR(s[8 + 2], S1[1], 1e-15);
    EXPECT_NEAR(s[8 + 3], S1[1], 1e-15);
}

static void test_rope_apply(void) {
    double x[2 * 8] = {1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0}, out[16], pos[2] = {1, 0};
    EXPECT_STATUS(pe_rope_apply(NULL, x, 2, 8, 4, 0, 1, NULL, 0, 1e4, 0, NULL), PE_ERR_NULL);
    EXPECT_STATUS(pe_rope_apply(out, NULL, 2, 8, 4, 0, 1, NULL, 0, 1e4, 0, NULL), PE_ERR_NULL);
    int bad_pairings[] = {-1, 2, INT_MAX};
    for (size_t i = 0; i < LEN(bad_pairings); i++) EXPECT_STATUS(pe_rope_apply(out, x, 2, 8, 4, 0, bad_pairings[i], NULL, 0, 1e4, 0, NULL), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) {
        EXPECT_STATUS(pe_rope_apply(out, x, BAD_SIZES[i], 8, 4, 0, 1, NULL, 0, 1e4, 0, NULL), PE_ERR_SIZE);
        EXPECT_STATUS(pe_rope_apply(out, x, 2, BAD_SIZES[i], 4, 0, 1, NULL, 0, 1e4, 0, NULL), PE_ERR_SIZE);
        EXPECT_STATUS(pe_rope_apply(out, x, 2, 8, BAD_SIZES[i], 0, 1, NULL, 0, 1e4, 0, NULL), PE_ERR_SIZE);
    }
    EXPECT_STATUS(pe_rope_apply(out, x, 2, 8, 3, 0, 1, NULL, 0, 1e4, 0, NULL), PE_ERR_ODD);
    EXPECT_STATUS(pe_rope_apply(out, x, 2, 8, 6, 0, 1, NULL, 0, 1e4, 0, NULL), PE_ERR_SHAPE); /* 8 % 6 */
    EXPECT_STATUS(pe_rope_apply(out, x, PE_MAX_DIM, PE_MAX_DIM, 2, 0, 1, NULL, 0, 1e4, 0, NULL), PE_ERR_SIZE);
    for (size_t i = 0; i < LEN(nonfinite); i++) {
        double bx[16];
        memcpy(bx, x, sizeof bx);
        bx[13] = nonfinite[i];
        EXPECT_STATUS(pe_rope_apply(out, bx, 2, 8, 4, 0, 1, NULL, 0, 1e4, 0, NULL), PE_ERR_VALUE);
    }
    for (size_t i = 0; i < LEN(bad_positions); i++) {
        double bp[2] = {0, bad_positions[i]};
        EXPECT_STATUS(pe_rope_apply(out, x, 2, 8, 4, 0, 1, bp, 0, 1e4, 0, NULL), PE_ERR_POSITION);
        EXPECT_STATUS(pe_rope_apply(out, x, 2, 8, 4, 0, 1, NULL, bad_positions[i], 1e4, 0, NULL), PE_ERR_POSITION);
    }
    for (size_t i = 0; i < LEN(bad_bases); i++) EXPECT_STATUS(pe_rope_apply(out, x, 2, 8, 4, 0, 1, NULL, 0, bad_bases[i], 0, NULL), PE_ERR_BASE);
    /* half pairing (x_i, x_i+2) per head of 4, position 1: (1, 0) turns by theta_0 = 1 */
    EXPECT_STATUS(pe_rope_apply(out, x, 2, 8, 4, 0, PE_ROPE_HALF, pos, 0, 1e4, 0, NULL), PE_OK);
    EXPECT_NEAR(out[0], 0.5403023058681398, 1e-15);
    EXPECT_NEAR(out[2], 0.8414709848078965, 1e-15);
    EXPECT(out[1] == 0 && out[3] == 0);
    EXPECT_NEAR(out[4], 0.5403023058681398, 1e-15); /* second head, same position */
    for (int i = 8; i < 16; i++) EXPECT(out[i] == x[i]);  /* position 0: unchanged */
    /* interleaved pairing (x_0, x_1): row 1 at offset 1 is (0, 1) turned by 2 rad */
    EXPECT_STATUS(pe_rope_apply(out, x, 2, 8, 4, 0, PE_ROPE_INTERLEAVED, NULL, 1, 1e4, 0, NULL), PE_OK);
    EXPECT_NEAR(out[8], -sin(2.0), 1e-15);
    EXPECT_NEAR(out[9], cos(2.0), 1e-15);
}

/* Multi-axis RoPE: frequency 0 reads axis 1, frequency 1 axis 0 (an M-RoPE
 * section in miniature), against cos/sin of the position the axis holds. */
static void test_rope_axes(void) {
    double pos[2 * 3] = {0, 1, 2, /* axis 0 */ 5, 6, 7 /* axis 1 */}, w[2] = {1, 0.5}, c[3 * 4], s[3 * 4];
    int32_t ax[2] = {1, 0};
    EXPECT_STATUS(pe_rope_axes_cache(NULL, s, PE_F64, pos, 3, 2, w, ax, 2, 1, 1), PE_ERR_NULL);
    EXPECT_STATUS(pe_rope_axes_cache(c, s, PE_F64, NULL, 3, 2, w, ax, 2, 1, 1), PE_ERR_NULL);
    EXPECT_STATUS(pe_rope_axes_cache(c, s, PE_F64, pos, 3, 2, w, NULL, 2, 1, 1), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_DTYPES); i++) EXPECT_STATUS(pe_rope_axes_cache(c, s, BAD_DTYPES[i], pos, 3, 2, w, ax, 2, 1, 1), PE_ERR_OPTION);
    EXPECT_STATUS(pe_rope_axes_cache(c, s, PE_F64, pos, 3, 2, w, ax, 2, 1, 3), PE_ERR_OPTION);
    EXPECT_STATUS(pe_rope_axes_cache(c, s, PE_F64, pos, 3, 0, w, ax, 2, 1, 1), PE_ERR_SIZE);
    EXPECT_STATUS(pe_rope_axes_cache(c, s, PE_F64, pos, 3, PE_MAX_DIM + 1, w, ax, 2, 1, 1), PE_ERR_SIZE);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) {
        EXPECT_STATUS(pe_rope_axes_cache(c, s, PE_F64, pos, BAD_SIZES[i], 2, w, ax, 2, 1, 1), PE_ERR_SIZE);
        EXPECT_STATUS(pe_rope_axes_cache(c, s, PE_F64, pos, 3, 2, w, ax, BAD_SIZES[i], 1, 1), PE_ERR_SIZE);
    }
    int32_t bad_axis[2] = {2, 0};
    EXPECT_STATUS(pe_rope_axes_cache(c, s, PE_F64, pos, 3, 2, w, bad_axis, 2, 1, 1), PE_ERR_SHAPE);
    double bad_w[2] = {-1, 0.5}, big_w[2] = {PE_ROPE_MAX_FREQ * 2, 0.5};
    EXPECT_STATUS(pe_rope_axes_cache(c, s, PE_F64, pos, 3, 2, bad_w, ax, 2, 1, 1), PE_ERR_VALUE);
    EXPECT_STATUS(pe_rope_axes_cache(c, s, PE_F64, pos, 3, 2, big_w, ax, 2, 1, 1), PE_ERR_VALUE);
    EXPECT_STATUS(pe_rope_axes_cache(c, s, PE_F64, pos, 3, 2, w, ax, 2, 0, 1), PE_ERR_VALUE);
    for (size_t i = 0; i < LEN(nonfinite); i++) {
        pos[4] = nonfinite[i];
        EXPECT_STATUS(pe_rope_axes_cache(c, s, PE_F64, pos, 3, 2, w, ax, 2, 1, 1), PE_ERR_POSITION);
    }
    pos[4] = 6;
    EXPECT_STATUS(pe_rope_axes_cache(c, s, PE_F64, pos, 3, 2, w, ax, 2, 2, PE_ROPE_CACHE_HALF), PE_OK);
    /* row 1: frequency 0 at axis 1's 6, frequency 1 at axis 0's 1; half layout [f0 f1 | f0 f1]; attention 2 */
    EXPECT_NEAR(c[4], 2 * cos(6.0), 1e-15);
    EXPECT_NEAR(s[5], 2 * sin(0.5), 1e-15);
    EXPECT(c[6] == c[4] && s[7] == s[5]);

    double x[3 * 4] = {1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 1, 1}, out[12];
    EXPECT_STATUS(pe_rope_axes_apply(NULL, x, 3, 4, 4, PE_ROPE_HALF, pos, 2, w, ax, 2, 1), PE_ERR_NULL);
    EXPECT_STATUS(pe_rope_axes_apply(out, x, 3, 4, 4, 2, pos, 2, w, ax, 2, 1), PE_ERR_OPTION);
    EXPECT_STATUS(pe_rope_axes_apply(out, x, 3, 4, 3, PE_ROPE_HALF, pos, 2, w, ax, 2, 1), PE_ERR_ODD);
    EXPECT_STATUS(pe_rope_axes_apply(out, x, 3, 4, 2, PE_ROPE_HALF, pos, 2, w, ax, 2, 1), PE_ERR_SHAPE); /* 4 freqs' width > 2 */
    EXPECT_STATUS(pe_rope_axes_apply(out, x, 3, 6, 4, PE_ROPE_HALF, pos, 2, w, ax, 2, 1), PE_ERR_SHAPE); /* 6 % 4 */
    x[3] = NAN;
    EXPECT_STATUS(pe_rope_axes_apply(out, x, 3, 4, 4, PE_ROPE_HALF, pos, 2, w, ax, 2, 1), PE_ERR_VALUE);
    x[3] = 0;
    EXPECT_STATUS(pe_rope_axes_apply(out, x, 3, 4, 4, PE_ROPE_HALF, pos, 2, w, ax, 2, 1), PE_OK);
    /* row 0, e_0 under rotate_half: frequency 0 at axis 1's 5 turns (x0, x2) */
    EXPECT_NEAR(out[0], cos(5.0), 1e-15);
    EXPECT_NEAR(out[2], sin(5.0), 1e-15);
    EXPECT_STATUS(pe_rope_axes_apply(out, x, 3, 4, 4, PE_ROPE_INTERLEAVED, pos, 2, w, ax, 1, 1), PE_OK);
    EXPECT(out[2] == x[2] && out[3] == x[3]); /* one frequency: the second pair is copied */
    EXPECT_NEAR(out[1], sin(5.0), 1e-15);
}

/* pe_rope_cache_begin/next/end: errors, pieces equal one call, rows at positions,
 * allocation failures; accuracy near 2^24 against long double. */
static void test_rope_rows(void) {
    pe_rope_rows *st = NULL;
    double a = 0, c[8 * 8], s[8 * 8], c1[8 * 8], s1[8 * 8];
    EXPECT_STATUS(pe_rope_cache_begin(NULL, &a, PE_F64, 8, 8, 1e4, 0, NULL, 0, 1), PE_ERR_NULL);
    EXPECT_STATUS(pe_rope_cache_begin(&st, NULL, PE_F64, 8, 8, 1e4, 0, NULL, 0, 1), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_DTYPES); i++)
        EXPECT_STATUS(pe_rope_cache_begin(&st, &a, BAD_DTYPES[i], 8, 8, 1e4, 0, NULL, 0, 1), PE_ERR_OPTION);
    EXPECT_STATUS(pe_rope_cache_begin(&st, &a, PE_F64, 8, 8, 1e4, 0, NULL, 0, 3), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++)
        EXPECT_STATUS(pe_rope_cache_begin(&st, &a, PE_F64, BAD_SIZES[i], 8, 1e4, 0, NULL, 0, 1), PE_ERR_SIZE);
    EXPECT_STATUS(pe_rope_cache_begin(&st, &a, PE_F64, 8, 7, 1e4, 0, NULL, 0, 1), PE_ERR_ODD);
    for (size_t i = 0; i < LEN(bad_positions); i++)
        EXPECT_STATUS(pe_rope_cache_begin(&st, &a, PE_F64, 8, 8, 1e4, 0, NULL, bad_positions[i], 1),
                      PE_ERR_POSITION);
    EXPECT_STATUS(pe_rope_cache_begin(&st, &a, PE_F64, 8, 8, 1e4, PE_ROPE_YARN, NULL, 0, 1), PE_ERR_NULL);
    EXPECT(st == NULL);
    for (long k = 0; k < 4; k++) { /* each allocation of begin failing: NOMEM, nothing left */
        inject_failure(k);
        int status = pe_rope_cache_begin(&st, &a, PE_F64, 8, 8, 1e4, 0, NULL, 0, 1);
        inject_failure(-1);
        if (status == PE_OK) {
            pe_rope_cache_end(st);
            break;
        }
        EXPECT(status == PE_ERR_NOMEM && st == NULL && pe_live_allocations() == 0);
    }
    pe_rope_cache_end(NULL);
    /* 3 rows then 5 equal one pe_rope_cache of 8, bit for bit; more than are left is refused */
    EXPECT_STATUS(pe_rope_cache(c, s, PE_F64, 8, 8, 1e4, 0, NULL, 2, PE_ROPE_CACHE_HALF), PE_OK);
    EXPECT(pe_rope_cache_begin(&st, &a, PE_F64, 8, 8, 1e4, 0, NULL, 2, PE_ROPE_CACHE_HALF) == PE_OK
           && a == 1);
    EXPECT(pe_rope_cache_next(NULL, c1, s1, 3, NULL) == PE_ERR_NULL);
    EXPECT(pe_rope_cache_next(st, NULL, s1, 3, NULL) == PE_ERR_NULL);
    EXPECT(pe_rope_cache_next(st, c1, s1, 0, NULL) == PE_ERR_SIZE);
    EXPECT(pe_rope_cache_next(st, c1, s1, 9, NULL) == PE_ERR_SIZE);
    EXPECT(pe_rope_cache_next(st, c1, s1, 3, NULL) == PE_OK);
    EXPECT(pe_rope_cache_next(st, c1 + 24, s1 + 24, 5, NULL) == PE_OK);
    EXPECT(pe_rope_cache_next(st, c1, s1, 1, NULL) == PE_ERR_SIZE); /* none left */
    EXPECT(memcmp(c, c1, sizeof c) == 0 && memcmp(s, s1, sizeof s) == 0);
    /* rows at positions: exact sincos, any position within +-PE_MAX_POSITION */
    double pos[2] = { 5, -3 }, badpos[2] = { 0, NAN };
    EXPECT(pe_rope_cache_next(st, c1, s1, 2, badpos) == PE_ERR_POSITION);
    EXPECT(pe_rope_cache_next(st, c1, s1, 2, pos) == PE_OK);
    EXPECT_NEAR(c1[1], cos(5 * pow(1e4, -0.25)), 1e-15);
    EXPECT_NEAR(s1[8 + 4], sin(-3.0), 1e-15); /* half layout: column h + 0 */
    pe_rope_cache_end(st);
    EXPECT(pe_live_allocations() == 0);
    /* near 2^24, every value of a dim-128 llama3 cache against long double sin/cos of the double angle */
    double w[64], af;
    static const pe_rope_params l3_params = {
        .factor = 8, .low_freq_factor = 1, .high_freq_factor = 4, .original_max_position = 8192};
    const pe_rope_params *l3 = &l3_params;
    EXPECT_STATUS(pe_rope_frequencies(w, &af, 128, 5e5, PE_ROPE_LLAMA3, l3), PE_OK);
    enum { N = 600 };
    double first = 16777216.0 - (N - 1);
    static double c64[N * 128], s64[N * 128];
    static float c32[N * 64], s32[N * 64];
    EXPECT_STATUS(
        pe_rope_cache(c64, s64, PE_F64, N, 128, 5e5, PE_ROPE_LLAMA3, l3, first, PE_ROPE_CACHE_INTERLEAVED),
        PE_OK);
    EXPECT_STATUS(
        pe_rope_cache(c32, s32, PE_F32, N, 128, 5e5, PE_ROPE_LLAMA3, l3, first, PE_ROPE_CACHE_PAIRS), PE_OK);
    double e64 = 0, e32 = 0;
    for (int r = 0; r < N; r++) {
        for (int i = 0; i < 64; i++) {
            long double ang = (long double)((first + r) * w[i]);
            long double wc = cosl(ang), ws = sinl(ang);
            e64 = fmax(e64, (double)fabsl(c64[r * 128 + 2 * i] - wc));
            e64 = fmax(e64, (double)fabsl(s64[r * 128 + 2 * i + 1] - ws));
            e32 = fmax(e32, (double)fabsl(c32[r * 64 + i] - wc));
            e32 = fmax(e32, (double)fabsl(s32[r * 64 + i] - ws));
        }
    }
    /* the double angle position * theta itself is within half an ulp of 2^24 (~2e-9):
     * variants.test.js's 1e-12 + 16 eps |position| */
    EXPECT(e64 <= 1e-12 + 16 * DBL_EPSILON * 16777216.0);
    EXPECT(e32 <= 1e-6);
}

/* pe_rope_rotate: errors; equals pe_rope_apply (float64) for both pairings and partial
 * rotary; float32 close to it; in place; non-finite inputs and float32 overflow refused. */
static void test_rope_rotate(void) {
    enum { B = 2, S = 3, HD = 12, COLS = 24, RD = 8 };
    double x[B * S * COLS], y[B * S * COLS], want[B * S * COLS], cs[S * RD] = { 0 }, sn[S * RD] = { 0 }, pos[S] = { 4, 0, 9 };
    float xf[B * S * COLS], yf[B * S * COLS], csf[S * RD] = { 0 }, snf[S * RD] = { 0 };
    for (int i = 0; i < B * S * COLS; i++) xf[i] = (float)(x[i] = sin(i * 1.7) * 3);
    EXPECT_STATUS(pe_rope_rotate(NULL, x, PE_F64, B, S, COLS, HD, RD, 1, cs, sn), PE_ERR_NULL);
    EXPECT_STATUS(pe_rope_rotate(y, x, PE_F64, B, S, COLS, HD, RD, 1, NULL, sn), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_DTYPES); i++)
        EXPECT_STATUS(pe_rope_rotate(y, x, BAD_DTYPES[i], B, S, COLS, HD, RD, 1, cs, sn), PE_ERR_OPTION);
    EXPECT_STATUS(pe_rope_rotate(y, x, PE_F64, B, S, COLS, HD, RD, 2, cs, sn), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) {
        EXPECT_STATUS(pe_rope_rotate(y, x, PE_F64, BAD_SIZES[i], S, COLS, HD, RD, 1, cs, sn), PE_ERR_SIZE);
        EXPECT_STATUS(pe_rope_rotate(y, x, PE_F64, B, BAD_SIZES[i], COLS, HD, RD, 1, cs, sn), PE_ERR_SIZE);
        EXPECT_STATUS(pe_rope_rotate(y, x, PE_F64, B, S, BAD_SIZES[i], HD, RD, 1, cs, sn), PE_ERR_SIZE);
    }
    EXPECT_STATUS(pe_rope_rotate(y, x, PE_F64, B, S, COLS, 5, RD, 1, cs, sn), PE_ERR_ODD);
    EXPECT_STATUS(pe_rope_rotate(y, x, PE_F64, B, S, COLS, 16, 8, 1, cs, sn), PE_ERR_SHAPE);  /* 24 % 16 */
    EXPECT_STATUS(pe_rope_rotate(y, x, PE_F64, B, S, COLS, HD, 14, 1, cs, sn), PE_ERR_SHAPE); /* rd > head */
    EXPECT_STATUS(pe_rope_rotate(y, x, PE_F64, PE_MAX_DIM, PE_MAX_DIM, 2, 2, 0, 1, cs, sn), PE_ERR_SIZE);
    for (int pairing = 0; pairing < 2; pairing++) {
        int layout = pairing == PE_ROPE_HALF ? PE_ROPE_CACHE_HALF : PE_ROPE_CACHE_INTERLEAVED;
        pe_rope_rows *st;
        double a;
        EXPECT(pe_rope_cache_begin(&st, &a, PE_F64, 1, RD, 500, 0, NULL, 9, layout) == PE_OK);
        EXPECT(pe_rope_cache_next(st, cs, sn, S, pos) == PE_OK);
        pe_rope_cache_end(st);
        EXPECT(pe_rope_cache_begin(&st, &a, PE_F32, 1, RD, 500, 0, NULL, 9, layout) == PE_OK);
        EXPECT(pe_rope_cache_next(st, csf, snf, S, pos) == PE_OK);
        pe_rope_cache_end(st);
        for (int b = 0; b < B; b++)
            EXPECT_STATUS(pe_rope_apply(want + b * S * COLS, x + b * S * COLS, S, COLS, HD, RD, pairing, pos,
                                        0, 500, 0, NULL),
                          PE_OK);
        EXPECT_STATUS(pe_rope_rotate(y, x, PE_F64, B, S, COLS, HD, RD, pairing, cs, sn), PE_OK);
        EXPECT_STATUS(pe_rope_rotate(yf, xf, PE_F32, B, S, COLS, HD, RD, pairing, csf, snf), PE_OK);
        double e64 = 0, e32 = 0;
        for (int i = 0; i < B * S * COLS; i++) {
            e64 = fmax(e64, fabs(y[i] - want[i]));
            e32 = fmax(e32, fabs(yf[i] - want[i]));
        }
        EXPECT(e64 <= 1e-14);
        EXPECT(e32 <= 4e-6); /* |x| <= 3: float32 rounding of x, cos, sin and two products */
        float in_place[B * S * COLS];
        memcpy(in_place, xf, sizeof in_place);
        EXPECT_STATUS(pe_rope_rotate(in_place, in_place, PE_F32, B, S, COLS, HD, RD, pairing, csf, snf),
                      PE_OK);
        EXPECT(memcmp(in_place, yf, sizeof yf) == 0);
    }
    for (size_t i = 0; i < LEN(nonfinite); i++) {
        for (int at = 0; at < COLS; at += 7) { /* rotated and passed-through coordinates alike */
            float bx[B * S * COLS];
            memcpy(bx, xf, sizeof bx);
            bx[COLS + at] = (float)nonfinite[i];
            EXPECT_STATUS(pe_rope_rotate(yf, bx, PE_F32, B, S, COLS, HD, RD, 1, csf, snf), PE_ERR_VALUE);
        }
        float bc[S * RD];
        memcpy(bc, csf, sizeof bc);
        bc[RD + 3] = (float)nonfinite[i];
        EXPECT_STATUS(pe_rope_rotate(yf, xf, PE_F32, B, S, COLS, HD, RD, 0, bc, snf), PE_ERR_VALUE);
    }
    float big[B * S * COLS];
    for (int i = 0; i < B * S * COLS; i++) big[i] = 3e38f;
    EXPECT_STATUS(pe_rope_rotate(yf, big, PE_F32, B, S, COLS, HD, RD, 1, csf, snf), PE_ERR_VALUE);
}

static void test_rope_permutation(void) {
    int32_t perm[16];
    double w[16], o[16];
    for (int i = 0; i < 16; i++) w[i] = i;
    EXPECT_STATUS(pe_rope_permutation(NULL, 8, 1, 0), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) {
        EXPECT_STATUS(pe_rope_permutation(perm, BAD_SIZES[i], 1, 0), PE_ERR_SIZE);
        EXPECT_STATUS(pe_rope_permutation(perm, 8, BAD_SIZES[i], 0), PE_ERR_SIZE);
    }
    EXPECT_STATUS(pe_rope_permutation(perm, 5, 1, 0), PE_ERR_ODD);
    EXPECT_STATUS(pe_rope_permutation(perm, 1 << 16, 1 << 16, 0), PE_ERR_SIZE);
    static const int32_t FWD[8] = {0, 2, 4, 6, 1, 3, 5, 7}, INV[8] = {0, 4, 1, 5, 2, 6, 3, 7};
    EXPECT_STATUS(pe_rope_permutation(perm, 8, 2, 0), PE_OK);
    for (int i = 0; i < 8; i++) EXPECT(perm[i] == FWD[i] && perm[8 + i] == 8 + FWD[i]);
    EXPECT_STATUS(pe_rope_permutation(perm, 8, 1, 1), PE_OK);
    for (int i = 0; i < 8; i++) EXPECT(perm[i] == INV[i]);
    EXPECT_STATUS(pe_rope_permute(NULL, w, 8, 2, 8, 0, 0), PE_ERR_NULL);
    EXPECT_STATUS(pe_rope_permute(o, NULL, 8, 2, 8, 0, 0), PE_ERR_NULL);
    int bad_axes[] = {-1, 2, INT_MAX};
    for (size_t i = 0; i < LEN(bad_axes); i++) EXPECT_STATUS(pe_rope_permute(o, w, 8, 2, 8, 0, bad_axes[i]), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) {
        EXPECT_STATUS(pe_rope_permute(o, w, BAD_SIZES[i], 2, 8, 0, 0), PE_ERR_SIZE);
        EXPECT_STATUS(pe_rope_permute(o, w, 8, BAD_SIZES[i], 8, 0, 0), PE_ERR_SIZE);
        EXPECT_STATUS(pe_rope_permute(o, w, 8, 2, BAD_SIZES[i], 0, 0), PE_ERR_SIZE);
    }
    EXPECT_STATUS(pe_rope_permute(o, w, 8, 2, 3, 0, 0), PE_ERR_ODD);
    EXPECT_STATUS(pe_rope_permute(o, w, 8, 2, 6, 0, 0), PE_ERR_SHAPE);
    EXPECT_STATUS(pe_rope_permute(o, w, 8, 2, 8, 0, 1), PE_ERR_SHAPE); /* cols 2 % 8 */
    EXPECT_STATUS(pe_rope_permute(o, w, PE_MAX_DIM, PE_MAX_DIM, 8, 0, 0), PE_ERR_SIZE);
    /* rows: out row j = in row FWD[j]; then the inverse restores */
    EXPECT_STATUS(pe_rope_permute(o, w, 8, 2, 8, 0, 0), PE_OK);
    for (int j = 0; j < 8; j++) EXPECT(o[2 * j] == 2 * FWD[j] && o[2 * j + 1] == 2 * FWD[j] + 1);
    double back[16];
    EXPECT_STATUS(pe_rope_permute(back, o, 8, 2, 8, 1, 0), PE_OK);
    for (int i = 0; i < 16; i++) EXPECT(back[i] == w[i]);
    EXPECT_STATUS(pe_rope_permute(o, w, 2, 8, 8, 0, 1), PE_OK);
    for (int j = 0; j < 8; j++) EXPECT(o[j] == FWD[j] && o[8 + j] == 8 + FWD[j]);
}

/* ---- ALiBi ------------------------------------------------------------------------------------------ */
static void test_alibi(void) {
    double m[8];
    double b[3 * 4 * 4];
    EXPECT_STATUS(pe_alibi_slopes(NULL, 4, 0, 8), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) EXPECT_STATUS(pe_alibi_slopes(m, BAD_SIZES[i], 0, 8), PE_ERR_SIZE);
    int bad_variants[] = {-1, 2, INT_MAX};
    for (size_t i = 0; i < LEN(bad_variants); i++) EXPECT_STATUS(pe_alibi_slopes(m, 4, bad_variants[i], 8), PE_ERR_OPTION);
    double bad_bias[] = {0, -0.0, -1, NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < LEN(bad_bias); i++) EXPECT_STATUS(pe_alibi_slopes(m, 4, 0, bad_bias[i]), PE_ERR_VALUE);
    EXPECT_STATUS(pe_alibi_slopes(m, 4, PE_ALIBI_PRESS, 8), PE_OK);
    EXPECT_STATUS(pe_alibi_slopes(m, PE_MAX_HEADS + 1, PE_ALIBI_PRESS, 8), PE_ERR_SIZE);
    EXPECT_STATUS(pe_alibi_bias(m, PE_F64, PE_MAX_HEADS + 1, 1, 1, 0, 8, 0, -INFINITY, 0), PE_ERR_SIZE);
    EXPECT(m[0] == 0.25 && m[1] == 0.0625 && m[2] == 0.015625 && m[3] == 0.00390625);
    EXPECT_STATUS(pe_alibi_slopes(m, 3, PE_ALIBI_PRESS, 8), PE_OK);
    EXPECT(m[0] == 0.0625 && m[1] == 0.00390625 && m[2] == 0.25);
    /* fuzz regression alibi-max-bias-times-head-overflows: -max_bias * k is
     * -inf, and 2^-inf is 0, not an assertion in pe_pow */
    EXPECT_STATUS(pe_alibi_slopes(m, 6, PE_ALIBI_MPT, 1e308), PE_OK);
    EXPECT(m[0] == 0.0 && m[5] == 0.0 && !signbit(m[0]));

    EXPECT_STATUS(pe_alibi_bias(NULL, PE_F64, 3, 4, 4, 0, 8, 0, -INFINITY, 0), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_DTYPES); i++) EXPECT_STATUS(pe_alibi_bias(b, BAD_DTYPES[i], 3, 4, 4, 0, 8, 0, -INFINITY, 0), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) {
        EXPECT_STATUS(pe_alibi_bias(b, PE_F64, BAD_SIZES[i], 4, 4, 0, 8, 0, -INFINITY, 0), PE_ERR_SIZE);
        EXPECT_STATUS(pe_alibi_bias(b, PE_F64, 3, BAD_SIZES[i], 4, 0, 8, 0, -INFINITY, 0), PE_ERR_SIZE);
        EXPECT_STATUS(pe_alibi_bias(b, PE_F64, 3, 4, BAD_SIZES[i], 0, 8, 0, -INFINITY, 0), PE_ERR_SIZE);
    }
    int bad_modes[] = {-1, 2, INT_MAX};
    for (size_t i = 0; i < LEN(bad_modes); i++) EXPECT_STATUS(pe_alibi_bias(b, PE_F64, 3, 4, 4, 0, 8, bad_modes[i], -INFINITY, 0), PE_ERR_OPTION);
    EXPECT_STATUS(pe_alibi_bias(b, PE_F64, 3, 4, 4, 0, 8, 0, NAN, 0), PE_ERR_VALUE);
    for (size_t i = 0; i < LEN(bad_bias); i++) EXPECT_STATUS(pe_alibi_bias(b, PE_F64, 3, 4, 4, 0, bad_bias[i], 0, -INFINITY, 0), PE_ERR_VALUE);
    EXPECT_STATUS(pe_alibi_bias(b, PE_F64, 3, 4, 4, 0, 8, 0, -INFINITY, INT32_MAX), PE_ERR_POSITION);
    EXPECT_STATUS(pe_alibi_bias(b, PE_F32, 1 << 12, 1 << 12, 1 << 12, 0, 8, 0, -INFINITY, 0), PE_ERR_SIZE);
    /* golden "causal 3 heads 4x4": head 0 (slope 1/16) row 1 = [-1/16, 0, mask, mask] */
    EXPECT_STATUS(pe_alibi_bias(b, PE_F64, 3, 4, 4, PE_ALIBI_PRESS, 8, PE_ALIBI_CAUSAL, -INFINITY, 0), PE_OK);
    EXPECT(b[4] == -0.0625 && b[5] == 0.0 && !signbit(b[5]) && b[6] == -INFINITY && b[7] == -INFINITY);
    EXPECT(b[2 * 16 + 3 * 4 + 0] == -0.75); /* head 2 (slope 1/4), row 3, key 0 */
    EXPECT_STATUS(pe_alibi_bias(b, PE_F64, 3, 4, 4, PE_ALIBI_PRESS, 8, PE_ALIBI_SYMMETRIC, -INFINITY, 0), PE_OK);
    EXPECT(b[6] == -0.0625 * 1 && b[7] == -0.125);
}

/* ---- relative positions -------------------------------------------------------------------------------- */
static void test_relative(void) {
    int32_t rel[5] = {-300, -1, 0, 1, 300}, out[24];
    EXPECT_STATUS(pe_t5_bucket(NULL, rel, 5, 1, 32, 128, 1), PE_ERR_NULL);
    EXPECT_STATUS(pe_t5_bucket(out, NULL, 5, 1, 32, 128, 1), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) {
        EXPECT_STATUS(pe_t5_bucket(out, rel, BAD_SIZES[i], 1, 32, 128, 1), PE_ERR_SIZE);
        EXPECT_STATUS(pe_t5_bucket(out, rel, 5, 1, BAD_SIZES[i], 128, 1), PE_ERR_SIZE);
    }
    EXPECT_STATUS(pe_t5_bucket(out, rel, 5, 1, 3, 128, 1), PE_ERR_SIZE); /* max_exact would be 0 */
    EXPECT_STATUS(pe_t5_bucket(out, rel, 5, 0, 1, 128, 1), PE_ERR_SIZE);
    EXPECT_STATUS(pe_t5_bucket(out, rel, 5, 1, PE_T5_MAX_BUCKETS + 2, 1 << 20, 1), PE_ERR_SIZE);
    EXPECT_STATUS(pe_t5_bucket(out, rel, 5, 1, PE_T5_MAX_BUCKETS, 1 << 20, 1), PE_OK);
    int32_t bad_dist[] = {8, 0, -1, INT32_MIN};
    for (size_t i = 0; i < LEN(bad_dist); i++) EXPECT_STATUS(pe_t5_bucket(out, rel, 5, 1, 32, bad_dist[i], 1), PE_ERR_VALUE);
    EXPECT_STATUS(pe_t5_bucket(out, rel, 5, 1, 32, 128, 1), PE_OK);
    EXPECT(out[0] == 15 && out[1] == 1 && out[2] == 0 && out[3] == 17 && out[4] == 31);
    int32_t extreme[3] = {INT32_MIN, INT32_MAX, -9};
    EXPECT_STATUS(pe_t5_bucket(out, extreme, 3, 1, 32, INT32_MAX, 0), PE_OK);
    EXPECT(out[0] >= 0 && out[0] < 16 && out[1] >= 16 && out[1] < 32 && out[2] == 8);
    EXPECT_STATUS(pe_t5_bucket(out, extreme, 3, 0, 32, 128, 1), PE_OK);
    EXPECT(out[0] == 31 && out[1] == 0);

    EXPECT_STATUS(pe_t5_bucket_matrix(NULL, 4, 6, 0, 1, 32, 128, 1), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) {
        EXPECT_STATUS(pe_t5_bucket_matrix(out, BAD_SIZES[i], 6, 0, 1, 32, 128, 1), PE_ERR_SIZE);
        EXPECT_STATUS(pe_t5_bucket_matrix(out, 4, BAD_SIZES[i], 0, 1, 32, 128, 1), PE_ERR_SIZE);
    }
    EXPECT_STATUS(pe_t5_bucket_matrix(out, 1 << 16, 1 << 16, 0, 1, 32, 128, 1), PE_ERR_SIZE);
    EXPECT_STATUS(pe_t5_bucket_matrix(out, 4, 6, INT32_MAX - 2, 1, 32, 128, 1), PE_ERR_POSITION);
    EXPECT_STATUS(pe_t5_bucket_matrix(out, 4, 6, INT32_MIN, 1, 32, 128, 1), PE_ERR_POSITION);
    /* the extremes that keep every relative position within ±(2^31 - 1), and one past each */
    EXPECT_STATUS(pe_t5_bucket_matrix(out, 4, 6, INT32_MAX - 3, 1, 32, 128, 1), PE_OK);
    EXPECT_STATUS(pe_t5_bucket_matrix(out, 4, 6, INT32_MAX - 2, 1, 32, 128, 1), PE_ERR_POSITION);
    EXPECT_STATUS(pe_t5_bucket_matrix(out, 4, 6, INT32_MIN + 6, 1, 32, 128, 1), PE_OK);
    EXPECT_STATUS(pe_t5_bucket_matrix(out, 4, 6, INT32_MIN + 5, 1, 32, 128, 1), PE_ERR_POSITION);
    EXPECT_STATUS(pe_t5_bucket_matrix(out, 4, 6, 0, 1, 32, 128, 1), PE_OK);
    static const int32_t T5M[2][6] = {{0, 17, 18, 19, 20, 21}, {1, 0, 17, 18, 19, 20}};
    for (int j = 0; j < 6; j++) EXPECT(out[j] == T5M[0][j] && out[6 + j] == T5M[1][j]);

    EXPECT_STATUS(pe_shaw_matrix(NULL, 5, 5, 2, 0, 0), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) {
        EXPECT_STATUS(pe_shaw_matrix(out, BAD_SIZES[i], 5, 2, 0, 0), PE_ERR_SIZE);
        EXPECT_STATUS(pe_shaw_matrix(out, 4, BAD_SIZES[i], 2, 0, 0), PE_ERR_SIZE);
    }
    int32_t bad_k[] = {-1, INT32_MIN, PE_MAX_DIM + 1, INT32_MAX};
    for (size_t i = 0; i < LEN(bad_k); i++) EXPECT_STATUS(pe_shaw_matrix(out, 4, 5, bad_k[i], 0, 0), PE_ERR_SIZE);
    EXPECT_STATUS(pe_shaw_matrix(out, 1 << 16, 1 << 16, 2, 0, 0), PE_ERR_SIZE);
    static const int32_t SHAW[2][5] = {{0, 1, 2, 2, 2}, {-1, 0, 1, 2, 2}};
    EXPECT_STATUS(pe_shaw_matrix(out, 4, 5, 2, 0, 0), PE_OK);
    for (int j = 0; j < 5; j++) EXPECT(out[j] == SHAW[0][j] && out[5 + j] == SHAW[1][j]);
    EXPECT_STATUS(pe_shaw_matrix(out, 4, 5, 2, 1, 0), PE_OK);
    for (int j = 0; j < 5; j++) EXPECT(out[5 + j] == SHAW[1][j] + 2);
    EXPECT_STATUS(pe_shaw_matrix(out, 2, 3, PE_MAX_DIM, 1, 0), PE_OK);
    EXPECT(out[0] == PE_MAX_DIM && out[2] == PE_MAX_DIM + 2);
    /* tensor2tensor's offset kLen - qLen: one query sees keys at distances -4..0 */
    EXPECT_STATUS(pe_shaw_matrix(out, 1, 5, 2, 1, 4), PE_OK);
    static const int32_t LAST[5] = {0, 0, 0, 1, 2};
    for (int j = 0; j < 5; j++) EXPECT(out[j] == LAST[j]);
    EXPECT_STATUS(pe_shaw_matrix(out, 1, 5, 2, 1, PE_MAX_DIM + 1), PE_ERR_POSITION);
    EXPECT_STATUS(pe_shaw_matrix(out, 1, 5, 2, 1, INT32_MIN), PE_ERR_POSITION);
}

/* ---- learned, binary ----------------------------------------------------------------------------------------- */
static void test_learned_binary(void) {
    double t[4 * 6];
    int32_t pos[2] = {1, 3};
    EXPECT_STATUS(pe_learned_table(NULL, PE_F64, 4, 6, 0, 0, 0.02), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_DTYPES); i++) EXPECT_STATUS(pe_learned_table(t, BAD_DTYPES[i], 4, 6, 0, 0, 0.02), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) {
        EXPECT_STATUS(pe_learned_table(t, PE_F64, BAD_SIZES[i], 6, 0, 0, 0.02), PE_ERR_SIZE);
        EXPECT_STATUS(pe_learned_table(t, PE_F64, 4, BAD_SIZES[i], 0, 0, 0.02), PE_ERR_SIZE);
        EXPECT_STATUS(pe_learned_rows(t, PE_F64, pos, BAD_SIZES[i], 4, 6, 0, 0, 0.02), PE_ERR_SIZE);
    }
    EXPECT_STATUS(pe_learned_table(t, PE_F64, 4, 6, 0, 2, 0.02), PE_ERR_OPTION);
    EXPECT_STATUS(pe_learned_table(t, PE_F64, 4, 6, 0, -1, 0.02), PE_ERR_OPTION);
    double bad_seeds[] = {-1, 0.5, 9007199254740992.0, NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < LEN(bad_seeds); i++) EXPECT_STATUS(pe_learned_table(t, PE_F64, 4, 6, bad_seeds[i], 0, 0.02), PE_ERR_VALUE);
    double bad_scales[] = {-1, -1e-300, NAN, INFINITY, PE_LEARNED_MAX_SCALE * 1.0000001};
    for (size_t i = 0; i < LEN(bad_scales); i++) EXPECT_STATUS(pe_learned_table(t, PE_F64, 4, 6, 0, 0, bad_scales[i]), PE_ERR_VALUE);
    EXPECT_STATUS(pe_learned_table(t, PE_F32, PE_MAX_DIM, PE_MAX_DIM, 0, 0, 0.02), PE_ERR_SIZE);
    /* past PE_LEARNED_MAX_ELEMENTS numbers (2^26 + 2^13, 256 MiB in float32: within the byte limit) */
    EXPECT_STATUS(pe_learned_table(t, PE_F32, 8193, 8192, 0, 0, 0.02), PE_ERR_SIZE);
    EXPECT_STATUS(pe_learned_rows(t, PE_F32, pos, 8193, 4, 8192, 0, 0, 0.02), PE_ERR_SIZE);
    EXPECT_STATUS(pe_learned_rows(t, PE_F64, NULL, 2, 4, 6, 0, 0, 0.02), PE_ERR_NULL);
    int32_t bad_pos[][2] = {{1, 4}, {-1, 0}, {INT32_MIN, 0}, {0, INT32_MAX}};
    for (size_t i = 0; i < LEN(bad_pos); i++) EXPECT_STATUS(pe_learned_rows(t, PE_F64, bad_pos[i], 2, 4, 6, 0, 0, 0.02), PE_ERR_POSITION);
    /* golden: seed 0, normal, scale 0.02; rows 1 and 3 alone equal the table's */
    static const double ROW1[6] = {0.0016683708839132767, -0.012248141832134117, 0.01434165298843747,
                                   -0.004458403148885507, 0.0013923656300766233, -0.020050592467716365};
    EXPECT_STATUS(pe_learned_table(t, PE_F64, 4, 6, 0, PE_DIST_NORMAL, 0.02), PE_OK);
    for (int c = 0; c < 6; c++) EXPECT_NEAR(t[6 + c], ROW1[c], 2e-16); /* libm log/cos: a few ulps */
    double rows[2 * 6];
    EXPECT_STATUS(pe_learned_rows(rows, PE_F64, pos, 2, 4, 6, 0, PE_DIST_NORMAL, 0.02), PE_OK);
    for (int c = 0; c < 6; c++) EXPECT(rows[c] == t[6 + c] && rows[6 + c] == t[18 + c]);

    double bt[8 * 3];
    EXPECT_STATUS(pe_binary_table(NULL, PE_F64, 8, 3, 0, 0), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_DTYPES); i++) EXPECT_STATUS(pe_binary_table(bt, BAD_DTYPES[i], 8, 3, 0, 0), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) EXPECT_STATUS(pe_binary_table(bt, PE_F64, BAD_SIZES[i], 3, 0, 0), PE_ERR_SIZE);
    int32_t bad_bits[] = {0, -1, 65, INT32_MAX};
    for (size_t i = 0; i < LEN(bad_bits); i++) EXPECT_STATUS(pe_binary_table(bt, PE_F64, 8, bad_bits[i], 0, 0), PE_ERR_SIZE);
    EXPECT_STATUS(pe_binary_table(bt, PE_F64, PE_MAX_DIM, 64, 0, 0), PE_ERR_SIZE);
    double bad_offsets[] = {-1, 0.5, NAN, INFINITY, PE_MAX_POSITION + 1, PE_MAX_POSITION - 2};
    for (size_t i = 0; i < LEN(bad_offsets); i++) EXPECT_STATUS(pe_binary_table(bt, PE_F64, 8, 3, bad_offsets[i], 0), PE_ERR_POSITION);
    EXPECT_STATUS(pe_binary_table(bt, PE_F64, 8, 3, 0, 0), PE_OK);
    for (int r = 0; r < 8; r++)
        for (int b = 0; b < 3; b++) EXPECT(bt[r * 3 + b] == ((r >> b) & 1));
    EXPECT_STATUS(pe_binary_table(bt, PE_F64, 1, 3, PE_MAX_POSITION, 1), PE_OK);
    EXPECT(bt[0] == -1 && bt[1] == -1 && bt[2] == -1);
}

/* ---- precision ------------------------------------------------------------------------------------------- */
static void test_precision(void) {
    double x[4] = {0.1, 1.0 / 3, 65520.0, -2.5}, out[4];
    uint32_t bits[4];
    int bad_formats[] = {-1, 4, INT_MAX, INT_MIN};
    EXPECT_STATUS(pe_round(NULL, x, 4, PE_F16), PE_ERR_NULL);
    EXPECT_STATUS(pe_round(out, NULL, 4, PE_F16), PE_ERR_NULL);
    EXPECT_STATUS(pe_format_bits(NULL, x, 4, PE_F16), PE_ERR_NULL);
    EXPECT_STATUS(pe_format_bits(bits, NULL, 4, PE_F16), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) {
        EXPECT_STATUS(pe_round(out, x, BAD_SIZES[i], PE_F16), PE_ERR_SIZE);
        EXPECT_STATUS(pe_format_bits(bits, x, BAD_SIZES[i], PE_F16), PE_ERR_SIZE);
    }
    for (size_t i = 0; i < LEN(bad_formats); i++) {
        EXPECT_STATUS(pe_round(out, x, 4, bad_formats[i]), PE_ERR_OPTION);
        EXPECT_STATUS(pe_format_bits(bits, x, 4, bad_formats[i]), PE_ERR_OPTION);
    }
    EXPECT_STATUS(pe_format_bits(bits, x, 4, PE_F64), PE_ERR_OPTION);
    /* golden (precision.formats): 0.1 -> 0.0999755859375 in float16, 0.10009765625 in bfloat16 */
    EXPECT_STATUS(pe_round(out, x, 4, PE_F16), PE_OK);
    EXPECT(out[0] == 0.0999755859375 && out[1] == 0.333251953125 && out[2] == INFINITY && out[3] == -2.5);
    EXPECT_STATUS(pe_format_bits(bits, x, 4, PE_F16), PE_OK);
    EXPECT(bits[0] == 11878 && bits[1] == 13653 && bits[2] == 31744 && bits[3] == 49408);
    EXPECT_STATUS(pe_round(out, x, 4, PE_BF16), PE_OK);
    EXPECT(out[0] == 0.10009765625 && out[2] == 65536.0);
    EXPECT_STATUS(pe_format_bits(bits, x, 4, PE_F32), PE_OK);
    EXPECT(bits[0] == 1036831949u);
    double odd[3] = {NAN, -INFINITY, 4.9406564584124654e-324};
    EXPECT_STATUS(pe_round(out, odd, 3, PE_F16), PE_OK);
    EXPECT(isnan(out[0]) && out[1] == -INFINITY && out[2] == 0.0);

    double p[3] = {0, 1, 65535}, e[3];
    int bad_modes[] = {-1, 3, INT_MAX};
    EXPECT_STATUS(pe_precision_error(NULL, p, 3, 16, 0, 0, 1e4, PE_F16, 0), PE_ERR_NULL);
    EXPECT_STATUS(pe_precision_error(e, NULL, 3, 16, 0, 0, 1e4, PE_F16, 0), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) {
        EXPECT_STATUS(pe_precision_error(e, p, BAD_SIZES[i], 16, 0, 0, 1e4, PE_F16, 0), PE_ERR_SIZE);
        EXPECT_STATUS(pe_precision_error(e, p, 3, BAD_SIZES[i], 0, 0, 1e4, PE_F16, 0), PE_ERR_SIZE);
    }
    for (size_t i = 0; i < LEN(bad_formats); i++) EXPECT_STATUS(pe_precision_error(e, p, 3, 16, 0, 0, 1e4, bad_formats[i], 0), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(bad_modes); i++) EXPECT_STATUS(pe_precision_error(e, p, 3, 16, 0, 0, 1e4, PE_F16, bad_modes[i]), PE_ERR_OPTION);
    /* Past PE_PRECISION_MAX_WORK, refused before anything is read or formed. */
    EXPECT_STATUS(pe_precision_error(e, p, 3, (int32_t)(PE_PRECISION_MAX_WORK / 3) + 1, 0, 0, 1e4, PE_F16, 0), PE_ERR_SIZE);
    for (size_t i = 0; i < LEN(BAD_LAYOUTS); i++) EXPECT_STATUS(pe_precision_error(e, p, 3, 16, BAD_LAYOUTS[i], 0, 1e4, PE_F16, 0), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(bad_bases); i++) EXPECT_STATUS(pe_precision_error(e, p, 3, 16, 0, 0, bad_bases[i], PE_F16, 0), PE_ERR_BASE);
    for (size_t i = 0; i < LEN(bad_positions); i++) {
        double bp[3] = {0, bad_positions[i], 1};
        EXPECT_STATUS(pe_precision_error(e, bp, 3, 16, 0, 0, 1e4, PE_F16, 0), PE_ERR_POSITION);
    }
    /* golden (precision.error[0], float16 angle, d = 16) */
    EXPECT_STATUS(pe_precision_error(e, p, 3, 16, 0, 0, 1e4, PE_F16, PE_PREC_ANGLE), PE_OK);
    EXPECT(e[0] == 0.0 && e[2] == INFINITY);
    EXPECT_NEAR(e[1], 6.240174590137937e-05, 1e-15); /* a difference of sines: ulps of 1 */
}

/* ---- allocation failure at every point of every allocating call ------------------------------------ */
typedef int (*call_fn)(void);
static double fbuf[64 * 64];
static int call_table(void) { return pe_table(fbuf, PE_F64, 40, 9, PE_LAYOUT_SPLIT, PE_FREQ_GEOM, 100, 3, 2); }
static int call_table_at(void) {
    static const double pos[] = {4, 5, 6, 9, -2, -1, 30};
    return pe_table_at(fbuf, PE_F32, LEN(pos), 9, PE_LAYOUT_CONCAT, PE_FREQ_PAPER, 1e4, pos, 5);
}
static int call_gram_toeplitz(void) { return pe_table_gram(fbuf, PE_F32, 40, 8, 0, 0, 1e4, 0, -1, 1); }
static int call_gram_direct(void) { return pe_table_gram(fbuf, PE_F64, 40, 7, 0, 0, 1e4, 0, 5, 1); }
static int call_gram(void) {
    static double x[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    return pe_gram(fbuf, PE_F64, x, 4, 3, 1);
}
static int call_rotation(void) { return pe_rotation(fbuf, 8, PE_LAYOUT_CONCAT, 0, 1e4, 2); }
static int call_frequencies(void) { return pe_frequencies(fbuf, 64, 0, 1, 1e4); }
static int call_rope_cache(void) {
    static double c[40 * 8];
    return pe_rope_cache(fbuf, c, PE_F64, 40, 8, 1e4, PE_ROPE_YARN, &rope_ok, 3, PE_ROPE_CACHE_HALF);
}
static int call_rope_apply(void) {
    static double x[4 * 8] = {1, 2, 3, 4, 5, 6, 7, 8};
    return pe_rope_apply(fbuf, x, 4, 8, 4, 0, PE_ROPE_HALF, NULL, 0, 1e4, PE_ROPE_LLAMA3, &rope_ok);
}
static int call_rope_frequencies(void) { return pe_rope_frequencies(fbuf, fbuf + 100, 8, 1e4, PE_ROPE_NTK, &rope_ok); }
static int call_alibi_bias(void) { return pe_alibi_bias(fbuf, PE_F32, 5, 6, 7, PE_ALIBI_MPT, 8, 0, -1e9, 2); }
static int call_precision_error(void) {
    static double p[3] = {0, 100, 70000};
    return pe_precision_error(fbuf, p, 3, 9, PE_LAYOUT_SPLIT, PE_FREQ_GEOM, 1e4, PE_BF16, PE_PREC_BOTH);
}

/* ---- fields: timesteps, patch grids, Fourier features -------------------------------------------- */
static int call_timestep(void) {
    double t[2] = {0, 3.5}, out[2 * 9];
    return pe_timestep_embedding(out, PE_F64, t, 2, 9, 1, 0, 1, 10000);
}
static int call_sincos_2d(void) {
    double ph[2] = {0, 1}, pw[3] = {0, 1, 2}, out[7 * 8];
    return pe_sincos_2d(out, PE_F64, ph, 2, pw, 3, 8, 1, 0, PE_GRID_MAE, 10000);
}

static void test_fields(void) {
    double t[3] = {0, 1, 2.5}, out[64] = {0};
    /* DiT (cos first, shift 0), dim 5: [cos t, cos t/100, sin t, sin t/100, 0] */
    EXPECT_STATUS(pe_timestep_embedding(out, PE_F64, t + 1, 1, 5, 1, 0, 1, 10000), PE_OK);
    EXPECT_NEAR(out[0], 0.54030230586813977, 1e-16);
    EXPECT_NEAR(out[3], 0.0099998333341666645, 1e-17);
    EXPECT(out[4] == 0.0);
    EXPECT_STATUS(pe_timestep_embedding(NULL, PE_F64, t, 3, 8, 0, 1, 1, 10000), PE_ERR_NULL);
    EXPECT_STATUS(pe_timestep_embedding(out, PE_F64, NULL, 3, 8, 0, 1, 1, 10000), PE_ERR_NULL);
    for (size_t i = 0; i < LEN(BAD_DTYPES); i++) EXPECT_STATUS(pe_timestep_embedding(out, BAD_DTYPES[i], t, 3, 8, 0, 1, 1, 10000), PE_ERR_OPTION);
    for (size_t i = 0; i < LEN(BAD_SIZES); i++) {
        EXPECT_STATUS(pe_timestep_embedding(out, PE_F64, t, BAD_SIZES[i], 8, 0, 1, 1, 10000), PE_ERR_SIZE);
        EXPECT_STATUS(pe_timestep_embedding(out, PE_F64, t, 3, BAD_SIZES[i], 0, 1, 1, 10000), PE_ERR_SIZE);
    }
    EXPECT_STATUS(pe_timestep_embedding(out, PE_F64, t, 3, 2, 0, 1, 1, 10000), PE_ERR_VALUE); /* h - shift = 0 */
    EXPECT_STATUS(pe_timestep_embedding(out, PE_F64, t, 3, 8, 0, NAN, 1, 10000), PE_ERR_VALUE);
    EXPECT_STATUS(pe_timestep_embedding(out, PE_F64, t, 3, 8, 0, 1, INFINITY, 10000), PE_ERR_VALUE);
    EXPECT_STATUS(pe_timestep_embedding(out, PE_F64, t, 3, 8, 0, 1, 1, 0.5), PE_ERR_BASE);
    EXPECT_STATUS(pe_timestep_embedding(out, PE_F64, t, 3, 8, 0, 1, 1e10, 10000), PE_ERR_POSITION);
    double bad_t[1] = {NAN};
    EXPECT_STATUS(pe_timestep_embedding(out, PE_F64, bad_t, 1, 8, 0, 1, 1, 10000), PE_ERR_VALUE);
    EXPECT_STATUS(pe_timestep_embedding(out, PE_F64, t, 1, 1, 0, 5, 1, 10000), PE_OK); /* no frequency: any shift */
    EXPECT(out[0] == 0.0);

    EXPECT_STATUS(pe_sincos_1d(out, PE_F64, t, 3, 3, PE_GRID_MAE, 10000), PE_ERR_ODD);
    EXPECT_STATUS(pe_sincos_1d(out, PE_F64, t, 3, 2, PE_GRID_SPACED, 10000), PE_ERR_SIZE);
    EXPECT_STATUS(pe_sincos_1d(out, PE_F64, t, 3, 4, 2, 10000), PE_ERR_OPTION);
    EXPECT_STATUS(pe_sincos_1d(out, PE_F64, t, 3, 4, PE_GRID_MAE, 1), PE_ERR_BASE);
    double far[1] = {4294967296.0};
    EXPECT_STATUS(pe_sincos_1d(out, PE_F64, far, 1, 4, PE_GRID_MAE, 10000), PE_ERR_POSITION);
    EXPECT_STATUS(pe_sincos_1d(out, PE_F64, t + 1, 1, 4, PE_GRID_MAE, 10000), PE_OK);
    EXPECT_NEAR(out[1], 0.0099998333341666645, 1e-17); /* sin(1 / 100) */

    double ph[2] = {0, 1}, pw[2] = {0, 2};
    EXPECT_STATUS(pe_sincos_2d(out, PE_F64, ph, 2, pw, 2, 6, 0, 0, PE_GRID_MAE, 10000), PE_ERR_ODD);
    EXPECT_STATUS(pe_sincos_2d(out, PE_F64, ph, 2, NULL, 2, 8, 0, 0, PE_GRID_MAE, 10000), PE_ERR_NULL);
    EXPECT_STATUS(pe_sincos_2d(out, PE_F64, ph, 2, pw, 2, 8, -1, 0, PE_GRID_MAE, 10000), PE_ERR_SIZE);
    /* the module's own limits (posenc_fields.h), refused before the positions are read */
    EXPECT_STATUS(pe_sincos_2d(out, PE_F64, ph, 2, pw, 2, 8, PE_MAX_EXTRA_TOKENS + 1, 0, PE_GRID_MAE, 10000), PE_ERR_SIZE);
    EXPECT_STATUS(pe_sincos_2d(out, PE_F64, ph, PE_MAX_GRID + 1, pw, 1, 8, 0, 0, PE_GRID_MAE, 10000), PE_ERR_SIZE);
    EXPECT_STATUS(pe_sincos_2d(out, PE_F64, ph, 1, pw, PE_MAX_GRID + 1, 8, 0, 0, PE_GRID_MAE, 10000), PE_ERR_SIZE);
    EXPECT_STATUS(pe_sincos_2d(out, PE_F64, ph, 2, pw, 2, 4, 0, 0, PE_GRID_SPACED, 10000), PE_ERR_SIZE);
    EXPECT_STATUS(pe_sincos_2d(out, PE_F64, ph, 2, pw, 2, 8, 1, 0, PE_GRID_MAE, 10000), PE_OK);
    EXPECT(out[0] == 0.0 && out[7] == 0.0);              /* the class-token row */
    EXPECT_NEAR(out[8 + 3 * 8 + 0], sin(2.0), 1e-16);   /* patch (1, 1): w = 2 first */
    EXPECT_NEAR(out[8 + 3 * 8 + 4], sin(1.0), 1e-16);   /* then h = 1 */

    double x[2] = {0.5, -0.25}, bm[2] = {1.0, -2.0}, far2[2] = {1e12, 0};
    EXPECT_STATUS(pe_fourier_features(out, PE_F64, x, 1, 2, 0, 0, 1, 1, 0, 0), PE_ERR_SIZE);
    EXPECT_STATUS(pe_fourier_features(out, PE_F64, x, 1, 2, PE_MAX_FOURIER_LEVELS + 1, 0, 1, 1, 0, 0), PE_ERR_SIZE);
    EXPECT_STATUS(pe_fourier_features(out, PE_F64, x, 1, 2, 4, PE_MAX_FOURIER_LOG2 + 1, 1, 1, 0, 0), PE_ERR_VALUE);
    EXPECT_STATUS(pe_fourier_features(out, PE_F64, x, 1, 2, 4, 3, 1, 1, 0, 2), PE_ERR_OPTION);
    EXPECT_STATUS(pe_fourier_features(out, PE_F64, far, 1, 1, 4, 12, 1, 1, 1, 0), PE_ERR_POSITION);
    EXPECT_STATUS(pe_fourier_features(out, PE_F64, x, 1, 2, 2, 1, 1, 1, 0, PE_FOURIER_BY_FREQUENCY), PE_OK);
    EXPECT(out[0] == 0.5 && out[1] == -0.25);
    EXPECT_NEAR(out[2 + 2 + 2], sin(1.0), 1e-16);       /* band 1 (f = 2), coordinate 0 */
    EXPECT_STATUS(pe_fourier_random(out, PE_F64, x, 1, 2, NULL, 1), PE_ERR_NULL);
    EXPECT_STATUS(pe_fourier_random(out, PE_F64, x, 1, 2, bm, 0), PE_ERR_SIZE);
    EXPECT_STATUS(pe_fourier_random(out, PE_F64, far, 1, 1, bm, 2), PE_OK);
    EXPECT_STATUS(pe_fourier_random(out, PE_F64, far2, 1, 2, bm, 1), PE_ERR_POSITION);
    EXPECT_STATUS(pe_fourier_random(out, PE_F64, x, 1, 2, bm, 1), PE_OK); /* 2 pi (0.5 + 0.5) */
    EXPECT_NEAR(out[1], 1.0, 1e-15);
    double g[6], l[6];
    EXPECT_STATUS(pe_fourier_gaussian(g, 3, 2, 7, 2.5), PE_OK); /* the learned table's stream */
    EXPECT_STATUS(pe_learned_table(l, PE_F64, 3, 2, 7, PE_DIST_NORMAL, 2.5), PE_OK);
    EXPECT(memcmp(g, l, sizeof g) == 0);
    EXPECT_STATUS(pe_fourier_gaussian(NULL, 3, 2, 7, 2.5), PE_ERR_NULL);
    EXPECT_STATUS(pe_fourier_gaussian(g, 3, 2, 0.5, 2.5), PE_ERR_VALUE);
    EXPECT_STATUS(pe_fourier_gaussian(g, PE_MAX_FEATURES + 1, 2, 7, 2.5), PE_ERR_SIZE);
    EXPECT_STATUS(pe_fourier_gaussian(g, 3, 2, 7, PE_LEARNED_MAX_SCALE * 2), PE_ERR_VALUE);
    /* the bound of the B drawn, without B: rows longer than its slice of the stack, odd widths (a Box-Muller pair
     * split between two rows), equal bit for bit to the row sums of the B drawn */
    static double big[7 * 601];
    int32_t widths[] = {1, 2, 3, 255, 256, 257, 601};
    for (size_t w = 0; w < LEN(widths); w++) {
        double bound = -1, want = 0;
        EXPECT_STATUS(pe_fourier_gaussian(big, 7, widths[w], 11, 3.5), PE_OK);
        for (int32_t k = 0; k < 7; k++) {
            double sum = 0;
            for (int32_t j = 0; j < widths[w]; j++) sum += fabs(big[(size_t)k * widths[w] + j]);
            want = fmax(want, sum);
        }
        EXPECT_STATUS(pe_fourier_gaussian_bound(&bound, 7, widths[w], 11, 3.5), PE_OK);
        EXPECT(bound == want);
    }
    double bound;
    EXPECT_STATUS(pe_fourier_gaussian_bound(NULL, 3, 2, 7, 2.5), PE_ERR_NULL);
    EXPECT_STATUS(pe_fourier_gaussian_bound(&bound, 3, 2, 0.5, 2.5), PE_ERR_VALUE);
    EXPECT_STATUS(pe_fourier_gaussian_bound(&bound, PE_MAX_FEATURES + 1, 2, 7, 2.5), PE_ERR_SIZE);
    EXPECT_STATUS(pe_fourier_gaussian_bound(&bound, 0, 2, 7, 2.5), PE_ERR_SIZE);
    EXPECT_STATUS(pe_fourier_gaussian_bound(&bound, 3, 2, 7, PE_LEARNED_MAX_SCALE * 2), PE_ERR_VALUE);
    EXPECT_STATUS(pe_fourier_gaussian_bound(&bound, PE_MAX_FEATURES, 1 << 24, 7, 2.5), PE_ERR_SIZE); /* 2^40 draws */
}

static void test_allocation_failures(void) {
    struct { const char *name; call_fn fn; } calls[] = {
        {"pe_table", call_table}, {"pe_table_at", call_table_at},
        {"pe_table_gram (Toeplitz)", call_gram_toeplitz},
        {"pe_table_gram (direct)", call_gram_direct}, {"pe_gram", call_gram},
        {"pe_rotation", call_rotation}, {"pe_frequencies", call_frequencies},
        {"pe_rope_cache", call_rope_cache}, {"pe_rope_apply", call_rope_apply},
        {"pe_rope_frequencies", call_rope_frequencies}, {"pe_alibi_bias", call_alibi_bias},
        {"pe_precision_error", call_precision_error},
        {"pe_timestep_embedding", call_timestep}, {"pe_sincos_2d", call_sincos_2d},
    };
    for (size_t c = 0; c < LEN(calls); c++) {
        inject_failure(-1);
        EXPECT_STATUS(calls[c].fn(), PE_OK);
        long needed = malloc_calls;
        for (long at = 0; at < needed; at++) {
            inject_failure(at);
            int st = calls[c].fn();
            if (st != PE_ERR_NOMEM) {
                case_failures++;
                fprintf(stderr, "    %s with allocation %ld failing returned %d\n", calls[c].name, at, st);
            }
            EXPECT(pe_live_allocations() == 0);
        }
        inject_failure(-1);
        EXPECT_STATUS(calls[c].fn(), PE_OK); /* and works again */
    }
}

/* ---- runner ------------------------------------------------------------------------------------------ */
int main(void) {
    init_inputs();
    struct { const char *name; void (*fn)(void); } cases[] = {
        {"memory: pe_malloc / pe_free / pe_live_allocations", test_memory},
        {"pe_strerror: every code and unknown ones", test_strerror},
        {"pe_pair_count: layouts, odd widths, invalid arguments", test_pair_count},
        {"pe_frequencies: errors and golden values", test_frequencies},
        {"pe_columns: errors, the golden placement, the table's columns", test_columns},
        {"pe_table: every bad argument gives its status, nothing written", test_table_errors},
        {"pe_table: golden values, offsets, zero row, layouts, extreme positions", test_table_values},
        {"pe_table_at: errors, runs and lone positions against pe_table, zero position", test_table_at},
        {"pe_table: every layout/rule/width/base is finite and within [-1, 1]", test_table_bounds},
        {"pe_table: the largest width and length, 2^24", test_table_max_dim},
        {"pe_table_gram: errors, both algorithms against table * table^T", test_table_gram},
        {"pe_dot: errors and values", test_dot},
        {"pe_norms: errors and values", test_norms},
        {"pe_gram: errors, byte limit, values", test_gram},
        {"pe_gram_f32: errors, float64 fallback, agrees with pe_gram", test_gram_f32},
        {"pe_rotation: errors, odd d, golden, M_k PE[p] = PE[p + k]", test_rotation},
        {"pe_toy_attention: errors, overflow, golden 726/1452/2178", test_toy},
        {"pe_attention: errors, overflow, golden, causal", test_attention},
        {"pe_rope_frequencies: errors, every scaling's parameters, golden", test_rope_frequencies},
        {"pe_rope_check: the frequencies' checks and attention factor, nothing formed", test_rope_check},
        {"pe_rope_frequencies: dynamic, YaRN mscale pair, longrope", test_rope_scalings},
        {"pe_rope_cache: errors, byte limit, positions, golden, layouts", test_rope_cache},
        {"pe_rope_apply: errors, shape, positions, pairings", test_rope_apply},
        {"pe_rope_axes_cache / pe_rope_axes_apply: errors, axes, layouts, pairings", test_rope_axes},
        {"pe_rope_cache_begin/next/end: errors, pieces, positions, accuracy near 2^24", test_rope_rows},
        {"pe_rope_rotate: errors, equals pe_rope_apply, float32, in place, non-finite", test_rope_rotate},
        {"pe_attention_heads: grouped heads, mask, -inf bias, empty rows", test_attention_heads},
        {"pe_attention_f32: against float64, blocks, tiles, refusals", test_attention_f32},
        {"pe_rope_permutation / pe_rope_permute: errors, golden, inverse", test_rope_permutation},
        {"pe_alibi_slopes / pe_alibi_bias: errors, golden, masks", test_alibi},
        {"pe_t5_bucket / pe_t5_bucket_matrix / pe_shaw_matrix: errors, extremes, golden", test_relative},
        {"pe_learned_table / pe_learned_rows / pe_binary_table: errors, golden", test_learned_binary},
        {"pe_round / pe_format_bits / pe_precision_error: errors, golden", test_precision},
        {"pe_timestep_embedding / pe_sincos_1d / pe_sincos_2d / pe_fourier_*: errors, values", test_fields},
        {"allocation failure at every allocation frees everything", test_allocation_failures},
        {"lab: tasks, shapes, lengths, generated examples, seeds", test_lab_tasks},
        {"lab: every encoding, bidirectional and causal: train, evaluate, loss, attention maps", test_lab_modes},
        {"lab: training lowers the loss (shift, causal, RoPE)", test_lab_learns},
        {"lab: training in slices sums what one call does, to the bit", test_lab_train_slices},
        {"lab: the matrix kernels give the plain loop's bits", test_lab_matrix_order},
        {"lab: pe_lab_create refuses each bad field with its status", test_lab_create_errors},
        {"lab: train / evaluate / loss / attention refuse bad arguments", test_lab_call_errors},
        {"lab: allocation failure at every allocation of a model frees everything", test_lab_allocation_failures},
    };
    int passed = 0, failed = 0;
    for (size_t i = 0; i < LEN(cases); i++) {
        case_failures = 0;
        inject_failure(-1);
        cases[i].fn();
        if (pe_live_allocations() != 0) {
            case_failures++;
            fprintf(stderr, "    %d allocations outstanding at the end\n", (int)pe_live_allocations());
        }
        printf("%s - %s\n", case_failures ? "not ok" : "ok", cases[i].name);
        fflush(stdout);
        if (case_failures) failed++;
        else passed++;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
