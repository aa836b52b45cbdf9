// The sinusoidal conventions found in real code, as the C core's explicit
// options. C enum values: layouts and frequency rules as in c/posenc.h.

export const LAYOUTS = { interleaved: 0, concat: 1, split: 2 };
export const FREQUENCY_RULES = { paper: 0, geometric: 1 };

const preset = (layout, frequencies, extra = {}) =>
  Object.freeze({ layout, frequencies, base: 10000, evenOnly: false, ...extra });

export const PRESETS = Object.freeze({
  // Vaswani et al. 2017; PyTorch tutorial, d2l, Hugging Face DistilBERT, keras_hub.
  vaswani: preset('interleaved', 'paper'),
  // tensor2tensor get_timing_signal_1d (also Whisper).
  tensor2tensor: preset('concat', 'geometric'),
  // fairseq SinusoidalPositionalEmbedding: its weights, padding row zeroed.
  fairseq: preset('concat', 'geometric', { paddingIdx: 1 }),
  // The TensorFlow text tutorial; its code returns d + 1 columns for odd d.
  'tf-tutorial': preset('concat', 'paper', { evenOnly: true }),
  // Hugging Face Marian: sines of every frequency first, then the cosines.
  marian: preset('split', 'paper'),
});

export const PRESET_NAMES = Object.keys(PRESETS);

/** Resolves preset + overrides into the C core's arguments (and the preset itself). */
export function encodingArgs(check, dModel, opts) {
  const preset = PRESETS[check.oneOf('preset', opts.preset ?? 'vaswani', PRESET_NAMES)];
  const layout = check.oneOf('layout', opts.layout ?? preset.layout, Object.keys(LAYOUTS));
  const frequencies = check.oneOf('frequencies', opts.frequencies ?? preset.frequencies, Object.keys(FREQUENCY_RULES));
  const base = check.finite('base', opts.base ?? preset.base, { above: 1 });
  if (preset.evenOnly && dModel % 2) {
    throw check.fail(RangeError, `preset ${JSON.stringify(opts.preset)} needs an even dModel`, dModel);
  }
  return { layout: LAYOUTS[layout], freq: FREQUENCY_RULES[frequencies], base, preset };
}
