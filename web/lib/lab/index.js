// posenc/lab: a tiny Transformer trained in WebAssembly, to watch position
// information matter. `init()` loads the lab's own module once (the `posenc`
// and `posenc/variants` modules stay as small as they were).
import { WASM_BASE64 } from '../../../dist/lab-wasm.js';
import { cachedInit } from '../wasm.js';
import { createLab } from './api.js';

export const init = cachedInit(WASM_BASE64, createLab);

export { TASKS, vocabulary, classNames, chance } from './tasks.js';
export default init;
