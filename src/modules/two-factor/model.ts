/**
 * @module two-factor/model
 * zod schemas of the two-factor endpoints (issue 28; DESIGN §15; docs/console.md "Two-factor
 * authentication"). Codes are bounded strings here; their format is checked by the service, so a
 * malformed code answers like a wrong one (INVALID_TWO_FACTOR_CODE) and counts against the throttle.
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";

const code = () => z.string().max(20).describe("The 6-digit code the authenticator app shows now");
const recoveryCode = () => z.string().max(40).describe("One of the recovery codes (`xxxxx-xxxxx`; case, spaces and dashes ignored)");

export const twoFactorStatusSchema = lazySchema(() =>
  z.object({
    enabled: z.boolean(),
    enabled_at: z.string().nullable(),
    recovery_codes_remaining: z.number().int().min(0),
    required_by_workspace: z.boolean().describe("The session's current workspace requires two-factor authentication"),
  }),
);

export const enrolmentSchema = lazySchema(() =>
  z.object({
    secret: z.string().describe("The base32 secret, for typing into an app by hand; returned only here, once"),
    otpauth_uri: z.string().describe("`otpauth://totp/…` (SHA-1, 6 digits, 30 s)"),
    qr_code: z.string().describe("The URI as an SVG QR code, `data:image/svg+xml;base64,…`"),
  }),
);

export const confirmEnrolmentSchema = lazySchema(() => z.object({ code: code() }).strict());

export const recoveryCodesSchema = lazySchema(() =>
  z.object({ recovery_codes: z.array(z.string()).length(10).describe("Shown once; each works once; only their hashes are kept") }),
);

/** Disable / regenerate: the current code, or the account's password. */
export const proofSchema = lazySchema(() =>
  z
    .object({ code: code().optional(), password: z.string().max(1024).optional() })
    .strict()
    .refine((v) => (v.code === undefined) !== (v.password === undefined), { message: "Send either `code` or `password`." }),
);

export const signInSecondStepSchema = lazySchema(() =>
  z
    .object({ ticket: z.string().max(200).optional(), code: code().optional(), recovery_code: recoveryCode().optional() })
    .strict()
    .refine((v) => (v.code === undefined) !== (v.recovery_code === undefined), { message: "Send either `code` or `recovery_code`." }),
);

export const requirementSchema = lazySchema(() => z.object({ required: z.boolean() }).strict());
