// The tutorial is written once, with every sentence in both languages
// (class="zh" / class="en"), and served as two pages: index.html in Chinese and
// en/index.html in English. Each page holds only its own language, with the
// right <html lang>, so no reader sees the other language first, before or
// without any script.

export const PAGES = [
  { lang: 'zh', htmlLang: 'zh-CN', path: 'index.html', prefix: '' },
  { lang: 'en', htmlLang: 'en', path: 'en/index.html', prefix: '../' },
];

const VOID = new Set(['area', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'wbr']);
const OPEN = /<([a-zA-Z][\w-]*)\b[^>]*?\bclass="([^"]*)"[^>]*>/g;

/** Index just past the element that opens at `start` with tag `tag` (same-name nesting counted). */
function endOf(html, tag, start) {
  if (VOID.has(tag.toLowerCase())) return html.indexOf('>', start) + 1;
  const re = new RegExp(`<(/?)${tag}\\b[^>]*?(/?)>`, 'gi');
  re.lastIndex = start;
  let depth = 0;
  for (let m; (m = re.exec(html)); ) {
    if (m[2] === '/') continue; // self-closing (SVG)
    depth += m[1] ? -1 : 1;
    if (depth === 0) return re.lastIndex;
  }
  throw new Error(`site-pages: <${tag}> opened at ${start} is never closed`);
}

/** Removes every element whose class list holds `drop` ("zh" or "en"). */
export function dropLanguage(html, drop) {
  let out = '';
  let at = 0;
  OPEN.lastIndex = 0;
  for (let m; (m = OPEN.exec(html)); ) {
    if (!m[2].split(/\s+/).includes(drop)) continue;
    const end = endOf(html, m[1], m.index);
    out += html.slice(at, m.index);
    at = end;
    OPEN.lastIndex = end;
  }
  return out + html.slice(at);
}

/** Makes relative asset and page links work from a page one folder down. */
export function rebase(html, prefix) {
  if (!prefix) return html;
  return html.replace(/\b(href|src)="(?!#|[a-z]+:|\/|\.\.\/)([^"]*)"/g, (_, attr, url) => `${attr}="${prefix}${url}"`);
}

/** The page for one language from the bilingual source. */
export function languagePage(source, page) {
  const other = page.lang === 'zh' ? 'en' : 'zh';
  let html = dropLanguage(source, other);
  html = html.replace(/<html\b[^>]*>/, `<html lang="${page.htmlLang}" data-lang="${page.lang}" data-first-screen>`);
  // <title data-en="...">中文</title>: a title cannot hold markup, so the English is an attribute.
  html = html.replace(/<title data-en="([^"]*)">([^<]*)<\/title>/, (_, en, zh) => `<title>${page.lang === 'en' ? en : zh}</title>`);
  return rebase(html, page.prefix);
}
