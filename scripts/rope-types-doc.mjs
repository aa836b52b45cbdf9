// Writes the table of RoPE types in docs/variants.md (between the
// rope-types markers) from web/lib/variants/rope-types.js, the one place the
// types are declared. tests/rope-types.test.js fails when the committed table
// is not what this writes.
//
//   node scripts/rope-types-doc.mjs        (rewrites docs/variants.md in place)
import { readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TYPES, PARAMS, MEANINGS } from '../web/lib/variants/rope-types.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DOC = join(ROOT, 'docs/variants.md');
export const BEGIN = '<!-- rope-types: written by scripts/rope-types-doc.mjs from web/lib/variants/rope-types.js -->';
export const END = '<!-- /rope-types -->';

function param(key, p) {
  const def = p.default === null ? 'needed' : p.default === 0 ? 'optional' : `default ${p.default}`;
  const hf = PARAMS[key].hf ? `\`${PARAMS[key].hf}\`` : PARAMS[key].config ? `config \`${PARAMS[key].config}\`` : 'call';
  return `\`${key}\` ← ${hf}${p.required ? ' (HF requires)' : ''}, ${def}, \`${PARAMS[key].flag}\``;
}

/** The markdown table, one row per type. */
export function ropeTypesTable() {
  const rows = ['| type | HF `rope_type` | parameters: JS ← HF key, default, CLI flag | what it does |', '|---|---|---|---|'];
  for (const [name, t] of Object.entries(TYPES)) {
    const hf = t.hf ? [t.hf, ...t.aliases].map((a) => `\`${a}\``).join(', ') : '(none: posenc only)';
    const params = Object.entries(t.params).map(([k, p]) => param(k, p)).join('; ') || 'none';
    rows.push(`| \`${name}\` | ${hf} | ${params} | ${MEANINGS.types[name].en} |`);
  }
  return rows.join('\n');
}

/** docs/variants.md with the table between the markers replaced. */
export function withTable(text) {
  const a = text.indexOf(BEGIN);
  const b = text.indexOf(END);
  if (a < 0 || b < a) throw new Error(`rope-types-doc: ${DOC} lacks the markers`);
  return `${text.slice(0, a + BEGIN.length)}\n${ropeTypesTable()}\n${text.slice(b)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeFileSync(DOC, withTable(readFileSync(DOC, 'utf8')));
