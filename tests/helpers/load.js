// Loads the API from the build the test run asks for: POSENC_BUILD=debug picks
// the -O0 build with C assertions, anything else the optimised one that ships.
import { instantiate } from '../../web/lib/wasm.js';
import { createApi } from '../../web/lib/api.js';

export const build = process.env.POSENC_BUILD === 'debug' ? 'debug' : 'release';

let cached;
export function loadApi() {
  if (build !== 'debug') return import('../../web/lib/index.js').then((m) => m.init());
  cached ??= import('../../dist/debug/posenc-wasm.js')
    .then((m) => instantiate(m.WASM_BASE64))
    .then(createApi);
  return cached;
}
