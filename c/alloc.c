/* Every buffer the core or its callers allocate goes through here, so that a
 * single counter can prove that a sequence of calls left nothing behind.
 *
 * In WebAssembly the core brings its own allocator instead of Emscripten's
 * (emmalloc was 1.9 kB of the module): a first-fit list of free chunks in
 * address order, merged with their neighbours when freed, over linear memory
 * grown a page at a time. Calls allocate a few buffers and free them all, so
 * a short list and first fit keep every call in the lowest, already-touched
 * pages.
 *
 * Native test builds with PE_ARENA run the same allocator over a static arena
 * that stands in for linear memory (arena_grow for memory.grow), so the
 * sanitizers and the fuzzer exercise it too; other native builds use malloc. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "posenc.h"
#include "work.h"

static int32_t live_allocations;
/* What one call may hold at once is PE_MAX_BYTES: the inputs and outputs its
 * caller allocated and the core's scratch (as handed out, rounded up to 16
 * bytes; the 16-byte header of each chunk comes on top). Between
 * calls nothing is live, so this bounds each call's share of linear memory
 * (docs/limits.md). The debug build can lower it (pe_set_byte_limit) so that
 * tests reach the limit without touching a gigabyte. */
static size_t live_bytes, byte_limit = (size_t)PE_MAX_BYTES;

#if defined(__wasm__) || defined(PE_ARENA)

#define CHUNK_ALIGN 16u /* SIMD loads, and any C type */
#define PAGE 65536u
#define IN_USE ((struct chunk *)0x0be5eau) /* the `next` of a chunk handed out */

/* Header of every chunk; the caller's bytes start right after it. `size`
 * counts the header and is a multiple of CHUNK_ALIGN. */
struct chunk {
    size_t size;
    struct chunk *next;
    size_t pad[(CHUNK_ALIGN - sizeof(size_t) - sizeof(void *)) / sizeof(size_t)];
};

#ifdef __wasm__
extern unsigned char __heap_base; /* end of the stack and static data (wasm-ld) */
#define HEAP_BASE ((uintptr_t)&__heap_base)
/* Where linear memory starts, its size in pages, and memory.grow (the old size, or -1). */
#define MEMORY_ORIGIN 0u
#define MEMORY_PAGES() __builtin_wasm_memory_size(0)
#define MEMORY_GROW(pages) __builtin_wasm_memory_grow(0, pages)
#define REFUSE(bytes) 0
#else
/* The arena is "linear memory" from its first byte; memory.grow hands out its
 * pages in order and refuses beyond them, as a capped wasm memory would. A
 * test harness can make any allocation fail by defining pe_arena_refuse
 * (fault injection, as its wrapped malloc does for the malloc builds). */
#ifndef PE_ARENA_PAGES
#define PE_ARENA_PAGES 16384 /* 1 GiB: untouched pages cost nothing */
#endif
static unsigned char arena[(size_t)PE_ARENA_PAGES * PAGE] __attribute__((aligned(CHUNK_ALIGN)));
static size_t arena_pages = 16; /* 1 MiB at start, like -sINITIAL_MEMORY */
__attribute__((weak)) int pe_arena_refuse(size_t bytes) {
    (void)bytes;
    return 0;
}
#define REFUSE(bytes) pe_arena_refuse(bytes)
static size_t arena_grow(size_t pages) {
    if (pages > PE_ARENA_PAGES - arena_pages) return (size_t)-1;
    arena_pages += pages;
    return arena_pages - pages;
}
#define HEAP_BASE ((uintptr_t)arena)
#define MEMORY_ORIGIN ((uintptr_t)arena)
#define MEMORY_PAGES() arena_pages
#define MEMORY_GROW(pages) arena_grow(pages)
#endif
#define MEMORY_END() (MEMORY_ORIGIN + (uint64_t)MEMORY_PAGES() * PAGE)

static struct chunk *free_list;
static uintptr_t heap_end; /* end of the memory the list manages; 0 before the first call */

static uintptr_t align_up(uintptr_t x) { return (x + CHUNK_ALIGN - 1) & ~(uintptr_t)(CHUNK_ALIGN - 1); }

/* Puts [c, c + c->size) back in the list, merged with any free neighbour. */
static void release(struct chunk *c) {
    struct chunk *prev = NULL, *next = free_list;
    while (next && next < c) {
        prev = next;
        next = next->next;
    }
    c->next = next;
    if (next && (uintptr_t)c + c->size == (uintptr_t)next) {
        c->size += next->size;
        c->next = next->next;
    }
    if (prev && (uintptr_t)prev + prev->size == (uintptr_t)c) {
        prev->size += c->size;
        prev->next = c->next;
    } else if (prev) {
        prev->next = c;
    } else {
        free_list = c;
    }
}

/* Adds [start, end) to the list: the memory above __heap_base on the first
 * call, then each page range memory.grow hands out. */
static void add_region(uintptr_t start, uintptr_t end) {
    start = align_up(start);
    if (end <= start || end - start < sizeof(struct chunk)) return;
    struct chunk *c = (struct chunk *)start;
    c->size = (end - start) & ~(uintptr_t)(CHUNK_ALIGN - 1);
    heap_end = start + c->size;
    release(c);
}

/* Grows linear memory so that a free chunk of `need` bytes exists; 0 on failure. */
static int grow(size_t need) {
    size_t have = 0;
    /* A free chunk that ends the heap counts, if the new pages will follow it
     * (memory is exported: a host could have grown it behind our back). */
    if (MEMORY_END() == heap_end)
        for (struct chunk *c = free_list; c; c = c->next)
            if ((uintptr_t)c + c->size == heap_end) have = c->size;
    size_t pages = (need - have + PAGE - 1) / PAGE;
    size_t old = MEMORY_GROW(pages);
    if (old == (size_t)-1) return 0;
    PE_WORK(PE_WORK_GROWS, 1);
    /* The 2 GiB cap (build.sh) keeps these below 2^32. */
    uint64_t start = MEMORY_ORIGIN + (uint64_t)old * PAGE, end = start + (uint64_t)pages * PAGE;
    if (end > UINTPTR_MAX) return 0;
    add_region(start > heap_end ? (uintptr_t)start : heap_end, (uintptr_t)end);
    return 1;
}

static void *heap_alloc(size_t bytes) {
    if (!heap_end) add_region(HEAP_BASE, (uintptr_t)MEMORY_END());
    if (REFUSE(bytes)) return NULL; /* pe_malloc keeps bytes <= PE_MAX_BYTES: no wrap below */
    size_t need = align_up(bytes) + sizeof(struct chunk);
    for (int attempt = 0; attempt < 2; attempt++) {
        for (struct chunk **link = &free_list; *link; link = &(*link)->next) {
            struct chunk *c = *link;
            if (c->size < need) continue;
            if (c->size - need >= 2 * sizeof(struct chunk)) { /* keep the rest free */
                struct chunk *rest = (struct chunk *)((uintptr_t)c + need);
                rest->size = c->size - need;
                rest->next = c->next;
                *link = rest;
                c->size = need;
            } else {
                *link = c->next;
            }
            c->next = IN_USE;
            return c + 1;
        }
        if (attempt == 0 && !grow(need)) return NULL;
    }
    return NULL;
}

/* The bytes a chunk holds for its caller: those asked for, rounded up. */
static size_t held(void *ptr) { return ((struct chunk *)ptr - 1)->size - sizeof(struct chunk); }

/* Whether a free chunk of `bytes` exists; if not, and `may_grow`, grows
 * memory in one step until it does. */
static int heap_reserve(size_t bytes, int may_grow) {
    if (!heap_end) add_region(HEAP_BASE, (uintptr_t)MEMORY_END());
    size_t need = align_up(bytes) + sizeof(struct chunk);
    for (struct chunk *c = free_list; c; c = c->next)
        if (c->size >= need) return 1;
    return may_grow && grow(need);
}

static void heap_free(void *ptr) {
    struct chunk *c = (struct chunk *)ptr - 1;
    /* Not a chunk handed out, or freed twice: linking it again would make
     * the list a loop. Stop (a trap, a JS exception) before touching it. */
    assert(c->next == IN_USE);
    if (c->next != IN_USE) __builtin_trap();
    release(c);
}

#else
/* Over malloc, a header in front of the caller's bytes keeps their size. */
#define HEADER 16u
static void *heap_alloc(size_t bytes) {
    if (bytes > (size_t)-1 - HEADER) return NULL;
    unsigned char *p = malloc(bytes + HEADER);
    if (!p) return NULL;
    memcpy(p, &bytes, sizeof bytes);
    return p + HEADER;
}
static size_t held(void *ptr) {
    size_t bytes;
    memcpy(&bytes, (unsigned char *)ptr - HEADER, sizeof bytes);
    return bytes;
}
static int heap_reserve(size_t bytes, int may_grow) { /* malloc grows as it likes */
    (void)bytes;
    (void)may_grow;
    return 1;
}
static void heap_free(void *ptr) { free((unsigned char *)ptr - HEADER); }
#endif

/* 64: a chunk or two's rounding (pe_malloc has the final word). */
int pe_check_scratch(double bytes) {
    return bytes + 64.0 + (double)live_bytes <= (double)byte_limit ? PE_OK : PE_ERR_SIZE;
}

void *pe_malloc(size_t bytes) {
    /* in doubles: no wrap, and live_bytes can pass the limit by a chunk's rounding */
    if (bytes == 0 || (double)bytes + (double)live_bytes > (double)byte_limit) return NULL;
    void *p = heap_alloc(bytes);
    if (p) {
        live_allocations++;
        live_bytes += held(p);
    }
    return p;
}

/* A call that will hold `bytes` at once (its footprint, checked before its
 * first allocation) makes room for them here: linear memory grows once, by
 * what the call needs, instead of a few pages at each allocation inside it,
 * which the first large call of a page would otherwise pay for (issue 24).
 * A footprint past the limit reserves nothing: the call is refused anyway.
 * 1 when the room is there, 0 when memory could not grow. A negative
 * `bytes` only asks whether the room for -bytes is there, growing nothing:
 * a call that can refuse its input only once the input is in wasm memory
 * checks it beforehand where it would grow memory (issue 22). */
int pe_reserve(double bytes) {
    int may_grow = bytes > 0;
    if (!may_grow) bytes = -bytes;
    if (!(bytes > 0) || bytes + (double)live_bytes > (double)byte_limit) return 0;
    return heap_reserve((size_t)bytes, may_grow);
}

/* 1 when `bytes` more stay within the limit beside what is live, growing
 * nothing: pe_reserve's refusal, asked before a call reads its data
 * (pe_reserve of a negative size also says 0 where memory must only grow). */
int pe_fits(double bytes) { return bytes > 0 && bytes + (double)live_bytes <= (double)byte_limit; }

void pe_free(void *ptr) {
    if (!ptr) return;
    /* More frees than mallocs means a double free or a foreign pointer:
     * the debug build stops here instead of corrupting the heap. */
    assert(live_allocations > 0);
    size_t bytes = held(ptr);
    heap_free(ptr); /* first: a bad pointer stops there, the count still right */
    live_bytes -= bytes;
    live_allocations--;
}

#ifndef NDEBUG
/* Tests only: a lower limit (never above PE_MAX_BYTES), so that calls at the
 * limit stay small. Returns the limit now in force. */
double pe_set_byte_limit(double bytes) {
    if (bytes > 0 && bytes <= PE_MAX_BYTES) byte_limit = (size_t)bytes;
    return (double)byte_limit;
}
#endif

int32_t pe_live_allocations(void) { return live_allocations; }
