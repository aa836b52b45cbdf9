/*
 * The native tests' minimal harness, shared by test_api.c (which defines the
 * counters and the malloc fault injection) and test_lab.c.
 */
#ifndef POSENC_NATIVE_CHECK_H
#define POSENC_NATIVE_CHECK_H

#include <math.h>
#include <stdio.h>
#include "posenc.h"

extern int case_failures; /* failures in the current case */
extern long malloc_calls; /* mallocs seen since the last inject_failure */
/* Makes the at-th malloc from now fail (0-based); -1: none. */
void inject_failure(long at);

#define EXPECT(cond)                                                                  \
    do {                                                                              \
        if (!(cond)) {                                                                \
            case_failures++;                                                          \
            fprintf(stderr, "    %s:%d: expected %s\n", __FILE__, __LINE__, #cond);   \
        }                                                                             \
    } while (0)

/* A call must return `want`, and leave no allocation outstanding. */
#define EXPECT_STATUS(call, want)                                                     \
    do {                                                                              \
        int got_ = (call);                                                            \
        if (got_ != (want)) {                                                         \
            case_failures++;                                                          \
            fprintf(stderr, "    %s:%d: %s returned %d (%s), expected %d (%s)\n",     \
                    __FILE__, __LINE__, #call, got_, pe_strerror(got_), (want),       \
                    pe_strerror(want));                                               \
        }                                                                             \
        if (pe_live_allocations() != 0) {                                             \
            case_failures++;                                                          \
            fprintf(stderr, "    %s:%d: %d allocations outstanding after %s\n",       \
                    __FILE__, __LINE__, (int)pe_live_allocations(), #call);           \
        }                                                                             \
    } while (0)

#define EXPECT_NEAR(a, b, tol)                                                        \
    do {                                                                              \
        double a_ = (a), b_ = (b);                                                    \
        if (!(fabs(a_ - b_) <= (tol))) {                                              \
            case_failures++;                                                          \
            fprintf(stderr, "    %s:%d: %s = %.17g, expected %.17g (tolerance %g)\n", \
                    __FILE__, __LINE__, #a, a_, b_, (double)(tol));                   \
        }                                                                             \
    } while (0)

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

/* test_lab.c */
void test_lab_tasks(void);
void test_lab_modes(void);
void test_lab_learns(void);
void test_lab_train_slices(void);
void test_lab_matrix_order(void);
void test_lab_create_errors(void);
void test_lab_call_errors(void);
void test_lab_allocation_failures(void);

#endif
