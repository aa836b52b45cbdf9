// The size of what a user of the npm package loads, i.e. the embedded core
// (dist/posenc-wasm.js) and the JS API (web/lib/*.js; index.d.ts is types
// only), each gzipped at level 9 as a server would send it, summed. The
// issue's 15 kB target is not met yet; until it is, a regression budget just
// above today's size keeps it from growing. Measured on the release artefact
// whichever build the suite runs against.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { gzipSync, inflateSync } from 'node:zlib';
import { measureSize, loadedFiles, SIZE_BUDGET_BYTES, SIZE_TARGET_BYTES } from '../bench/size.mjs';

const root = new URL('..', import.meta.url);

test('the size budget counts every file a user loads, and only those', async () => {
  const lib = readdirSync(new URL('web/lib/', root)).filter((f) => f.endsWith('.js')).map((f) => `web/lib/${f}`);
  assert.deepEqual(loadedFiles().sort(), ['dist/posenc-wasm.js', ...lib].sort());
  assert.ok(!loadedFiles().some((f) => f.endsWith('.d.ts')));
  // The budget measures the real core: the embedded bytes inflate to dist/posenc.wasm.
  const { WASM_BASE64 } = await import('../dist/posenc-wasm.js');
  const embedded = Buffer.from(WASM_BASE64, 'base64');
  const wasm = embedded[0] === 0 && embedded[1] === 0x61 ? embedded : inflateSync(embedded);
  assert.ok(wasm.equals(readFileSync(new URL('dist/posenc.wasm', root))), 'dist/posenc-wasm.js embeds dist/posenc.wasm');
});

test('the sizes are gzip -9 of each file, summed', () => {
  const s = measureSize();
  for (const f of s.files) {
    const bytes = readFileSync(new URL(f.path, root));
    assert.equal(f.bytes, bytes.length, f.path);
    assert.equal(f.gzip, gzipSync(bytes, { level: 9 }).length, f.path);
  }
  assert.equal(s.gzip, s.files.reduce((a, f) => a + f.gzip, 0));
});

test(`wasm + JS API stay under the ${SIZE_BUDGET_BYTES}-byte regression budget (target ${SIZE_TARGET_BYTES}, not met yet)`, () => {
  const s = measureSize();
  const table = s.files.map((f) => `  ${f.path}: ${f.bytes} bytes, ${f.gzip} gzipped`).join('\n');
  console.log(`what a user loads: ${s.gzip} bytes gzipped (target ${SIZE_TARGET_BYTES}, regression budget ${SIZE_BUDGET_BYTES})`);
  assert.ok(s.gzip < SIZE_BUDGET_BYTES, `${s.gzip} bytes gzipped, budget < ${SIZE_BUDGET_BYTES}:\n${table}`);
});
