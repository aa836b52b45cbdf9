// Languages. The tutorial is served as one page per language (index.html in
// Chinese, en/index.html in English; see scripts/site-pages.mjs), so its
// language is the page's <html lang>. The embed page picks one at run time:
// ?lang= in the URL, a stored choice, else the browser's language.
import { translate } from '../widgets/strings.js';

const KEY = 'posenc-lang';

export const SITE = {
  en: {
    badView: 'Unknown or missing view "{raw}". Use ?view= one of: {list}.',
    ignored: 'Ignored unknown parameter "{raw}".',
    ignoredMore: 'Ignored {count} more unknown parameters.',
    repeated: 'Parameter "{raw}" is given more than once: its first value is used.',
    embedTitle: 'posenc chart',
    toggle: 'Switch to Chinese / 切换到中文',
  },
  zh: {
    badView: '未知或缺少 view "{raw}"。请用 ?view= 指定以下之一：{list}。',
    ignored: '忽略了未知参数“{raw}”。',
    ignoredMore: '另外忽略了 {count} 个未知参数。',
    repeated: '参数“{raw}”出现了不止一次：使用第一个值。',
    embedTitle: 'posenc 图表',
    toggle: '切换到英文 / Switch to English',
  },
};

/** Site strings first, then the widgets' (attribute messages and common words). */
export function tr(lang, key, vars = {}) {
  const s = SITE[lang]?.[key] ?? SITE.en[key];
  return s === undefined ? translate(lang, key, vars) : s.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
}

function stored() {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null; // storage may be disabled (privacy mode, sandboxed iframe)
  }
}

/** The language to start in. */
export function initialLanguage() {
  const fromUrl = new URLSearchParams(location.search).get('lang');
  if (fromUrl === 'zh' || fromUrl === 'en') return fromUrl;
  const saved = stored();
  if (saved === 'zh' || saved === 'en') return saved;
  return (navigator.language || '').toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

/** The language of the page being shown ('zh' or 'en'). */
export const pageLanguage = () => (document.documentElement.lang.toLowerCase().startsWith('zh') ? 'zh' : 'en');

/** Sets the document's language (widgets inherit it from <html lang>). */
export function applyLanguage(lang) {
  const root = document.documentElement;
  root.dataset.lang = lang;
  root.lang = lang === 'zh' ? 'zh-CN' : 'en';
  // Text the page builds at run time listens for this.
  document.dispatchEvent(new CustomEvent('pe-langchange', { detail: lang }));
}
