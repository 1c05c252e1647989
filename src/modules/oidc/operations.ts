/**
 * @module oidc/operations
 * OpenAPI catalogue entries of single sign-on (DESIGN §15). Start and callback are browser
 * navigations: they answer 303 (a failure redirects to `/console/login/?sso_error=CODE`).
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { operation, textOf, type Operation } from "../../http/operation.ts";
import { workspaceSignInOptionSchema, workspaceSsoCheckSchema, workspaceSsoInputSchema, workspaceSsoSchema } from "./model.ts";

const tag = "console accounts";
const AUTH = ["UNAUTHENTICATED", "HTTPS_REQUIRED", "RATE_LIMITED"];
const messageSchema = lazySchema(() => z.object({ message: z.string() }));

/** `GET auth/oidc/`: what the sign-in page offers. */
export const signInOptionsSchema = lazySchema(() =>
  z.object({
    oidc: z.object({ provider_name: z.string().describe('The button reads "Sign in with {provider_name}"') }).nullable(),
    password_sign_in: z.boolean().describe("False when EARSHOT_PASSWORD_SIGNIN=false"),
  }),
);

/** The single sign-on endpoints, one declaration each: route and document entry. */
export const oidcOps = {
  options: operation({
    method: "get",
    path: "/api/v1/auth/oidc/",
    summary: "Sign-in options: the single sign-on provider (if configured) and whether passwords are accepted",
    tag,
    scope: "public",
    success: { status: 200, schema: signInOptionsSchema, description: "Sign-in options" },
    errors: ["HTTPS_REQUIRED"],
  }),
  start: operation({
    method: "get",
    path: "/api/v1/auth/oidc/start/",
    summary: "Begin single sign-on: redirects to the OpenID Provider (authorization code, PKCE S256, state, nonce)",
    tag,
    scope: "public",
    query: z.object({
      next: z.string().optional().describe("Console page to open after signing in"),
      workspace: z.string().optional().describe("A workspace's uuid or slug: sign in through that workspace's own provider (a session limited to it)"),
    }),
    success: { status: 303, description: "To the provider (Set-Cookie: earshot_oidc, 10 min)" },
    errors: ["OIDC_NOT_CONFIGURED", "HTTPS_REQUIRED"],
  }),
  callback: operation({
    method: "get",
    path: "/api/v1/auth/oidc/callback/",
    summary: "The redirect URI: checks the provider's answer and signs in (sets the session cookie)",
    tag,
    scope: "public",
    query: z.object({ code: z.string().optional(), state: z.string().optional(), error: z.string().optional() }),
    success: { status: 303, description: "To the console, signed in; or to /console/login/?sso_error=CODE" },
    errors: ["OIDC_NOT_CONFIGURED", "HTTPS_REQUIRED"],
  }),
  workspaceOption: operation({
    method: "get",
    path: "/api/v1/auth/oidc/workspaces/:workspace/",
    summary: "A workspace's own single sign-on, for the sign-in page (by workspace uuid or slug)",
    tag,
    scope: "public",
    success: { status: 200, schema: workspaceSignInOptionSchema, description: "The provider's name and where its button goes" },
    errors: ["OIDC_NOT_CONFIGURED", "HTTPS_REQUIRED", "RATE_LIMITED"],
  }),
  getWorkspaceSso: operation({
    method: "get",
    path: "/api/v1/workspace/sso/",
    summary: "The workspace's own single sign-on settings (owners; the client secret is never returned)",
    tag: "workspace",
    scope: "workspace:write",
    success: { status: 200, schema: workspaceSsoSchema, description: "Settings" },
    errors: [...AUTH, "INSUFFICIENT_SCOPE", "OIDC_NOT_CONFIGURED"],
  }),
  putWorkspaceSso: operation({
    method: "put",
    path: "/api/v1/workspace/sso/",
    summary: "Set the workspace's own single sign-on (owners); the issuer's discovery document must load",
    tag: "workspace",
    scope: "workspace:write",
    audit: { action: "sso.updated", target: (_p, b) => ({ type: "workspace", uuid: null, label: `${textOf(b?.provider_name)} (${textOf(b?.issuer)})` }) },
    body: workspaceSsoInputSchema,
    success: { status: 200, schema: workspaceSsoSchema, description: "Settings" },
    errors: [
      ...AUTH,
      "CSRF_FAILED",
      "INSUFFICIENT_SCOPE",
      "INVALID_JSON",
      "VALIDATION_ERROR",
      "PAYLOAD_TOO_LARGE",
      "UNSUPPORTED_MEDIA_TYPE",
      "OIDC_DISCOVERY_FAILED",
    ],
  }),
  checkWorkspaceSso: operation({
    method: "post",
    path: "/api/v1/workspace/sso/check/",
    summary: "Load the stored provider's discovery document again (owners; Settings' \"Test connection\")",
    tag: "workspace",
    scope: "workspace:write",
    emptyBody: true,
    success: { status: 200, schema: workspaceSsoCheckSchema, description: "The document loaded and names the stored issuer" },
    errors: [...AUTH, "CSRF_FAILED", "INSUFFICIENT_SCOPE", "OIDC_NOT_CONFIGURED", "OIDC_DISCOVERY_FAILED"],
  }),
  deleteWorkspaceSso: operation({
    method: "delete",
    path: "/api/v1/workspace/sso/",
    summary: "Remove the workspace's own single sign-on (owners); its sessions end",
    tag: "workspace",
    scope: "workspace:write",
    audit: { action: "sso.removed", target: () => ({ type: "workspace", uuid: null, label: null }) },
    success: { status: 200, schema: messageSchema, description: "Removed" },
    errors: [...AUTH, "CSRF_FAILED", "INSUFFICIENT_SCOPE", "OIDC_NOT_CONFIGURED"],
  }),
};

export const oidcOperations: Operation[] = Object.values(oidcOps);
