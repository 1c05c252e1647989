/**
 * @module tokens/model
 * zod schema of `POST tokens/` (DESIGN §5).
 */
import { z } from "zod";
import { ALL_SCOPES } from "../../auth/keys.ts";

export const createTokenSchema = z
  .object({
    name: z.string().trim().min(1, "A token needs a name.").max(200),
    scopes: z.array(z.enum(ALL_SCOPES)).min(1).max(ALL_SCOPES.length).optional(),
  })
  .strict();
