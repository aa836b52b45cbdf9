/* WebAssembly SIMD when the compiler targets it (emcc -msimd128). Native test
 * builds define PE_SIMDE to run the same SIMD source through SIMDe's portable
 * wasm_simd128 (Debian's libsimde-dev), so that ASan, UBSan and the fuzzer see
 * the kernels that ship; without it the kernels' plain C paths are used. */
#ifndef POSENC_SIMD_H
#define POSENC_SIMD_H

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#define PE_SIMD 1
#elif defined(PE_SIMDE)
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/wasm/simd128.h>
#define PE_SIMD 1
#else
#define PE_SIMD 0
#endif

#if PE_SIMD
/* One rotation step of the sines s and cosines c of two frequencies by one
 * step's sines sw and cosines cw (angle addition). */
#define ROTATE(s, c, sw, cw)                                                         \
    do {                                                                             \
        v128_t next_ = wasm_f64x2_add(wasm_f64x2_mul(s, cw), wasm_f64x2_mul(c, sw)); \
        c = wasm_f64x2_sub(wasm_f64x2_mul(c, cw), wasm_f64x2_mul(s, sw));            \
        s = next_;                                                                   \
    } while (0)

/* Float32 of two f64x2 vectors: [a0, a1, b0, b1] or, interleaved, [a0, b0, a1, b1]. */
#define F32_CAT(a, b) \
    wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(a), wasm_f32x4_demote_f64x2_zero(b), 0, 1, 4, 5)
#define F32_ZIP(a, b) \
    wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(a), wasm_f32x4_demote_f64x2_zero(b), 0, 4, 1, 5)
#endif

#endif
