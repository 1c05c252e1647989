/**
 * @module web/intake/messages
 * Everything the respondent reads about a problem, in plain words: the server's problems
 * (`code` + `errors`, written for developers: "Expected a valid email address.") become
 * sentences about the question at hand, allowed file types are named in words ("Images or PDF
 * files") rather than MIME patterns, and email addresses are checked on the page the way the
 * server checks them.
 */
import { ApiError } from "./api.ts";
import type { PublicQuestion } from "./types.ts";

/** Shown when a required question is left empty (types without a better sentence). */
export const REQUIRED_MESSAGE = "Please answer this question to continue.";
/** Shown for an email address the server would refuse. */
export const EMAIL_MESSAGE = "Please enter an email address like name@example.com.";
const GENERIC = "Something went wrong. Please try again.";

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
  return allowsText
    ? "Please record your answer, or type it if you prefer, to continue."
    : "Please record your answer to continue.";
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
      return "Please choose an answer to continue.";
    case "file_upload":
      return "Please attach a file to continue.";
    default:
      return REQUIRED_MESSAGE;
  }
}

/** Wildcards and well-known names; other types read as "<EXT> files" or "<EXT> images". */
const TYPE_WORDS: Record<string, string> = {
  "image/*": "images",
  "audio/*": "audio files",
  "video/*": "videos",
  "text/*": "text files",
  plain: "text files",
  txt: "text files",
  jpg: "JPEG images",
  jpeg: "JPEG images",
  msword: "Word documents",
  doc: "Word documents",
  docx: "Word documents",
  "vnd.openxmlformats-officedocument.wordprocessingml.document": "Word documents",
  "vnd.ms-excel": "Excel spreadsheets",
  xls: "Excel spreadsheets",
  xlsx: "Excel spreadsheets",
  "vnd.openxmlformats-officedocument.spreadsheetml.sheet": "Excel spreadsheets",
};
const IMAGE_EXTENSIONS = new Set(["png", "gif", "webp", "heic", "avif", "bmp", "tiff", "svg+xml", "svg"]);

function typeWords(pattern: string): string {
  const key = pattern.trim().toLowerCase();
  // ".pdf" → "pdf"; "application/pdf" → "pdf"; "model/*" → "*"
  const ext = key.startsWith(".") ? key.slice(1) : (key.split("/")[1] ?? key);
  const known = TYPE_WORDS[key] ?? TYPE_WORDS[ext];
  if (known) return known;
  if (ext === "*") return `${key.split("/")[0]} files`;
  const name = ext.replace(/^x-/, "").replace(/\+xml$/, "").toUpperCase();
  return IMAGE_EXTENSIONS.has(ext) || key.startsWith("image/") ? `${name} images` : `${name} files`;
}

/** "a", "a or b", "a, b or c". */
function orList(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}

/**
 * The allowed files in words: `["image/*", ".pdf"]`, 10 → "Images or PDF files, up to 10 MB."
 * (no types: "Any file, up to 10 MB.").
 */
export function describeFileTypes(allowed: string[] | undefined, maxMb: number): string {
  const words = [...new Set((allowed ?? []).filter((t) => t.trim() !== "").map(typeWords))];
  const kinds = words.length ? orList(words) : "any file";
  return `${kinds.charAt(0).toUpperCase()}${kinds.slice(1)}, up to ${maxMb} MB.`;
}

/** What the problem is about, to word it for the respondent. */
export interface ProblemContext {
  question?: PublicQuestion;
  /** Set for a recording's upload: the question's `max_duration` in seconds. */
  recordingMaxS?: number;
}

function invalidAnswer(q: PublicQuestion | undefined): string {
  const c = q?.configuration ?? {};
  switch (q?.response_type) {
    case "email":
      return EMAIL_MESSAGE;
    case "number": {
      if (c.min !== undefined && c.max !== undefined) return `Please enter a number from ${c.min} to ${c.max}.`;
      if (c.min !== undefined) return `Please enter a number of at least ${c.min}.`;
      if (c.max !== undefined) return `Please enter a number of at most ${c.max}.`;
      return "Please enter a number.";
    }
    case "date":
      return "Please enter a real date.";
    case "text":
    case "voice":
    case "voice_text_fallback":
      return c.max_characters ? `Please keep your answer under ${c.max_characters} characters.` : "This answer could not be saved. Please check it and try again.";
    case "multiple_choice":
    case "image_choice":
    case "yes_no":
    case "rating":
      return "Please choose one of the answers shown.";
    case "file_upload":
      return "This file could not be used. Please choose another one.";
    default:
      return "This answer could not be saved. Please check it and try again.";
  }
}

function fileProblem(err: ApiError, q: PublicQuestion | undefined): string {
  const maxMb = q?.configuration.max_size_mb ?? 10;
  if (err.code === "PAYLOAD_TOO_LARGE") return `This file is too large. Files can be up to ${maxMb} MB.`;
  if (err.code === "UNSUPPORTED_MEDIA_TYPE") {
    const allowed = q?.configuration.allowed_types ?? [];
    return allowed.length
      ? `This kind of file can't be used here. Please choose ${orList([...new Set(allowed.map(typeWords))])}.`
      : "This kind of file can't be used here. Please choose another file.";
  }
  return invalidAnswer(q);
}

function minutes(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} seconds`;
  const m = Math.round(seconds / 6) / 10;
  return `${m} ${m === 1 ? "minute" : "minutes"}`;
}

/**
 * A problem as the respondent should read it: never a developer's message, a MIME pattern or
 * a status code.
 */
export function respondentMessage(err: unknown, about: ProblemContext = {}): string {
  if (!(err instanceof ApiError)) return GENERIC;
  const q = about.question;
  const recording = about.recordingMaxS !== undefined;
  switch (err.code) {
    case "NETWORK":
      return "The connection failed. Check your network and try again.";
    case "RATE_LIMITED":
      return "Too many attempts in a short time. Please wait a minute and try again.";
    case "LINK_PAUSED":
      return "This form is not accepting responses right now.";
    case "ALREADY_SUBMITTED":
      return "This response has already been sent.";
    case "NOT_FOUND":
      return "This form has changed or is no longer available. Please reload the page.";
    case "AUDIO_TOO_LONG":
      return `This recording is too long. Please keep it under ${minutes(about.recordingMaxS ?? q?.configuration.max_duration ?? 120)}.`;
    case "PAYLOAD_TOO_LARGE":
    case "UNSUPPORTED_MEDIA_TYPE":
      if (recording) return "This recording could not be used. Please record your answer again.";
      return fileProblem(err, q);
    case "VALIDATION_ERROR":
      if (recording) return "This recording could not be used. Please record your answer again.";
      if (q?.response_type === "file_upload") return fileProblem(err, q);
      return invalidAnswer(q);
    default:
      return err.status >= 500 ? "Something went wrong on our side. Please try again in a moment." : GENERIC;
  }
}
