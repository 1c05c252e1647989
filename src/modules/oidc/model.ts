/**
 * @module oidc/model
 * zod schemas of a workspace's own single sign-on settings (issue 28; DESIGN §15 "a workspace may
 * override them"; docs/console.md "A workspace's own single sign-on"). The client secret is
 * write-only: the view says only whether one is set.
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";

const mappable = () => z.enum(["admin", "member", "viewer"]);
/** A DNS name of at least two labels, lower case (e.g. `example.com`); no wildcards. */
const DOMAIN = /^(?=.{3,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** `PUT workspace/sso/`: the whole setting (a missing `client_secret` keeps the stored one). */
export const workspaceSsoInputSchema = lazySchema(() =>
  z
    .object({
      issuer: z.string().trim().min(1).max(500).describe("The issuer identifier, exactly as in the provider's discovery document (https://)"),
      client_id: z.string().trim().min(1).max(200),
      client_secret: z
        .string()
        .min(1)
        .max(1000)
        .nullable()
        .optional()
        .describe("Set it; null removes it (a public client, PKCE only); left out keeps the stored one. Never returned"),
      allowed_domains: z
        .array(
          z
            .string()
            .trim()
            .toLowerCase()
            .transform((d) => d.replace(/^@/, ""))
            .pipe(z.string().regex(DOMAIN, "A domain such as example.com")),
        )
        .min(1, "A workspace's provider needs at least one allowed email domain")
        .max(50)
        .describe("Only verified emails of these domains sign in (required: the workspace's provider must not claim any address)"),
      role_claim: z.string().trim().min(1).max(100).nullable().default(null).describe("The claim holding groups or roles, e.g. `groups`"),
      role_map: z
        .array(z.object({ value: z.string().trim().min(1).max(200), role: mappable() }).strict())
        .max(50)
        .default([])
        .describe("Claim value → role; the most privileged match wins; never owner"),
      auto_join: z.boolean().describe("Unknown people of the allowed domains join this workspace (else: invite-only)"),
      default_role: mappable().default("member").describe("The role of a just-in-time member when no role claim is configured"),
      provider_name: z.string().trim().min(1).max(60).describe('The button reads "Sign in with {provider_name}"'),
      enabled: z.boolean().default(true),
    })
    .strict()
    .superRefine((v, ctx) => {
      if (v.role_claim && v.role_map.length === 0) ctx.addIssue({ code: "custom", path: ["role_map"], message: "Needed when role_claim is set" });
      if (!v.role_claim && v.role_map.length > 0) ctx.addIssue({ code: "custom", path: ["role_claim"], message: "Needed when role_map is set" });
    }),
);
export type WorkspaceSsoInput = z.output<typeof workspaceSsoInputSchema>;

/** The stored setting as the API shows it (`GET`/`PUT workspace/sso/`). */
export const workspaceSsoSchema = lazySchema(() =>
  z.object({
    issuer: z.string(),
    client_id: z.string(),
    client_secret_set: z.boolean().describe("Whether a client secret is stored (it is never returned)"),
    allowed_domains: z.array(z.string()),
    role_claim: z.string().nullable(),
    role_map: z.array(z.object({ value: z.string(), role: mappable() })),
    auto_join: z.boolean(),
    default_role: mappable(),
    provider_name: z.string(),
    enabled: z.boolean(),
    redirect_uri: z.string().describe("Register this at the provider (the same for every provider of this server)"),
    sign_in_url: z.string().describe("The console's sign-in page offering this provider: share it with the workspace's members"),
    date_updated: z.string(),
  }),
);
export type WorkspaceSsoView = z.output<typeof workspaceSsoSchema>;

/** `GET auth/oidc/workspaces/{workspace}/`: what the sign-in page shows for a workspace's provider. */
export const workspaceSignInOptionSchema = lazySchema(() =>
  z.object({
    workspace_slug: z.string(),
    provider_name: z.string().describe('The button reads "Sign in with {provider_name}"'),
    start_url: z.string().describe("Where the button goes: `/api/v1/auth/oidc/start/?workspace={slug}`"),
  }),
);

/** `POST workspace/sso/check/`: the stored provider's discovery document loaded. */
export const workspaceSsoCheckSchema = lazySchema(() => z.object({ issuer: z.string(), checked_at: z.string() }));
