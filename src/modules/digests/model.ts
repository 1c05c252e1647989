/**
 * @module digests/model
 * Shapes of a member's notification preferences (issue 28; docs/console.md "Email digests").
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";

/** How often a member receives the digest of a workspace. */
export const DIGEST_FREQUENCIES = ["off", "daily", "weekly"] as const;

/** `GET`/`PUT auth/notifications/` answer. */
export const notificationsSchema = lazySchema(() =>
  z.object({
    workspace_uuid: z.string().describe("The workspace the preference is for (the session's current one)"),
    digest: z.enum(DIGEST_FREQUENCIES).describe("off, daily (each day at 07:00 UTC, about the day before) or weekly (Mondays, about the 7 days before)"),
    mail_configured: z.boolean().describe("Whether this install sends mail at all; without it no digest goes out"),
  }),
);

/** `PUT auth/notifications/` body. */
export const notificationsUpdateSchema = lazySchema(() => z.object({ digest: z.enum(DIGEST_FREQUENCIES) }).strict());
