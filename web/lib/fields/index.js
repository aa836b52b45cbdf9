// posenc/fields: the sinusoid outside text. Diffusion timestep embeddings,
// the 2-D sin-cos tables of vision Transformers over a patch grid, and NeRF /
// random Fourier features of coordinates, in a WebAssembly module of their own
// (dist/fields.wasm), so that neither `posenc` nor `posenc/variants` carries
// them. `init()` loads it once and resolves to the API.
import { WASM_BASE64 } from '../../../dist/fields-wasm.js';
import { cachedInit } from '../wasm.js';
import { createFields, TIMESTEP_PRESETS, GRID_PRESETS } from './api.js';

export const init = cachedInit(WASM_BASE64, createFields);

// The preset names, first the default, for tools that list them (the CLI's help).
export const TIMESTEP_PRESET_NAMES = Object.freeze(Object.keys(TIMESTEP_PRESETS));
export const GRID_PRESET_NAMES = Object.freeze(Object.keys(GRID_PRESETS));

export default init;
