// NPY format 1.0 (numpy.lib.format): magic "\x93NUMPY", version 1.0, a
// little-endian uint16 header length, then an ASCII dict literal padded with
// spaces and ending in "\n" so that magic + version + length + header is a
// multiple of 64 bytes, then the raw little-endian C-order data.

const MAGIC = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]); // \x93NUMPY

/** The header bytes (preamble included) for a C-order array of `dtype` and `shape`. */
export function npyHeader(dtype, shape) {
  const descr = { float32: '<f4', float64: '<f8', int32: '<i4' }[dtype];
  if (!descr) throw new Error(`npy: unsupported dtype ${dtype}`);
  const dims = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let dict = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${dims}, }`;
  const fixed = MAGIC.length + 2 + 2; // magic, version, header length
  const total = Math.ceil((fixed + dict.length + 1) / 64) * 64;
  dict = dict.padEnd(total - fixed - 1, ' ') + '\n';
  if (dict.length > 0xffff) throw new Error('npy: header too long for format 1.0');
  const head = Buffer.alloc(fixed);
  MAGIC.copy(head, 0);
  head[6] = 1; // major version
  head[7] = 0; // minor version
  head.writeUInt16LE(dict.length, 8);
  return Buffer.concat([head, Buffer.from(dict, 'latin1')]);
}
