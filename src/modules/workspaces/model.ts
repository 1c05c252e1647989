/**
 * @module workspaces/model
 * zod schema of the `GET workspace/` record (DESIGN §3).
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { retentionPolicySchema, workspaceRetentionInputSchema } from "../retention/model.ts";
import { embedSettingsInputSchema, embedSettingsSchema } from "../embed/model.ts";

export const workspaceSchema = lazySchema(() =>
  z.object({
    uuid: z.string().uuid(),
    name: z.string(),
    slug: z.string(),
    plan: z.enum(["free", "pro", "enterprise"]),
    host: z.string(),
    limits: z.object({ links: z.number().int().nullable(), requests_per_minute: z.number().int() }),
    usage: z.object({ links: z.number().int(), api_calls_today: z.number().int(), keys_created: z.number().int(), keys_active: z.number().int() }),
    retention: retentionPolicySchema.describe(
      'The default retention policy of the workspace\'s links (docs/privacy.md "Retention"); every rule off by default',
    ),
    embed: embedSettingsSchema,
    date_created: z.string(),
  }),
);

/** `PATCH workspace/` (scope `workspace:write`): `host: null` returns to `{public_url}/w/{slug}`; `limits.links: null` is unlimited. */
export const patchWorkspaceSchema = lazySchema(() =>
  z
    .object({
      name: z.string().trim().min(1, "A workspace needs a name.").max(200).optional(),
      host: z.string().max(500).nullable().optional(),
      plan: z.enum(["free", "pro", "enterprise"]).optional(),
      limits: z
        .object({
          links: z.number().int().min(0).max(1_000_000_000).nullable().optional(),
          requests_per_minute: z.number().int().min(1).max(1_000_000).optional(),
        })
        .strict()
        .optional(),
      retention: workspaceRetentionInputSchema
        .nullable()
        .optional()
        .describe("Replaces the workspace's retention policy as a whole (fields left out are off); null removes it"),
      embed: embedSettingsInputSchema.optional().describe("The origins allowed to embed the intake pages (issue 29; docs/embedding.md)"),
    })
    .strict(),
);
