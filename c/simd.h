/* WebAssembly SIMD when the compiler targets it (emcc -msimd128); the kernels
 * keep a plain C path for native builds (tests/native) and other targets. */
#ifndef POSENC_SIMD_H
#define POSENC_SIMD_H

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#define PE_SIMD 1
#else
#define PE_SIMD 0
#endif

#endif
