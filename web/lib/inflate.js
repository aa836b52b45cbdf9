// A small zlib inflater (RFC 1950 around RFC 1951 DEFLATE), for runtimes
// without Node's zlib (process.getBuiltinModule) or the standard
// DecompressionStream and Response: jsdom in Jest's test environment, older
// embedders. web/lib/wasm.js imports it dynamically, and only there, so that
// no one else downloads it: it is a file of its own beside each entry
// (dist/lib/inflate.js). Written for
// clarity over speed: it inflates an embedded module of a few tens of kB
// once, in milliseconds. Follows the structure of zlib's puff.c.

// The numbers below are DEFLATE's, each line marked "(not a C limit)" for tests/constants.test.js.
const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]; // RFC 1951 (not a C limit)
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, // RFC 1951 (not a C limit)
  6145, 8193, 12289, 16385, 24577];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]; // RFC 1951 (not a C limit)
// The order in which a dynamic block lists the code lengths of its code-length code.
const CLEN_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]; // RFC 1951 (not a C limit)

const corrupt = (what) => new Error(`posenc: the embedded WebAssembly module is corrupt (${what})`);

/** A canonical Huffman code from its code lengths: how many codes of each length, and the symbols in code order. */
function huffman(lengths) {
  const counts = new Uint16Array(16);
  for (const len of lengths) counts[len]++;
  counts[0] = 0;
  const offsets = new Uint16Array(16);
  for (let len = 1; len < 15; len++) offsets[len + 1] = offsets[len] + counts[len];
  const symbols = new Uint16Array(lengths.length);
  lengths.forEach((len, symbol) => { if (len) symbols[offsets[len]++] = symbol; });
  return { counts, symbols };
}

const FIXED_LITERALS = huffman(Array.from({ length: 288 }, (_, s) => (s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8))); // RFC 1951 (not a C limit)
const FIXED_DISTANCES = huffman(new Array(30).fill(5));

/** The bytes that the zlib stream `input` (a Uint8Array) inflates to. */
export function inflate(input) {
  if (input.length < 2 || (input[0] & 0x0f) !== 8 || ((input[0] << 8) | input[1]) % 31 !== 0 || input[1] & 0x20) {
    throw corrupt('not a zlib stream');
  }
  let pos = 2; // after the zlib header
  let bit = 0; // bits of input[pos] already read, least significant first
  let out = new Uint8Array(input.length * 4);
  let size = 0;

  const bits = (n) => {
    let value = 0;
    for (let i = 0; i < n; i++) {
      if (pos >= input.length) throw corrupt('truncated');
      value |= ((input[pos] >> bit) & 1) << i;
      if (++bit === 8) { bit = 0; pos++; }
    }
    return value;
  };
  const decode = ({ counts, symbols }) => {
    // Huffman codes are packed most significant bit first: read one bit at a time.
    let code = 0;
    let first = 0;
    let index = 0;
    for (let len = 1; len < 16; len++) {
      code |= bits(1);
      if (code - first < counts[len]) return symbols[index + code - first];
      index += counts[len];
      first = (first + counts[len]) << 1;
      code <<= 1;
    }
    throw corrupt('bad Huffman code');
  };
  const reserve = (n) => {
    if (size + n <= out.length) return;
    const bigger = new Uint8Array(Math.max(out.length * 2, size + n));
    bigger.set(out.subarray(0, size));
    out = bigger;
  };

  const stored = () => {
    if (bit) { bit = 0; pos++; }
    const len = input[pos] | (input[pos + 1] << 8);
    if (pos + 4 > input.length || (len ^ (input[pos + 2] | (input[pos + 3] << 8))) !== 0xffff) throw corrupt('bad stored block');
    pos += 4;
    if (pos + len > input.length) throw corrupt('truncated');
    reserve(len);
    out.set(input.subarray(pos, pos + len), size);
    size += len;
    pos += len;
  };
  const dynamicCodes = () => {
    const nlit = bits(5) + 257;
    const ndist = bits(5) + 1;
    const nclen = bits(4) + 4;
    const clen = new Array(19).fill(0);
    for (let i = 0; i < nclen; i++) clen[CLEN_ORDER[i]] = bits(3);
    const clenCode = huffman(clen);
    const lengths = [];
    while (lengths.length < nlit + ndist) {
      const sym = decode(clenCode);
      if (sym < 16) lengths.push(sym);
      else {
        if (sym === 16 && !lengths.length) throw corrupt('repeat with no length');
        const [value, count] = sym === 16 ? [lengths[lengths.length - 1], 3 + bits(2)] : sym === 17 ? [0, 3 + bits(3)] : [0, 11 + bits(7)]; // RFC 1951 (not a C limit)
        for (let i = 0; i < count; i++) lengths.push(value);
      }
    }
    if (lengths.length > nlit + ndist) throw corrupt('too many code lengths');
    return [huffman(lengths.slice(0, nlit)), huffman(lengths.slice(nlit))];
  };
  const codes = (literals, distances) => {
    for (;;) {
      const sym = decode(literals);
      if (sym < 256) { // RFC 1951 (not a C limit)
        reserve(1);
        out[size++] = sym;
      } else if (sym === 256) { // RFC 1951 (not a C limit)
        return;
      } else {
        const l = sym - 257;
        if (l >= 29) throw corrupt('bad length');
        const len = LENGTH_BASE[l] + bits(LENGTH_EXTRA[l]);
        const d = decode(distances);
        if (d >= 30) throw corrupt('bad distance');
        const dist = DIST_BASE[d] + bits(DIST_EXTRA[d]);
        if (dist > size) throw corrupt('distance too far back');
        reserve(len);
        for (let i = 0; i < len; i++, size++) out[size] = out[size - dist];
      }
    }
  };

  let last;
  do {
    last = bits(1);
    const type = bits(2);
    if (type === 0) stored();
    else if (type === 1) codes(FIXED_LITERALS, FIXED_DISTANCES);
    else if (type === 2) codes(...dynamicCodes());
    else throw corrupt('bad block type');
  } while (!last);
  out = out.subarray(0, size);
  // The stream ends with the Adler-32 of the data, big-endian, on a byte boundary.
  if (bit) pos++;
  if (pos + 4 > input.length) throw corrupt('truncated');
  const stored32 = ((input[pos] << 24) | (input[pos + 1] << 16) | (input[pos + 2] << 8) | input[pos + 3]) >>> 0;
  if (adler32(out) !== stored32) throw corrupt('checksum mismatch');
  return out.slice();
}

function adler32(bytes) {
  let a = 1;
  let b = 0;
  for (let i = 0; i < bytes.length; i++) {
    a = (a + bytes[i]) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}
