/**
 * @module invitations/model
 * zod schemas of a link's invitations (issue 25; DESIGN §13; docs/api.md "Invitations"): the
 * create body, the invitation record, the create answer and the list query.
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { formatMicros } from "../../clock.ts";

/** Invitations one `POST …/invitations/` may mint. */
export const MAX_INVITATIONS_PER_REQUEST = 1000;
/** Hidden-field values per invitation, and the length of each (characters). */
export const MAX_HIDDEN_KEYS = 20;
export const MAX_HIDDEN_VALUE_CHARS = 500;

export const INVITATION_STATES = ["unused", "started", "submitted", "expired", "revoked"] as const;
export type InvitationState = (typeof INVITATION_STATES)[number];

/** Hidden-field values baked into one invitation: field-key-style names → strings. */
export const hiddenValuesSchema = lazySchema(() =>
  z
    .record(
      z
        .string()
        .max(64)
        .regex(/^[a-z][a-z0-9_]*$/, "Use a field key: lowercase letters, digits and underscores, starting with a letter."),
      z.string().max(MAX_HIDDEN_VALUE_CHARS),
    )
    .refine((o) => Object.keys(o).length <= MAX_HIDDEN_KEYS, `At most ${MAX_HIDDEN_KEYS} hidden values per invitation.`),
);

/** An API timestamp (any ISO 8601 date-time with an offset), normalised to six fractional digits. */
const timestamp = lazySchema(() =>
  z.iso
    .datetime({ offset: true })
    .transform((s) => formatMicros(BigInt(Date.parse(s)) * 1000n))
    .describe("ISO 8601 date-time; returned as YYYY-MM-DDTHH:MM:SS.ffffffZ"),
);

export const createInvitationsSchema = lazySchema(() =>
  z
    .object({
      count: z
        .number()
        .int()
        .min(1)
        .max(MAX_INVITATIONS_PER_REQUEST)
        .optional()
        .describe(`How many invitations to mint (1..${MAX_INVITATIONS_PER_REQUEST}); default 1, or the length of hidden`),
      hidden: z
        .array(hiddenValuesSchema)
        .min(1)
        .max(MAX_INVITATIONS_PER_REQUEST)
        .optional()
        .describe("One object of hidden-field values per invitation, in order; its length must equal count when both are given"),
      expires_at: timestamp.nullable().optional().describe("After this time an unused invitation cannot start a response; must be in the future"),
    })
    .strict()
    .superRefine((b, ctx) => {
      if (b.hidden && b.count !== undefined && b.hidden.length !== b.count) {
        ctx.addIssue({ code: "custom", path: ["hidden"], message: `Give one object per invitation: ${b.count} expected, ${b.hidden.length} given.` });
      }
    }),
);
export type CreateInvitationsInput = z.output<typeof createInvitationsSchema>;

export const invitationSchema = lazySchema(() =>
  z.object({
    uuid: z.string().uuid(),
    link_uuid: z.string().uuid(),
    url: z.string().url().describe("The personal URL: the link's public_url with ?inv=<token>; single use"),
    state: z.enum(INVITATION_STATES),
    hidden: z.record(z.string(), z.string()),
    expires_at: z.string().nullable(),
    response_uuid: z.string().nullable().describe("The response the invitation started, once started"),
    date_created: z.string(),
    started_at: z.string().nullable(),
    submitted_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
  }),
);
export type Invitation = z.output<typeof invitationSchema>;

/** `POST …/invitations/` answers every invitation it minted, in the order of `hidden`. */
export const createdInvitationsSchema = lazySchema(() => z.object({ count: z.number().int(), results: z.array(invitationSchema) }));

export const listInvitationsQuerySchema = lazySchema(() =>
  z.object({ state: z.enum(INVITATION_STATES).optional().describe("Only invitations in this state") }),
);
