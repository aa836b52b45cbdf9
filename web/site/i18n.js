// The page language: a toggle that persists in localStorage, ?lang= in the URL,
// else the browser's language. Prose is written twice in the HTML (.zh / .en,
// hidden by CSS); widgets get a lang attribute; JS-made text comes from here.
import { translate } from '../widgets/strings.js';
import { WIDGETS } from '../widgets/index.js';

const KEY = 'posenc-lang';

const SITE = {
  en: {
    badView: 'Unknown or missing view "{raw}". Use ?view= one of: {list}.',
    ignored: 'Ignored unknown parameter "{raw}".',
    embedTitle: 'posenc chart',
    toggle: 'Switch to Chinese / 切换到中文',
  },
  zh: {
    badView: '未知或缺少 view "{raw}"。请用 ?view= 指定以下之一:{list}。',
    ignored: '忽略了未知参数 "{raw}"。',
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

/** Shows one language everywhere: prose, widgets, document language. */
export function applyLanguage(lang) {
  const root = document.documentElement;
  root.dataset.lang = lang;
  root.lang = lang === 'zh' ? 'zh-CN' : 'en';
  for (const w of document.querySelectorAll(Object.keys(WIDGETS).join(','))) {
    w.setAttribute('lang', lang);
  }
  const toggle = document.getElementById('lang-toggle');
  toggle?.setAttribute('aria-label', tr(lang, 'toggle'));
  // Text the page builds at run time (the settings' message) listens for this.
  document.dispatchEvent(new CustomEvent('pe-langchange', { detail: lang }));
}

export function setupLanguage() {
  let lang = initialLanguage();
  applyLanguage(lang);
  document.getElementById('lang-toggle')?.addEventListener('click', () => {
    lang = lang === 'zh' ? 'en' : 'zh';
    applyLanguage(lang);
    try {
      localStorage.setItem(KEY, lang);
    } catch {
      /* not persisted; the page still switches */
    }
  });
}
