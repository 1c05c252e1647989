/**
 * @module invitations/token
 * The token of a personal URL (`?inv=<uuid>.<sig>`): the invitation's uuid and an HMAC-SHA256 of
 * it under the instance's signing secret (base64url). Nothing secret is stored: the database
 * alone cannot mint a URL, the list can show every URL again, and a forged or altered token is
 * refused without a lookup. Why not a random token stored hashed: docs/decisions/invitations.md.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { isUuid } from "../../shared/uuid.ts";

/** Longest `inv` value accepted before any work (uuid 36 + "." + 43). */
const MAX_TOKEN_CHARS = 80;

function signature(secret: string, uuid: string): string {
  return createHmac("sha256", secret).update(`invitation\n${uuid}`).digest("base64url");
}

/** The token of invitation `uuid`: `<uuid>.<signature>`. */
export function invitationToken(secret: string, uuid: string): string {
  return `${uuid}.${signature(secret, uuid)}`;
}

/**
 * The invitation uuid a token names, when its signature is right.
 * @param token anything a respondent sent (hostile: bounded, type-checked)
 * @returns the uuid, or null for a missing, malformed or forged token
 */
export function verifyInvitationToken(secret: string, token: unknown): string | null {
  if (typeof token !== "string" || token.length > MAX_TOKEN_CHARS) return null;
  const dot = token.indexOf(".");
  const uuid = token.slice(0, dot);
  if (dot < 0 || !isUuid(uuid)) return null;
  const expected = Buffer.from(signature(secret, uuid));
  const given = Buffer.from(token.slice(dot + 1));
  return expected.length === given.length && timingSafeEqual(expected, given) ? uuid : null;
}
