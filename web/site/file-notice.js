// A classic (not module) script, so it runs where module scripts cannot: a page
// opened from file://, where the browser refuses to load modules (CORS) and the
// widgets would stay empty boxes. There it writes a message, in both languages,
// into every <pe-*> element and into the embed page. Over http(s) it does nothing.
(() => {
  if (location.protocol !== 'file:') return;
  const text = 'This chart cannot load from a file:// page: serve the page over http(s), for example with "npx http-server". ' +
    '从 file:// 打开的页面无法加载此图表：请通过 http(s) 提供页面，例如运行 "npx http-server"。';
  const show = () => {
    const boxes = [...document.querySelectorAll('*')].filter((n) => n.localName.startsWith('pe-'));
    const embed = document.getElementById('embed');
    if (embed) boxes.push(embed);
    for (const box of boxes) {
      const p = document.createElement('p');
      p.className = 'err pe-file-notice';
      p.setAttribute('role', 'alert');
      p.textContent = text;
      box.replaceChildren(p);
    }
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', show);
  else show();
})();
