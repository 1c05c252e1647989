/**
 * @module test/helpers/openapi-check
 * Holds the server to its own OpenAPI document: every successful JSON answer an API test gets is
 * validated (ajv, JSON Schema 2020-12 with formats) against the schema the served document gives
 * for that method, path and status. A mismatch throws, so every API test is also a drift check.
 */
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { buildOpenApiDocument } from "../../src/api/openapi.ts";
import { apiOperations } from "../../src/api/operations.ts";

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
  webhooks: Record<string, { post: { parameters: { name: string; schema: object }[] } }>;
};

/** Compiles the document's success schemas on first use; one instance per process. */
class OutputChecker {
  private readonly ajv: Ajv2020;
  private readonly routes: { re: RegExp; path: string }[];
  private readonly cache = new Map<string, ValidateFunction | null>();

  constructor(private readonly doc: Doc) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema(doc as object, "doc");
    this.routes = Object.keys(doc.paths).map((path) => ({
      path,
      re: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[a-z_]+\}/g, "[^/]+")}$`),
    }));
  }

  /** The validator of `method path` answering `status` with JSON, or null when undocumented as JSON. */
  private validator(method: string, path: string, status: number): ValidateFunction | null {
    const key = `${method} ${path} ${status}`;
    if (this.cache.has(key)) return this.cache.get(key)!;
    const content = this.doc.paths[path]?.[method]?.responses[String(status)]?.content;
    const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
    const v = content?.["application/json"]
      ? this.ajv.compile({ $ref: `doc#/paths/${pointer(path, method, "responses", String(status), "content", "application/json", "schema")}` })
      : null;
    this.cache.set(key, v);
    return v;
  }

  /**
   * Checks one answer.
   * @param urlPath the request path with query, e.g. `/api/v1/links/?page=2`
   * @throws Error naming the operation and ajv's errors when a documented JSON body does not match,
   *   or when a 2xx JSON answer comes from an undocumented operation or status
   */
  check(method: string, urlPath: string, status: number, contentType: string | null, json: unknown): void {
    if (status < 200 || status >= 300 || !contentType?.startsWith("application/json")) return;
    const pathname = new URL(urlPath, "http://x").pathname;
    if (!pathname.startsWith("/api/v1/") || pathname === "/api/v1/openapi.json") return;
    const rel = pathname.slice("/api/v1".length);
    const m = method.toLowerCase();
    const route = this.routes.find((r) => r.re.test(rel) && this.doc.paths[r.path]?.[m]);
    if (!route) throw new Error(`OpenAPI drift: ${method} ${pathname} answered ${status} JSON but is not documented`);
    if (!this.doc.paths[route.path]![m]!.responses[String(status)])
      throw new Error(`OpenAPI drift: ${method} ${route.path} answered ${status}, which is not documented`);
    const v = this.validator(m, route.path, status);
    if (!v) throw new Error(`OpenAPI drift: ${method} ${route.path} ${status} answered JSON, documented as another media type`);
    if (!v(json)) {
      const errors = (v.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || "/"} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`);
      throw new Error(`OpenAPI drift: ${method} ${route.path} ${status} body does not match its documented schema:\n  ${errors.join("\n  ")}`);
    }
  }

  /**
   * Checks one webhook delivery against the document's `webhooks` section: its body (by `type`)
   * and its `webhook-*` headers.
   * @throws Error with ajv's errors on any mismatch, or for an undocumented event type
   */
  checkWebhook(headers: Record<string, string>, body: string): void {
    const event = JSON.parse(body) as { type?: string };
    const hook = event.type ? this.doc.webhooks[event.type] : undefined;
    if (!hook) throw new Error(`OpenAPI drift: webhook event ${event.type} is not documented`);
    const v = this.ajv.compile<unknown>({ $ref: `doc#/webhooks/${event.type}/post/requestBody/content/application~1json/schema` });
    const type = event.type;
    if (!v(event)) throw new Error(`OpenAPI drift: ${type} payload: ${this.ajv.errorsText(v.errors)}`);
    for (const p of hook.post.parameters) {
      const h = this.ajv.compile<unknown>(p.schema);
      if (!h(headers[p.name])) throw new Error(`OpenAPI drift: ${type} header ${p.name}=${headers[p.name]}: ${this.ajv.errorsText(h.errors)}`);
    }
  }
}

let checker: OutputChecker | null = null;

/** The process-wide checker over the document the server serves (same builder, same operations). */
export function outputChecker(): OutputChecker {
  checker ??= new OutputChecker(buildOpenApiDocument(apiOperations, "http://localhost/api/v1", "test") as unknown as Doc);
  return checker;
}
