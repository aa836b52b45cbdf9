// posenc/variants: RoPE, ALiBi, T5 buckets and Shaw clipping, the learned and
// binary tables, float16/bfloat16 precision. They live in a WebAssembly module
// of their own (dist/variants.wasm), so that `import 'posenc'` does not carry
// them. `init()` loads it once and resolves to the API; every call returns the
// same promise.
import { WASM_BASE64 } from '../../../dist/variants-wasm.js';
import { cachedInit } from '../wasm.js';
import { createVariants } from './api.js';

export const init = cachedInit(WASM_BASE64, createVariants);

export default init;

/** The RoPE types and their parameters, for tools that list them (the CLI's flags and help). */
export { TYPES as ROPE_TYPES, PARAMS as ROPE_PARAMS } from './rope-types.js';
