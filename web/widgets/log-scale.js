// Chart.js's logarithmic scale, registered once for the widgets whose values span
// many decades (RoPE frequencies, rounding errors). Pass LOG as xExtra/yExtra to
// lineChart(); zeros and non-finite values must be given as null (a gap).
import { LogarithmicScale } from 'chart.js';
import { Chart } from './charts.js';

Chart.register(LogarithmicScale);

/** Labels only the powers of ten: 1e-8 … 0.1, 1, 10 … 100000 (Chart.js would label every minor tick). */
function decade(v) {
  const e = Math.round(Math.log10(v));
  if (Math.abs(v - 10 ** e) > 1e-9 * v) return '';
  return e >= 0 ? String(10 ** e) : `1e${e}`;
}

export const LOG = { type: 'logarithmic', ticks: { callback: decade, autoSkip: false, maxRotation: 0 } };

/** y for a log axis: null (drawn as a gap) where it is 0, negative or not finite. */
export const logValue = (y) => (Number.isFinite(y) && y > 0 ? y : null);
