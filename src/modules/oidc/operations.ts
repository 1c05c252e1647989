/**
 * @module oidc/operations
 * OpenAPI catalogue entries of single sign-on (DESIGN §15). Start and callback are browser
 * navigations: they answer 303 (a failure redirects to `/console/login/?sso_error=CODE`).
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { operation, type Operation } from "../../http/operation.ts";

const tag = "console accounts";

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
    query: z.object({ next: z.string().optional().describe("Console page to open after signing in") }),
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
};

export const oidcOperations: Operation[] = Object.values(oidcOps);
