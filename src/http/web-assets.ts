/**
 * @module http/web-assets
 * The intake page's HTML and its two assets (docs/intake.md "Pages", DESIGN §9), and the
 * operator console's two assets (docs/console.md, DESIGN §10; its shell is served by
 * modules/console/routes.ts). From a source checkout the scripts are bundled from
 * `web/intake/main.ts` and `web/console/main.tsx` by `Bun.build` in memory on first use and
 * cached; the compiled binary serves the output scripts/build.ts embedded (runtime/embedded.ts),
 * so nothing is bundled at run time. Every asset is local.
 */
import path from "node:path";
import { readEmbeddedWebAssets } from "../runtime/embedded.ts";
import { CATALOGS, directionOf, pageText, SHIPPED_LANGUAGES } from "./intake-language.ts";
import { buildEmbedScript, EMBED_ASSET_PATH } from "./embed-asset.ts";
import { CONSOLE_PAGE_DIRECTIVES, INTAKE_PAGE_DIRECTIVES, metaContentSecurityPolicy } from "./security-headers.ts";

/** One servable file. */
export interface WebAsset {
  body: Uint8Array;
  /** Full `Content-Type` header value, charset included. */
  contentType: string;
}

/**
 * Assets keyed by URL path (`/assets/intake.js`, `/assets/intake.css`, one message catalog per
 * language at `/assets/intake/i18n/<lang>.json`, `/assets/console.js`, `/assets/console.css`).
 */
export type WebAssets = Map<string, WebAsset>;

const WEB_DIR = path.join(import.meta.dir, "..", "..", "web");
const JS_CONTENT_TYPE = "text/javascript; charset=utf-8";
const JSON_CONTENT_TYPE = "application/json; charset=utf-8";
const CSS_CONTENT_TYPE = "text/css; charset=utf-8";

let built: Promise<WebAssets> | null = null;

/** One bundled entrypoint: its script, and the chunks its dynamic `import()`s load (with splitting). */
interface Bundle {
  script: Uint8Array;
  /** `[file name, body]` of each chunk, served beside the script under `/assets/`. */
  chunks: [string, Uint8Array][];
}

/**
 * Bundles one browser entrypoint (minified ESM, no output directory). With `splitting`, each
 * dynamic `import()` becomes a chunk named `<chunkPrefix>-<hash>.js`, which the script loads
 * relative to its own URL (so it must be served from the same folder, `/assets/`).
 * @throws Error listing the bundler's messages when the build fails
 */
async function bundleWithChunks(entry: string, label: string, options: { define?: Record<string, string>; chunkPrefix?: string } = {}): Promise<Bundle> {
  const result = await Bun.build({
    entrypoints: [entry],
    target: "browser",
    format: "esm",
    minify: true,
    splitting: options.chunkPrefix !== undefined,
    naming: { chunk: `${options.chunkPrefix ?? "chunk"}-[hash].[ext]` },
    // Preact's development helpers are left out (process.env.NODE_ENV checks).
    define: { "process.env.NODE_ENV": JSON.stringify("production"), ...options.define },
    throw: false, // failures are reported below with the bundler's messages
  });
  const script = result.outputs.find((o) => o.kind === "entry-point");
  if (!result.success || !script) {
    throw new Error(`Building the ${label} script failed:\n${result.logs.map(String).join("\n")}`);
  }
  const chunks = await Promise.all(
    result.outputs
      .filter((o) => o.kind === "chunk")
      .map(async (o): Promise<[string, Uint8Array]> => [path.basename(o.path), new Uint8Array(await o.arrayBuffer())]),
  );
  return { script: new Uint8Array(await script.arrayBuffer()), chunks };
}

/**
 * One stylesheet as served: minified by Bun's CSS bundler (comments and whitespace gone; the
 * intake page's first load has a budget, docs/performance.md "Page weight").
 * @throws Error listing the bundler's messages when the stylesheet does not parse
 */
export async function minifiedCss(file: string): Promise<Uint8Array> {
  const result = await Bun.build({ entrypoints: [file], minify: true, throw: false });
  const css = result.outputs[0];
  if (!result.success || !css) throw new Error(`Minifying ${path.basename(file)} failed:\n${result.logs.map(String).join("\n")}`);
  return new Uint8Array(await css.arrayBuffer());
}

/**
 * Bundles one browser entrypoint into one file (minified ESM, no output directory).
 * @throws Error listing the bundler's messages when the build fails
 */
async function bundle(entry: string, label: string, define: Record<string, string> = {}): Promise<Uint8Array> {
  return (await bundleWithChunks(entry, label, { define })).script;
}

/**
 * Bundles `web/intake/main.ts` and `web/console/main.tsx` for browsers and reads their
 * stylesheets, each headed by the shared design tokens (`web/shared/tokens.css`). Used at run time from source, and by the build to embed the result.
 * @throws Error listing the bundler's messages when a build fails
 */
export async function buildWebAssets(): Promise<WebAssets> {
  // The dashboard's charts (uPlot) are a separate script the console imports only on that page;
  // the console learns its content hash at build time (`?v=`), so an upgrade never mixes them.
  const chartsJs = await bundle(path.join(WEB_DIR, "console", "charts.ts"), "console charts");
  const chartsCss = new Uint8Array(
    Buffer.concat([
      await Bun.file(path.join(WEB_DIR, "..", "node_modules", "uplot", "dist", "uPlot.min.css")).bytes(),
      await Bun.file(path.join(WEB_DIR, "console", "charts.css")).bytes(),
    ]),
  );
  const chartsVersion = new Bun.CryptoHasher("sha256").update(chartsJs).update(chartsCss).digest("hex").slice(0, 12);
  const [intake, intakeEmbedJs, consoleJs, embedJs] = await Promise.all([
    // Kiosk mode (issue 29) is a chunk loaded only by kiosk links: the page's first load stays in its budget.
    bundleWithChunks(path.join(WEB_DIR, "intake", "main.ts"), "intake", { chunkPrefix: "intake" }),
    bundle(path.join(WEB_DIR, "intake", "embed-bridge.ts"), "intake embed bridge"),
    bundle(path.join(WEB_DIR, "console", "main.tsx"), "console", { __CHARTS_VERSION__: JSON.stringify(chartsVersion) }),
    buildEmbedScript(),
  ]);
  // One tokens file (colours, radii, type, spacing) heads both stylesheets: one palette, no copies.
  const [tokens, intakeOwnCss, consoleOwnCss, kioskCss] = await Promise.all(
    ["shared/tokens.css", "intake/intake.css", "console/console.css", "intake/kiosk.css"].map((f) => minifiedCss(path.join(WEB_DIR, f))),
  );
  const withTokens = (css: Uint8Array) => new Uint8Array(Buffer.concat([tokens!, css]));
  const [intakeCss, consoleCss] = [withTokens(intakeOwnCss!), withTokens(consoleOwnCss!)];
  return new Map([
    ["/assets/intake.js", { body: intake.script, contentType: JS_CONTENT_TYPE }],
    ...intake.chunks.map(([name, body]): [string, WebAsset] => [`/assets/${name}`, { body, contentType: JS_CONTENT_TYPE }]),
    ["/assets/intake.css", { body: intakeCss, contentType: CSS_CONTENT_TYPE }],
    // Linked only by the pages of kiosk links (issue 29; web/intake/kiosk.css).
    ["/assets/intake-kiosk.css", { body: kioskCss!, contentType: CSS_CONTENT_TYPE }],
    // Loaded only by intake pages some site may frame (issue 29; web/intake/embed-bridge.ts).
    ["/assets/intake-embed.js", { body: intakeEmbedJs, contentType: JS_CONTENT_TYPE }],
    ["/assets/console.js", { body: consoleJs, contentType: JS_CONTENT_TYPE }],
    ["/assets/console.css", { body: consoleCss, contentType: CSS_CONTENT_TYPE }],
    ["/assets/console-charts.js", { body: chartsJs, contentType: JS_CONTENT_TYPE }],
    ["/assets/console-charts.css", { body: chartsCss, contentType: CSS_CONTENT_TYPE }],
    // The embed kit's script, served at /embed.js too (modules/embed/routes.ts; issue 29).
    [EMBED_ASSET_PATH, { body: embedJs, contentType: JS_CONTENT_TYPE }],
    // The intake page's other languages, fetched only when the respondent switches to one.
    ...Object.entries(CATALOGS).map(([lang, catalog]): [string, WebAsset] => [
      `/assets/intake/i18n/${lang}.json`,
      { body: new TextEncoder().encode(JSON.stringify(catalog)), contentType: JSON_CONTENT_TYPE },
    ]),
  ]);
}

/**
 * The page assets, keyed by URL path: the embedded ones in the compiled binary, otherwise built
 * once from source and cached (a failed build is retried on the next call).
 */
export function loadWebAssets(): Promise<WebAssets> {
  built ??= readEmbeddedWebAssets()
    .then((embedded) => (embedded as WebAssets | null) ?? buildWebAssets())
    .catch((err: unknown) => {
      built = null;
      throw err;
    });
  return built;
}

/** Escapes text for HTML element content and quoted attribute values. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * JSON safe inside `<script type="application/json">`: `<`, `>` and `&` are written as
 * `\u003c`-style escapes, so no string can close the element (`</script>`) or open a comment;
 * U+2028/2029 are escaped too.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

// Images and videos of image_choice cards come from the operator's URLs; everything else is ours.
// The same directives as the header (http/security-headers.ts), less the header-only ones.
const CONTENT_SECURITY_POLICY = metaContentSecurityPolicy(INTAKE_PAGE_DIRECTIVES);

/**
 * Content versions of the intake page's script and stylesheet, put on their URLs as `?v=` so a
 * browser may keep them a year (http/asset-delivery.ts); without them the URLs are plain.
 */
export type IntakeAssetVersions = { js: string; css: string; embed?: string; kiosk?: string };

const versioned = (url: string, version: string | undefined) => (version ? `${url}?v=${escapeHtml(version)}` : url);

function page(title: string, head: string, body: string, lang = "en", versions?: IntakeAssetVersions): string {
  return `<!doctype html>
<html lang="${escapeHtml(lang)}" dir="${directionOf(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${versioned("/assets/intake.css", versions?.css)}">
${head}</head>
<body>
<div class="page">
${body}
<footer class="page-footer">${escapeHtml(pageText(lang, "page.footer"))}</footer>
</div>
</body>
</html>
`;
}

const withoutKiosk = new Map<string, Record<string, string>>();
/**
 * The catalog of `lang` less kiosk mode's messages (`kiosk.*`): only kiosk pages show them, and the
 * page embeds its catalog, so every other page's first load does not carry them.
 */
function withoutKioskMessages(lang: string): Record<string, string> {
  let catalog = withoutKiosk.get(lang);
  if (!catalog) {
    catalog = Object.fromEntries(Object.entries(CATALOGS[lang] as Record<string, string>).filter(([key]) => !key.startsWith("kiosk.")));
    withoutKiosk.set(lang, catalog);
  }
  return catalog;
}

/**
 * The intake page: header (title, description), the form root the script fills, and the link's
 * public definition embedded as `{"api_base", "link", "language", "messages", "languages"}` JSON
 * (docs/intake.md): the page's words come from the catalog of `language` embedded here.
 * @param data.apiBase the intake API base, e.g. `/api/v1/intake/acme/nps/`
 * @param data.link the public link object (docs/intake.md `<public link>`)
 * @param data.language a shipped catalog's tag (http/intake-language.ts `negotiateLanguage`)
 * @param data.contentLanguage the translation to show the operator's texts in when it is not the
 *   page's language (http/intake-language.ts `contentLanguageOf`), or null
 * @param data.assetVersions content versions of intake.js and intake.css (`?v=`)
 * @param data.kiosk the link is in kiosk mode: the page also links `/assets/intake-kiosk.css`
 * @param data.frameOrigins the CSP sources allowed to frame the page (modules/embed/frame-ancestors.ts):
 *   when there are any, the page also loads `/assets/intake-embed.js`, which posts its events to a
 *   parent they allow (issue 29)
 */
export function renderIntakePage(data: {
  title: string;
  apiBase: string;
  link: unknown;
  description?: string | null;
  language?: string;
  contentLanguage?: string | null;
  assetVersions?: IntakeAssetVersions;
  frameOrigins?: readonly string[];
  kiosk?: boolean;
}): string {
  const lang = data.language ?? "en";
  const description = data.description?.trim() ? `<p class="description">${escapeHtml(data.description.trim())}</p>\n` : "";
  const meta = data.description?.trim() ? `<meta name="description" content="${escapeHtml(data.description.trim())}">\n` : "";
  return page(
    data.title,
    `${meta}${data.kiosk ? `<link rel="stylesheet" href="${versioned("/assets/intake-kiosk.css", data.assetVersions?.kiosk)}">\n` : ""}<script type="module" src="${versioned("/assets/intake.js", data.assetVersions?.js)}"></script>\n${
      data.frameOrigins?.length ? `<script type="module" src="${versioned("/assets/intake-embed.js", data.assetVersions?.embed)}"></script>\n` : ""
    }`,
    `<header class="page-header">
<h1>${escapeHtml(data.title)}</h1>
${description}</header>
<main id="earshot-app" class="card">
<p class="loading">${escapeHtml(pageText(lang, "page.loading"))}</p>
<noscript><p>${escapeHtml(pageText(lang, "page.noscript"))}</p></noscript>
</main>
<script id="earshot-link" type="application/json">${jsonForScript({ api_base: data.apiBase, link: data.link, language: lang, content_language: data.contentLanguage ?? null, messages: data.kiosk ? CATALOGS[lang] : withoutKioskMessages(lang), languages: SHIPPED_LANGUAGES, frame_origins: data.frameOrigins ?? [] })}</script>`,
    lang,
    data.assetVersions,
  );
}

/**
 * A plain page with a heading and one message, for paused and unknown links (no script).
 */
export function renderMessagePage(title: string, message: string, lang = "en", assetVersions?: IntakeAssetVersions): string {
  return page(
    title,
    "",
    `<main class="card">
<section class="message">
<h1 class="message-title">${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>
</section>
</main>`,
    lang,
    assetVersions,
  );
}

// The console draws only its own markup and talks only to this origin (DESIGN §10).
// Response pages show image-choice cards from the operator's own URLs (as the intake page does)
// and play recordings; the same directives as the header (http/security-headers.ts).
const CONSOLE_CONTENT_SECURITY_POLICY = metaContentSecurityPolicy(CONSOLE_PAGE_DIRECTIVES);

/**
 * The operator console's shell (docs/console.md): the same HTML for every `/console/…` path;
 * the script routes on the client. Asset URLs carry a short content hash (`?v=…`) so a new
 * release is never mixed with a cached old script.
 * @param versions content hashes of `/assets/console.js` and `/assets/console.css`
 */
export function renderConsoleShell(versions: { js: string; css: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta http-equiv="Content-Security-Policy" content="${CONSOLE_CONTENT_SECURITY_POLICY}">
<meta name="robots" content="noindex">
<title>Earshot console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/console.css?v=${escapeHtml(versions.css)}">
<script type="module" src="/assets/console.js?v=${escapeHtml(versions.js)}"></script>
</head>
<body>
<div id="console-root"><p class="boot">Loading the console…</p></div>
<noscript><p class="boot">The Earshot console needs JavaScript. Please enable it and reload the page.</p></noscript>
</body>
</html>
`;
}
