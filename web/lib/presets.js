// The sinusoidal conventions found in real code, as the C core's explicit
// options (enum values from c/posenc.h, through the generated dist/constants.js).
import {
  PE_LAYOUT_INTERLEAVED, PE_LAYOUT_CONCAT, PE_LAYOUT_SPLIT, PE_FREQ_PAPER, PE_FREQ_GEOM,
} from '../../dist/constants.js';
import { BASE_ABOVE } from './minimums.js';

export const LAYOUTS = { interleaved: PE_LAYOUT_INTERLEAVED, concat: PE_LAYOUT_CONCAT, split: PE_LAYOUT_SPLIT };
export const FREQUENCY_RULES = { paper: PE_FREQ_PAPER, geometric: PE_FREQ_GEOM };

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

export const PRESET_NAMES = Object.freeze(Object.keys(PRESETS));
export const LAYOUT_NAMES = Object.freeze(Object.keys(LAYOUTS));
export const FREQUENCY_RULE_NAMES = Object.freeze(Object.keys(FREQUENCY_RULES));

/** Resolves preset + overrides into the C core's arguments (and the preset itself). */
export function encodingArgs(check, dModel, opts) {
  const preset = PRESETS[check.oneOf('preset', opts.preset ?? 'vaswani', PRESET_NAMES)];
  const layout = check.oneOf('layout', opts.layout ?? preset.layout, LAYOUT_NAMES);
  const frequencies = check.oneOf('frequencies', opts.frequencies ?? preset.frequencies, FREQUENCY_RULE_NAMES);
  const base = check.finite('base', opts.base ?? preset.base, { above: BASE_ABOVE });
  if (preset.evenOnly && dModel % 2) {
    throw check.fail(RangeError, `preset ${JSON.stringify(opts.preset)} needs an even dModel`, dModel);
  }
  return { layout: LAYOUTS[layout], freq: FREQUENCY_RULES[frequencies], base, preset };
}
