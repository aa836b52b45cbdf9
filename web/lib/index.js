// posenc: the package entry. `init()` loads the WebAssembly core once and
// resolves to the API; every call returns the same promise.
import { WASM_BASE64 } from '../../dist/posenc-wasm.js';
import { instantiate } from './wasm.js';
import { createApi } from './api.js';

let ready;

export function init() {
  ready ??= instantiate(WASM_BASE64).then(createApi, (error) => {
    ready = undefined; // let a later call try again
    throw error;
  });
  return ready;
}

export default init;
