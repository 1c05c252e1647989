/**
 * @module web/intake/embed-bridge
 * The intake page inside an embed (issue 29; docs/embedding.md "Events"), served as
 * `/assets/intake-embed.js` and loaded only by pages that some origin may frame (the server adds
 * it when the page's `frame_origins` are not empty), so a page nobody embeds does not carry it.
 * When the page is framed by a parent whose origin those sources allow (the same sources as its
 * CSP `frame-ancestors`), it relays the page's `earshot:started` and `earshot:submitted` DOM
 * events (main.ts) to that origin only with `postMessage`, posts `earshot:resize` with the page's
 * height (an inline embed follows it) and marks `<html class="embedded">` (intake.css). Not
 * framed, or framed by anyone else: it does nothing.
 */
import { originAllowed } from "../../src/shared/frame-origins.ts";

/**
 * The parent's origin when the page is framed and the parent is allowed, else null. The parent's
 * origin comes from `location.ancestorOrigins` (Chromium, Safari), else from embed.js's
 * `#embed=<origin>` or the referrer — a claim only: `postMessage` delivers to that origin alone.
 */
export function allowedParentOrigin(frameOrigins: readonly string[]): string | null {
  if (window.parent === window) return null;
  let origin: string | null = location.ancestorOrigins?.[0] ?? null;
  if (!origin) {
    const claimed = new URLSearchParams(location.hash.slice(1)).get("embed");
    try {
      origin = claimed ?? (document.referrer ? new URL(document.referrer).origin : null);
    } catch {
      origin = null;
    }
  }
  if (!origin || origin === "null") return null;
  return originAllowed(origin, frameOrigins, location.origin) ? origin : null;
}

function frameOriginsOfPage(): string[] {
  try {
    const data = JSON.parse(document.getElementById("earshot-link")?.textContent ?? "null") as { frame_origins?: unknown } | null;
    return Array.isArray(data?.frame_origins) ? data.frame_origins.filter((o): o is string => typeof o === "string") : [];
  } catch {
    return [];
  }
}

const parentOrigin = allowedParentOrigin(frameOriginsOfPage());
if (parentOrigin) {
  const post = (type: string, extra: Record<string, unknown> = {}) => window.parent.postMessage({ earshot: 1, type, ...extra }, parentOrigin);
  for (const type of ["earshot:started", "earshot:submitted"]) document.addEventListener(type, () => post(type));
  document.documentElement.classList.add("embedded");
  if (typeof ResizeObserver !== "undefined") {
    let last = 0;
    new ResizeObserver(() => {
      // The body's own height: the document's scrollHeight never drops below the frame's height.
      const height = Math.ceil(document.body.getBoundingClientRect().height);
      if (height === last) return;
      last = height;
      post("earshot:resize", { height });
    }).observe(document.body);
  }
}
