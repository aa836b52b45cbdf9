// Each public header declares exactly what its wasm module exports: posenc.h
// the core (c/exports/common.txt + core.txt), posenc_variants.h the variants
// (variants.txt, and native.txt: the C entry points no JS calls, which no
// wasm module exports). A function declared in the wrong header, or exported
// without a declaration, fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const read = (p) => readFileSync(new URL(`../${p}`, import.meta.url), 'utf8');
const list = (name) => read(`c/exports/${name}.txt`).split('\n').map((s) => s.trim()).filter(Boolean);
const declared = (header) => [...read(`c/${header}`).matchAll(/^PE_API\b[^(]*?\b(pe_\w+)\s*\(/gm)].map((m) => m[1]);

for (const [header, lists] of [['posenc.h', ['common', 'core']], ['posenc_variants.h', ['variants', 'native']], ['posenc_fields.h', ['fields']], ['lab/posenc_lab.h', ['lab']]]) {
  test(`${header} declares exactly the functions of c/exports/${lists.join(' + ')}`, () => {
    assert.deepEqual(declared(header).sort(), lists.flatMap(list).sort());
  });
}
