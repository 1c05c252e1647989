/**
 * @module web/intake/messages
 * Everything the respondent reads about a problem, in plain words: the server's problems
 * (`code` + `errors`, written for developers: "Expected a valid email address.") become
 * sentences about the question at hand, allowed file types are named in words ("Images or PDF
 * files") rather than MIME patterns, and email addresses are checked on the page the way the
 * server checks them.
 */
import { ApiError } from "./api.ts";
import { capitalize, formatDuration, formatMegabytes, orList, t, type MessageKey } from "./i18n.ts";
import type { PublicQuestion } from "./types.ts";

/** Shown for an email address the server would refuse. */
export function emailMessage(): string {
  return t("error.email");
}

/**
 * The shape the server accepts (zod's `email()`: a dot-atom local part, a domain of labels and
 * a top-level domain of 2+ letters). The browser's own check lets `ann@example` through.
 */
const EMAIL_PATTERN = /^(?!\.)(?!.*\.\.)[A-Za-z0-9_'+\-.]*[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;

/** Whether `value` (trimmed) is an address the server accepts. */
export function isEmailAddress(value: string): boolean {
  const trimmed = value.trim();
  return trimmed.length <= 320 && EMAIL_PATTERN.test(trimmed);
}

/** What a voice question asks for when it is left empty. */
export function recordingRequiredMessage(allowsText: boolean): string {
  return allowsText ? t("error.recordOrType") : t("error.record");
}

/** The sentence for a required question left empty, by its type. */
export function requiredMessage(q: PublicQuestion): string {
  switch (q.response_type) {
    case "voice":
    case "voice_text_fallback":
      return recordingRequiredMessage(q.response_type === "voice_text_fallback" || q.fallback_to_text !== false);
    case "multiple_choice":
    case "image_choice":
    case "yes_no":
    case "rating":
      return t("error.choose");
    case "file_upload":
      return t("error.attach");
    default:
      return t("error.required");
  }
}

/** Wildcards and well-known names; other types read as "<EXT> files" or "<EXT> images". */
const TYPE_WORDS: Record<string, MessageKey> = {
  "image/*": "file.images",
  "audio/*": "file.audio",
  "video/*": "file.videos",
  "text/*": "file.text",
  plain: "file.text",
  txt: "file.text",
  jpg: "file.jpeg",
  jpeg: "file.jpeg",
  msword: "file.word",
  doc: "file.word",
  docx: "file.word",
  "vnd.openxmlformats-officedocument.wordprocessingml.document": "file.word",
  "vnd.ms-excel": "file.excel",
  xls: "file.excel",
  xlsx: "file.excel",
  "vnd.openxmlformats-officedocument.spreadsheetml.sheet": "file.excel",
};
const IMAGE_EXTENSIONS = new Set(["png", "gif", "webp", "heic", "avif", "bmp", "tiff", "svg+xml", "svg"]);

function typeWords(pattern: string): string {
  const key = pattern.trim().toLowerCase();
  // ".pdf" → "pdf"; "application/pdf" → "pdf"; "model/*" → "*"
  const ext = key.startsWith(".") ? key.slice(1) : (key.split("/")[1] ?? key);
  const known = TYPE_WORDS[key] ?? TYPE_WORDS[ext];
  if (known) return t(known);
  if (ext === "*") return t("file.namedFiles", { name: key.split("/")[0]! });
  const name = ext
    .replace(/^x-/, "")
    .replace(/\+xml$/, "")
    .toUpperCase();
  return IMAGE_EXTENSIONS.has(ext) || key.startsWith("image/") ? t("file.namedImages", { name }) : t("file.namedFiles", { name });
}

/**
 * The allowed files in words: `["image/*", ".pdf"]`, 10 → "Images or PDF files, up to 10 MB."
 * (no types: "Any file, up to 10 MB.").
 */
export function describeFileTypes(allowed: string[] | undefined, maxMb: number): string {
  const words = [...new Set((allowed ?? []).filter((type) => type.trim() !== "").map(typeWords))];
  const kinds = words.length ? orList(words) : t("file.anyFile");
  return t("file.hint", { kinds: capitalize(kinds), size: formatMegabytes(maxMb) });
}

/** What the problem is about, to word it for the respondent. */
export interface ProblemContext {
  question?: PublicQuestion;
  /** Set for a recording's upload: the question's `max_duration` in seconds. */
  recordingMaxS?: number;
}

/** The sentence for a number outside the question's range (or not a number). */
export function numberMessage(c: PublicQuestion["configuration"]): string {
  if (c.min !== undefined && c.max !== undefined) return t("error.numberRange", { min: c.min, max: c.max });
  if (c.min !== undefined) return t("error.numberAtLeast", { min: c.min });
  if (c.max !== undefined) return t("error.numberAtMost", { max: c.max });
  return t("error.number");
}

function invalidAnswer(q: PublicQuestion | undefined): string {
  const c = q?.configuration ?? {};
  switch (q?.response_type) {
    case "email":
      return emailMessage();
    case "number":
      return numberMessage(c);
    case "date":
      return t("error.date");
    case "text":
    case "voice":
    case "voice_text_fallback":
      return c.max_characters ? t("error.maxCharacters", { count: c.max_characters }) : t("error.notSaved");
    case "multiple_choice":
    case "image_choice":
    case "yes_no":
    case "rating":
      return t("error.chooseShown");
    case "file_upload":
      return t("error.fileUnusable");
    default:
      return t("error.notSaved");
  }
}

function fileProblem(err: ApiError, q: PublicQuestion | undefined): string {
  const maxMb = q?.configuration.max_size_mb ?? 10;
  if (err.code === "PAYLOAD_TOO_LARGE") return t("error.fileTooLarge", { size: formatMegabytes(maxMb) });
  if (err.code === "UNSUPPORTED_MEDIA_TYPE") {
    const allowed = q?.configuration.allowed_types ?? [];
    return allowed.length ? t("error.fileKindAllowed", { kinds: orList([...new Set(allowed.map(typeWords))]) }) : t("error.fileKind");
  }
  return invalidAnswer(q);
}

/**
 * A problem as the respondent should read it: never a developer's message, a MIME pattern or
 * a status code.
 */
export function respondentMessage(err: unknown, about: ProblemContext = {}): string {
  if (!(err instanceof ApiError)) return t("error.generic");
  const q = about.question;
  const recording = about.recordingMaxS !== undefined;
  switch (err.code) {
    case "NETWORK":
      return t("error.network");
    case "RATE_LIMITED":
      return t("error.rateLimited");
    case "LINK_PAUSED":
      return t("error.paused");
    case "LINK_CLOSED":
      return t("error.closed");
    case "CONSENT_REQUIRED":
      return t("error.consent");
    case "ALREADY_SUBMITTED":
      return t("error.alreadySubmitted");
    case "INVITATION_REQUIRED":
      return t("page.invitation.required.text");
    case "INVITATION_USED":
      return t("page.invitation.used.text");
    case "INVITATION_EXPIRED":
      return t("page.invitation.expired.text");
    case "INVITATION_REVOKED":
      return t("page.invitation.revoked.text");
    case "NOT_FOUND":
      return t("error.notFound");
    case "AUDIO_TOO_LONG":
      return t("error.recordingTooLong", { duration: formatDuration(about.recordingMaxS ?? q?.configuration.max_duration ?? 120) });
    case "PAYLOAD_TOO_LARGE":
    case "UNSUPPORTED_MEDIA_TYPE":
      if (recording) return t("error.recordingUnusable");
      return fileProblem(err, q);
    case "VALIDATION_ERROR":
      if (recording) return t("error.recordingUnusable");
      if (q?.response_type === "file_upload") return fileProblem(err, q);
      return invalidAnswer(q);
    default:
      return err.status >= 500 ? t("error.server") : t("error.generic");
  }
}
