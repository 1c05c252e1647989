/**
 * @module shared/audio-format
 * Tells a recording's container from its first bytes — the one audio sniff, used where uploads
 * are accepted (http/media.ts) and where they are decoded (ai/audio.ts). Neutral code, no imports.
 */

/** Containers Earshot accepts: WAV (PCM/float), WebM/Opus (Chromium MediaRecorder), Ogg/Opus. */
export type AudioFormat = "wav" | "webm" | "ogg";

/** The media type each container is served and stored as. */
export const AUDIO_MIME_TYPES: Readonly<Record<AudioFormat, string>> = { webm: "audio/webm", ogg: "audio/ogg", wav: "audio/wav" };

function hasAscii(bytes: Uint8Array, text: string, at = 0): boolean {
  if (bytes.length < at + text.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

/**
 * `RIFF....WAVE` → "wav", EBML `1A 45 DF A3` → "webm" (Matroska too; decoding checks the codec),
 * `OggS` → "ogg"; anything else → null. Never throws.
 */
export function sniffAudioFormat(bytes: Uint8Array): AudioFormat | null {
  if (hasAscii(bytes, "RIFF") && hasAscii(bytes, "WAVE", 8)) return "wav";
  if (bytes.length >= 4 && bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3) return "webm";
  if (hasAscii(bytes, "OggS")) return "ogg";
  return null;
}
