/**
 * @module responses/model
 * zod schemas of the response list queries (DESIGN §7).
 */
import { z } from "zod";

export const listResponsesQuerySchema = z.object({
  ordering: z.enum(["submitted_at", "-submitted_at", "date_created", "-date_created"]).default("-submitted_at"),
  search: z.string().max(200).optional(),
  status: z.enum(["completed", "started", "all"]).default("completed"),
  link: z.string().max(64).optional(),
});
export type ListResponsesQuery = z.output<typeof listResponsesQuerySchema>;
