// The host side of embed.html's height messages: the two lines of docs/widgets.md.
// Only messages from the embed page's own origin count, and only for the frame that sent them.
addEventListener('message', (e) => { if (e.origin === location.origin && e.data?.type === 'posenc-embed-height')
  for (const f of document.querySelectorAll('iframe')) if (f.contentWindow === e.source) f.style.height = `${e.data.height}px`; });
