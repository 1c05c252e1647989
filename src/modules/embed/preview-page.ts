/**
 * @module embed/preview-page
 * `GET /embed/preview/?link=<path>&mode=<mode>` (issue 29): a stand-in for a site owner's page
 * that loads `/embed.js` with one link in one mode, so the console's "Share / Embed" card shows the
 * embed live in an iframe of its own (the overlays open inside it, not over the console). The
 * link's page is asked for with `?preview=1`, which records nothing and may be framed by this
 * origin only. The page is ours: our script, one hashed inline stylesheet, framed by ourselves.
 */
import { contentSecurityPolicy, PAGE_DIRECTIVES } from "../../http/security-headers.ts";

const MODES = new Set(["inline", "popup", "slide-in", "button"]);
/** An intake page path on this server: `/w/{workspace}/i/{link}` or `/i/{link}`. */
const LINK_PATH = /^\/(?:w\/[a-z0-9-]{1,64}\/)?i\/[a-z0-9-]{1,100}$/;

const STYLE = `body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1f2933;background:#f4f5f7}
header{padding:14px 20px;background:#fff;border-bottom:1px solid #e1e4e8;font-weight:700}
main{max-width:720px;margin:0 auto;padding:20px}
.line{height:12px;margin:10px 0;border-radius:6px;background:#dfe3e8}.short{width:60%}
p.note{color:#52606d;font-size:14px}`;
const STYLE_HASH = `'sha256-${new Bun.CryptoHasher("sha256").update(STYLE).digest("base64")}'`;

/** The preview page's policy: our scripts and frames, its one stylesheet, framed by this origin only. */
export const PREVIEW_PAGE_POLICY = contentSecurityPolicy(PAGE_DIRECTIVES, {
  "style-src": `'self' ${STYLE_HASH}`,
  "frame-src": "'self'",
  "frame-ancestors": "'self'",
});

/**
 * The preview page's HTML, or null when the query is not a link path of this server and a mode.
 * @param query `link` (an intake page path) and `mode` (`inline`, `popup`, `slide-in`, `button`)
 */
export function renderEmbedPreview(query: URLSearchParams): string | null {
  const link = query.get("link") ?? "";
  const mode = query.get("mode") ?? "inline";
  if (!LINK_PATH.test(link) || !MODES.has(mode)) return null;
  // Both values are checked against patterns without quotes or angle brackets.
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Embed preview</title>
<style>${STYLE}</style>
</head>
<body>
<header>Your site</header>
<main>
<p class="note">A preview of the embed on a page of your site. Nothing is recorded.</p>
<div class="line"></div><div class="line short"></div><div class="line"></div>
<script src="/embed.js" data-earshot-link="${link}" data-mode="${mode}" data-preview></script>
<div class="line short"></div><div class="line"></div>
</main>
</body>
</html>
`;
}
