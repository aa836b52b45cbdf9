// A classic (not module) script, so it runs where the widgets' module cannot
// start, and writes why into every <pe-*> element and into the embed page, in
// both languages, instead of leaving blank boxes. Two causes:
// - a page opened from file://, where the browser refuses to load modules (CORS);
// - an <iframe sandbox> without allow-same-origin: the page's origin is opaque,
//   module scripts are fetched in CORS mode, and a server that sends no
//   Access-Control-Allow-Origin is refused (docs/widgets.md, "Sandboxed iframes and CDNs").
// When the module loads, it does nothing.
(() => {
  const FILE = 'This chart cannot load from a file:// page: serve the page over http(s), for example with "npx http-server". ' +
    '从 file:// 打开的页面无法加载此图表：请通过 http(s) 提供页面，例如运行 "npx http-server"。';
  const SANDBOX = 'This chart cannot start in a sandboxed iframe without allow-same-origin: the page has no origin, so the browser ' +
    'refuses its module script unless the server sends "Access-Control-Allow-Origin". Add allow-same-origin to the ' +
    'iframe\'s sandbox attribute (sandbox="allow-scripts allow-same-origin"), or serve the files with that header. ' +
    '此图表无法在未设置 allow-same-origin 的沙箱 iframe 中启动：页面没有来源（origin），除非服务器发送 ' +
    '"Access-Control-Allow-Origin"，浏览器会拒绝其模块脚本。请在 iframe 的 sandbox 属性中加入 allow-same-origin' +
    '（sandbox="allow-scripts allow-same-origin"），或让服务器发送该响应头。';
  const BLOCKED = 'This chart\'s script could not start: its module was blocked (a Content-Security-Policy, a missing ' +
    '"Access-Control-Allow-Origin" header on another origin, or the network). ' +
    '此图表的脚本无法启动：其模块被阻止（内容安全策略、另一来源缺少 "Access-Control-Allow-Origin" 响应头，或网络问题）。';
  const file = location.protocol === 'file:';
  let shown = false;
  const show = () => {
    if (shown || (!file && window.customElements?.get('pe-heatmap'))) return;
    shown = true;
    const text = file ? FILE : window.origin === 'null' ? SANDBOX : BLOCKED;
    const boxes = [...document.querySelectorAll('*')].filter((n) => n.localName.startsWith('pe-'));
    const embed = document.getElementById('embed');
    if (embed) boxes.push(embed);
    for (const box of boxes) {
      const p = document.createElement('p');
      p.className = `err ${file ? 'pe-file-notice' : 'pe-module-notice'}`;
      p.setAttribute('role', 'alert');
      p.textContent = text;
      box.replaceChildren(p);
    }
  };
  if (file) {
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', show);
    else show();
    return;
  }
  // A script's error event does not bubble, but the document sees it while capturing.
  document.addEventListener('error', (e) => {
    if (e.target?.localName === 'script' && e.target.type === 'module') show();
  }, true);
  // Module scripts run before the load event: none defined by then, none will be.
  window.addEventListener('load', show);
})();
