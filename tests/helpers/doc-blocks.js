// The fenced code blocks of a Markdown file, with the marker that may stand on
// the line just above each: <!-- code-block: TOKENS --> (invisible on GitHub and
// npm). Tokens, comma separated:
//   not run: REASON   the block is not code to run (shell, HTML, a diagram); the reason is required
//   commonjs          run as a .cjs file
//   require-esm       needs require(esm): on Node before 22.12, run with --experimental-require-module
//   continues         runs after the previous runnable block of the same file (it uses its names)
//   before: CODE      set-up the reader is assumed to have (inputs of the right shape), run first
//   needs PACKAGES    a note for readers; the packages are devDependencies here
/** [{ file, line, lang, code, marker: { notRun, commonjs, requireEsm, continues, before } }] */
export function docBlocks(file, markdown) {
  const out = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(/^```(\S*)/);
    if (!open) continue;
    const end = lines.indexOf('```', i + 1);
    if (end < 0) throw new Error(`${file}:${i + 1}: a code block is never closed`);
    const tokens = (lines[i - 1]?.match(/^<!-- code-block: ([\s\S]*) -->$/)?.[1] ?? '').split(/,\s*(?=(?:not run|commonjs|require-esm|continues|before|needs)\b)/).map((t) => t.trim());
    const get = (name) => tokens.find((t) => t === name || t.startsWith(`${name}:`) || t.startsWith(`${name} `));
    out.push({
      file, line: i + 1, lang: open[1], code: lines.slice(i + 1, end).join('\n'),
      marker: {
        notRun: get('not run')?.replace(/^not run:?\s*/, '') ?? null,
        commonjs: Boolean(get('commonjs')),
        requireEsm: Boolean(get('require-esm')),
        continues: Boolean(get('continues')),
        before: get('before')?.replace(/^before:\s*/, '') ?? '',
      },
    });
    i = end;
  }
  return out;
}
