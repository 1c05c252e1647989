/**
 * @module themes/codec
 * Vectors as stored bytes: little-endian Float32 (the byte order of every platform Earshot ships
 * for), 4 bytes a dimension. A BLOB on SQLite, bytea on PostgreSQL; both drivers return bytes.
 */

/** The bytes of a vector (a copy). */
export function vectorBytes(v: Float32Array): Buffer {
  return Buffer.from(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
}

/** The vector of stored bytes (a copy, so the driver's buffer alignment does not matter). */
export function bytesVector(b: Uint8Array): Float32Array {
  return new Float32Array(Uint8Array.from(b).buffer);
}

/** Several vectors of `dims` each, concatenated (a build's common components). */
export function vectorsBytes(vs: Float32Array[]): Buffer {
  return Buffer.concat(vs.map(vectorBytes));
}

/** Splits concatenated vectors of `dims` dimensions. */
export function bytesVectors(b: Uint8Array | null, dims: number): Float32Array[] {
  if (!b || dims <= 0) return [];
  const all = bytesVector(b);
  const out: Float32Array[] = [];
  for (let i = 0; i + dims <= all.length; i += dims) out.push(all.slice(i, i + dims));
  return out;
}
