/**
 * @module oidc/flow-cookie
 * Binds a single sign-on flow to the browser that started it: `state`, `nonce` and the PKCE
 * verifier travel in a short-lived HttpOnly cookie scoped to `/api/v1/auth/oidc/`, so a callback
 * opened in another browser (or forged) has nothing to match. SameSite=Lax: the provider's
 * redirect back is a top-level GET, on which Lax cookies are sent.
 */
import { z } from "zod";
import type { FlowSecrets } from "./client.ts";

export const FLOW_COOKIE = "earshot_oidc";
/** A flow must come back within this (a person typing a password and a second factor at the provider). */
export const FLOW_TTL_S = 600;
const PATH = "/api/v1/auth/oidc/";

const flowSchema = z.object({
  state: z.string().min(16).max(200),
  nonce: z.string().min(16).max(200),
  verifier: z.string().min(43).max(128),
  /** Expiry, ms since the epoch (the cookie's Max-Age alone is the browser's word). */
  exp: z.number(),
  /** The console page to open afterwards. */
  next: z.string().max(500).nullable(),
  /** The workspace whose own provider this flow went to; absent or null: the server's provider. */
  workspace_uuid: z.string().max(64).nullable().optional(),
});
export type Flow = z.output<typeof flowSchema>;

/** The `Set-Cookie` value holding a flow (null clears it). */
export function flowCookie(flow: Flow | null, secure: boolean): string {
  const value = flow ? Buffer.from(JSON.stringify(flow)).toString("base64url") : "";
  const parts = [`${FLOW_COOKIE}=${value}`, "HttpOnly", "SameSite=Lax", `Path=${PATH}`, `Max-Age=${flow ? FLOW_TTL_S : 0}`];
  if (secure) parts.push("Secure");
  return parts.join("; ");
}

/**
 * A new flow around `secrets`, expiring FLOW_TTL_S from `nowMs`.
 * @param workspaceUuid the workspace whose own provider signs in (null: the server's provider)
 */
export function newFlow(secrets: FlowSecrets, nowMs: number, next: string | null, workspaceUuid: string | null = null): Flow {
  return { ...secrets, exp: nowMs + FLOW_TTL_S * 1000, next, workspace_uuid: workspaceUuid };
}

/**
 * The flow in a cookie value.
 * @returns null when missing, malformed or expired
 */
export function readFlow(value: string | null, nowMs: number): Flow | null {
  if (!value || value.length > 2000) return null;
  try {
    const parsed = flowSchema.safeParse(JSON.parse(Buffer.from(value, "base64url").toString("utf8")));
    return parsed.success && parsed.data.exp > nowMs ? parsed.data : null;
  } catch {
    return null;
  }
}

/** `next` when it is a console page other than sign-in, else null (no open redirect). */
export function safeNext(next: string | null | undefined): string | null {
  if (!next || next.length > 500 || !next.startsWith("/console/") || next.startsWith("/console/login") || next.includes("//") || next.includes("\\"))
    return null;
  // A console path and its query only: no control characters (a CR/LF would break the Location header).
  if (!/^[A-Za-z0-9/_\-.~%?=&]+$/.test(next)) return null;
  return next;
}
