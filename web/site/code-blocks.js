// Copy buttons for the code blocks (<pre class="code" data-code="...">). The
// blocks themselves are static text; tests/code-blocks.test.js runs them.
import { pageLanguage } from './i18n.js';

const TEXT = { en: { copy: 'Copy', done: 'Copied', fail: 'Select the text and copy it' }, zh: { copy: '复制', done: '已复制', fail: '请选中文字后复制' } };

export function mount(box) {
  const t = TEXT[pageLanguage()];
  for (const pre of box.querySelectorAll('pre.code')) {
    if (pre.previousElementSibling?.classList.contains('copy')) continue;
    const button = Object.assign(document.createElement('button'), { type: 'button', className: 'copy', textContent: t.copy });
    button.setAttribute('aria-label', `${t.copy}: ${pre.dataset.code}`);
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(pre.textContent);
        button.textContent = t.done;
      } catch {
        button.textContent = t.fail;
      }
      setTimeout(() => { button.textContent = t.copy; }, 2000);
    });
    pre.before(button);
  }
}
