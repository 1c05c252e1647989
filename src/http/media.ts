/**
 * @module http/media
 * Recognises uploaded recordings by their bytes: Bun guesses a `File`'s type from its name and
 * ignores a part's Content-Type (TOOLCHAIN.md), and clients mislabel audio anyway.
 */
const AUDIO_TYPES = { webm: "audio/webm", ogg: "audio/ogg", wav: "audio/wav" } as const;

/** @returns the audio MIME type, or null when the bytes are not WebM, Ogg or WAV */
export function sniffAudioMime(bytes: Uint8Array): string | null {
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (bytes.length >= 4 && bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3) return AUDIO_TYPES.webm!;
  if (bytes.length >= 4 && ascii(0, 4) === "OggS") return AUDIO_TYPES.ogg!;
  if (bytes.length >= 12 && ascii(0, 4) === "RIFF" && ascii(8, 12) === "WAVE") return AUDIO_TYPES.wav!;
  return null;
}

