/**
 * @module http/validation
 * Runs a zod schema over request input and turns its issues into `VALIDATION_ERROR` with JSON
 * pointers (RFC 6901) into the request, as DESIGN §4 requires.
 */
import type { z } from "zod";
import { AppError, type FieldError } from "../errors.ts";

function escapeSegment(segment: PropertyKey): string {
  return String(segment).replaceAll("~", "~0").replaceAll("/", "~1");
}

/** JSON pointer of a path, e.g. `["questions", 2, "configuration"]` → `/questions/2/configuration`. */
export function toPointer(path: readonly PropertyKey[]): string {
  return path.map((s) => "/" + escapeSegment(s)).join("");
}

/** Flattens zod issues into field errors; unknown keys get one pointer each. */
export function issuesToFieldErrors(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[] = []): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) out.push({ pointer: toPointer([...prefix, ...issue.path, key]), message: "Unknown field." });
    } else {
      out.push({ pointer: toPointer([...prefix, ...issue.path]), message: issue.message });
    }
  }
  return out;
}

/**
 * Parses `input` with `schema`.
 * @returns the parsed (and transformed) value
 * @throws AppError VALIDATION_ERROR listing every issue with its pointer
 */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown, what = "request"): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const errors = issuesToFieldErrors(result.error.issues);
  const first = errors[0];
  const detail = first ? `The ${what} is not valid: ${first.pointer || "/"} ${first.message}` : `The ${what} is not valid.`;
  throw new AppError("VALIDATION_ERROR", detail, { errors });
}

/**
 * Reads a JSON request body that Elysia has parsed, insisting on a JSON media type.
 * @throws AppError UNSUPPORTED_MEDIA_TYPE when the body is not `application/json`
 */
export function requireJsonBody(request: Request, body: unknown): unknown {
  const type = request.headers.get("content-type") ?? "";
  const hasBody = body !== undefined && body !== null && body !== "";
  if (!hasBody && !type) return {};
  if (!/^application\/([a-z.+-]+\+)?json\b/i.test(type)) {
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send the body as application/json.");
  }
  return body === undefined ? {} : body;
}
