/**
 * @module two-factor/ticket-cookie
 * Carries a second-factor ticket from the single sign-on callback to the code step (issue 28;
 * docs/decisions/oidc.md "Second factor after single sign-on"). The callback is a browser
 * redirect, so the ticket cannot travel in a JSON answer as after a password; in a URL it would
 * sit in the browser history and the proxy's access log. Instead: an HttpOnly cookie scoped to
 * `POST /api/v1/auth/two-factor/`, living as long as the ticket (TICKET_TTL_S), cleared once used.
 */
import { TICKET_TTL_S } from "./sign-in.ts";

export const TICKET_COOKIE = "earshot_2fa";
const PATH = "/api/v1/auth/two-factor/";

/**
 * The `Set-Cookie` value holding `ticket` (null clears it). SameSite=Lax: it is set on the
 * provider's cross-site redirect back, and read by the console's same-origin POST.
 */
export function ticketCookie(ticket: string | null, secure: boolean): string {
  const parts = [`${TICKET_COOKIE}=${ticket ?? ""}`, "HttpOnly", "SameSite=Lax", `Path=${PATH}`, `Max-Age=${ticket ? TICKET_TTL_S : 0}`];
  if (secure) parts.push("Secure");
  return parts.join("; ");
}
