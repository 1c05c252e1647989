/**
 * @module http/embed-asset
 * `/embed.js`, the embed kit's script (issue 29; docs/embedding.md), bundled from
 * `web/embed/embed.ts` as a classic script (IIFE: a site owner's plain `<script src>` tag, and
 * `document.currentScript` is only set for classic scripts). It carries Earshot's version in a
 * leading comment and as `window.Earshot.version`. Its size budget, {@link EMBED_BUDGET_GZIP_BYTES},
 * is checked by src/modules/embed/embed.test.ts.
 */
import path from "node:path";
import pkg from "../../package.json" with { type: "json" };

/** The budget of `/embed.js`, minified and gzipped: 6 KiB (a site owner's page pays for it). */
export const EMBED_BUDGET_GZIP_BYTES = 6 * 1024;

/** Where the build and the asset server keep it (every web asset lives under `/assets/`). */
export const EMBED_ASSET_PATH = "/assets/embed.js";

/**
 * Bundles `web/embed/embed.ts` (minified IIFE for browsers) behind a `/*! Earshot embed.js <version> *\/` line.
 * @throws Error listing the bundler's messages when the build fails
 */
export async function buildEmbedScript(): Promise<Uint8Array> {
  const result = await Bun.build({
    entrypoints: [path.join(import.meta.dir, "..", "..", "web", "embed", "embed.ts")],
    target: "browser",
    format: "iife",
    minify: true,
    define: { __EARSHOT_VERSION__: JSON.stringify(pkg.version) },
    throw: false,
  });
  const script = result.outputs.find((o) => o.kind === "entry-point");
  if (!result.success || !script) throw new Error(`Building embed.js failed:\n${result.logs.map(String).join("\n")}`);
  return new TextEncoder().encode(`/*! Earshot embed.js ${pkg.version} */\n${(await script.text()).trim()}\n`);
}
