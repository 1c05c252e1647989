/**
 * @module embed/model
 * zod schemas of a workspace's embed settings (issue 29; docs/embedding.md): the `embed` member of
 * `GET workspace/` and of `PATCH workspace/` (scope `workspace:write`, as every workspace setting).
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { MAX_EMBED_ORIGINS, normalizeEmbedOrigin } from "../../shared/frame-origins.ts";

/** `embed` as `GET workspace/` shows it. */
export const embedSettingsSchema = lazySchema(() =>
  z
    .object({
      allowed_origins: z
        .array(z.string())
        .describe("Origins whose pages may show this workspace's intake pages in an iframe and receive their events (docs/embedding.md)"),
    })
    .describe("The embed kit's settings (issue 29); EARSHOT_FRAME_ANCESTORS is added to these for every workspace"),
);

/** One allowed origin as given: an http(s) origin, a leading `*.` allowed; stored normalised. */
const originInputSchema = () =>
  z
    .string()
    .max(300)
    .transform((value, ctx) => {
      const origin = normalizeEmbedOrigin(value);
      if (origin === null) {
        ctx.addIssue({ code: "custom", message: "Use an origin such as https://shop.example.com (scheme and host, optional port; no path)." });
        return z.NEVER;
      }
      return origin;
    });

/** `embed` in `PATCH workspace/`: replaces the list as a whole (`[]` allows no origin). */
export const embedSettingsInputSchema = lazySchema(() =>
  z
    .object({
      allowed_origins: z
        .array(originInputSchema())
        .max(MAX_EMBED_ORIGINS)
        .transform((list) => [...new Set(list)])
        .describe(`Replaces the list (at most ${MAX_EMBED_ORIGINS}); e.g. ["https://shop.example.com", "https://*.example.org"]`),
    })
    .strict(),
);

/** The stored list (`workspaces.embed_origins`), [] when none or unreadable. */
export function embedOriginsOf(ws: { embed_origins?: string | null }): string[] {
  if (!ws.embed_origins) return [];
  try {
    const list: unknown = JSON.parse(ws.embed_origins);
    return Array.isArray(list) ? list.filter((o): o is string => typeof o === "string") : [];
  } catch {
    return [];
  }
}
