// The CLI's commands that read a model's config.json (issue 23):
//
//   posenc rope --config config.json [--layer-type T | --layer-index i] [--max-len N] --out cos_sin.npy|.npz
//   posenc inspect config.json [--layer-type T | --layer-index i] [--json]
//
// `rope --config` writes HF's cos and sin (the attention factor applied, as
// HF's rotary embedding returns them): a .npy holds shape (2, max-len, cols),
// cos first; a .npz holds two arrays, cos and sin. bin/posenc.js hands these
// commands here. Exit status as posenc's: 0 written, 2 bad command line or
// config, 1 a failed write. A file is never left half-written (temporary file,
// renamed when complete).
import { openSync, readSync, closeSync, statSync } from 'node:fs';
import path from 'node:path';
import { init, ROPE_TYPES } from 'posenc/variants';
import { npyHeader } from './npy.js';
import { checkTarget, atomicFile, writeAll, say, print, oneLine } from './files.js';
import { parseFlags, UsageError, shown, quoted, PATH } from './args.js';
import { inspectReport } from './inspect.js';

// The largest config.json read (16 MiB): published ones are a few kB, a few with label maps a few hundred.
const MAX_CONFIG_BYTES = 2 ** 24;
// It is read 64 KiB at a time, as readFileSync reads a file of unknown size (/proc/self/pagemap takes multiples of 8 bytes).
const READ_BYTES = 2 ** 16;


const SELECT = {
  'layer-type': { type: 'string', help: 'the layer type whose RoPE to use (a key of layer_types / rope_parameters)' },
  'layer-index': { type: 'int', help: 'the layer whose RoPE to use (its layer type; Llama 4: none for a layer without RoPE)' },
};
const COMMANDS = {
  rope: {
    usage: 'posenc rope --config config.json [flags]',
    summary: 'HF\'s cos and sin of a model\'s RoPE: a .npy of shape (2, max-len, cols), cos first, or a .npz with cos and sin',
    flags: {
      config: { type: 'string', help: 'the model\'s config.json (required)' },
      ...SELECT,
      'max-len': { type: 'int', help: 'rows (positions; default max_position_embeddings)' },
      offset: { type: 'int', help: 'position of row 0 (default 0)' },
      layout: { type: 'string', help: 'half (default, HF: [f | f]) | interleaved (f0 f0 f1 f1 ...) | pairs' },
      'seq-len': { type: 'int', help: 'HF\'s seq_len for dynamic and longrope (default: offset + max-len)' },
      dtype: { type: 'string', help: 'float32 | float64 (default float32)' },
      out: { type: 'string', help: 'output file, .npy or .npz (required)' },
      force: { type: 'boolean', help: 'overwrite --out if it exists' },
      'max-bytes': { type: 'int', help: `the largest output to write, in bytes (default ${2 ** 30}, 1 GiB, the API's per-call limit); checked before anything is computed` },
      quiet: { type: 'boolean', help: 'no line on stderr' },
      help: { type: 'boolean', help: 'show this help' },
    },
  },
  inspect: {
    usage: 'posenc inspect config.json [flags]',
    summary: 'what posenc reads from a model\'s config.json: type, θ, dims, factors, layer types, attention factor, wavelengths, warnings',
    flags: { ...SELECT, json: { type: 'boolean', help: 'print JSON instead of text (with each layer type\'s inv_freq in float64)' },
      'max-bytes': { type: 'int', help: `the largest report to write, in bytes (default ${2 ** 30}, 1 GiB); checked before anything is written` },
      help: { type: 'boolean', help: 'show this help' } },
  },
};

function usage(cmd) {
  const c = COMMANDS[cmd];
  const lines = [`Usage: ${c.usage}`, '', c.summary, '', 'Flags:'];
  for (const [name, f] of Object.entries(c.flags)) {
    const arg = f.type === 'boolean' ? '' : f.type === 'string' ? ' <text>' : ' <integer>';
    lines.push(`  --${name}${arg}`.padEnd(30) + ' ' + f.help);
  }
  return lines.join('\n') + '\n';
}

/** The flags (bin/args.js: strict numbers, each flag once) and, for inspect, the config file before them. */
function parse(cmd, tokens) {
  const positional = cmd === 'inspect' && tokens.length && !tokens[0].startsWith('-') ? [tokens[0]] : [];
  return { ...parseFlags(tokens.slice(positional.length), COMMANDS[cmd].flags, cmd), positional };
}

/** The parsed config.json, or a usage error naming the file. */
export function readConfig(file) {
  let text;
  const tooBig = () => new UsageError(`the config ${shown(file, PATH)} is not a file of at most ${MAX_CONFIG_BYTES} bytes (a config.json is a few kB)`);
  try {
    // A config.json is kilobytes; /dev/zero or a huge file would be read until memory runs out.
    const size = statSync(file).size;
    if (size > MAX_CONFIG_BYTES || !statSync(file).isFile()) throw tooBig();
    // At most MAX_CONFIG_BYTES + 1 bytes read, whatever the size said: a file of /proc says 0 and may never end
    // (/proc/self/pagemap: 600 MB of memory in 3 s, read until memory ran out).
    const fd = openSync(file, 'r');
    const bytes = Buffer.allocUnsafe(MAX_CONFIG_BYTES + READ_BYTES);
    let n = 0;
    try {
      for (let got = 1; got > 0 && n <= MAX_CONFIG_BYTES; n += got) got = readSync(fd, bytes, n, READ_BYTES, null);
    } finally {
      closeSync(fd);
    }
    if (n > MAX_CONFIG_BYTES) throw tooBig();
    text = bytes.toString('utf8', 0, n);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`cannot read the config ${shown(file, PATH)} (${e.code ?? e.message})`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${shown(file, PATH)} is not JSON (${e.message})`);
  }
}

function selection(values) {
  const opts = {};
  if (values['layer-type'] !== undefined) opts.layerType = values['layer-type'];
  if (values['layer-index'] !== undefined) opts.layerIndex = values['layer-index'];
  return opts;
}

// ---- writing: .npy (one array) or .npz (a stored zip of .npy members) ---------------------------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buffers) {
  let c = 0xffffffff;
  for (const b of buffers) for (let i = 0; i < b.length; i++) c = CRC_TABLE[(c ^ b[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
const bytesOf = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** A .npz: each member a stored (uncompressed) zip entry NAME.npy, as numpy.savez writes. */
function npzChunks(members) {
  const chunks = [];
  const central = [];
  let at = 0;
  for (const { name, dtype, shape, data } of members) {
    const file = Buffer.from(`${name}.npy`, 'latin1');
    const body = [npyHeader(dtype, shape), bytesOf(data)];
    const size = body[0].length + body[1].length;
    const crc = crc32(body);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0); // local file header
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(size, 18); // compressed = uncompressed: stored
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(file.length, 26);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0); // central directory header
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    dir.writeUInt32LE(crc, 16);
    dir.writeUInt32LE(size, 20);
    dir.writeUInt32LE(size, 24);
    dir.writeUInt16LE(file.length, 28);
    dir.writeUInt32LE(at, 42); // offset of the local header
    chunks.push(local, file, ...body);
    central.push(dir, file);
    at += 30 + file.length + size;
  }
  const dirSize = central.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); // end of central directory
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(dirSize, 12);
  end.writeUInt32LE(at, 16);
  return [...chunks, ...central, end];
}

/** --max-bytes as both commands here read it: 1 GiB unless given, at least 1. */
function maxBytesOf(values, raw) {
  const maxBytes = values['max-bytes'] ?? 2 ** 30;
  if (!(maxBytes >= 1)) throw new UsageError(`--max-bytes must be at least 1, got ${shown(raw['max-bytes'])}`);
  return maxBytes;
}

/**
 * Writes the chunks to a temporary file beside `target`, then moves it there
 * (never over a file without force), as bin/posenc.js does. Its own writer
 * took a short write (a disk or file-size limit reached in the last chunk)
 * for a whole one and renamed the truncated file into place, and left the
 * temporary file behind when a write failed.
 */
function writeAtomically(target, force, chunks) {
  const file = atomicFile(target, force);
  try {
    for (const c of chunks) writeAll(file.fd, c);
    file.commit();
  } catch (e) {
    file.discard();
    throw e;
  }
}

// ---- the commands ---------------------------------------------------------------------------------

async function ropeCommand(pv, values, raw) {
  for (const f of ['config', 'out']) if (values[f] === undefined) throw new UsageError(`--${f} is required (see posenc rope --config x --help)`);
  const ext = path.extname(values.out).toLowerCase();
  if (ext !== '.npy' && ext !== '.npz') throw new UsageError(`--out must end in .npy or .npz, got ${quoted(values.out, PATH)}`);
  checkTarget(values.out, values.force);
  const config = readConfig(values.config);
  const r = pv.ropeFromConfig(config, selection(values));
  if (r.type === 'none' || r.type === 'axial') {
    throw new UsageError(r.type === 'none' ? 'that layer has no RoPE (Llama 4 no_rope_layers): nothing to write' : 'an axial RoPE (FLUX axes_dims_rope) has no single cos/sin cache: see posenc inspect');
  }
  const maxLen = values['max-len'] ?? r.maxPosition;
  // (null too: ropeFromConfig takes a null max_position_embeddings as none, and it reached ropeCache as "maxLen must be
  // a number (got null)", a name the command line does not use, without the hint)
  if (maxLen == null) throw new UsageError('the config has no max_position_embeddings: give --max-len');
  const dtype = values.dtype ?? 'float32';
  if (dtype !== 'float32' && dtype !== 'float64') throw new UsageError(`--dtype must be float32 or float64, got ${quoted(dtype)}`);
  // As the other commands: the output's size against --max-bytes first (two caches, two headers at most 512 bytes);
  // the API then checks every size (1 GiB per call) before anything is allocated or written.
  const maxBytes = maxBytesOf(values, raw);
  const planned = 512 + 2 * maxLen * (values.layout === 'pairs' ? r.rotaryDim / 2 : r.rotaryDim) * (dtype === 'float32' ? 4 : 8);
  const rows = values['max-len'] === undefined ? ` (max-len defaults to max_position_embeddings, ${maxLen}: give --max-len)` : '';
  if (planned > maxBytes) {
    throw new UsageError(`this output would take ${planned} bytes, more than --max-bytes ${maxBytes}; nothing was written. Raise --max-bytes deliberately to write it${rows}`);
  }
  // --max-len and --offset by their flags, as posenc rope checks them (they reached ropeCache as "maxLen" and "offset",
  // names the command line does not use, and any of ropeCache's refusals, --layout's too, got the max-len hint)
  if (!(maxLen >= 1 && maxLen <= 2 ** 24)) throw new UsageError(`--max-len must be an integer from 1 to ${2 ** 24}, got ${maxLen}${rows}`);
  const offset = values.offset ?? 0;
  if (!(offset >= -(2 ** 31) && offset <= 2 ** 31 - maxLen + 1)) throw new UsageError(`--offset must be from ${-(2 ** 31)} to ${2 ** 31 - maxLen + 1}, got ${shown(raw.offset)}${rows}`);
  const seqLen = values['seq-len'];
  if (seqLen !== undefined && !('seqLen' in ROPE_TYPES[r.type].params)) throw new UsageError(`--seq-len is read by dynamic and longrope only; this layer is ${r.type}`);
  const scaling = seqLen === undefined ? r.scaling : { ...r.scaling, seqLen };
  let cache;
  try {
    cache = pv.ropeCache(maxLen, r.rotaryDim, { base: r.theta, scaling, offset, layout: values.layout ?? 'half', dtype });
  } catch (e) {
    // max_position_embeddings can be millions (Llama 4: 10485760): say how to ask for fewer rows, where the rows are why
    if (/would need|exhausted/.test(e.message)) throw new UsageError(`${e.message}${rows}`);
    throw e;
  }
  const shape = [maxLen, cache.cos.cols];
  const chunks = ext === '.npz'
    ? npzChunks([{ name: 'cos', dtype, shape, data: cache.cos.data }, { name: 'sin', dtype, shape, data: cache.sin.data }])
    : [npyHeader(dtype, [2, ...shape]), bytesOf(cache.cos.data), bytesOf(cache.sin.data)];
  writeAtomically(values.out, Boolean(values.force), chunks);
  if (!values.quiet) {
    say(`posenc: wrote ${values.out} (${ext.slice(1)}, ${dtype}, ${ext === '.npz' ? 'cos and sin, each ' : '2×'}${shape.join('×')}; ` +
      `${r.type}, θ ${r.theta}, attention factor ${r.attentionFactor}${r.layerType ? `, ${oneLine(r.layerType)}` : ''})\n`);
    for (const w of r.warnings) say(`posenc: warning: ${oneLine(w)}\n`);
  }
}

function inspectCommand(pv, values, raw, positional) {
  if (positional.length !== 1) throw new UsageError('give one config.json (posenc inspect config.json)');
  const maxBytes = maxBytesOf(values, raw);
  const config = readConfig(positional[0]);
  // writeSync, as --out - is written: process.stdout.write's EPIPE (| head) escaped as an unhandled 'error' event with a stack.
  // Parts made as they are written (a function), so one layer type's JSON is held at a time.
  let written = 0;
  for (const part of inspectReport(pv, config, selection(values), Boolean(values.json), maxBytes)) {
    const bytes = Buffer.from(typeof part === 'function' ? part() : part);
    // the plan is an upper bound, so this never fires unless it is wrong: a second fence, as the other commands have
    if ((written += bytes.length) > maxBytes) throw new Error(`the report grew past --max-bytes ${maxBytes}; stopped`);
    writeAll(1, bytes);
  }
}

/** `posenc rope --config ...` or `posenc inspect ...`: the exit status. */
export async function main(argv) {
  const [cmd, ...rest] = argv;
  let out;
  try {
    const { values, raw, positional } = parse(cmd, rest);
    out = values.out;
    if (values.help) return print(usage(cmd));
    const pv = await init();
    if (cmd === 'inspect') inspectCommand(pv, values, raw, positional);
    else await ropeCommand(pv, values, raw);
    return 0;
  } catch (e) {
    // The API's own argument errors ("posenc.fn: ...") are bad values too.
    if (e instanceof UsageError || ((e instanceof RangeError || e instanceof TypeError) && /^posenc\./.test(e.message))) {
      say(`posenc: ${oneLine(e.message)}\n`); // a message may quote the config's layer types
      return 2;
    }
    const why = e.code ? `cannot write ${out ?? 'standard output'} (${e.code}: ${e.message.replace(/^\w+: /, '')}); ${out ? 'nothing was written' : 'stopped'}` : e.message;
    say(`posenc: ${why}\n`);
    return 1;
  }
}
