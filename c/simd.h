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

#endif
