/**
 * @module api/openapi
 * The OpenAPI 3.1 document at `/api/v1/openapi.json`, generated from the same zod schemas that
 * validate requests (one source of truth). Each feature lists its operations in an
 * `operations.ts`; this module turns them into paths, named components (`Link`, `Question`, …,
 * `LinkPage`), the statuses and headers the server sends, and the `webhooks` it POSTs.
 */
import { z } from "zod";
import { lazySchema } from "../shared/lazy-schema.ts";
import { ERROR_CODES } from "../errors.ts";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../http/pagination.ts";
import { envelopeOf, type Operation } from "../http/operation.ts";
import { questionInputSchema, questionSchema } from "../modules/links/question-model.ts";
import { settingsInputSchema } from "../modules/links/model.ts";
import { questionDocSchema, questionInputDocSchema } from "../modules/links/question-doc.ts";
import { addFieldFormats, annotateComponents, namedComponents, addSettingsDefaults } from "./openapi-components.ts";
import { responseStartedEventSchema, responseSubmittedEventSchema } from "../modules/responses/event-schemas.ts";
import { testEventSchema } from "../modules/webhooks/event-schemas.ts";

const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as [keyof typeof ERROR_CODES, ...(keyof typeof ERROR_CODES)[]];

const problemSchema = lazySchema(() =>
  z.object({
    type: z.string().describe("`https://earshot.dev/problems/<code in kebab case>`"),
    title: z.string(),
    status: z.number().int().min(400).max(599),
    code: z.enum(ERROR_CODE_NAMES).describe("Machine-readable error code (src/errors.ts)"),
    detail: z.string(),
    errors: z.array(z.object({ pointer: z.string().describe("JSON pointer into the request (body, or /query/<name>)"), message: z.string() })).optional(),
    ticket: z.string().optional().describe("TWO_FACTOR_REQUIRED only: the single-use ticket for `POST auth/two-factor/` (5 minutes)"),
    expires_at: z.string().optional().describe("TWO_FACTOR_REQUIRED only: when the ticket expires"),
  }),
);

let named = false;
/** Gives the component schemas their ids in zod's global registry (once; descriptions are kept). */
function nameComponents(): void {
  if (named) return;
  named = true;
  const add = (schema: z.ZodType, id: string) => z.globalRegistry.add(schema, { ...z.globalRegistry.get(schema), id });
  add(problemSchema, "Problem");
  for (const [schema, id] of namedComponents()) {
    add(schema, id);
    add(envelopeOf(schema), `${id}Page`);
  }
}
/** Drops the bounds zod gives every `.int()` (±2^53−1): they say nothing to a reader (in place). */
function dropSafeIntegerBounds(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(dropSafeIntegerBounds);
  if (!node || typeof node !== "object") return;
  const obj = node as Record<string, unknown>;
  if (obj.minimum === Number.MIN_SAFE_INTEGER) delete obj.minimum;
  if (obj.maximum === Number.MAX_SAFE_INTEGER) delete obj.maximum;
  for (const v of Object.values(obj)) dropSafeIntegerBounds(v);
}

/** Replaces `{$ref: "#/$defs/X"}` with a copy of `defs.X`, recursively (request schemas are inlined). */
function inlineDefs(node: unknown, defs: Record<string, unknown>): unknown {
  if (Array.isArray(node)) return node.map((n) => inlineDefs(n, defs));
  if (!node || typeof node !== "object") return node;
  const obj = node as Record<string, unknown>;
  const ref = typeof obj.$ref === "string" ? /^#\/\$defs\/(.+)$/.exec(obj.$ref)?.[1] : undefined;
  if (ref && defs[ref]) {
    const { $ref: _, ...rest } = obj;
    const def = inlineDefs(defs[ref], defs) as Record<string, unknown>;
    delete def.id;
    return { ...def, ...rest };
  }
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, inlineDefs(v, defs)]));
}

/**
 * Converts zod schemas for the document. Response schemas use named components (`$ref`);
 * request schemas are inlined in their request body, where generators such as openapi-typescript
 * keep members with a `default` optional (in a component they would make them required).
 */
class Components {
  readonly schemas: Record<string, unknown> = {};
  private readonly pending = new Set<string>();
  private questionInput: Record<string, unknown> | null = null;

  /** JSON Schema of `schema`: for "output" named sub-schemas become `$ref`s; "input" is self-contained. */
  convert(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
    const s = z.toJSONSchema(schema, {
      io,
      unrepresentable: "any",
      target: "draft-2020-12",
      override: (ctx) => {
        const zs = ctx.zodSchema as unknown as z.ZodType;
        const json = ctx.jsonSchema as Record<string, unknown>;
        if (zs === questionSchema || (zs === questionInputSchema && io === "output")) {
          for (const k of Object.keys(json)) delete json[k];
          json.$ref = "#/$defs/Question";
        } else if (zs === questionInputSchema) {
          for (const k of Object.keys(json)) delete json[k];
          Object.assign(json, structuredClone((this.questionInput ??= this.convert(questionInputDocSchema, "input"))));
        } else if (zs === settingsInputSchema) {
          addSettingsDefaults(json);
        }
      },
    }) as Record<string, unknown>;
    dropSafeIntegerBounds(s);
    const defs = (s.$defs ?? {}) as Record<string, Record<string, unknown>>;
    delete s.$defs;
    delete s.$schema;
    delete s.id;
    if (io === "input") return inlineDefs(s, defs) as Record<string, unknown>;
    const out = JSON.parse(JSON.stringify(s).replace(/"#\/\$defs\/([A-Za-z0-9_]+)"/g, '"#/components/schemas/$1"')) as Record<string, unknown>;
    for (const [id, raw] of Object.entries(defs)) {
      const def = JSON.parse(JSON.stringify(raw).replace(/"#\/\$defs\/([A-Za-z0-9_]+)"/g, '"#/components/schemas/$1"')) as Record<string, unknown>;
      delete def.id;
      addFieldFormats(def);
      if (id in this.schemas && !this.pending.has(id) && JSON.stringify(this.schemas[id]) !== JSON.stringify(def))
        throw new Error(`OpenAPI component ${id} has two shapes`);
      this.schemas[id] = def;
    }
    if (JSON.stringify([s, defs]).includes('"#/$defs/Question"')) this.ref("Question", questionDocSchema);
    addFieldFormats(out);
    return out;
  }

  /** A `$ref` to a named response-side schema, converting it on first use. */
  ref(name: string, schema: z.ZodType): { $ref: string } {
    if (!(name in this.schemas) && !this.pending.has(name)) {
      this.pending.add(name);
      const json = this.convert(schema, "output");
      this.pending.delete(name);
      if (json.$ref !== `#/components/schemas/${name}`) this.schemas[name] = json;
    }
    return { $ref: `#/components/schemas/${name}` };
  }
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  workspace: "The API key's workspace: limits, usage and settings",
  links: "Feedback links and their questions",
  responses: "Responses, their answers, recordings, files, insights and dashboard numbers",
  tokens: "API keys and their scopes",
  webhooks: "Webhooks, their delivery logs, and the events Earshot POSTs to them",
  "console accounts": "Console sign-in, sessions, members and invites (session cookie)",
  audit: "The workspace's audit log",
  themes: "Themes across a link's open answers, the operator's codebook, and what changed (DESIGN §12)",
  intake: "The public respondent API the intake page uses (no key)",
};

/** Converts `/api/v1/links/:link_uuid/` to `/links/{link_uuid}/` relative to the server URL. */
export function toOpenApiPath(path: string): string {
  return path.replace(/^\/api\/v1/, "").replace(/:([a-z_]+)/g, "{$1}");
}

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
const RATE_HEADERS = {
  "RateLimit-Limit": header("RateLimit-Limit"),
  "RateLimit-Remaining": header("RateLimit-Remaining"),
  "RateLimit-Reset": header("RateLimit-Reset"),
};
const PROBLEM_CONTENT = { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } };

/** A query parameter's schema; `page` and `page_size` are documented as the integers they are. */
function queryParamSchema(name: string, s: z.ZodType, components: Components): Record<string, unknown> {
  if (name === "page") return { type: "integer", minimum: 1, default: 1, description: "1-based page number" };
  if (name === "page_size")
    return {
      type: "integer",
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      default: DEFAULT_PAGE_SIZE,
      description: `Items per page; larger values are treated as ${MAX_PAGE_SIZE}`,
    };
  return components.convert(s, "input");
}

/** Path parameter schema by name: `*_uuid` are uuids, `index` a follow-up number. */
function pathParamSchema(name: string): Record<string, unknown> {
  if (name.endsWith("_uuid")) return { type: "string", format: "uuid" };
  if (name === "index") return { type: "integer", minimum: 0 };
  return { type: "string" };
}

function requestBody(op: Operation, components: Components): Record<string, unknown> | undefined {
  if (op.body) return { required: !op.bodyOptional, content: { "application/json": { schema: components.convert(op.body, "input") } } };
  if (op.emptyBody) return { required: false, content: { "application/json": { schema: { type: "object", maxProperties: 0, description: "`{}`" } } } };
  if (!op.rawBody) return undefined;
  const content: Record<string, unknown> = {};
  for (const t of op.rawBody) {
    content[t] =
      t === "multipart/form-data"
        ? {
            schema: {
              type: "object",
              properties: { file: { type: "string", format: "binary", description: "The file; its type is judged by its bytes" } },
              required: ["file"],
            },
          }
        : { schema: { type: "string", format: "binary" } };
  }
  return { required: true, content };
}

function responses(op: Operation, components: Components): Record<string, unknown> {
  const keyed = op.scope !== "public";
  const successContent = (() => {
    if (!op.success.schema) return undefined;
    const types = op.success.mediaTypes ?? [op.success.mediaType ?? "application/json"];
    const isJson = (t: string) => t === "application/json";
    return Object.fromEntries(
      types.map((t) => [t, { schema: isJson(t) ? components.convert(op.success.schema!, "output") : { type: "string", format: "binary" } }]),
    );
  })();
  const out: Record<string, Record<string, unknown>> = {
    [String(op.success.status)]: {
      description: op.success.description,
      ...(keyed ? { headers: RATE_HEADERS } : {}),
      ...(successContent ? { content: successContent } : {}),
    },
  };
  if (op.alsoSuccess) out[String(op.alsoSuccess.status)] = { ...out[String(op.success.status)], description: op.alsoSuccess.description };
  if (op.conditional) {
    const etag = { ETag: { description: "Weak tag of the workspace's data; send it back in If-None-Match", schema: { type: "string" } } };
    out[String(op.success.status)]!.headers = { ...(out[String(op.success.status)]!.headers as object), ...etag };
    out["304"] = {
      description: "Not Modified: nothing changed since the ETag sent in If-None-Match (no body)",
      headers: { ...etag, ...(keyed ? RATE_HEADERS : {}) },
    };
  }
  for (const code of [...op.errors, "INTERNAL"]) {
    const status = String(ERROR_CODES[code as keyof typeof ERROR_CODES] ?? 400);
    const existing = out[status];
    if (existing) {
      if (!String(existing.description).split(", ").includes(code)) existing.description = `${existing.description}, ${code}`;
      continue;
    }
    const headers: Record<string, unknown> = keyed ? { ...RATE_HEADERS } : {};
    if (status === "401") headers["WWW-Authenticate"] = header("WWW-Authenticate");
    if (status === "429") headers["Retry-After"] = header("Retry-After");
    out[status] = { description: code, ...(Object.keys(headers).length ? { headers } : {}), content: PROBLEM_CONTENT };
  }
  return out;
}

function operationObject(op: Operation, p: string, components: Components): Record<string, unknown> {
  const params: Record<string, unknown>[] = [...p.matchAll(/\{([a-z_]+)\}/g)].map((m) => ({
    name: m[1],
    in: "path",
    required: true,
    schema: pathParamSchema(m[1]!),
  }));
  if (op.query)
    for (const [name, s] of Object.entries(op.query.shape))
      params.push({ name, in: "query", required: false, schema: queryParamSchema(name, s as z.ZodType, components) });
  if (op.conditional)
    params.push({
      name: "If-None-Match",
      in: "header",
      required: false,
      schema: { type: "string" },
      description: "An ETag from an earlier answer: 304 while nothing changed",
    });
  if (op.signedUrl) {
    params.push({
      name: "exp",
      in: "query",
      required: false,
      description: "Signed URL: expiry (Unix seconds); with `sig` instead of a key",
      schema: { type: "integer" },
    });
    params.push({ name: "sig", in: "query", required: false, description: "Signed URL: signature of the path and `exp`", schema: { type: "string" } });
  }
  const security = op.scope === "public" ? [] : [{ bearer: op.scope ? [op.scope] : [] }, { session: [] }, ...(op.signedUrl ? [{ signed_url: [] }] : [])];
  const operation: Record<string, unknown> = {
    operationId: `${op.method}_${p
      .replace(/[{}]/g, "")
      .replace(/[^a-z0-9]+/gi, "_")
      .replace(/^_|_$/g, "")}`,
    summary: op.summary,
    tags: [op.tag],
    parameters: params,
    responses: responses(op, components),
    security,
    ...(op.scope && op.scope !== "public" ? { "x-required-scope": op.scope } : {}),
  };
  const body = requestBody(op, components);
  if (body) operation.requestBody = body;
  return operation;
}

/** The `webhooks` section: what Earshot POSTs to a registered URL (docs/webhooks.md). */
function webhooks(components: Components): Record<string, unknown> {
  const parameters = [
    {
      name: "webhook-id",
      in: "header",
      required: true,
      description: "The event id: the same on every attempt and redelivery (drop duplicates)",
      schema: { type: "string", pattern: "^msg_[0-9a-f]{32}$" },
    },
    { name: "webhook-timestamp", in: "header", required: true, description: "Unix seconds of this attempt", schema: { type: "string", pattern: "^[0-9]+$" } },
    {
      name: "webhook-signature",
      in: "header",
      required: true,
      description:
        'Space-separated `v1,<base64 HMAC-SHA256(key, "{webhook-id}.{webhook-timestamp}.{body}")>` (two during a secret rotation); Standard Webhooks',
      schema: { type: "string", pattern: "^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$" },
    },
  ];
  const hook = (summary: string, name: string, schema: z.ZodType) => ({
    post: {
      operationId: `webhook_${name}`,
      summary,
      tags: ["webhooks"],
      security: [{ webhook_signature: [] }],
      parameters,
      requestBody: { required: true, content: { "application/json": { schema: components.ref(name, schema) } } },
      responses: {
        "200": { description: "Any 2xx within 10 s is a success; anything else (and 3xx) is retried on the schedule" },
        "410": { description: "Gone: the webhook is disabled" },
      },
    },
  });
  return {
    "response.started": hook("A respondent started a session on a link", "ResponseStartedEvent", responseStartedEventSchema),
    "response.submitted": hook("A submitted response was transcribed and analysed", "ResponseSubmittedEvent", responseSubmittedEventSchema),
    "webhook.test": hook("POST …/test/ sent this to one webhook", "WebhookTestEvent", testEventSchema),
  };
}

/**
 * Builds the document.
 * @param serverUrl `{EARSHOT_PUBLIC_URL}/api/v1`
 */
export function buildOpenApiDocument(operations: readonly Operation[], serverUrl: string, version: string): Record<string, unknown> {
  nameComponents();
  const components = new Components();
  components.ref("Problem", problemSchema);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const p = toOpenApiPath(op.path);
    paths[p] ??= {};
    paths[p][op.method] = operationObject(op, p, components);
  }
  const hooks = webhooks(components);
  annotateComponents(components.schemas as Record<string, Record<string, unknown>>);
  const tags = [...new Set([...operations.map((o) => o.tag), "webhooks"])].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? name }));
  return {
    openapi: "3.1.0",
    info: {
      title: "Earshot API",
      version,
      license: { name: "UNLICENSED", identifier: "UNLICENSED" },
      description:
        "Feedback links with voice answers, local transcription and insights. Every path ends in `/`: a path without it answers `301` with `Location` " +
        "(components.responses.MovedPermanently), a path called with a method it lacks `405 METHOD_NOT_ALLOWED` with `Allow` (components.responses.MethodNotAllowed). " +
        "Errors are RFC 9457 problem+json with a `code`. Keyed requests carry `RateLimit-*` headers. " +
        "For agents, a Model Context Protocol endpoint (Streamable HTTP, read-only tools over these operations, the same keys, scopes and rate limits) " +
        "is served at `/api/mcp/` beside this API (docs/mcp.md).",
    },
    servers: [{ url: serverUrl }],
    tags,
    paths,
    webhooks: hooks,
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "API key `sk_live_` + 40 letters and digits (pattern `^sk_live_[A-Za-z0-9]{40}$`, DESIGN §5)" },
        session: {
          type: "apiKey",
          in: "cookie",
          name: "earshot_session",
          description: "Console session (DESIGN §10): the role's scopes apply; writes need `X-CSRF-Token` and the same origin",
        },
        signed_url: { type: "apiKey", in: "query", name: "sig", description: "A recording's signed `audio_url` (query `exp` and `sig`, no key) until `exp`" },
        webhook_signature: {
          type: "apiKey",
          in: "header",
          name: "webhook-signature",
          description: "Earshot signs each webhook delivery with the webhook's secret (Standard Webhooks); verify it before trusting the body",
        },
      },
      headers: {
        "RateLimit-Limit": { description: "Requests allowed per minute for this key", schema: { type: "integer" } },
        "RateLimit-Remaining": { description: "Requests left in the current minute", schema: { type: "integer" } },
        "RateLimit-Reset": { description: "Seconds until the window resets", schema: { type: "integer" } },
        "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer" } },
        "WWW-Authenticate": { description: '`Bearer realm="earshot"`', schema: { type: "string" } },
        Allow: { description: "The methods this path answers", schema: { type: "string" } },
        Location: { description: "The same path with a trailing slash (query kept)", schema: { type: "string" } },
      },
      responses: {
        MovedPermanently: { description: "The path lacks its trailing slash", headers: { Location: header("Location") } },
        MethodNotAllowed: { description: "METHOD_NOT_ALLOWED", headers: { Allow: header("Allow") }, content: PROBLEM_CONTENT },
      },
      schemas: components.schemas,
    },
  };
}
