// Records "navigation to first chart drawn": the time (ms since navigation) of
// the frame after the first chart was painted goes into <html
// data-first-chart-ms>, where `npm run bench` reads it (no test compares it with a bound).
export function markFirstChart() {
  const root = document.documentElement;
  if (root.dataset.firstChartMs) return;
  requestAnimationFrame(() => {
    root.dataset.firstChartMs = performance.now().toFixed(1);
  });
}
