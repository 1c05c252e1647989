/**
 * @module workspaces/model
 * zod schema of the `GET workspace/` record (DESIGN §3).
 */
import { z } from "zod";

export const workspaceSchema = z.object({
  uuid: z.string().uuid(),
  name: z.string(),
  slug: z.string(),
  plan: z.enum(["free", "pro", "enterprise"]),
  host: z.string(),
  limits: z.object({ links: z.number().int().nullable(), requests_per_minute: z.number().int() }),
  usage: z.object({ links: z.number().int(), api_calls_today: z.number().int(), keys_created: z.number().int(), keys_active: z.number().int() }),
  date_created: z.string(),
});
