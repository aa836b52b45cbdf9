// The least values of API parameters that element attributes share: the API's
// checks use these, and the widgets' attribute specs (web/widgets/*.js) import
// them, so an attribute's documented minimum is always one the API accepts.
// Bounds that are the C core's come from dist/constants.js instead.
// tests/widget-minimums.test.js calls the API at every element's minimum.

/** Every count (check.size): dModel, maxLen, heads, bits, levels, ... */
export const MIN_SIZE = 1;
/** base must be greater than this: the frequencies base^(−2i/d) must fall. */
export const BASE_ABOVE = 1;
/** timestepEmbedding's maxPeriod, inclusive. */
export const MIN_MAX_PERIOD = 1;
/** T5 buckets, bidirectional (half that one-way): each direction needs an exact bucket and a logarithmic one. */
export const MIN_T5_BUCKETS = 4;
/** NTK and dynamic RoPE scaling (the types NTK_TYPES matches) raise the base to the power d / (d − 2). */
export const MIN_NTK_DIM = 4;
export const NTK_TYPES = /ntk|dyn/;
/** sincos1d's dim: a sine and a cosine of one frequency (sincos2d's is twice it: that on each of two axes). */
export const MIN_SINCOS_DIM = 2;
/** sincos2d with frequencies "spaced": two frequencies per axis, a sine and a cosine of each on each of two axes. */
export const MIN_SPACED_GRID_DIM = 8;
/**
 * T5's least maxDistance for numBuckets: one past the exact distances (half of
 * each direction's buckets); below 2, too few buckets (fewer than MIN_T5_BUCKETS).
 */
export const t5LeastDistance = (numBuckets, bidirectional) => Math.floor((bidirectional ? Math.floor(numBuckets / 2) : numBuckets) / 2) + 1;
