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
import { pageQuerySchema } from "./pagination.ts";

/** One API operation as documented. */
export type Operation = {
  method: "get" | "post" | "patch" | "put" | "delete";
  /** Elysia path, e.g. `/api/v1/links/:link_uuid/`. */
  path: string;
  summary: string;
  tag: string;
  /** Scope the key needs; null for any valid key; "public" for no key (intake). */
  scope: string | null;
  body?: z.ZodType;
  /** The body may be left out (the route then reads `{}`). */
  bodyOptional?: true;
  /** Non-JSON request body media types: raw bytes (e.g. audio), or `multipart/form-data` with a part `file`. */
  rawBody?: string[];
  /** The operation takes the empty JSON object `{}` (or no body). */
  emptyBody?: true;
  query?: z.ZodObject;
  /** Also reachable with a signed URL's `exp` and `sig` query instead of a key (recordings). */
  signedUrl?: true;
  success: { status: number; schema?: z.ZodType; description: string; mediaType?: string; mediaTypes?: string[] };
  /** Another success status with the same body (e.g. 200 when a start resumes instead of creating). */
  alsoSuccess?: { status: number; description: string };
  errors: string[];
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
