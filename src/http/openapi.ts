/**
 * @module http/openapi
 * The OpenAPI 3.1 document at `/api/v1/openapi.json`, generated from the same zod schemas that
 * validate requests (one source of truth). Each feature lists its operations in an
 * `operations.ts`; this module turns them into paths and components.
 */
import { z } from "zod";

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
  /** Non-JSON request body media types (e.g. audio). */
  rawBody?: string[];
  query?: z.ZodObject;
  success: { status: number; schema?: z.ZodType; description: string; mediaType?: string };
  errors: string[];
  /** The 200 carries an `ETag`; `If-None-Match` with it answers 304 (http/conditional.ts). */
  conditional?: boolean;
};

const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  code: z.string(),
  detail: z.string(),
  errors: z.array(z.object({ pointer: z.string(), message: z.string() })).optional(),
});

/** The list envelope around `item` (spec: general rule 5). */
export function envelopeOf(item: z.ZodType) {
  return z.object({ count: z.number().int(), next: z.string().nullable(), previous: z.string().nullable(), results: z.array(item) });
}

const STATUS_OF: Record<string, number> = {
  NAME_REQUIRED: 400, SLUG_CONFLICT: 400, VALIDATION_ERROR: 400, INVALID_JSON: 400, UNAUTHENTICATED: 401, INSUFFICIENT_SCOPE: 403,
  LINK_LIMIT_REACHED: 403, HTTPS_REQUIRED: 403, NOT_FOUND: 404, INVALID_PAGE: 404, LINK_PAUSED: 409, ALREADY_SUBMITTED: 409,
  PAYLOAD_TOO_LARGE: 413, UNSUPPORTED_MEDIA_TYPE: 415, RATE_LIMITED: 429, INVALID_CREDENTIALS: 401, CSRF_FAILED: 403, LAST_OWNER: 400,
};

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const s = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as Record<string, unknown>;
  delete s.$schema;
  return s;
}

/** Converts `/api/v1/links/:link_uuid/` to `/links/{link_uuid}/` relative to the server URL. */
export function toOpenApiPath(path: string): string {
  return path.replace(/^\/api\/v1/, "").replace(/:([a-z_]+)/g, "{$1}");
}

/**
 * Builds the document.
 * @param serverUrl `{EARSHOT_PUBLIC_URL}/api/v1`
 */
export function buildOpenApiDocument(operations: readonly Operation[], serverUrl: string, version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const p = toOpenApiPath(op.path);
    const params = [...p.matchAll(/\{([a-z_]+)\}/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
    const queryParams = op.query
      ? Object.entries(op.query.shape).map(([name, s]) => ({ name, in: "query", required: false, schema: jsonSchema(s as z.ZodType, "input") }))
      : [];
    const responses: Record<string, unknown> = {
      [String(op.success.status)]: {
        description: op.success.description,
        ...(op.success.schema ? { content: { [op.success.mediaType ?? "application/json"]: { schema: jsonSchema(op.success.schema, "output") } } } : {}),
      },
    };
    if (op.conditional) {
      const etag = { ETag: { description: "Weak tag of the workspace's data; send it back in If-None-Match", schema: { type: "string" } } };
      Object.assign(responses[String(op.success.status)] as object, { headers: etag });
      responses["304"] = { description: "Not Modified: nothing changed since the ETag sent in If-None-Match (no body)", headers: etag };
    }
    for (const code of op.errors) {
      const status = String(STATUS_OF[code] ?? 400);
      const existing = responses[status] as { description: string } | undefined;
      responses[status] = {
        description: existing ? `${existing.description}, ${code}` : code,
        content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
      };
    }
    const operation: Record<string, unknown> = {
      operationId: `${op.method}_${p.replace(/[{}]/g, "").replace(/[^a-z0-9]+/gi, "_").replace(/^_|_$/g, "")}`,
      summary: op.summary,
      tags: [op.tag],
      parameters: [
        ...params,
        ...queryParams,
        ...(op.conditional ? [{ name: "If-None-Match", in: "header", required: false, schema: { type: "string" }, description: "An ETag from an earlier answer: 304 while nothing changed" }] : []),
      ],
      responses,
      security: op.scope === "public" ? [] : [{ bearer: op.scope ? [op.scope] : [] }, { session: [] }],
      ...(op.scope && op.scope !== "public" ? { "x-required-scope": op.scope } : {}),
    };
    if (op.body) operation.requestBody = { required: true, content: { "application/json": { schema: jsonSchema(op.body, "input") } } };
    if (op.rawBody) operation.requestBody = { required: true, content: Object.fromEntries(op.rawBody.map((t) => [t, { schema: { type: "string", contentMediaType: t } }])) };
    paths[p] ??= {};
    paths[p][op.method] = operation;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Earshot API",
      version,
      description: "Feedback links with voice answers, local transcription and insights. Every path ends in `/`; errors are RFC 9457 problem+json with a `code`.",
    },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "API key `sk_live_…` (DESIGN §5)" },
        session: { type: "apiKey", in: "cookie", name: "earshot_session", description: "Console session (DESIGN §10): the role's scopes apply; writes need `X-CSRF-Token` and the same origin" },
      },
      schemas: { Problem: jsonSchema(problemSchema, "output") },
    },
  };
}
