// posenc: the package entry. `init()` loads the WebAssembly core once and
// resolves to the API; every call returns the same promise. The variants
// (RoPE, ALiBi, ...) have an entry and a module of their own: posenc/variants.
import { WASM_BASE64 } from '../../dist/posenc-wasm.js';
import { cachedInit } from './wasm.js';
import { createApi } from './api.js';

export const init = cachedInit(WASM_BASE64, createApi);
/** The preset, layout and frequency-rule names `table` and its kin accept, for UIs and CLIs that list them. */
export { PRESET_NAMES, LAYOUT_NAMES, FREQUENCY_RULE_NAMES } from './presets.js';

export default init;
