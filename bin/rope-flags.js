// The scaling flags of `posenc rope`, derived from the table of RoPE types
// (posenc/variants' ROPE_TYPES and ROPE_PARAMS, web/lib/variants/rope-types.js):
// one flag per parameter, its help naming the types that read it and their
// defaults, and the reader that turns the flags back into the `scaling` option.
import { ROPE_TYPES, ROPE_PARAMS } from 'posenc/variants';
import { readsAsZero, REAL, quoted } from './args.js';

/** The parameters the `scaling` option of a CLI call can set: every one. */
const FLAGGED = Object.keys(ROPE_PARAMS);

function helpOf(key) {
  const p = ROPE_PARAMS[key];
  const uses = Object.entries(ROPE_TYPES).filter(([, t]) => key in t.params).map(([name, t]) => {
    const d = t.params[key].default;
    return d === null ? `${name} (required)` : d === 0 ? name : `${name} (default ${d})`;
  });
  // seqLen has no config key (HF's forward argument seq_len): its help said "undefined"
  const what = p.kind === 'factors' ? 'comma-separated numbers, dim/2 of them' : p.kind === 'boolean' ? 'true | false'
    : p.hf ?? p.config ?? 'HF\'s seq_len: the sequence length the cache is scaled for (default: the largest position + 1)';
  return `${what}; ${uses.join(', ')}`;
}

/** The flags, as bin/posenc.js declares flags: name -> { type, help }. */
export const SCALING_FLAGS = {
  scaling: { type: 'string', help: `${Object.keys(ROPE_TYPES).join(' | ')} (default: none)` },
  ...Object.fromEntries(FLAGGED.map((k) => [ROPE_PARAMS[k].flag.slice(2), {
    type: ['real', 'length'].includes(ROPE_PARAMS[k].kind) ? 'number' : 'string', help: helpOf(k),
  }])),
  config: { type: 'string', help: 'a model\'s config.json: its RoPE instead of --dim, --base and --scaling (see posenc rope --config x --help)' },
  'layer-type': { type: 'string', help: 'with --config: the layer type whose RoPE to use' },
};

/** A flag's text value as the parameter's kind wants it, or a usage error naming the flag. */
function valueOf(key, raw, usage) {
  const p = ROPE_PARAMS[key];
  if (p.kind === 'boolean') {
    if (raw !== 'true' && raw !== 'false') throw usage(`${p.flag} must be true or false, got ${quoted(raw)}`);
    return raw === 'true';
  }
  if (p.kind !== 'factors') return raw;
  // each as a real flag is read (spaces around it allowed, as in --timesteps): finite, so 1e400 is refused here as
  // typed, not by the API as "got Infinity"; no "+", as no real flag takes one
  return raw.split(',').map((x) => {
    const n = REAL.test(x.trim()) ? Number(x) : NaN;
    const zero = readsAsZero(x, n);
    if (!Number.isFinite(n) || zero) throw usage(`${p.flag} must be comma-separated finite numbers, got ${quoted(x)}${zero}`);
    return n;
  });
}

/** The `scaling` option of the flags (undefined without --scaling); usage(message) makes the error to throw. */
export function scalingFromFlags(v, usage) {
  if (v['layer-type'] !== undefined) throw usage('--layer-type needs --config (a model\'s config.json), as the API\'s layerType needs config');
  if (v.scaling === undefined) {
    const stray = FLAGGED.find((k) => v[ROPE_PARAMS[k].flag.slice(2)] !== undefined);
    if (stray) throw usage(`${ROPE_PARAMS[stray].flag} needs --scaling`);
    return undefined;
  }
  const s = { type: v.scaling };
  for (const k of FLAGGED) {
    const raw = v[ROPE_PARAMS[k].flag.slice(2)];
    if (raw !== undefined) s[k] = valueOf(k, raw, usage);
  }
  return s;
}
