// The position ids of multi-axis RoPE, before any frequency: Qwen2-VL's
// get_rope_index (three rows, time / height / width, for a prompt of text,
// images and videos) and the patch-grid ids of FLUX and Pixtral. Integer
// bookkeeping only, no floating-point math beyond Qwen2.5-VL's float32 time
// step, so it lives here rather than in C; the caches are in axes.js.
import { Checker, MAX_DIM, MAX_POSITION, item } from '../validate.js';

const KINDS = ['text', 'image', 'video'];
// HF 5's mm_token_type_ids: what each token of the prompt is.
const TYPE_CODES = { text: 0, image: 1, video: 2 };

/** One segment as { kind, count (text) | grid [t, h, w], secondsPerGrid }. */
function readSegment(check, seg, i, merge) {
  const name = `segments[${i}]`;
  const o = check.options(seg, [...KINDS, 'secondsPerGrid'], name);
  const kinds = KINDS.filter((k) => o[k] !== undefined);
  if (kinds.length !== 1) throw check.fail(TypeError, `${name} must have exactly one of text, image, video`, seg);
  const kind = kinds[0];
  if (o.secondsPerGrid !== undefined && kind !== 'video') throw check.fail(TypeError, `${name}.secondsPerGrid belongs to a video segment`);
  if (kind === 'text') return { kind, grid: 0, count: check.integer(`${name}.text`, o.text, 0, MAX_DIM) }; // grid own: Object.prototype's emptied the prompt
  const g = check.vector(`${name}.${kind}`, o[kind], 3);
  // height and width from spatialMergeSize, of which they are multiples ("from 1", then "multiples of spatialMergeSize (2)"
  // for 1: a least refused too, thirtieth pass)
  const grid = Array.from(g, (n, k) => check.integer(`${name}.${kind}[${k}]`, n, k ? merge : 1, MAX_DIM));
  const secondsPerGrid = kind === 'video' ? check.finite(`${name}.secondsPerGrid`, o.secondsPerGrid ?? 1, { above: 0, max: MAX_POSITION }) : 0;
  return { kind, grid, secondsPerGrid };
}

/**
 * Positions of one vision segment starting at `start`: t (scaled by the
 * time step), h and w, each token in (t, h, w) raster order. The time step
 * follows HF: an image's is 1; a video's is tokens_per_second ×
 * second_per_grid (Qwen2.5-VL) or 1 (Qwen2-VL, no tokensPerSecond). As in
 * PyTorch, second_per_grid is a float32 tensor, both products are float32
 * ((grid index × second_per_grid) × tokens_per_second, HF's order), and the
 * time is truncated (`.long()`) only at the end.
 */
function visionRows(seg, start, merge, tokensPerSecond, push) {
  const t = seg.grid[0], h = seg.grid[1] / merge, w = seg.grid[2] / merge; // (not destructured: an iterator a caller can plant)
  // HF's expanded_range * second_per_grid_t * tokens_per_second, left to right: (k × seconds) × rate, each in float32
  // (the rate times the seconds first gave frame 95 of 2/19 s at 3 tokens/s time 29, HF 30)
  const video = seg.kind === 'video' && tokensPerSecond, seconds = Math.fround(seg.secondsPerGrid), rate = Math.fround(tokensPerSecond);
  let top = start;
  for (let k = 0; k < t; k++) {
    const time = start + (video ? Math.trunc(Math.fround(Math.fround(k * seconds) * rate)) : k);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) push(time, start + y, start + x);
    top = Math.max(top, time, start + h - 1, start + w - 1);
  }
  return top + 1; // the next text starts after the largest id of the segment (HF's st_idx)
}

export function mropePositions(segments, options) {
  const check = new Checker('mropePositions');
  const opts = check.options(options, ['spatialMergeSize', 'tokensPerSecond', 'leftPadding']);
  const merge = check.integer('spatialMergeSize', opts.spatialMergeSize ?? 2, 1, 8);
  const tokensPerSecond = opts.tokensPerSecond === undefined ? 0
    : check.finite('tokensPerSecond', opts.tokensPerSecond, { above: 0, max: MAX_POSITION });
  const pad = check.integer('leftPadding', opts.leftPadding ?? 0, 0, MAX_DIM - 1); // (- 1: segments hold a token at least)
  // a number once: a length object answering 1, then ever more, was compared on each turn (an endless loop)
  const n = check.read('segments', () => (Array.isArray(segments) ? +segments.length : -1));
  if (!(n >= 1)) throw check.fail(TypeError, 'segments must be a non-empty array of { text }, { image } or { video } objects', segments);
  // Bounded before it is walked: 2^32 - 1 segments of { text: 0 } add no token, and were read one by one.
  if (n > MAX_DIM) throw check.fail(RangeError, `segments may have at most ${MAX_DIM} entries`, n);
  const segs = [];
  let tokens = 0;
  for (let i = 0; i < n; i++) {
    const seg = readSegment(check, check.read(`segments[${i}]`, () => item(segments, i)), i, merge);
    if (seg.grid) {
      if (seg.grid[1] % merge || seg.grid[2] % merge) {
        throw check.fail(RangeError, `segments[${i}].${seg.kind}: height and width must be multiples of spatialMergeSize (${merge})`, `[${seg.grid}]`);
      }
      seg.count = seg.grid[0] * (seg.grid[1] / merge) * (seg.grid[2] / merge);
    }
    tokens += seg.count;
    // (named: "the prompt must have at most 16777216 tokens" named no parameter, and leftPadding's top was refused too)
    if (tokens > MAX_DIM) throw check.fail(RangeError, `segments must hold at most ${MAX_DIM} tokens`, tokens);
    segs.push(seg);
  }
  if (!tokens) throw check.fail(RangeError, 'segments must hold at least one token');
  tokens += check.integer('leftPadding', pad, 0, MAX_DIM - tokens);
  const data = new Int32Array(3 * tokens);
  const tokenTypes = new Uint8Array(tokens);
  const attentionMask = new Uint8Array(tokens);
  // Padded slots hold 1, as HF Python's get_rope_index leaves them (masked out, never attended). By index, as each
  // token's type and mask (push): a fill planted on Uint8Array.prototype or Int32Array's was called (types and a mask of 0, no word).
  for (let i = 0; i < pad; i++) data[i] = data[tokens + i] = data[2 * tokens + i] = 1;
  let at = pad, current = -1, type = 0; // the segment being laid out, and its tokens' type
  const push = (t, h, w) => {
    // named: "positions must stay below 2147483648" said neither which segment nor how far (eighth pass)
    const top = Math.max(t, h, w);
    if (top >= MAX_POSITION) throw check.fail(RangeError, `segments[${current}] makes positions past ${MAX_POSITION - 1}`, top);
    data[at] = t;
    data[tokens + at] = h;
    data[2 * tokens + at] = w;
    tokenTypes[at] = type;
    attentionMask[at++] = 1;
  };
  let next = 0;
  for (const seg of segs) {
    current++;
    type = TYPE_CODES[seg.kind];
    if (seg.kind === 'text') {
      for (let k = 0; k < seg.count; k++) push(next + k, next + k, next + k);
      next += seg.count;
    } else {
      next = visionRows(seg, next, merge, tokensPerSecond, push);
    }
  }
  // HF: rope_deltas = max(position ids) + 1 - sequence length (padding included).
  return { shape: [3, tokens], data, ropeDelta: next - tokens, tokenTypes, attentionMask };
}

/**
 * Patch-grid ids, one row per patch in raster order: [h, w] for `axes` 2
 * (ViT, Pixtral) or [time, h, w] for 3 (FLUX's img_ids, time 0 by default).
 */
export function ropeGridIds(height, width, options) {
  const check = new Checker('ropeGridIds');
  const opts = check.options(options, ['axes', 'time', 'offset']);
  check.size('height', height);
  check.size('width', width);
  const axes = check.integer('axes', opts.axes ?? 2, 2, 3);
  const time = check.finite('time', opts.time ?? 0, { min: -MAX_POSITION, max: MAX_POSITION });
  if (opts.time !== undefined && axes !== 3) throw check.fail(TypeError, 'time needs axes 3');
  // its last id offset + max(height, width) - 1 at most MAX_POSITION, as every position (ropeAxialCache took it, this refused it)
  const offset = check.integer('offset', opts.offset ?? 0, -MAX_POSITION, MAX_POSITION + 1 - Math.max(height, width));
  const count = height * width;
  if (count > MAX_DIM) throw check.fail(RangeError, `height × width must be at most ${MAX_DIM}`, count);
  check.bytes(count * axes * 8);
  const data = new Float64Array(count * axes);
  // by index: a row made by subarray came from a `constructor` or Symbol.species a caller can plant (the ids left 0)
  for (let p = 0, at = 0; p < count; p++, at += axes) {
    if (axes === 3) data[at] = time;
    data[at + axes - 2] = offset + Math.floor(p / width);
    data[at + axes - 1] = offset + (p % width);
  }
  return { rows: count, cols: axes, shape: [count, axes], data };
}
