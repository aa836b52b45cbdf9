// The site's Content-Security-Policy, in one place. Every page built into
// dist/web carries it as a <meta> tag, so a copy of the site hosted anywhere
// keeps it; scripts/serve.js also sends it as a header, with what a <meta>
// cannot carry: frame-ancestors ('self' for the tutorial; embed.html exists
// to be framed by other sites, so it may be framed anywhere).
export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; object-src 'none'; base-uri 'self'; form-action 'self'";

/** The frame-ancestors directive for a page path under dist/web. */
export const frameAncestors = (path) => (/(^|\/)embed\.html$/.test(path) ? 'frame-ancestors *' : "frame-ancestors 'self'");

const META = `<meta http-equiv="Content-Security-Policy" content="${CSP}">`;

/** `html` with the policy's <meta> tag right after <meta charset> (once). */
export function withCspMeta(html) {
  if (html.includes('http-equiv="Content-Security-Policy"')) return html;
  const charset = /<meta charset="utf-8">/i.exec(html);
  if (!charset) throw new Error('withCspMeta: the page has no <meta charset="utf-8"> to put the policy after');
  const at = charset.index + charset[0].length;
  return `${html.slice(0, at)}\n${META}${html.slice(at)}`;
}
