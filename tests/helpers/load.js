// Loads the APIs from the build the test run asks for: POSENC_BUILD=debug picks
// the -O0 modules with C assertions under the sources of web/lib, anything else
// the package's entries as they ship (dist/lib, minified, by scripts/bundle-lib.mjs).
// loadApi() is `posenc` (the core), loadVariants() `posenc/variants`, loadFields() `posenc/fields`.
import { instantiateForTests as instantiate } from './wasi.js';
import { createApi } from '../../web/lib/api.js';
import { createVariants } from '../../web/lib/variants/api.js';
import { createFields } from '../../web/lib/fields/api.js';
import { createLab } from '../../web/lib/lab/api.js';

export const build = process.env.POSENC_BUILD === 'debug' ? 'debug' : 'release';

function loader(entry, module, create) {
  if (build !== 'debug') return () => import(entry).then((m) => m.init());
  let cached;
  return () => (cached ??= import(`../../dist/debug/${module}-wasm.js`)
    .then((m) => instantiate(m.WASM_BASE64))
    .then(create));
}

export const loadApi = loader('../../dist/lib/posenc.js', 'posenc', createApi);
export const loadVariants = loader('../../dist/lib/variants.js', 'variants', createVariants);
export const loadFields = loader('../../dist/lib/fields.js', 'fields', createFields);
export const loadLab = loader('../../dist/lib/lab.js', 'lab', createLab);

/**
 * A new instance of each module, never shared with loadApi()/loadVariants():
 * the reference a test compares with after it has tried to damage the shared
 * one. Same build (release or debug) as the rest of the run.
 */
export async function freshModules() {
  const dir = build === 'debug' ? '../../dist/debug' : '../../dist';
  const [core, variants, fields] = await Promise.all(['posenc', 'variants', 'fields'].map((name) =>
    import(`${dir}/${name}-wasm.js`).then((m) => instantiate(m.WASM_BASE64))));
  return { pe: createApi(core), pv: createVariants(variants), pf: createFields(fields) };
}
