/**
 * @module http/reference-page
 * A readable API reference at `/api/docs/`, rendered on the server from the OpenAPI document:
 * one self-contained HTML page, no CDN and no script (nothing leaves the LAN).
 */

const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

type Doc = { info: { title: string; version: string; description: string }; servers: { url: string }[]; paths: Record<string, Record<string, any>> };

/** The reference page for an OpenAPI document built by `buildOpenApiDocument`. */
export function renderReferencePage(doc: Doc): string {
  const sections: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const params = (op.parameters ?? []).map((p: any) => `<li><code>${esc(p.name)}</code> <small>${esc(p.in)}</small></li>`).join("");
      const body = op.requestBody ? `<details><summary>Request body</summary><pre>${esc(JSON.stringify(op.requestBody.content, null, 2))}</pre></details>` : "";
      const responses = Object.entries(op.responses)
        .map(([status, r]: [string, any]) => `<li><strong>${esc(status)}</strong> ${esc(r.description)}</li>`)
        .join("");
      const scope = op["x-required-scope"] ? ` <span class="scope">${esc(op["x-required-scope"])}</span>` : op.security?.length === 0 ? ' <span class="scope">public</span>' : "";
      sections.push(`<section id="${esc(op.operationId)}"><h3><span class="m m-${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code>${scope}</h3>
<p>${esc(op.summary)}</p>${params ? `<ul>${params}</ul>` : ""}${body}<ul class="r">${responses}</ul></section>`);
    }
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(doc.info.title)} reference</title><style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d2330}
code,pre{font:13px ui-monospace,monospace}pre{background:#f4f5f8;padding:.75rem;overflow:auto;border-radius:6px}
section{border-top:1px solid #e2e5ec;padding:.5rem 0}.m{display:inline-block;min-width:4.2rem;font-size:12px;padding:2px 6px;border-radius:4px;color:#fff;text-align:center}
.m-get{background:#2f6fdb}.m-post{background:#1d8a4e}.m-patch{background:#b36b00}.m-put{background:#7a4cc2}.m-delete{background:#c23b3b}
.scope{font-size:12px;background:#eef1f6;border-radius:4px;padding:2px 6px;font-weight:normal}ul.r{color:#4a5163}
</style></head><body><h1>${esc(doc.info.title)} <small>${esc(doc.info.version)}</small></h1><p>${esc(doc.info.description)}</p>
<p>Base URL: <code>${esc(doc.servers[0]?.url)}</code> · Machine-readable: <a href="/api/v1/openapi.json">openapi.json</a> · Decisions: docs/api.md</p>
${sections.join("\n")}</body></html>`;
}
