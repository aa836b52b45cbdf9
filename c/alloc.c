/* Every buffer the core or its callers allocate goes through here, so that a
 * single counter can prove that a sequence of calls left nothing behind. */
#include <stdlib.h>
#include "posenc.h"

static int32_t live_allocations;

void *pe_malloc(size_t bytes) {
    if (bytes == 0) return NULL;
    void *p = malloc(bytes);
    if (p) live_allocations++;
    return p;
}

void pe_free(void *ptr) {
    if (!ptr) return;
    live_allocations--;
    free(ptr);
}

int32_t pe_live_allocations(void) { return live_allocations; }
