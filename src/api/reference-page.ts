/**
 * @module api/reference-page
 * The API reference at `/api/docs/`, rendered on the server from the OpenAPI document: a table of
 * contents by tag, and per operation its scope, parameters and body as field tables (type,
 * required, default, allowed values, description), the answers it gives, and examples (a `curl`
 * line and a JSON body built from the schema). One HTML page plus one stylesheet, no script and
 * no CDN (nothing leaves the LAN); light and dark like the intake page. Why our own page rather
 * than a renderer such as Scalar or RapiDoc: both pull 150–300 MB of npm packages for a 1–4 MB
 * browser bundle, need inline styles under our CSP, and show nothing more that our document has
 * (docs/decisions/api-reference-page.md).
 */
import css from "./reference-page.css" with { type: "text" };

/** The stylesheet served at {@link REFERENCE_CSS_PATH}. */
export const REFERENCE_CSS = css as unknown as string;
export const REFERENCE_CSS_PATH = "/api/docs/reference.css";

type Json = Record<string, any>;
type Doc = {
  info: { title: string; version: string; description: string };
  servers: { url: string }[];
  paths: Record<string, Record<string, Json>>;
  components?: { schemas?: Record<string, Json> };
};

const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** `code spans` of the document's prose become <code>. */
const prose = (s: unknown) => esc(s ?? "").replace(/`([^`]+)`/g, "<code>$1</code>");
const MAX_DEPTH = 4;

/** Follows a local `$ref` (`#/components/schemas/X`). */
function deref(doc: Doc, schema: Json | undefined): Json {
  let s = schema ?? {};
  for (let i = 0; i < 8 && typeof s.$ref === "string"; i++) s = doc.components?.schemas?.[s.$ref.split("/").pop()!] ?? {};
  return s;
}

/** Variants of a union (`oneOf`/`anyOf` without the `null` member). */
function variantsOf(s: Json): Json[] {
  return ((s.oneOf ?? s.anyOf ?? []) as Json[]).filter((v) => v.type !== "null");
}

/** A short type label: `string (uuid)`, `integer 1–600`, `"a" | "b"`, `Link[]`, `X | null`. */
function typeLabel(doc: Doc, raw: Json): string {
  const ref = typeof raw.$ref === "string" ? raw.$ref.split("/").pop() : null;
  const s = deref(doc, raw);
  const nullable = (s.anyOf ?? s.oneOf ?? []).some((v: Json) => v.type === "null") || (Array.isArray(s.type) && s.type.includes("null"));
  let label: string;
  if (ref) label = ref;
  else if (s.enum) label = s.enum.map((v: unknown) => JSON.stringify(v)).join(" | ");
  else if (s.const !== undefined) label = JSON.stringify(s.const);
  else if (variantsOf(s).length)
    label = variantsOf(s)
      .map((v) => typeLabel(doc, v))
      .join(" | ");
  else if (s.type === "array" || (Array.isArray(s.type) && s.type.includes("array"))) label = `${typeLabel(doc, s.items ?? {})}[]`;
  else {
    const t = Array.isArray(s.type) ? s.type.filter((x: string) => x !== "null").join(" | ") : (s.type ?? "any");
    // zod gives every integer the safe-integer range: not worth showing.
    const bound = (n: unknown) => (typeof n === "number" && Math.abs(n) < Number.MAX_SAFE_INTEGER ? n : undefined);
    const [min, max] = [bound(s.minimum), bound(s.maximum)];
    const bounds = min !== undefined || max !== undefined ? ` ${min ?? ""}–${max ?? ""}` : s.maxLength !== undefined ? ` ≤ ${s.maxLength} chars` : "";
    label = `${t}${s.format ? ` (${s.format})` : ""}${bounds}`;
  }
  return nullable && !label.endsWith("| null") ? `${label} | null` : label;
}

/** Rows of a field table: one per property, nested objects and arrays of objects flattened with dotted names. */
function fieldRows(doc: Doc, raw: Json, prefix = "", depth = 0): string[] {
  const s = deref(doc, raw);
  const variants = variantsOf(s);
  if (variants.length > 1 && variants.every((v) => deref(doc, v).properties)) {
    return variants.flatMap((v, i) => [
      `<tr class="variant"><td colspan="3">${prefix ? `<code>${esc(prefix)}</code> ` : ""}variant ${i + 1}${v.$ref ? `: ${esc(v.$ref.split("/").pop())}` : ""}</td></tr>`,
      ...fieldRows(doc, v, prefix, depth + 1),
    ]);
  }
  const obj = variants.length === 1 ? deref(doc, variants[0]) : s;
  const props: Record<string, Json> = obj.properties ?? {};
  const required = new Set<string>(obj.required ?? []);
  const rows: string[] = [];
  for (const [name, prop] of Object.entries(props)) {
    const p = deref(doc, prop);
    const full = prefix ? `${prefix}.${name}` : name;
    const notes = [
      p.description ? prose(p.description) : "",
      p.default !== undefined ? `Default <code>${esc(JSON.stringify(p.default))}</code>.` : "",
      p.pattern ? `Pattern <code>${esc(p.pattern)}</code>.` : "",
    ]
      .filter(Boolean)
      .join(" ");
    rows.push(
      `<tr><td><code>${esc(full)}</code>${required.has(name) ? ' <span class="req">required</span>' : ""}</td><td>${esc(typeLabel(doc, prop))}</td><td>${notes}</td></tr>`,
    );
    if (depth >= MAX_DEPTH || prop.$ref) continue;
    const inner = p.type === "array" ? deref(doc, p.items) : p;
    if (inner.properties || variantsOf(inner).some((v) => deref(doc, v).properties))
      rows.push(...fieldRows(doc, inner, p.type === "array" ? `${full}[]` : full, depth + 1));
  }
  return rows;
}

function fieldTable(doc: Doc, schema: Json): string {
  const rows = fieldRows(doc, schema);
  if (!rows.length) return `<p class="muted">${esc(typeLabel(doc, schema))}</p>`;
  return `<div class="scroll"><table><thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Notes</th></tr></thead><tbody>${rows.join("")}</tbody></table></div>`;
}

/** A plausible example value built from the schema (its example, default, enum, or a placeholder). */
export function exampleOf(doc: Doc, raw: Json, depth = 0): unknown {
  const s = deref(doc, raw);
  if (s.examples?.length) return s.examples[0];
  if (s.example !== undefined) return s.example;
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  const variants = variantsOf(s);
  if (variants.length) return exampleOf(doc, variants[0]!, depth);
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== "null") : s.type;
  if (type === "object" || s.properties) {
    if (depth > MAX_DEPTH) return {};
    const required = new Set<string>(s.required ?? []);
    const entries = Object.entries((s.properties ?? {}) as Record<string, Json>).filter(
      ([k]) => depth === 0 || required.has(k) || Object.keys(s.properties).length <= 6,
    );
    return Object.fromEntries(entries.map(([k, v]) => [k, exampleOf(doc, v, depth + 1)]));
  }
  if (type === "array") return depth > MAX_DEPTH ? [] : [exampleOf(doc, s.items ?? {}, depth + 1)];
  if (type === "integer" || type === "number") return typeof s.minimum === "number" && Math.abs(s.minimum) < Number.MAX_SAFE_INTEGER ? s.minimum : 1;
  if (type === "boolean") return true;
  if (s.format === "uuid") return "6f1c2a9e-4b7d-4c1e-9a55-2f0e8b7c1d3a";
  if (s.format === "date-time") return "2026-11-23T09:30:00.000000Z";
  if (s.format === "uri") return "https://example.lan/";
  return "string";
}

function operationSection(doc: Doc, base: string, path: string, method: string, op: Json): string {
  const id = esc(op.operationId);
  const scope = op["x-required-scope"]
    ? `<span class="badge">${esc(op["x-required-scope"])}</span>`
    : op.security?.length === 0
      ? '<span class="badge public">public</span>'
      : '<span class="badge">any key</span>';
  const params = (op.parameters ?? []) as Json[];
  const paramRows = params
    .map(
      (p) =>
        `<tr><td><code>${esc(p.name)}</code> <span class="muted">${esc(p.in)}</span>${p.required ? ' <span class="req">required</span>' : ""}</td><td>${esc(typeLabel(doc, p.schema ?? {}))}</td><td>${prose(p.description ?? p.schema?.description ?? "")}${p.schema?.default !== undefined ? ` Default <code>${esc(JSON.stringify(p.schema.default))}</code>.` : ""}</td></tr>`,
    )
    .join("");
  const bodyContent = op.requestBody?.content ?? {};
  const jsonBody = bodyContent["application/json"]?.schema;
  const otherBodies = Object.keys(bodyContent).filter((t) => t !== "application/json");
  const body = jsonBody ? fieldTable(doc, jsonBody) : otherBodies.length ? `<p>Body: ${otherBodies.map((t) => `<code>${esc(t)}</code>`).join(", ")}</p>` : "";
  const auth = op.security?.length === 0 ? "" : ` \\\n  -H 'Authorization: Bearer sk_live_…'`;
  const data = jsonBody ? ` \\\n  -H 'Content-Type: application/json' \\\n  -d '${JSON.stringify(exampleOf(doc, jsonBody)).replace(/'/g, "'\\''")}'` : "";
  const curl = `curl -X ${method.toUpperCase()} '${base}${path.replace(/\{([a-z_]+)\}/g, "<$1>")}'${auth}${data}`;
  const responses = Object.entries(op.responses as Record<string, Json>)
    .map(([status, r]) => {
      const [type, media] = Object.entries((r.content ?? {}) as Record<string, Json>)[0] ?? [];
      const schema = media?.schema;
      const detail =
        schema && type === "application/json"
          ? `<details><summary>Fields</summary>${fieldTable(doc, schema)}<pre>${esc(JSON.stringify(exampleOf(doc, schema), null, 2))}</pre></details>`
          : type
            ? ` <code>${esc(type)}</code>`
            : "";
      return `<li><strong>${esc(status)}</strong> ${prose(r.description)}${detail}</li>`;
    })
    .join("");
  return `<section class="op" id="${id}" aria-labelledby="${id}-h"><h3 id="${id}-h"><span class="m m-${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code> ${scope}</h3>
<p>${prose(op.summary)}</p>${op.description ? `<p>${prose(op.description)}</p>` : ""}
${paramRows ? `<h4>Parameters</h4><div class="scroll"><table><thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Notes</th></tr></thead><tbody>${paramRows}</tbody></table></div>` : ""}
${body ? `<h4>Request body</h4>${body}` : ""}
<h4>Example</h4><pre>${esc(curl)}</pre>
<h4>Responses</h4><ul class="responses">${responses}</ul></section>`;
}

/** The reference page for an OpenAPI document built by `buildOpenApiDocument`. */
export function renderReferencePage(doc: Doc): string {
  const base = doc.servers[0]?.url ?? "";
  const byTag = new Map<string, string[]>();
  const toc = new Map<string, string[]>();
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const tag = (op.tags?.[0] as string | undefined) ?? "other";
      if (!byTag.has(tag)) byTag.set(tag, []), toc.set(tag, []);
      byTag.get(tag)!.push(operationSection(doc, base, path, method, op));
      toc
        .get(tag)!
        .push(
          `<li><a href="#${esc(op.operationId)}" title="${esc(method.toUpperCase())} ${esc(path)}"><span class="m m-${esc(method)}">${esc(method.toUpperCase())}</span> ${esc(op.summary ?? path)}</a></li>`,
        );
    }
  }
  const tagId = (tag: string) => `tag-${tag.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  const nav = [...toc].map(([tag, items]) => `<li><a href="#${tagId(tag)}">${esc(tag)}</a><ul>${items.join("")}</ul></li>`).join("");
  const sections = [...byTag].map(([tag, ops]) => `<section id="${tagId(tag)}"><h2>${esc(tag)}</h2>${ops.join("")}</section>`).join("");
  const problem = doc.components?.schemas?.Problem;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(doc.info.title)} reference</title><link rel="stylesheet" href="${REFERENCE_CSS_PATH}"></head>
<body><a class="skip" href="#main">Skip to the reference</a>
<nav id="contents" aria-label="Contents"><details open><summary>Contents</summary><ul><li><a href="#basics">Basics</a></li>${nav}</ul></details></nav>
<main id="main"><h1>${esc(doc.info.title)} <small>${esc(doc.info.version)}</small></h1><a class="to-contents" href="#contents">Contents</a>
<section id="basics"><p>${prose(doc.info.description)}</p>
<dl><dt>Base URL</dt><dd><code>${esc(base)}/</code></dd>
<dt>Authentication</dt><dd><code>Authorization: Bearer sk_live_…</code> — a key carries scopes; each operation names the one it needs. The machine-readable document is <a href="${esc(base)}/openapi.json"><code>openapi.json</code></a>.</dd>
<dt>Lists</dt><dd><code>page</code> (from 1) and <code>page_size</code> (default 20, at most 100); the answer is <code>{count, next, previous, results}</code>.</dd>
<dt>Errors</dt><dd>RFC 9457 <code>application/problem+json</code> with a stable <code>code</code>.${problem ? fieldTable(doc, problem) : ""}</dd></dl></section>
${sections}</main></body></html>`;
}
