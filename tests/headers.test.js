// Each public header declares exactly what its wasm module exports: posenc.h
// the core (c/exports/common.txt + core.txt), posenc_variants.h the variants
// (variants.txt), and so on; native.txt lists the C entry points no JS calls,
// declared in their headers but exported by no wasm module. A function
// declared in the wrong header, or exported without a declaration, fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const read = (p) => readFileSync(new URL(`../${p}`, import.meta.url), 'utf8');
const list = (name) => read(`c/exports/${name}.txt`).split('\n').map((s) => s.trim()).filter(Boolean);
const declared = (header) => [...read(`c/${header}`).matchAll(/^PE_API\b[^(]*?\b(pe_\w+)\s*\(/gm)].map((m) => m[1]);

const native = list('native');
const headers = [['posenc.h', ['common', 'core']], ['posenc_variants.h', ['variants']], ['posenc_fields.h', ['fields']], ['lab/posenc_lab.h', ['lab']]];
for (const [header, lists] of headers) {
  test(`${header} declares exactly the functions of c/exports/${lists.join(' + ')}, and its own of native.txt`, () => {
    const own = declared(header);
    assert.deepEqual(own.sort(), [...lists.flatMap(list), ...native.filter((f) => own.includes(f))].sort());
  });
}

test('every entry point of c/exports/native.txt is declared in a public header', () => {
  const all = headers.flatMap(([header]) => declared(header));
  assert.deepEqual(native.filter((f) => !all.includes(f)), []);
});
