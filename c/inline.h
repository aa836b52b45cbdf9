/* PE_INLINE: static inline, and always inlined where the compiler allows it.
 * Used by the small helpers of the math (dd.h, mathlib.h, trig.c, explog.c):
 * at -Os they would stay calls that pass pe_dd through memory, which made
 * sin/cos twice as slow as musl's. */
#ifndef POSENC_INLINE_H
#define POSENC_INLINE_H

#if defined(__GNUC__)
#define PE_INLINE static inline __attribute__((always_inline))
#define PE_NOINLINE __attribute__((noinline))
#else
#define PE_INLINE static inline
#define PE_NOINLINE
#endif

/* PE_NOINLINE marks the body of a long loop that a call should run in slices
 * (PE_SLICE elements or rows at a time). V8 first runs wasm code from its
 * baseline compiler and swaps in optimised code only for later calls: a loop
 * that one call spends seconds in never leaves the baseline code (2 to 3
 * times slower), while a function called once per slice is optimised after
 * the first few milliseconds. */
#define PE_SLICE 4096

#endif
