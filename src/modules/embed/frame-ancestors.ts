/**
 * @module embed/frame-ancestors
 * Who may frame a workspace's intake page (issue 29; docs/embedding.md "Allowed origins"): the
 * instance's `EARSHOT_FRAME_ANCESTORS` plus the workspace's `embed.allowed_origins`. The page's
 * `Content-Security-Policy` header carries them as `frame-ancestors` (a parent not on the list
 * gets the browser's "refused to connect" instead of the page), and the page gets them too, to
 * post its events only to a parent they allow (web/intake/embed-bridge.ts).
 */
import { contentSecurityPolicy, INTAKE_PAGE_DIRECTIVES } from "../../http/security-headers.ts";
import { embedOriginsOf } from "./model.ts";

/**
 * The CSP sources that may frame one workspace's intake page.
 * @param instance `EARSHOT_FRAME_ANCESTORS` (`'none'` by default; checked at start)
 * @param ws the workspace row (its `embed_origins` JSON)
 * @param isPreview the request is the console's preview (`?preview=1`, which records nothing):
 *   the page's own origin may frame it too (`'self'`), so the console shows it through embed.js
 * @returns the sources, deduplicated; [] when nobody may frame the page
 */
export function intakeFrameAncestors(instance: string, ws: { embed_origins?: string | null }, isPreview: boolean): string[] {
  const sources = instance.trim() === "'none'" ? [] : instance.trim().split(/\s+/);
  if (isPreview) sources.push("'self'");
  return [...new Set([...sources, ...embedOriginsOf(ws)])];
}

/** The intake page's `Content-Security-Policy` header for these `frame-ancestors` sources ([] → `'none'`). */
export function intakePagePolicy(sources: readonly string[]): string {
  return contentSecurityPolicy(INTAKE_PAGE_DIRECTIVES, { "frame-ancestors": sources.length ? sources.join(" ") : "'none'" });
}
