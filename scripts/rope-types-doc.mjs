// Writes, from web/lib/variants/rope-types.js (the one place the RoPE types
// are declared), the table of types in docs/variants.md and the RopeScaling
// union in web/lib/variants/index.d.ts, each between its rope-types markers,
// and the list of types in <pe-rope>'s `scaling` row of docs/widgets.md.
// tests/rope-types.test.js fails when a committed copy is not what this writes.
//
//   node scripts/rope-types-doc.mjs        (rewrites both files in place)
import { readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TYPES, PARAMS, MEANINGS } from '../web/lib/variants/rope-types.js';
import { SCALINGS } from '../web/widgets/rope-scalings.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DOC = join(ROOT, 'docs/variants.md');
export const DTS = join(ROOT, 'web/lib/variants/index.d.ts');
export const WIDGETS_DOC = join(ROOT, 'docs/widgets.md');
export const BEGIN = '<!-- rope-types: written by scripts/rope-types-doc.mjs from web/lib/variants/rope-types.js -->';
export const END = '<!-- /rope-types -->';
const TS_BEGIN = '// rope-types: written by scripts/rope-types-doc.mjs from web/lib/variants/rope-types.js';
const TS_END = '// /rope-types';
const TS_KIND = { real: 'number', length: 'number', boolean: 'boolean', factors: 'ArrayLike<number>' };

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

/**
 * The RopeScaling union: the bare names of the types whose parameters all have
 * defaults, then one object type per type, a key optional where the table gives a
 * default; yarn's and longrope's factor defaults to maxPosition / originalMaxPosition,
 * so one of the two is required.
 */
export function ropeScalingTs() {
  const bare = Object.keys(TYPES).filter((t) => Object.values(TYPES[t].params).every((p) => p.default !== null));
  const lines = ['export type RopeScaling =', `  | ${bare.map((t) => `'${t}'`).join(' | ')}`];
  for (const [name, t] of Object.entries(TYPES)) {
    const either = t.params.factor?.default === 0 && t.params.maxPosition?.default === 0;
    const keys = Object.entries(t.params).filter(([k]) => !(either && (k === 'factor' || k === 'maxPosition')))
      .map(([k, p]) => `${k}${p.default === null ? '' : '?'}: ${TS_KIND[PARAMS[k].kind]}`);
    const member = `{ type: '${name}'${keys.map((k) => `; ${k}`).join('')} }`;
    lines.push(`  /** ${MEANINGS.types[name].en}. */`);
    lines.push(either ? `  | (${member} & ({ factor: number; maxPosition?: number } | { factor?: number; maxPosition: number }))` : `  | ${member}`);
  }
  lines[lines.length - 1] += ';';
  return [`export type RopeTypeName = ${Object.keys(TYPES).map((t) => `'${t}'`).join(' | ')};`, ...lines].join('\n');
}

function between(text, begin, end, body, file) {
  const a = text.indexOf(begin);
  const b = text.indexOf(end);
  if (a < 0 || b < a) throw new Error(`rope-types-doc: ${file} lacks the markers`);
  return `${text.slice(0, a + begin.length)}\n${body}\n${text.slice(b)}`;
}

/** docs/variants.md with the table between the markers replaced. */
export const withTable = (text) => between(text, BEGIN, END, ropeTypesTable(), DOC);
/** index.d.ts with the union between the markers replaced. */
export const withUnion = (text) => between(text, TS_BEGIN, TS_END, ropeScalingTs(), DTS);

/** The `scaling` row of <pe-rope>'s attribute table in docs/widgets.md: the types the widget offers. */
const WIDGET_ROW = /^\| `scaling` \| word \| [^(|]*\(every type of the RoPE table/m;
export const widgetTypesRow = () => `| \`scaling\` | word | ${SCALINGS.map((t) => `\`${t}\``).join(', ')} (every type of the RoPE table`;
/** docs/widgets.md with that row's list replaced. */
export function withWidgetTypes(text) {
  if (!WIDGET_ROW.test(text)) throw new Error(`rope-types-doc: ${WIDGETS_DOC} lacks <pe-rope>'s scaling row`);
  return text.replace(WIDGET_ROW, widgetTypesRow());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(DOC, withTable(readFileSync(DOC, 'utf8')));
  writeFileSync(DTS, withUnion(readFileSync(DTS, 'utf8')));
  writeFileSync(WIDGETS_DOC, withWidgetTypes(readFileSync(WIDGETS_DOC, 'utf8')));
}
