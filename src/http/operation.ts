/**
 * @module http/operation
 * The declaration of one API endpoint (`Operation`): method, path, scope, body and query schemas,
 * success and error answers. Each feature declares its own in `modules/<feature>/operations.ts`;
 * src/api/ collects them into the OpenAPI document, and the routes read path, scope and body
 * schema from the same declaration. Also the two schema builders declarations use: the list
 * envelope (`envelopeOf`) and the page query (`pagedQuery`).
 */
import { z } from "zod";
import { lazySchema } from "../shared/lazy-schema.ts";
import type { AnyScope } from "../auth/keys.ts";
import { pageQuerySchema } from "./pagination.ts";
import { parseWith } from "./validation.ts";

/** What an audited action names as its target (the audit log's `target`). */
export type AuditTarget = { type: string; uuid: string | null; label: string | null };

/**
 * That a successful request is recorded in the audit log, and as what: `action` (one of
 * modules/audit/service.ts's `AUDIT_ACTIONS`; a test holds every declaration to that list) and
 * its target from the path parameters or the handler's JSON answer (null when not JSON).
 */
export type AuditDeclaration = {
  action: string;
  target: (params: Record<string, string>, body: Record<string, unknown> | null) => AuditTarget;
};

/** One API operation as documented. */
export type Operation = {
  method: "get" | "post" | "patch" | "put" | "delete";
  /** Elysia path, e.g. `/api/v1/links/:link_uuid/`. */
  path: string;
  summary: string;
  tag: string;
  /** Scope the key needs; null for any valid key; "public" for no key (intake, console sign-in). */
  scope: AnyScope | null | "public";
  /**
   * The key or session is not re-checked before the answer leaves: only for revoking one's own
   * key or session, where the revocation is the request's whole effect (http/auth-plugin.ts).
   */
  recheck?: false;
  /** A success is recorded in the audit log (after the re-check), as this action and target. */
  audit?: AuditDeclaration;
  body?: z.ZodType;
  /** The body may be left out (the route then reads `{}`). */
  bodyOptional?: true;
  /** Non-JSON request body media types: raw bytes (e.g. audio), or `multipart/form-data` with a part `file`. */
  rawBody?: readonly string[];
  /** The operation takes the empty JSON object `{}` (or no body). */
  emptyBody?: true;
  query?: z.ZodObject;
  /** Also reachable with a signed URL's `exp` and `sig` query instead of a key (recordings). */
  signedUrl?: true;
  success: { status: number; schema?: z.ZodType; description: string; mediaType?: string; mediaTypes?: readonly string[] };
  /** Another success status with the same body (e.g. 200 when a start resumes instead of creating). */
  alsoSuccess?: { status: number; description: string };
  errors: readonly string[];
  /** The 200 carries an `ETag`; `If-None-Match` with it answers 304 (http/conditional.ts). */
  conditional?: boolean;
};

const envelopes = new WeakMap<z.ZodType, z.ZodType>();
/** The list envelope around `item` (spec: general rule 5); one schema per item, named `<Item>Page`, built at its first use. */
export function envelopeOf(item: z.ZodType) {
  let e = envelopes.get(item);
  if (!e) {
    e = lazySchema(() =>
      z.object({
        count: z.number().int().min(0),
        next: z.string().nullable().describe("Absolute URL of the next page, or null"),
        previous: z.string().nullable().describe("Absolute URL of the previous page, or null"),
        results: z.array(item),
      }),
    );
    envelopes.set(item, e);
  }
  return e as z.ZodObject;
}

/** The page query (`page_size`, `offset`) with `query`'s parameters, built at its first use. */
export function pagedQuery(query?: z.ZodObject): z.ZodObject {
  return query ? lazySchema(() => pageQuerySchema.extend(query.shape)) : pageQuerySchema;
}

/**
 * Declares one endpoint; the declaration's literal types are kept (its path gives the route its
 * typed `params`, its body schema the parsed body's type).
 * @returns `op` itself
 */
export function operation<const O extends Operation>(op: O): O {
  return op;
}

/**
 * Parses a request body with the schema its declaration publishes (the handler and the document
 * cannot disagree). `what` names the input in the message (`The body is not valid: …`).
 * @throws AppError VALIDATION_ERROR listing every issue with its pointer
 */
export function parseBody<S extends z.ZodType>(op: { body: S }, input: unknown, what?: string): z.output<S> {
  return parseWith(op.body, input, what);
}

/** `v` when it is a string, else null: an audit target's uuid or label read from a JSON answer. */
export function textOf(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}
