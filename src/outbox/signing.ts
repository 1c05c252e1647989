/**
 * @module outbox/signing
 * Standard Webhooks signatures (DESIGN §8): `v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")>`.
 * A `whsec_` secret is base64-decoded into the key; any other secret (e.g. one given as
 * `on_finished.webhook_secret`) is used as its UTF-8 bytes. During a secret rotation both the new
 * and the previous secret sign, and the header carries both signatures separated by a space.
 */
import { createHmac } from "node:crypto";

const WHSEC_PREFIX = "whsec_";

/** The HMAC key of a secret: base64 after `whsec_`, else the UTF-8 bytes of the whole secret. */
export function secretKeyBytes(secret: string): Buffer {
  return secret.startsWith(WHSEC_PREFIX) ? Buffer.from(secret.slice(WHSEC_PREFIX.length), "base64") : Buffer.from(secret, "utf8");
}

/**
 * One signature, `v1,<base64>`.
 * @param timestampS Unix time in whole seconds (the `webhook-timestamp` header)
 */
export function signPayload(secret: string, id: string, timestampS: number, body: string): string {
  const mac = createHmac("sha256", secretKeyBytes(secret)).update(`${id}.${timestampS}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/**
 * The three Standard Webhooks headers for one attempt.
 * @param secrets the current secret first, then a previous one still inside its 24 h overlap
 * @param timestampS Unix time in whole seconds of this attempt
 */
export function webhookHeaders(secrets: readonly string[], id: string, timestampS: number, body: string): Record<string, string> {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestampS),
    "webhook-signature": secrets.map((s) => signPayload(s, id, timestampS, body)).join(" "),
  };
}
