/**
 * @module http/media
 * Recognises uploaded recordings by their bytes: Bun guesses a `File`'s type from its name and
 * ignores a part's Content-Type (TOOLCHAIN.md), and clients mislabel audio anyway. Uploaded files
 * are recognised the same way (an HTML page named `evil.png` is not an image).
 */
import { AUDIO_MIME_TYPES, sniffAudioFormat } from "../shared/audio-format.ts";

/** @returns the audio MIME type, or null when the bytes are not WebM, Ogg or WAV (shared/audio-format.ts) */
export function sniffAudioMime(bytes: Uint8Array): string | null {
  const format = sniffAudioFormat(bytes);
  return format ? AUDIO_MIME_TYPES[format] : null;
}

/**
 * The `file-type` library, loaded at the first uploaded file: with its tokenizer, inflate and
 * `debug` it was ~15 % of the server's start (bench/startup.ts).
 */
const fileType = (): Promise<typeof import("file-type")> => import("file-type");

/** Extensions that name the same format as file-type's canonical one. */
const EXTENSION_ALIASES: Record<string, string> = {
  jpeg: "jpg",
  jpe: "jpg",
  jfif: "jpg",
  tiff: "tif",
  htm: "html",
  mpeg: "mpg",
  oga: "ogg",
  opus: "ogg",
  m4v: "mp4",
};

/** What an uploaded file is by its bytes: `ext` is null when file-type does not recognise it. */
export type SniffedFile = { mime: string; ext: string | null };

function looksLikeText(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 64 * 1024);
  if (head.includes(0)) return false;
  try {
    // stream: a character cut at the 64 KiB mark is not an error.
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: head.length < bytes.length });
    return true;
  } catch {
    return false;
  }
}

/**
 * Recognises a file by its bytes (the `file-type` library's signatures): its MIME type and
 * canonical extension; UTF-8 text without a signature is `text/plain`, anything else
 * `application/octet-stream`. The file's name is never trusted for its type.
 */
export async function sniffFile(bytes: Uint8Array): Promise<SniffedFile> {
  const t = await (await fileType()).fileTypeFromBuffer(bytes);
  if (t) return { mime: t.mime, ext: t.ext };
  return { mime: looksLikeText(bytes) ? "text/plain" : "application/octet-stream", ext: null };
}

/**
 * True when a file name's extension is consistent with the bytes: either the extension names a
 * format file-type can recognise and the bytes are that format, or it names none it knows.
 * @param nameExt the name's extension, lower case, without the dot ("" when none)
 */
export async function extensionMatches(nameExt: string, sniffed: SniffedFile): Promise<boolean> {
  const ext = EXTENSION_ALIASES[nameExt] ?? nameExt;
  if (!ext || !((await fileType()).supportedExtensions as ReadonlySet<string>).has(ext)) return true;
  return sniffed.ext === ext;
}

const canonicalExt = (ext: string) => EXTENSION_ALIASES[ext] ?? ext;

/**
 * Whether a question's `allowed_types` (extensions like `.pdf`, MIME types, or `image/*`) admit a
 * file. A recognised file is judged by its real type only; an unrecognised one (text, unknown
 * binary) by its name's extension or its sniffed `text/plain` / `application/octet-stream`.
 * @param nameExt the name's extension, lower case, without the dot ("" when none)
 */
export function allowedTypesAccept(allowed: readonly string[], nameExt: string, sniffed: SniffedFile): boolean {
  if (!allowed.length) return true;
  const ext = sniffed.ext ?? (nameExt ? canonicalExt(nameExt) : null);
  return allowed.some((a) => {
    const t = a.trim().toLowerCase();
    if (t.startsWith(".")) return ext !== null && canonicalExt(t.slice(1)) === ext;
    if (t.endsWith("/*")) return sniffed.mime.startsWith(t.slice(0, -1));
    return t === sniffed.mime;
  });
}
