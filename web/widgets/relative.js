// <pe-relative>: relative positions as indices into a small table of learned
// values. kind="t5": T5's buckets of j − i (exact for short distances, then
// logarithmic, then one bucket for everything at or past max-distance).
// kind="shaw": Shaw et al.'s clip(j − i, −k, k). The heatmap is the index every
// (query, key) pair looks up; the line is the index against the distance.
import { PeWidget } from './base.js';
import { int, oneOf, bool } from './attrs.js';
import { Heatmap, extent } from './heatmap-chart.js';
import { lineChart, lineSet, setSeries } from './charts.js';
import { matrixRows } from './export.js';
import { fmt } from './dom.js';
import { MIN_SIZE, MIN_T5_BUCKETS, t5LeastDistance } from '../lib/minimums.js';

export class PeRelative extends PeWidget {
  static spec = {
    kind: oneOf(['t5', 'shaw'], 't5'),
    'max-len': int(2, 512, 48), // the widget's choice: at least one (query, key) offset; at most a readable heatmap
    // The API's least (bidirectional, which the element can be); 1024 is the widget's choice.
    'num-buckets': int(MIN_T5_BUCKETS, 1024, 32),
    // Any count is taken: below the API's least for the buckets it is raised (maxDistance below).
    'max-distance': int(MIN_SIZE, 1e6, 128),
    bidirectional: bool(true),
    k: int(0, 1e6, 4),
  };
  static variants = true;
  static titleKey = 'relativeTitle';
  static aspect = 1.15;

  /**
   * max-distance, raised with a note to the least the buckets allow: the
   * distances below it have exact buckets (half of each direction's buckets),
   * and the logarithmic ones must start beyond them, as the API requires.
   */
  maxDistance(v) {
    const least = t5LeastDistance(v['num-buckets'], v.bidirectional);
    if (v['max-distance'] >= least) return v['max-distance'];
    this.note('raised', { raw: v['max-distance'], min: least }, 'max-distance');
    return least;
  }

  async render(_api, v, variants) {
    const len = v['max-len'];
    const t5 = v.kind === 't5';
    this.titleEl.textContent = this.t(t5 ? 't5Title' : 'shawTitle');
    this.controlsFor(v, t5);
    let m;
    let reach;
    let profile;
    if (t5) {
      const opts = { numBuckets: v['num-buckets'], maxDistance: this.maxDistance(v), bidirectional: v.bidirectional };
      m = variants.t5BucketMatrix(len, opts);
      reach = Math.min(2 * opts.maxDistance, 4096);
      const rel = Int32Array.from({ length: 2 * reach + 1 }, (_, r) => r - reach);
      const b = variants.t5Bucket(rel, opts);
      profile = Array.from(rel, (r, i) => ({ x: r, y: b[i] }));
    } else {
      m = variants.shawClip(len, { maxRelativePosition: v.k });
      reach = Math.min(Math.max(2 * v.k, 8), 4096);
      // Row `reach` of a (reach + 1) × (2·reach + 1) matrix holds j − i for j − i = −reach .. reach.
      const row = variants.shawClip(reach + 1, { kLen: 2 * reach + 1, maxRelativePosition: v.k, queryOffset: 0 }).data.subarray(reach * (2 * reach + 1));
      profile = Array.from(row, (y, j) => ({ x: j - reach, y }));
    }
    // Shaw's signed offsets centre on white; T5's bucket numbers (all >= 0) take a one-sided scale.
    const range = t5 ? extent(m.data) : [-Math.max(v.k, 1), Math.max(v.k, 1)];
    const scale = t5 ? 'sequential' : 'diverging';
    const distinct = new Set(m.data).size;
    const caption = t5
      ? this.t('t5Caption', this.t5Vars(v, len, distinct))
      : this.t('shawCaption', { k: v.k, n: 2 * v.k + 1, len, distinct });
    this.heat ??= new Heatmap(this.chartsEl, { aspect: 1.15 });
    this.heat.update({
      rows: len, cols: len, data: m.data, range, scale, x: this.t('keyAxis'), y: this.t('queryAxis'), label: caption,
      describe: (i, j) => [`i = ${i}, j = ${j}, j − i = ${j - i}`, `${this.t(t5 ? 'bucketWord' : 'clippedWord')} ${m.data[i * len + j]}`],
    });
    await this.pause();
    this.line ??= lineChart(this.newCanvas(), { aspect: 1.3, legend: false });
    setSeries(this.line, [lineSet(this.t(t5 ? 'bucketWord' : 'clippedWord'), profile, t5 ? 0 : 1, { stepped: true })],
      { x: 'j − i', y: this.t(t5 ? 'bucketWord' : 'clippedWord') });
    this.line.canvas.sub.textContent = this.t(t5 ? 't5LineTitle' : 'shawLineTitle', { reach });
    this.line.canvas.setAttribute('aria-label', this.t('relativeLineAlt', { reach, lo: fmt(profile[0].y), hi: fmt(profile[profile.length - 1].y) }));
    this.captionEl.textContent = caption;
    this.data = () => matrixRows(m, 'i', 'j');
  }

  controlsFor(v, t5) {
    if (t5) {
      this.control('num-buckets', 'numBucketsLabel', v['num-buckets'], { kind: 'number', min: 2, max: 1024, step: 1 });
      this.control('max-distance', 'maxDistanceLabel', v['max-distance'], { kind: 'number', min: 2, step: 1 });
      this.control('bidirectional', 'bidirectionalLabel', v.bidirectional, { kind: 'checkbox' });
    } else {
      this.control('k', 'shawKLabel', v.k, { kind: 'number', min: 0, step: 1 });
    }
    // A kind changed on the fly leaves the other kind's controls behind: hide them.
    const mine = t5 ? ['num-buckets', 'max-distance', 'bidirectional'] : ['k'];
    for (const [attr, c] of Object.entries(this.ctl)) c.input.parentElement.classList.toggle('hidden', !mine.includes(attr));
  }

  t5Vars(v, len, distinct) {
    const n = v['num-buckets'];
    const half = v.bidirectional ? Math.floor(n / 2) : n;
    return {
      n, half, exactLast: Math.floor(half / 2) - 1, dist: v['max-distance'], len, distinct,
      future: this.t(v.bidirectional ? 't5Future' : 't5NoFuture', { half, last: 2 * half - 1 }),
    };
  }
}
