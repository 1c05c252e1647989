/**
 * @module http/body
 * Request bodies are read only after the request has been admitted, and never past their route's
 * limit (DESIGN §4, §9; docs/api.md "Limits"):
 * - any body whose `Content-Length` exceeds {@link GLOBAL_MAX_BODY_BYTES} is refused before routing;
 * - API routes that need a key check the credential before a byte of the body is read;
 * - JSON (and any other body of a route that is not an upload) may be at most 1 MiB, in bytes;
 * - a binary body of a keyed upload route may be larger (`POST media/images/`: 5 MiB);
 * - the intake upload routes get a {@link PendingBody} and read it themselves, once they know the
 *   question's cap (recordings: `max_duration`; files: `max_size_mb`) and the session's allowance.
 * A declared length over the limit is refused without reading; a chunked body is read until the
 * limit is crossed, then the read is cancelled. Refusals are problem+json 413 `PAYLOAD_TOO_LARGE`.
 */
import type { Config } from "../config.ts";
import type { Database } from "../db/schema.ts";
import type { Kysely } from "kysely";
import { AppError } from "../errors.ts";
import { hashApiKey, isWellFormedApiKey } from "../auth/keys.ts";
import { isSecureTransport } from "../auth/authenticate.ts";
import { SESSION_IDLE_S, readCookie, sha256Hex } from "../auth/sessions.ts";
import { isoAfter, nowIso } from "../clock.ts";
import { findActiveTokenByHash, findSession } from "../auth/repository.ts";

/** JSON bodies (and every body of a route that is not an upload) above this answer 413. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/**
 * No request may declare a body larger than this: the largest file a question may accept
 * (`max_size_mb` ≤ 100) plus room for the multipart envelope.
 */
export const GLOBAL_MAX_BODY_BYTES = 101 * 1024 * 1024;

/** An image for image-choice cards (`POST media/images/`, issue 26) may be at most this many bytes. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Keyed routes whose (binary) body may be larger than {@link MAX_JSON_BODY_BYTES}, with their limit. */
const KEYED_UPLOAD_LIMITS: [RegExp, number][] = [[/^\/api\/v1\/media\/images\/$/, MAX_IMAGE_BYTES]];

/** The intake routes that read their own (large) bodies. */
const UPLOAD_PATH = /^\/api\/v1\/intake\/[^/]+\/[^/]+\/sessions\/[^/]+\/answers\/[^/]+\/(audio|file|follow-ups\/[^/]+\/audio)\/$/;
/** API routes that take no key: the public intake and console sign-in. */
const PUBLIC_API_PATH = /^\/api\/v1\/(intake|auth)\//;

/** The refusal for a body above `limit` bytes. */
export function payloadTooLarge(limit: number, what = "The request body"): AppError {
  const mib = limit / (1024 * 1024);
  const size = Number.isInteger(mib) ? `${mib} MiB` : `${limit} bytes`;
  return new AppError("PAYLOAD_TOO_LARGE", `${what} may be at most ${size}.`);
}

/** The declared `Content-Length`, or null when absent (chunked) or unreadable. */
export function declaredLength(request: Request): number | null {
  const raw = request.headers.get("content-length");
  if (raw === null || !/^\d+$/.test(raw.trim())) return null;
  return Number(raw.trim());
}

/**
 * Reads a request body, refusing it as soon as it exceeds `limit` bytes.
 * @returns the bytes (empty when the request has no body)
 * @throws AppError PAYLOAD_TOO_LARGE (declared or actual length over `limit`; the read is cancelled)
 */
export async function readBodyWithin(request: Request, limit: number, what?: string): Promise<Uint8Array> {
  const declared = declaredLength(request);
  if (declared !== null && declared > limit) throw payloadTooLarge(limit, what);
  if (!request.body) return new Uint8Array(0);
  // A declared length bounds the body (the server reads no more than it): one read, no stream
  // reader (~5 % of an intake request's CPU, bench/intake.ts). Checked again all the same.
  if (declared !== null) {
    const bytes = await request.bytes();
    if (bytes.byteLength > limit) throw payloadTooLarge(limit, what);
    return bytes;
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw payloadTooLarge(limit, what);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** An upload body left unread by the parser; the route reads it once it knows the limit. */
export class PendingBody {
  constructor(
    readonly request: Request,
    /** The media type without parameters, lower case ("" when none). */
    readonly contentType: string,
  ) {}

  /** @see readBodyWithin */
  read(limit: number, what?: string): Promise<Uint8Array> {
    return readBodyWithin(this.request, limit, what);
  }
}

/**
 * Refuses, before reading, a request to a keyed API route that carries no valid credential: no
 * `Authorization: Bearer` key and no live console session (a cookie naming an existing, unexpired
 * session, over HTTPS or loopback), a malformed key, or a key that is unknown or revoked. Rate
 * limits, scopes, CSRF and membership are left to the route's own authentication.
 * @throws AppError UNAUTHENTICATED, HTTPS_REQUIRED
 */
async function precheckCredential(db: Kysely<Database>, config: Config, request: Request, peer: string | null): Promise<void> {
  const header = request.headers.get("authorization") ?? "";
  if (!header) {
    const cookie = readCookie(request);
    if (!cookie) throw new AppError("UNAUTHENTICATED", "Send an API key as 'Authorization: Bearer sk_live_…'.");
    if (!isSecureTransport(request, peer, config)) {
      throw new AppError("HTTPS_REQUIRED", "The console and its session cookie work only over HTTPS (or from this machine).");
    }
    const session = await findSession(db, sha256Hex(cookie));
    if (!session || session.expires_at <= nowIso() || session.last_seen_at <= isoAfter(-SESSION_IDLE_S)) {
      throw new AppError("UNAUTHENTICATED", "The session has ended; sign in again.");
    }
    return;
  }
  if (!isSecureTransport(request, peer, config)) throw new AppError("HTTPS_REQUIRED", "API keys are accepted only over HTTPS.");
  const key = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  if (!key || !isWellFormedApiKey(key)) throw new AppError("UNAUTHENTICATED", "The API key is malformed.");
  if (!(await findActiveTokenByHash(db, hashApiKey(key)))) throw new AppError("UNAUTHENTICATED", "The API key is unknown or revoked.");
}

const JSON_TYPE = /^application\/([a-z.+-]+\+)?json$/;

/**
 * The body parser of the whole app (Elysia `onParse`): applies the rules of this module's header.
 * @param contentType the media type as Elysia passes it (parameters stripped)
 * @returns the parsed body: JSON value, text, FormData, bytes (ArrayBuffer), or a PendingBody for uploads
 * @throws AppError PAYLOAD_TOO_LARGE, INVALID_JSON, VALIDATION_ERROR (malformed multipart), UNAUTHENTICATED, HTTPS_REQUIRED
 */
export async function parseRequestBody(
  deps: { db: Kysely<Database>; config: Config },
  request: Request,
  contentType: string | undefined,
  peer: string | null,
): Promise<unknown> {
  const type = (contentType ?? "").toLowerCase().split(";")[0]!.trim();
  const path = new URL(request.url).pathname;
  if (UPLOAD_PATH.test(path)) return new PendingBody(request, type);
  if (path.startsWith("/api/") && !PUBLIC_API_PATH.test(path)) await precheckCredential(deps.db, deps.config, request, peer);
  const isJson = JSON_TYPE.test(type);
  const upload = isJson ? undefined : KEYED_UPLOAD_LIMITS.find(([re]) => re.test(path));
  const bytes = await readBodyWithin(request, upload?.[1] ?? MAX_JSON_BODY_BYTES, isJson ? "JSON bodies" : "The request body");
  if (isJson) {
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      throw new AppError("INVALID_JSON", "The request body is not valid UTF-8 JSON.");
    }
    if (text.trim() === "") return {};
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new AppError("INVALID_JSON", "The request body is not valid JSON.");
    }
  }
  if (type === "multipart/form-data") return parseMultipart(bytes, request.headers.get("content-type") ?? "");
  // Recordings and other binary bodies arrive as bytes; routes check what they got.
  if (type.startsWith("text/") || type === "application/x-www-form-urlencoded") return new TextDecoder().decode(bytes);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}

/**
 * Parses a multipart/form-data body already read within its limit.
 * @param contentTypeHeader the full header, with its boundary
 * @throws AppError VALIDATION_ERROR (pointer `/`) when the body is not well-formed multipart
 */
export async function parseMultipart(bytes: Uint8Array, contentTypeHeader: string): Promise<FormData> {
  try {
    return await new Response(bytes as BodyInit, { headers: { "content-type": contentTypeHeader } }).formData();
  } catch {
    throw new AppError("VALIDATION_ERROR", "The request body is not well-formed multipart/form-data.", {
      errors: [{ pointer: "", message: "Malformed multipart/form-data." }],
    });
  }
}

/** A file name without control characters (U+0000–U+001F, U+007F), which no stored name or header should carry. */
const withoutControls = (name: string) => Array.from(name, (c) => (c.charCodeAt(0) < 0x20 || c === "\u007f" ? "" : c)).join("");

/**
 * The uploaded file of a multipart form's part `partName`, with a safe file name: what follows the
 * last `/` of the name the client sent (RFC 7578 §4.2: no directories; a backslash is a character
 * of Unix file names and stays), without control characters, trimmed,
 * at most 255 characters. The part's own Content-Type is ignored (the bytes decide the type).
 * @returns `{ file, name }`
 * @throws AppError VALIDATION_ERROR (pointer `/{partName}`) when the part is missing, is a plain
 *   form field (no `filename`, or only `filename*`), or its file name is empty — `filename=` or
 *   `filename=""`, blanks, or only a path
 */
export function filePartOf(form: FormData, partName = "file"): { file: File; name: string } {
  const part = form.get(partName);
  const refuse = (message: string) => new AppError("VALIDATION_ERROR", message, { errors: [{ pointer: `/${partName}`, message }] });
  if (part === null) throw refuse(`The form has no part named ${partName}.`);
  if (!(part instanceof File)) throw refuse(`The part ${partName} must be a file upload with a file name (filename="…").`);
  // Bun leaves `name` undefined for `filename=` and `filename=""`.
  const sent = typeof part.name === "string" ? part.name : "";
  const name = withoutControls(sent.split("/").pop() ?? "")
    .trim()
    .slice(0, 255);
  if (name === "" || name === "." || name === "..") throw refuse(`The part ${partName} has no file name (filename="…").`);
  return { file: part, name };
}
