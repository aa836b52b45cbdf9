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

/**
 * Section numbers in document order, keyed by the section's id. A part
 * (class="part", e.g. "Beyond 2017") groups sections and takes no number.
 */
export function sectionNumbers(html) {
  const numbers = new Map();
  for (const [, attrs] of html.matchAll(/<section\b([^>]*)>/g)) {
    const id = attrs.match(/\bid="([^"]+)"/)?.[1];
    if (id && !/\bclass="[^"]*\bpart\b/.test(attrs)) numbers.set(id, numbers.size + 1);
  }
  return numbers;
}

/**
 * Writes every section number from the sections' order, so moving a section can
 * never leave a stale number behind: each numbered section's <h2> and its entry in
 * the contents get "N. ", and each cross-reference, written as an empty
 * <a href="#s-..." data-sec></a>, gets N. A reference to a missing or unnumbered
 * section stops the build.
 */
export function numberSections(html) {
  const numbers = sectionNumbers(html);
  const number = (id) => {
    if (!numbers.has(id)) throw new Error(`site-pages: a reference points at #${id}, which is no numbered section`);
    return numbers.get(id);
  };
  html = html.replace(/(<section\b[^>]*\bid="([^"]+)"[^>]*>\s*<h2\b[^>]*>)/g,
    (head, _, id) => (numbers.has(id) ? `${head}${numbers.get(id)}. ` : head));
  html = html.replace(/<nav class="toc"[\s\S]*?<\/nav>/, (nav) => nav.replace(/<a href="#([^"]+)">/g,
    (link, id) => (numbers.has(id) ? `${link}${numbers.get(id)}. ` : link)));
  return html.replace(/<a href="#([^"]+)" data-sec><\/a>/g, (_, id) => `<a href="#${id}" class="xref">${number(id)}</a>`);
}

/** The page for one language from the bilingual source. */
export function languagePage(source, page) {
  const other = page.lang === 'zh' ? 'en' : 'zh';
  let html = numberSections(dropLanguage(source, other));
  html = html.replace(/<html\b[^>]*>/, `<html lang="${page.htmlLang}" data-lang="${page.lang}" data-first-screen>`);
  // <title data-en="...">中文</title>: a title cannot hold markup, so the English is an attribute.
  html = html.replace(/<title data-en="([^"]*)">([^<]*)<\/title>/, (_, en, zh) => `<title>${page.lang === 'en' ? en : zh}</title>`);
  return rebase(html, page.prefix);
}
