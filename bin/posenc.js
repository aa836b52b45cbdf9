#!/usr/bin/env node
// posenc: export positional encodings to .npy, .csv or .json.
//
//   npx posenc table --d-model 512 --max-len 2048 --preset vaswani --out pe.npy
//   npx posenc rope  --dim 128 --max-len 8192 --base 500000 --scaling llama3 --out rope.npy
//   npx posenc alibi --heads 12 --q-len 1024 --mode causal --out alibi.npy
//   npx posenc timestep --steps 1000 --dim 320 --preset stable-diffusion --out t.npy
//   npx posenc sincos2d --grid-h 14 --dim 768 --preset mae --cls-token --out pos.npy
//   npx posenc rope --config config.json --max-len 8192 --out cos_sin.npz
//   npx posenc inspect config.json
//
// Everything is computed by the public API, the package's own entries:
// `table` by posenc, `rope` and `alibi` by posenc/variants, `timestep` and
// `sincos2d` by posenc/fields (`alibi --head`: that head alone, from the API's
// slope, as its alibiBias forms each value); a command loads only its own. Exit status: 0 written, 2 bad command line (unknown flag, bad
// value, an existing file without --force), 1 anything else (a failed write).
//
// A file is never left half-written: the data goes to a temporary file in
// the same folder, which is renamed over the target only once complete (and
// removed on an error, SIGINT or SIGTERM).
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { endianness } from 'node:os';
import { isatty } from 'node:tty';
import path from 'node:path';
import { PRESET_NAMES, LAYOUT_NAMES, FREQUENCY_RULE_NAMES } from 'posenc';
import { TIMESTEP_PRESET_NAMES, GRID_PRESET_NAMES } from 'posenc/fields';
import { npyHeader } from './npy.js';
import { checkTarget, atomicFile, writeAll, say, print } from './files.js';
import { SCALING_FLAGS, scalingFromFlags } from './rope-flags.js';
import { shortestFloat32 } from './shortest.js';
import { UsageError, parseFlags, checkRange, REAL, readsAsZero, shown, quoted, PATH } from './args.js';

// The API's limit on one call (PE_MAX_BYTES, docs/limits.md; tests/cli.test.js
// holds the two equal), used as the default largest file.
const MAX_BYTES = 2 ** 30;
const MAX_POSITION = 2 ** 31;

const FORMATS = ['npy', 'csv', 'json'];
const COMMON = {
  out: { type: 'string', help: 'output file .npy, .csv or .json ("-" for standard output)' },
  format: { type: 'string', help: 'npy | csv | json (default: the extension of --out; npy for -); must match the extension' },
  dtype: { type: 'string', help: 'float32 | float64 (default float32)' },
  force: { type: 'boolean', help: 'overwrite --out if it exists (otherwise refused)' },
  'max-bytes': { type: 'int', help: `the largest output to write, in bytes (default ${MAX_BYTES}, 1 GiB, the API's per-call limit); checked before anything is written` },
  quiet: { type: 'boolean', help: 'no progress line on stderr' },
  help: { type: 'boolean', help: 'show this help' },
  version: { type: 'boolean', help: 'print the version of posenc' },
};

const COMMANDS = {
  table: {
    entry: 'posenc',
    summary: 'the sinusoidal table, max-len × d-model',
    elements: (v) => v['max-len'] * v['d-model'],
    cols: (v) => v['d-model'],
    flags: {
      'max-len': { type: 'int', required: true, help: 'rows (positions)' },
      'd-model': { type: 'int', required: true, help: 'columns' },
      preset: { type: 'string', help: `${PRESET_NAMES.join(' | ')} (default ${PRESET_NAMES[0]})` },
      layout: { type: 'string', help: `${LAYOUT_NAMES.join(' | ')} (overrides the preset)` },
      frequencies: { type: 'string', help: `${FREQUENCY_RULE_NAMES.join(' | ')} (overrides the preset)` },
      base: { type: 'number', help: 'default 10000' },
      offset: { type: 'number', help: 'position of row 0 (default 0)' },
    },
  },
  rope: {
    entry: 'posenc/variants',
    summary: 'the RoPE cos and sin cache: shape (2, max-len, cols), cos first; or one of them with --part',
    elements: (v) => v['max-len'] * (v.layout === 'pairs' ? v.dim / 2 : v.dim) * ((v.part ?? 'both') === 'both' ? 2 : 1),
    cols: (v) => (v.layout === 'pairs' ? v.dim / 2 : v.dim),
    flags: {
      'max-len': { type: 'int', required: true, help: 'rows (positions)' },
      dim: { type: 'int', required: true, help: 'rotary (head) dimension, even' },
      base: { type: 'number', help: 'default 10000' },
      offset: { type: 'number', help: 'position of row 0 (default 0)' },
      layout: { type: 'string', help: 'half (default, HF: dim columns [f | f]) | interleaved (f0 f0 f1 f1 ...) | pairs (dim/2 columns)' },
      part: { type: 'string', help: 'both (default) | cos | sin' },
      ...SCALING_FLAGS, // from the table of RoPE types (bin/rope-flags.js)
    },
  },
  alibi: {
    entry: 'posenc/variants',
    summary: 'ALiBi biases: shape (heads, q-len, k-len); or one head with --head',
    elements: (v) => (v.head === undefined ? v.heads : 1) * v['q-len'] * (v['k-len'] ?? v['q-len']),
    cols: (v) => v['k-len'] ?? v['q-len'],
    flags: {
      heads: { type: 'int', required: true, help: 'number of heads' },
      'q-len': { type: 'int', required: true, help: 'queries (rows)' },
      'k-len': { type: 'int', help: 'keys (columns; default q-len)' },
      head: { type: 'int', help: 'write only this head (0-based): a 2-D array' },
      variant: { type: 'string', help: 'press (default) | mpt' },
      'max-bias': { type: 'number', help: 'the 8 of 2^(-8h/n) (default 8)' },
      mode: { type: 'string', help: 'causal (default) | symmetric' },
      'mask-value': { type: 'number', inf: '-', help: 'causal entries above the diagonal: a finite number or -inf (the default)' },
      'query-offset': { type: 'int', help: 'position of query 0 (default 0)' },
    },
  },
  timestep: {
    entry: 'posenc/fields',
    summary: 'diffusion timestep embeddings: shape (timesteps, dim)',
    elements: (v) => (v.steps ?? String(v.timesteps).split(',').length) * v.dim,
    cols: (v) => v.dim,
    flags: {
      dim: { type: 'int', required: true, help: 'embedding width (odd: a zero last column)' },
      steps: { type: 'int', help: 'timesteps 0, 1, ..., steps - 1 (or give --timesteps)' },
      timesteps: { type: 'string', help: 'comma-separated timesteps, may be fractional: 0,250.5,999' },
      preset: { type: 'string', help: `${TIMESTEP_PRESET_NAMES.join(' | ')} (default ${TIMESTEP_PRESET_NAMES[0]})` },
      'flip-sin-to-cos': { type: 'boolean', help: 'cos first (overrides the preset)' },
      'no-flip-sin-to-cos': { type: 'boolean', help: 'sin first (overrides the preset)' },
      'downscale-freq-shift': { type: 'number', help: 's in maxPeriod^(-i/(dim/2 - s)) (overrides the preset)' },
      scale: { type: 'number', help: 'multiplies every angle (default 1)' },
      'max-period': { type: 'number', help: 'default 10000' },
    },
  },
  sincos2d: {
    entry: 'posenc/fields',
    summary: 'the 2-D sin-cos table of a patch grid: shape (extra tokens + grid-h × grid-w, dim)',
    // --extra-tokens adds its rows with or without --cls-token, as the API does
    elements: (v) => (v['grid-h'] * (v['grid-w'] ?? v['grid-h']) + (v['extra-tokens'] ?? (v['cls-token'] ? 1 : 0))) * v.dim,
    cols: (v) => v.dim,
    flags: {
      'grid-h': { type: 'int', required: true, help: 'patch rows' },
      'grid-w': { type: 'int', help: 'patch columns (default grid-h)' },
      dim: { type: 'int', required: true, help: 'embedding width, a multiple of 4' },
      preset: { type: 'string', help: `${GRID_PRESET_NAMES.join(' | ')} (default ${GRID_PRESET_NAMES[0]})` },
      'cls-token': { type: 'boolean', help: 'zero rows in front for the class token (see --extra-tokens)' },
      'extra-tokens': { type: 'int', help: 'how many zero rows --cls-token adds' },
      'base-size': { type: 'number', help: 'diffusers base_size (positions i / (grid / base-size))' },
      'interpolation-scale': { type: 'number', help: 'diffusers interpolation_scale (default 1)' },
      'first-axis': { type: 'string', help: 'w (default, MAE) | h: which coordinate the first half encodes' },
      frequencies: { type: 'string', help: 'mae | spaced (overrides the preset)' },
      base: { type: 'number', help: 'default 10000' },
    },
  },
};

function usage(cmd) {
  const lines = [];
  const show = (flags) => {
    for (const [name, f] of Object.entries(flags)) {
      const arg = f.type === 'boolean' ? '' : f.type === 'string' ? ' <text>' : ' <number>';
      lines.push(`  --${name}${arg}`.padEnd(34) + ' ' + f.help + (f.required ? ' (required)' : ''));
    }
  };
  if (!cmd) {
    lines.push('Usage: posenc <command> [flags]', '', 'Commands:');
    for (const [name, c] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(10)}${c.summary}`);
    lines.push(`  ${'inspect'.padEnd(10)}what posenc reads from a model's config.json (posenc inspect --help)`);
    lines.push('', 'Common flags:');
    show(COMMON);
    lines.push('', 'Run posenc <command> --help for the flags of a command; posenc --version prints the version.', '',
      'Example: posenc table --d-model 512 --max-len 2048 --preset vaswani --format npy --out pe.npy');
  } else {
    lines.push(`Usage: posenc ${cmd} [flags]`, '', COMMANDS[cmd].summary, '', 'Flags:');
    show(COMMANDS[cmd].flags);
    show(COMMON);
  }
  return lines.join('\n') + '\n';
}

/** The command line as { cmd, values, raw, format, dtype, maxBytes } (or { help } / { version }); a UsageError for anything wrong. */
export function parse(argv) {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === '--help' || cmd === '-h' || cmd === 'help') return { help: true };
  if (cmd === '--version' || cmd === '-v') return { version: true };
  // Own keys only: "constructor" or "__proto__" must not find Object.prototype's.
  if (!Object.hasOwn(COMMANDS, cmd)) throw new UsageError(`unknown command ${quoted(cmd)} (known: ${[...Object.keys(COMMANDS), 'inspect'].join(', ')})`); // inspect: rope-config.js
  const spec = { ...COMMANDS[cmd].flags, ...COMMON };
  const { values, raw } = parseFlags(rest, spec, cmd);
  if (values.help) return { cmd, help: true };
  if (values.version) return { version: true };
  for (const [name, f] of Object.entries(spec)) {
    if (f.required && values[name] === undefined) throw new UsageError(`--${name} is required (see posenc ${cmd} --help)`);
  }
  if (values.out === undefined) throw new UsageError(`--out is required (a file name, or - for standard output)`);
  const format = formatOf(values.out, values.format);
  const dtype = values.dtype ?? 'float32';
  if (dtype !== 'float32' && dtype !== 'float64') throw new UsageError(`--dtype must be float32 or float64, got ${quoted(dtype)}`);
  const maxBytes = checkRange('max-bytes', raw['max-bytes'], values['max-bytes'] ?? MAX_BYTES, 1, Number.MAX_SAFE_INTEGER);
  const planned = plannedBytes(cmd, values, format, dtype);
  if (planned > maxBytes) {
    throw new UsageError(`this output would take ${planned > 2 ** 50 ? planned.toExponential(3) : planned} bytes, more than --max-bytes ${maxBytes}`
      + `${values['max-bytes'] === undefined ? ' (the default, 1 GiB)' : ''}; nothing was written. Raise --max-bytes deliberately to write it`);
  }
  if (values.out !== '-') checkTarget(values.out, values.force);
  return { cmd, values, raw, format, dtype, maxBytes };
}

/** The format --format names, which must agree with the extension of --out; else the extension's. */
function formatOf(out, given) {
  if (given !== undefined && !FORMATS.includes(given)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, got ${quoted(given)}`);
  if (out === '-') return given ?? 'npy';
  const ext = path.extname(out).toLowerCase().slice(1);
  const implied = FORMATS.includes(ext) ? ext : undefined;
  if (given !== undefined && implied !== undefined && given !== implied) {
    throw new UsageError(`--format ${shown(given)} does not match the extension of ${shown(out, PATH)} (a .${implied} file holds ${implied}); rename the file or drop --format`);
  }
  const format = given ?? implied;
  if (format === undefined) throw new UsageError(`cannot tell the format of --out ${quoted(out, PATH)} from its extension: name it .npy, .csv or .json, or give --format`);
  return format;
}

// The most a value can take as text, its separator included: JavaScript writes a float32's 9 digits as
// -0.00000123456789 (17 characters) and 1.2345679e20 as -123456790000000000000 (22), a float64's 17 as
// -0.0000012345678901234567 (25). (17 bytes a float32 value, the plan until the seventeenth pass, let an
// ALiBi mask of -0.0000012345678 pass --max-bytes and the write stop at the second fence, exit 1.)
const TEXT_BYTES = { float32: 23, float64: 26 };
// A JSON row's brackets beyond its values: its own two, two of each of up to two outer dimensions, a comma, a newline.
const JSON_ROW_BYTES = 8;

/**
 * The output's element count, a negative size counting as none, for the API or checkLength to refuse by name: two of
 * them made a positive product, and --max-len -3000000 --d-model -3000000 was "this output would take 36000000000128
 * bytes … raise --max-bytes" (and a progress line was set up for it).
 */
function elementsOf(cmd, values) {
  const sizes = Object.create(null);
  for (const k in values) sizes[k] = values[k] < 0 ? 0 : values[k];
  return COMMANDS[cmd].elements(sizes);
}

/** The most bytes the output can take (exact for .npy but for its header's padding), known before anything is computed. */
function plannedBytes(cmd, values, format, dtype) {
  const n = elementsOf(cmd, values);
  if (format === 'npy') return 128 + n * (dtype === 'float32' ? 4 : 8);
  return 256 + n * TEXT_BYTES[dtype] + (format === 'json' ? (n / Math.max(1, COMMANDS[cmd].cols(values))) * JSON_ROW_BYTES : 0);
}

// ---- output ------------------------------------------------------------------------

/**
 * Writes an array of `shape` to `out` in `format`. `chunks()` yields the data
 * as consecutive row-major typed arrays whose lengths are multiples of the
 * last dimension. A file is written whole or not at all: see atomicFile.
 */
async function writeArray({ out, force, maxBytes }, format, dtype, shape, chunks, progress) {
  const file = out === '-' ? { fd: 1, commit() {}, discard() {} } : atomicFile(out, force);
  let written = 0;
  const cols = shape[shape.length - 1];
  const totalRows = shape.slice(0, -1).reduce((a, b) => a * b, 1);
  let rowsDone = 0;
  const write = (data) => {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    // plannedBytes() is an upper bound, so this never fires unless it is wrong: a second fence for a shared disk.
    written += bytes.length;
    if (written > maxBytes) throw new Error(`the output grew past --max-bytes ${maxBytes}; nothing was written`);
    writeAll(file.fd, bytes);
  };
  const number = dtype === 'float32' ? shortestFloat32 : (v) => (Object.is(v, -0) ? '-0' : String(v));
  const fmt = (v) => (Number.isFinite(v) ? number(v) : format === 'json' ? 'null' : v > 0 ? 'inf' : v < 0 ? '-inf' : 'nan');
  try {
    if (format === 'npy') write(npyHeader(dtype, shape));
    if (format === 'json') write(`{"shape":${JSON.stringify(shape)},"dtype":"${dtype}","nonFinite":"null stands for a non-finite value (-Infinity: a masked entry)","data":`);
    // Text is slow to format: it goes out in parts of about 64 Ki values.
    const textPart = Math.max(1, Math.floor(65536 / cols)) * cols;
    for (const chunk of chunks()) {
      for (let i = 0; i < chunk.length; i += format === 'npy' ? chunk.length : textPart) {
        const part = format === 'npy' ? chunk : chunk.subarray(i, i + textPart);
        if (format === 'npy') write(Buffer.from(part.buffer, part.byteOffset, part.byteLength));
        else write(textRows(part, cols, format, fmt, shape, rowsDone, totalRows));
        rowsDone += part.length / cols;
        progress(rowsDone / totalRows);
        // Let a pending SIGINT / SIGTERM run its handler (which removes the temporary file).
        await new Promise(setImmediate);
      }
    }
    if (format === 'json') write('}\n');
    file.commit();
  } catch (e) {
    file.discard();
    throw e;
  }
}

/** The CSV lines, or the JSON rows with their brackets, of `chunk`, whose first row is row `rowsDone`. */
function textRows(chunk, cols, format, fmt, shape, rowsDone, totalRows) {
  const lines = [];
  for (let r = 0; r < chunk.length / cols; r++) {
    const cells = Array.from(chunk.subarray(r * cols, (r + 1) * cols), fmt);
    if (format === 'csv') {
      lines.push(cells.join(',') + '\n');
      continue;
    }
    const index = rowsDone + r;
    // Open and close the brackets of the leading dimensions around this row.
    let open = '';
    let close = '';
    let stride = 1;
    for (let d = shape.length - 2; d >= 0; d--) {
      const pos = Math.floor(index / stride) % shape[d];
      if (pos === 0 && index % stride === 0) open = '[' + open;
      stride *= shape[d];
    }
    stride = 1;
    for (let d = shape.length - 2; d >= 0; d--) {
      const pos = Math.floor((index + 1) / stride) % shape[d];
      if (pos === 0 && (index + 1) % stride === 0) close += ']';
      stride *= shape[d];
    }
    const sep = index === totalRows - 1 ? '' : ',';
    lines.push(`${open}[${cells.join(',')}]${close}${sep}${close ? '\n' : ''}`);
  }
  return lines.join('');
}

function progressLine(quiet, label, bytes) {
  // Only outputs of 8 MiB or more report progress, on stderr (stdout may be the data).
  if (quiet || bytes < 8 * 2 ** 20) return { tick() {}, done() {} };
  const tty = isatty(2); // not process.stderr, which makes a shared pipe non-blocking
  let last = -1;
  const mib = (bytes / 2 ** 20).toFixed(1);
  return {
    tick(fraction) {
      const pct = Math.floor(fraction * 100);
      const step = tty ? pct : Math.floor(pct / 25) * 25;
      if (step === last) return;
      last = step;
      say(`${tty ? '\r' : ''}posenc: writing ${label} (${mib} MiB of data) ${step}%${tty ? '' : '\n'}`);
    },
    done() { if (tty) say('\n'); },
  };
}

// Rows computed per call for the chunked commands (keeps memory small for big outputs).
const CHUNK_ELEMENTS = 1 << 20;
// A table's or RoPE cache's rows: whole periods of the core's exact anchors (PE_ANCHOR in c/oscillator.h, 256 rows)
// where 2^20 elements hold one, so each chunk starts where one call re-anchors and the file is the API's result bit
// for bit (1365-row chunks of d 768 put values an ulp off); rows wider than 4096 take fewer, each chunk re-anchored.
const ANCHOR_ROWS = 256;
function anchoredRows(cols) {
  const rows = Math.floor(CHUNK_ELEMENTS / cols);
  return rows >= ANCHOR_ROWS ? rows - (rows % ANCHOR_ROWS) : Math.max(1, rows);
}

async function runTable(pe, { values: v, raw, format, dtype }, out, tick) {
  const maxLen = v['max-len'];
  const dModel = v['d-model'];
  const opts = { dtype };
  for (const key of ['preset', 'layout', 'frequencies', 'base']) if (v[key] !== undefined) opts[key] = v[key];
  const offset = rowsOffset(v, raw, maxLen);
  // Validate everything (first and last rows) before the file is created.
  pe.table(1, dModel, { ...opts, offset });
  pe.table(1, dModel, { ...opts, offset: offset + maxLen - 1 });
  const chunk = anchoredRows(dModel);
  await writeArray(out, format, dtype, [maxLen, dModel], function* () {
    // a preset's zero row (fairseq's) is the row at position paddingIdx: whichever chunk holds it zeroes it
    for (let r0 = 0; r0 < maxLen; r0 += chunk) {
      yield pe.table(Math.min(chunk, maxLen - r0), dModel, { ...opts, offset: offset + r0 }).data;
    }
  }, tick);
  return [maxLen, dModel];
}

function ropeScaling(v) {
  return scalingFromFlags(v, (message) => new UsageError(message));
}

async function runRope(pe, { values: v, raw, format, dtype }, out, tick) {
  const maxLen = v['max-len'];
  const dim = v.dim;
  const part = v.part ?? 'both';
  if (!['both', 'cos', 'sin'].includes(part)) throw new UsageError(`--part must be both, cos or sin, got ${quoted(part)}`);
  if (part === 'both' && format === 'csv') throw new UsageError('a CSV file holds one matrix: add --part cos or --part sin');
  const opts = { dtype, layout: v.layout ?? 'half', base: v.base ?? 10000, scaling: ropeScaling(v) };
  const offset = rowsOffset(v, raw, maxLen);
  const probe = pe.ropeCache(1, dim, { ...opts, offset });
  pe.ropeCache(1, dim, { ...opts, offset: offset + maxLen - 1 });
  const cols = probe.cos.cols;
  const parts = part === 'both' ? ['cos', 'sin'] : [part];
  const chunk = anchoredRows(cols);
  const shape = part === 'both' ? [2, maxLen, cols] : [maxLen, cols];
  await writeArray(out, format, dtype, shape, function* () {
    for (const which of parts) {
      for (let r0 = 0; r0 < maxLen; r0 += chunk) {
        yield pe.ropeCache(Math.min(chunk, maxLen - r0), dim, { ...opts, offset: offset + r0 })[which].data;
      }
    }
  }, tick);
  return shape;
}

async function runAlibi(pe, { values: v, raw, format, dtype }, out, tick) {
  const opts = { dtype };
  const map = { 'k-len': 'kLen', variant: 'variant', 'max-bias': 'maxBias', mode: 'mode', 'mask-value': 'maskValue', 'query-offset': 'queryOffset' };
  for (const [flag, key] of Object.entries(map)) if (v[flag] !== undefined) opts[key] = v[flag];
  const heads = v.heads;
  // (--heads below 1 is the API's to refuse, by name)
  if (v.head !== undefined && heads >= 1) checkRange('head', raw.head, v.head, 0, heads - 1);
  if (v.head === undefined && format === 'csv' && heads > 1) throw new UsageError('a CSV file holds one matrix: add --head h (0-based) or use --heads 1');
  if (v.head !== undefined) return alibiHead(pe, v, opts, out, format, dtype, tick);
  const b = pe.alibiBias(heads, v['q-len'], opts);
  const shape = format !== 'csv' ? [heads, b.rows, b.cols] : [b.rows, b.cols];
  const chunk = Math.max(1, Math.floor(CHUNK_ELEMENTS / b.cols)) * b.cols;
  await writeArray(out, format, dtype, shape, function* () {
    for (let i = 0; i < b.data.length; i += chunk) yield b.data.subarray(i, i + chunk);
  }, tick);
  return shape;
}

/**
 * One head of the ALiBi biases (--head), as the API's alibiBias forms each (c/alibi.c: 0 on the diagonal, the
 * mask above it in causal mode, else −slope × |i + queryOffset − j|, rounded to the dtype), from the head's slope
 * alone: every head was computed to keep one, so --heads 8000 --q-len 128 --head 0 took 3 s and 1 GB to write
 * 64 KiB, and 16 384 heads were refused for 1 GiB of memory the output does not need.
 */
async function alibiHead(pe, v, opts, out, format, dtype, tick) {
  const { kLen = v['q-len'], mode = 'causal', maskValue = -Infinity, queryOffset = 0 } = opts;
  // Every value checked by the API, by calls as small as the flags allow: one bias a head (their slopes, in
  // float64), one column of the rows (qLen, mode, mask, offset, dtype), one row of the columns (kLen).
  const slope = pe.alibiBias(v.heads, 1, { ...opts, kLen: 1, queryOffset: 0, dtype: 'float64' }).slopes[v.head];
  pe.alibiBias(1, v['q-len'], { ...opts, kLen: 1 });
  pe.alibiBias(1, 1, { ...opts, kLen, queryOffset: 0 });
  const rows = v['q-len'];
  const chunk = Math.max(1, Math.floor(CHUNK_ELEMENTS / kLen));
  const Typed = dtype === 'float32' ? Float32Array : Float64Array;
  await writeArray(out, format, dtype, [rows, kLen], function* () {
    for (let r0 = 0; r0 < rows; r0 += chunk) {
      const n = Math.min(chunk, rows - r0);
      const data = new Typed(n * kLen);
      for (let r = 0; r < n; r++) {
        const qi = r0 + r + queryOffset;
        for (let j = 0; j < kLen; j++) {
          const dist = qi - j;
          data[r * kLen + j] = mode === 'causal' && dist < 0 ? maskValue : dist === 0 ? 0 : -slope * Math.abs(dist);
        }
      }
      yield data;
    }
  }, tick);
  return [rows, kLen];
}

/** Writes a matrix the API returned, in chunks of whole rows. */
async function writeMatrix(out, format, dtype, m, tick) {
  const chunk = Math.max(1, Math.floor(CHUNK_ELEMENTS / m.cols)) * m.cols;
  await writeArray(out, format, dtype, [m.rows, m.cols], function* () {
    for (let i = 0; i < m.data.length; i += chunk) yield m.data.subarray(i, i + chunk);
  }, tick);
  return [m.rows, m.cols];
}

/** Copies the flags that are set into API options, renamed. */
function pick(v, map, opts = {}) {
  for (const [flag, key] of Object.entries(map)) if (v[flag] !== undefined) opts[key] = v[flag];
  return opts;
}

async function runTimestep(pe, { values: v, raw, format, dtype }, out, tick) {
  if ((v.steps === undefined) === (v.timesteps === undefined)) throw new UsageError('give --steps or --timesteps (one of them)');
  if (v['flip-sin-to-cos'] && v['no-flip-sin-to-cos']) throw new UsageError('--flip-sin-to-cos and --no-flip-sin-to-cos contradict each other');
  let t;
  if (v.steps !== undefined) {
    checkLength('steps', v.steps, raw.steps);
    t = Float64Array.from({ length: v.steps }, (_, i) => i);
  } else {
    t = v.timesteps.split(',').map((x) => {
      // each as a real flag is read (spaces around it allowed): Number() took 0x10 for 16, 0b1 for 1
      const n = REAL.test(x.trim()) ? Number(x) : NaN;
      const zero = readsAsZero(x, n);
      if (!Number.isFinite(n) || zero) throw new UsageError(`--timesteps must be comma-separated finite numbers, got ${quoted(x)}${zero}`);
      return n;
    });
  }
  const opts = pick(v, { preset: 'preset', 'downscale-freq-shift': 'downscaleFreqShift', scale: 'scale', 'max-period': 'maxPeriod' }, { dtype });
  if (v['flip-sin-to-cos'] || v['no-flip-sin-to-cos']) opts.flipSinToCos = Boolean(v['flip-sin-to-cos']);
  return writeMatrix(out, format, dtype, pe.timestepEmbedding(t, v.dim, opts), tick);
}

async function runSincos2d(pe, { values: v, format, dtype }, out, tick) {
  const opts = pick(v, { preset: 'preset', 'extra-tokens': 'extraTokens', 'base-size': 'baseSize', 'interpolation-scale': 'interpolationScale',
    'first-axis': 'firstAxis', frequencies: 'frequencies', base: 'base' }, { dtype });
  if (v['cls-token']) opts.clsToken = true;
  return writeMatrix(out, format, dtype, pe.sincos2d(v['grid-h'], v['grid-w'] ?? v['grid-h'], v.dim, opts), tick);
}

/** Row counts are computed in chunks, so check them here rather than in one API call; quoted as typed. */
function checkLength(flag, value, typed) {
  if (!(value >= 1 && value <= 2 ** 24)) throw new UsageError(`--${flag} must be an integer from 1 to ${2 ** 24}, got ${typed === undefined ? value : shown(typed)}`);
}

/** --offset, checked so that every row's position (offset + r) is within ±2^31; quoted as typed. */
function rowsOffset(v, raw, maxLen) {
  checkLength('max-len', maxLen, raw['max-len']);
  return checkRange('offset', raw.offset, v.offset ?? 0, -MAX_POSITION, MAX_POSITION - (maxLen - 1));
}

const RUN = { table: runTable, rope: runRope, alibi: runAlibi, timestep: runTimestep, sincos2d: runSincos2d };

async function main(argv) {
  // A model's config.json (issue 23): `rope --config` and `inspect` live in bin/rope-config.js.
  if (argv[0] === 'inspect' || (argv[0] === 'rope' && argv.some((a) => a === '--config' || a.startsWith('--config=')))) {
    return (await import('./rope-config.js')).main(argv);
  }
  let parsed;
  try {
    parsed = parse(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    say(`posenc: ${e.message}\n`);
    return 2;
  }
  if (parsed.help) {
    return print(usage(parsed.cmd));
  }
  if (parsed.version) {
    return print(`posenc ${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
  }
  if (endianness() !== 'LE') {
    say('posenc: this exporter writes little-endian data and needs a little-endian machine\n');
    return 1;
  }
  const { cmd, values } = parsed;
  // A terminal shows standard output: .npy is binary, and its float bytes hold ESC, CSI and OSC sequences that
  // a terminal takes for commands (a 512 × 2048 table holds 41 "ESC [", 42 "ESC ]" and 9 987 C1 CSI bytes). Text or a pipe only.
  if (values.out === '-' && parsed.format === 'npy' && isatty(1)) {
    say('posenc: standard output is a terminal, and a .npy is binary (its bytes would drive the terminal): redirect it (> pe.npy, | python ...) or give --format csv or json\n');
    return 2;
  }
  const pe = await (await import(COMMANDS[cmd].entry)).init();
  const bytesPer = parsed.dtype === 'float32' ? 4 : 8;
  const bar = progressLine(values.quiet || values.out === '-', `${cmd} ${values.out}`, elementsOf(cmd, values) * bytesPer);
  try {
    const shape = await RUN[cmd](pe, parsed, { out: values.out, force: Boolean(values.force), maxBytes: parsed.maxBytes }, (f) => bar.tick(f));
    bar.done();
    if (!values.quiet && values.out !== '-') {
      say(`posenc: wrote ${values.out} (${parsed.format}, ${parsed.dtype}, shape ${shape.join('×')})\n`);
    }
    return 0;
  } catch (e) {
    bar.done();
    // The API's own argument errors ("posenc.fn: ...") are bad flag values too.
    if (e instanceof UsageError || ((e instanceof RangeError || e instanceof TypeError) && /^posenc\./.test(e.message))) {
      say(`posenc: ${e.message}\n`);
      return 2;
    }
    // A failed write (full disk, no permission) names the file; the temporary file is gone.
    // Standard output (| head) may have taken part of it: only a file is known to be left unwritten.
    const stdout = values.out === '-';
    const why = e.code ? `cannot write ${stdout ? 'standard output' : values.out} (${e.code}: ${e.message.replace(/^\w+: /, '')}); ${stdout ? 'stopped' : 'nothing was written'}` : e.message;
    say(`posenc: ${why}\n`);
    return 1;
  }
}

// Run as a program (also through npx's link); imported, it only exports parse() for the argument fuzz test.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
