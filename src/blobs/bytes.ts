/**
 * @module blobs/bytes
 * What both blob stores share (src/blobs/store.ts, src/blobs/postgres.ts): the key format and
 * iterating bytes that arrive in pieces.
 */

/** Bytes arriving in pieces: a web stream or any async iterable of chunks. */
export type ByteSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/** `<prefix>/<uuid>`: the only keys a store accepts (no path traversal). */
export const KEY_PATTERN = /^[a-z0-9-]+\/[0-9a-f-]{36}$/;

/** Iterates a {@link ByteSource}. */
export async function* chunksOf(source: ByteSource): AsyncIterable<Uint8Array> {
  if (source instanceof ReadableStream) {
    const reader = source.getReader();
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) yield r.value;
    } finally {
      reader.releaseLock();
    }
  } else {
    yield* source;
  }
}
