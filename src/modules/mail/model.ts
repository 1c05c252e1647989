/**
 * @module mail/model
 * zod schemas of the mail settings endpoints (DESIGN §15; docs/api.md "Mail").
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";

export const mailSettingsSchema = lazySchema(() =>
  z.object({
    configured: z.boolean().describe("Whether EARSHOT_SMTP_URL is set: invites and password resets are then also sent by mail"),
    from: z.string().nullable().describe("EARSHOT_MAIL_FROM, or null when mail is off"),
  }),
);

export const mailTestSchema = lazySchema(() =>
  z
    .object({
      to: z
        .string()
        .trim()
        .max(320)
        .pipe(z.email("An email address is needed."))
        .optional()
        .describe("The recipient; default the signed-in user's address (required with an API key)"),
    })
    .strict(),
);

export const mailTestResultSchema = lazySchema(() =>
  z.object({
    sent: z.literal(true),
    to: z.string(),
    message_id: z.string().describe("The Message-ID header of the message sent"),
  }),
);
