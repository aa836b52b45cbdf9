// Measures "navigation to first screen drawn": once every widget that starts
// inside the viewport has rendered, the next frame's time (ms since navigation)
// goes into <html data-first-screen-ms>, where the browser test reads it.
export function markFirstScreen(selector) {
  const visible = [...document.querySelectorAll(selector)].filter((w) => w.getBoundingClientRect().top < innerHeight);
  const done = (w) => (w.dataset.state ? null : new Promise((ok) => w.addEventListener('pe-render', ok, { once: true })));
  return Promise.all(visible.map(done)).then(
    () => new Promise((ok) => requestAnimationFrame(() => {
      document.documentElement.dataset.firstScreenMs = performance.now().toFixed(1);
      document.documentElement.dataset.firstScreenCount = String(visible.length);
      ok();
    })),
  );
}
