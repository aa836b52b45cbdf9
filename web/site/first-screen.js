// The first screen. markFirstChart records "navigation to first chart drawn":
// the time (ms since navigation) of the frame after the first chart was
// painted goes into <html data-first-chart-ms>, where `npm run bench` reads it
// (no test compares it with a bound). layOutRest lets the rest of the page be
// laid out, in the task after that frame: site.css skips the sections off
// screen while <html data-first-screen> is set.
export function markFirstChart() {
  const root = document.documentElement;
  if (root.dataset.firstChartMs) return;
  requestAnimationFrame(() => {
    root.dataset.firstChartMs = performance.now().toFixed(1);
  });
}

export function layOutRest() {
  requestAnimationFrame(() => setTimeout(() => delete document.documentElement.dataset.firstScreen));
}
