/**
 * @module tokens/model
 * zod schema of `POST tokens/` (DESIGN §5).
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { KEY_SCOPES } from "../../auth/keys.ts";

export const createTokenSchema = lazySchema(() =>
  z
    .object({
      name: z.string().trim().min(1, "A token needs a name.").max(200),
      scopes: z.array(z.enum(KEY_SCOPES)).min(1).max(KEY_SCOPES.length).optional(),
    })
    .strict(),
);

export const tokenSchema = lazySchema(() =>
  z.object({
    uuid: z.string().uuid(),
    name: z.string(),
    masked_key: z.string(),
    scopes: z.array(z.enum(KEY_SCOPES)),
    date_created: z.string(),
    last_used_at: z.string().nullable(),
    created_by: z
      .object({ user_uuid: z.string().uuid(), name: z.string(), email: z.string() })
      .nullable()
      .describe(
        "The console user who created the key (directly, or through a key they created); null for keys the operator made. Removing, disabling or demoting that user revokes it.",
      ),
  }),
);
export const createdTokenSchema = lazySchema(() =>
  tokenSchema.extend({
    key: z
      .string()
      .regex(/^sk_live_[A-Za-z0-9]{40}$/)
      .describe("The full API key, shown once"),
  }),
);
