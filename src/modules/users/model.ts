/**
 * @module users/model
 * zod schemas of the console's account endpoints: sign-in, setup, invites, password changes,
 * members (DESIGN §10; console contract).
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { KEY_SCOPES } from "../../auth/keys.ts";
import { ROLES } from "../../auth/roles.ts";

/** Passwords: at least 12 characters (DESIGN §10); the upper bound keeps hashing cheap to refuse. */
export const passwordSchema = lazySchema(() =>
  z.string().min(12, "A password needs at least 12 characters.").max(1024, "A password may have at most 1024 characters."),
);
const emailSchema = lazySchema(() => z.string().trim().max(320).pipe(z.email("An email address is needed.")));
const nameSchema = lazySchema(() => z.string().trim().min(1, "A name is needed.").max(200));

export const loginSchema = lazySchema(() => z.object({ email: z.string().max(320), password: z.string().max(1024) }).strict());
export const setupSchema = lazySchema(() => z.object({ token: z.string().max(200), name: nameSchema, email: emailSchema, password: passwordSchema }).strict());
export const acceptInviteSchema = lazySchema(() => z.object({ name: nameSchema.optional(), password: z.string().max(1024) }).strict());
export const passwordResetSchema = lazySchema(() => z.object({ token: z.string().max(200), password: passwordSchema }).strict());
export const patchMeSchema = lazySchema(() => z.object({ name: nameSchema }).strict());
export const changePasswordSchema = lazySchema(() => z.object({ current_password: z.string().max(1024), new_password: passwordSchema }).strict());
export const switchWorkspaceSchema = lazySchema(() => z.object({ workspace_uuid: z.string().max(100) }).strict());

export const sessionSchema = lazySchema(() =>
  z.object({
    user: z.object({ uuid: z.string().uuid(), email: z.string(), name: z.string(), date_created: z.string(), last_login_at: z.string().nullable() }),
    memberships: z.array(z.object({ workspace_uuid: z.string().uuid(), workspace_name: z.string(), workspace_slug: z.string(), role: z.enum(ROLES) })),
    current_workspace_uuid: z.string().uuid().nullable(),
    role: z.enum(ROLES).nullable(),
    scopes: z.array(z.enum(KEY_SCOPES)),
    csrf_token: z.string(),
    public_url: z.string().describe("EARSHOT_PUBLIC_URL: the origin public links, QR codes, invite and setup URLs are built from"),
  }),
);

export const invitePublicSchema = lazySchema(() => z.object({ email: z.string(), workspace_name: z.string(), role: z.enum(ROLES), expires_at: z.string() }));

export const memberSchema = lazySchema(() =>
  z.object({
    user_uuid: z.string().uuid(),
    email: z.string(),
    name: z.string(),
    role: z.enum(ROLES),
    disabled: z.boolean(),
    date_created: z.string(),
    last_login_at: z.string().nullable(),
  }),
);
export const patchMemberSchema = lazySchema(() => z.object({ role: z.enum(ROLES) }).strict());
export const createInviteSchema = lazySchema(() => z.object({ email: emailSchema, role: z.enum(ROLES) }).strict());
export const inviteSchema = lazySchema(() =>
  z.object({
    uuid: z.string().uuid(),
    email: z.string(),
    role: z.enum(ROLES),
    url: z.string().optional().describe("The single-use invite URL; only in the create response"),
    date_created: z.string(),
    expires_at: z.string(),
    mail_state: z
      .enum(["queued", "sent", "retrying", "failed"])
      .nullable()
      .describe("Its mail (DESIGN §15): queued, sent, retrying (the last attempt failed), failed (given up; the invite stays valid); null when mail is off"),
    mail_error: z.string().nullable().describe("The last SMTP error of its mail (no secrets), or null"),
  }),
);
