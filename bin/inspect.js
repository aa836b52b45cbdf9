// `posenc inspect config.json`: what posenc reads from a model's config, in
// words (or JSON): per layer type its RoPE type, θ, head and rotary dims,
// pairing, scaling parameters (under HF's keys), attention factor, which
// frequencies the scaling kept, divided or blended, and the wavelengths
// against the trained and extended context; then HF's warnings. --json adds
// each layer type's inv_freq (float64, exact in JSON).
import { ROPE_PARAMS } from 'posenc/variants';
import { UsageError } from './args.js';
import { printable, oneLine } from './files.js';

const TWO_PI = 2 * Math.PI;
const fmt = (x) => (Number.isInteger(x) ? String(x) : Number(x.toPrecision(6)).toString());

/** The scaling parameters under HF's names (seqLen and maxPosition are not rope_parameters keys); an implied factor says so. */
function parametersOf(r) {
  if (!r.scaling) return {};
  const out = Object.fromEntries(Object.entries(r.scaling).filter(([k]) => k !== 'type' && ROPE_PARAMS[k].hf)
    .map(([k, v]) => [ROPE_PARAMS[k].hf, Array.isArray(v) ? `[${v.length} values]` : v]));
  if (['yarn', 'longrope'].includes(r.type) && out.factor === undefined && r.maxPosition && r.originalMaxPosition) {
    out.factor = `${fmt(r.maxPosition / r.originalMaxPosition)} (implied: max_position_embeddings / original_max_position_embeddings)`;
  }
  return out;
}

/** How the scaling treats each frequency against the unscaled ones: kept, divided by the factor, blended, zero. */
function bands(pv, r) {
  const plain = pv.ropeFrequencies(r.rotaryDim, { base: r.theta, dtype: 'float64' }).invFreq;
  const factor = r.scaling?.factor;
  const count = { kept: 0, divided: 0, blended: 0, zero: 0 };
  r.invFreq.forEach((w, i) => {
    const ratio = plain[i] / w;
    if (w === 0) count.zero++;
    else if (Math.abs(ratio - 1) < 1e-12) count.kept++;
    else if (factor && Math.abs(ratio - factor) < 1e-9 * factor) count.divided++;
    else count.blended++;
  });
  return count;
}

/** Wavelengths (tokens per turn) against the trained and extended context. */
function wavelengths(r) {
  const trained = r.originalMaxPosition ?? r.maxPosition;
  // One loop over the Float64Array (not a spread: a million wavelengths overflowed the stack). Array.from, filter,
  // map and reduce of 2^19 frequencies a layer type took 5 of the 9 s of 64 types at head_dim 2^20, most of it GC.
  let shortest = Infinity, longest = -Infinity, count = 0, within = 0;
  for (let i = 0; i < r.invFreq.length; i++) {
    if (!(r.invFreq[i] > 0)) continue;
    const l = TWO_PI / r.invFreq[i];
    shortest = Math.min(shortest, l);
    longest = Math.max(longest, l);
    count++;
    if (l <= trained) within++;
  }
  return { shortest, longest, trained, original: r.originalMaxPosition, extended: r.maxPosition, turnWithinTrained: trained ? within : undefined, count };
}

/** One layer type's description (a plain object: the JSON output, which alone has its inv_freq). */
function describe(pv, r, asJson) {
  if (r.type === 'none') return { type: r.type };
  // invFreq: HF's inv_freq in float64 (JSON keeps every bit), for --json readers to compare with their own
  const invFreq = asJson ? Array.from(r.invFreq) : undefined;
  if (r.type === 'axial') return { type: r.type, axesDim: r.axesDim, theta: r.theta, headDim: r.headDim, pairing: r.pairing, attentionFactor: r.attentionFactor, invFreq };
  return {
    layerType: r.layerType, type: r.type, theta: r.theta, headDim: r.headDim, rotaryDim: r.rotaryDim, pairing: r.pairing,
    parameters: parametersOf(r), attentionFactor: r.attentionFactor, frequencies: bands(pv, r), wavelengths: wavelengths(r), invFreq,
  };
}

function layerSummary(r) {
  if (r.ropeLayers) {
    const none = r.ropeLayers.filter((x) => !x).length;
    return `${r.ropeLayers.length} layers, ${none} without RoPE (indices ${r.ropeLayers.flatMap((x, i) => (x ? [] : [i])).join(', ')})`;
  }
  if (!r.layerTypes) return undefined;
  // no prototype: a layer type named constructor or toString counted from Object's ("function Object() { [native
  // code] }1 constructor"), and one named __proto__ was dropped
  const counts = Object.create(null);
  for (const t of r.layerTypes) counts[t] = (counts[t] ?? 0) + 1;
  return `${r.layerTypes.length} layers: ${Object.entries(counts).map(([t, n]) => `${n} ${oneLine(t)}`).join(', ')}`;
}

/** The report as text; the config's strings in it (its model type, layer types and HF's warnings quoting its keys) each on one line (oneLine). */
function text(model, layers, summary, warnings) {
  const out = [`model_type        ${model == null ? '(none given)' : oneLine(model)}`];
  if (summary) out.push(`layers            ${summary}`);
  for (const d of layers) {
    out.push('');
    if (d.layerType) out.push(`[${oneLine(d.layerType)}]`);
    if (d.type === 'none') { out.push('rope              none (this layer has no positional rotation)'); continue; }
    if (d.type === 'axial') { out.push(`rope              axial: axes ${d.axesDim.join(' + ')} of a ${d.headDim}-wide head, θ ${fmt(d.theta)}, ${d.pairing} pairs`); continue; }
    const p = Object.entries(d.parameters).map(([k, v]) => `${k} ${v}`).join(', ');
    const w = d.wavelengths;
    const f = d.frequencies;
    out.push(`rope type         ${d.type}`, `theta             ${fmt(d.theta)}`,
      `head_dim          ${d.headDim}, rotary dim ${d.rotaryDim}, ${d.pairing} pairs`,
      `parameters        ${p || 'none'}`, `attention factor  ${fmt(d.attentionFactor)}`,
      d.type === 'longrope'
        ? `frequencies       ${w.count}, each divided by its short_factor (by its long_factor past ${w.trained} positions)`
        : `frequencies       ${w.count + f.zero}: ${f.kept} kept, ${f.divided} divided by the factor, ${f.blended} blended, ${f.zero} zero`,
      `wavelengths       ${fmt(w.shortest)} to ${fmt(w.longest)} tokens per turn`);
    const context = w.original ? `trained ${w.original}${w.extended ? `, extended ${w.extended}` : ''}` : `max_position_embeddings ${w.extended}`;
    if (w.trained) out.push(`context           ${context}: ${w.turnWithinTrained} of ${w.count} frequencies turn at least once within ${w.trained}`);
  }
  out.push('', warnings.length ? `warnings:\n${warnings.map((x) => `  - ${oneLine(x)}`).join('\n')}` : 'warnings          none');
  return out.join('\n') + '\n';
}

/** The most layer types one report covers. */
const MAX_TYPES = 64;
// The most bytes of a layer type's JSON beyond its name, inv_freq and axes, and of one inv_freq value or axis with its
// indent, comma and newline.
const LAYER_BYTES = 4096, VALUE_BYTES = 36;
// Where the layer types go in the JSON envelope (a string no config can hold: JSON escapes its NUL).
const PLACE = '\u0000rope';

/**
 * The report for a config: one entry per layer type (or the layer asked for), as the strings to write in
 * turn. The JSON's size (its inv_freq: 2^19 values a type at head_dim 2^20) is checked against maxBytes
 * before any of it is made, and it is made one layer type at a time: 32 such types were 500 MB on standard
 * output from a 3 kB config, 64 a raw "Invalid string length" after 13 s.
 */
export function inspectReport(pv, config, select, asJson, maxBytes = 2 ** 30) {
  const first = pv.ropeFromConfig(config, select);
  const types = select.layerType === undefined && select.layerIndex === undefined && first.layerTypes ? [...new Set(first.layerTypes)] : [null];
  // Each type is one more read of the whole config: 65 536 types of a 4 MB config.json took hours (real configs have 2 or 3).
  if (types.length > MAX_TYPES) throw new UsageError(`the config has ${types.length} layer types; inspect reports at most ${MAX_TYPES} at once: give --layer-type or --layer-index`);
  const results = types.map((t) => (t === null ? first : pv.ropeFromConfig(config, { layerType: t })));
  // the model's name as the report shows it; ropeFromConfig types model_type, not diffusers' _class_name, which as an
  // object ({"toString": 1}) failed the report as a raw "Cannot convert object to primitive value" (exit 1)
  const model = config?.text_config?.model_type ?? config?.model_type ?? config?._class_name;
  if (model != null && typeof model !== 'string') throw new UsageError(`config._class_name must be a string (got ${Array.isArray(model) ? 'an array' : typeof model})`);
  const warnings = [...new Set(results.flatMap((r) => r.warnings))];
  const fits = (planned) => {
    if (planned > maxBytes) {
      throw new UsageError(`this report would take up to ${planned} bytes, more than --max-bytes ${maxBytes}; nothing was written. Give --layer-type or --layer-index, or raise --max-bytes deliberately`);
    }
  };
  if (!asJson) {
    // the config's strings as text, never as terminal controls (printable), and measured as written
    const report = printable(text(model, results.map((r) => describe(pv, r, false)), layerSummary(first), warnings));
    fits(Buffer.byteLength(report));
    return [report];
  }
  // split at the place's first line (the rope list comes before the warnings, which could hold the same words)
  const envelope = JSON.stringify({ model, layers: layerSummary(first), rope: [PLACE], warnings }, null, 2);
  const at = envelope.indexOf(`    ${JSON.stringify(PLACE)}`);
  const head = printable(envelope.slice(0, at)), tail = printable(envelope.slice(at + 4 + JSON.stringify(PLACE).length));
  const planned = Buffer.byteLength(head) + Buffer.byteLength(tail) + 1
    + results.reduce((n, r) => n + LAYER_BYTES + Buffer.byteLength(printable(JSON.stringify(r.layerType ?? null)))
      + VALUE_BYTES * ((r.invFreq?.length ?? 0) + (r.axesDim?.length ?? 0)), 0);
  fits(planned);
  // each layer type as JSON.stringify places it in the envelope: indented by two levels, after a comma
  const layer = (r, i) => `${i ? ',\n' : ''}${printable(JSON.stringify(describe(pv, r, true), null, 2)).replace(/^/gm, '    ')}`;
  return [head, ...results.map((r, i) => () => layer(r, i)), `${tail}\n`];
}
