/* Every buffer the core or its callers allocate goes through here, so that a
 * single counter can prove that a sequence of calls left nothing behind. */
#include <assert.h>
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
    /* More frees than mallocs means a double free or a foreign pointer:
     * the debug build stops here instead of corrupting the heap. */
    assert(live_allocations > 0);
    live_allocations--;
    free(ptr);
}

int32_t pe_live_allocations(void) { return live_allocations; }
