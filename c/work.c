/* Work counters of the debug build (work.h). */
#include "work.h"

#ifndef NDEBUG
double pe_work_counts[PE_WORK_KINDS_];

double pe_work_count(int kind) { return kind >= 0 && kind < PE_WORK_KINDS_ ? pe_work_counts[kind] : -1.0; }

void pe_work_reset(void) {
    for (int k = 0; k < PE_WORK_KINDS_; k++) pe_work_counts[k] = 0.0;
}
#else
typedef int pe_work_unused_; /* ISO C wants something in a translation unit */
#endif
