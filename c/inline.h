/* PE_INLINE: static inline, and always inlined where the compiler allows it.
 * Used by the small helpers of the math (dd.h, mathlib.h, trig.c, explog.c):
 * at -Os they would stay calls that pass pe_dd through memory, which made
 * sin/cos twice as slow as musl's. */
#ifndef POSENC_INLINE_H
#define POSENC_INLINE_H

#if defined(__GNUC__)
#define PE_INLINE static inline __attribute__((always_inline))
#else
#define PE_INLINE static inline
#endif

#endif
