/**
 * @module ai/webm-count
 * Counts a WebM's clusters and Opus frames from its EBML structure alone, allocating nothing per
 * element, so a "packet flood" (a million 1-byte blocks in one cluster) is refused before the
 * demuxer builds an object for each block: mediabunny parses a whole cluster at once, which for
 * 1 M blocks costs ~300 MB whatever the timestamps say.
 */

/** Element IDs (with their length marker, as written) the walk enters or counts. */
const SEGMENT = 0x18538067;
const CLUSTER = 0x1f43b675;
const SIMPLE_BLOCK = 0xa3;
const BLOCK_GROUP = 0xa0;
const BLOCK = 0xa1;

type Vint = { value: number; length: number; unknown: boolean };

/** An EBML variable-length integer at `at`; `keepMarker` for IDs. null when cut short or invalid. */
function readVint(bytes: Uint8Array, at: number, keepMarker: boolean): Vint | null {
  const first = bytes[at];
  if (first === undefined || first === 0) return null;
  const length = Math.clz32(first) - 23; // 1..8
  if (at + length > bytes.length) return null;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    const b = bytes[at + i]!;
    value = value * 256 + b;
    allOnes &&= b === 0xff;
  }
  return { value, length, unknown: !keepMarker && allOnes };
}

/** Frames in the (Simple)Block whose payload starts at `at`: 1, or the lace count when laced. */
function framesInBlock(bytes: Uint8Array, at: number, end: number): number {
  const track = readVint(bytes, at, false);
  if (track === null) return 1;
  const flagsAt = at + track.length + 2; // track number, int16 relative timecode, flags
  if (flagsAt >= end) return 1;
  const lacing = (bytes[flagsAt]! >> 1) & 0x03;
  if (lacing === 0 || flagsAt + 1 >= end) return 1;
  return bytes[flagsAt + 1]! + 1;
}

/**
 * Clusters + Opus frames of a WebM, stopping as soon as the count passes `limit`.
 * Segment and Cluster are entered (they may have unknown size, as MediaRecorder writes them);
 * BlockGroup is entered for its Block; every other element is skipped by its size.
 * @returns the count (> `limit` means "more than limit"), or null when the structure cannot be
 *   walked (damaged, or an unknown-size element other than Segment/Cluster): the demuxer decides.
 */
export function countWebmFrames(bytes: Uint8Array, limit: number): number | null {
  let count = 0;
  let at = 0;
  while (at < bytes.length) {
    const id = readVint(bytes, at, true);
    if (id === null) return null;
    const size = readVint(bytes, at + id.length, false);
    if (size === null) return count; // cut short inside a header: what came before stands
    const body = at + id.length + size.length;
    if (id.value === SEGMENT || id.value === CLUSTER || id.value === BLOCK_GROUP) {
      if (id.value === CLUSTER && ++count > limit) return count;
      at = body; // enter: children follow
      continue;
    }
    if (size.unknown) return null;
    const end = Math.min(bytes.length, body + size.value);
    if (id.value === SIMPLE_BLOCK || id.value === BLOCK) {
      count += framesInBlock(bytes, body, end);
      if (count > limit) return count;
    }
    at = body + size.value;
  }
  return count;
}
