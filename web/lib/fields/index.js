// posenc/fields: the sinusoid outside text. Diffusion timestep embeddings,
// the 2-D sin-cos tables of vision Transformers over a patch grid, and NeRF /
// random Fourier features of coordinates, in a WebAssembly module of their own
// (dist/fields.wasm), so that neither `posenc` nor `posenc/variants` carries
// them. `init()` loads it once and resolves to the API.
import { WASM_BASE64 } from '../../../dist/fields-wasm.js';
import { cachedInit } from '../wasm.js';
import { createFields } from './api.js';

export const init = cachedInit(WASM_BASE64, createFields);

export default init;
