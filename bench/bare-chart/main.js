// The bare page of bench/site.mjs: one Chart.js line chart and nothing else,
// with only the Chart.js parts it uses registered (as the tutorial registers
// its own), timed the way the tutorial's first chart is (web/site/first-screen.js:
// the frame after the chart is drawn, into <html data-first-chart-ms>).
import { Chart, LineController, LineElement, PointElement, LinearScale, CategoryScale } from 'chart.js';

Chart.register(LineController, LineElement, PointElement, LinearScale, CategoryScale);
const positions = Array.from({ length: 64 }, (_, i) => i);
new Chart(document.getElementById('chart'), {
  type: 'line',
  data: { labels: positions, datasets: [{ data: positions.map((p) => Math.sin(p / 4)), pointRadius: 0 }] },
  options: { animation: false, maintainAspectRatio: false },
});
requestAnimationFrame(() => {
  document.documentElement.dataset.firstChartMs = performance.now().toFixed(1);
});
