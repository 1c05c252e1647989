/**
 * @module oidc/flow
 * The two halves of a single sign-on (DESIGN §15): `begin` (for `GET auth/oidc/start/`) and
 * `complete` (for `GET auth/oidc/callback/`), between the route and the protocol and account code.
 */
import type { Kysely } from "kysely";
import { safeEqual } from "../../auth/sessions.ts";
import type { Clock } from "../../clock.ts";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../errors.ts";
import { CALLBACK_PATH, createOidcClient, type OidcClient } from "./client.ts";
import { newFlow, readFlow, safeNext, type Flow } from "./flow-cookie.ts";
import { signInWithClaims, type OidcSession } from "./service.ts";
import type { OidcSettings } from "./settings.ts";
import type { SecondFactorGate } from "../users/service.ts";

export type OidcFlows = {
  settings: OidcSettings;
  /** @returns the provider URL to send the browser to and the flow to keep in its cookie */
  begin(next: string | null): Promise<{ url: string; flow: Flow }>;
  /**
   * Checks the callback against the browser's flow, exchanges the code, signs the person in.
   * @param search the callback's query string (`?code=…&state=…`)
   * @throws AppError OIDC_STATE_INVALID, OIDC_PROVIDER_ERROR, OIDC_FAILED and signInWithClaims' codes
   *   (TWO_FACTOR_REQUIRED with a `ticket` extension when the account has two-factor on)
   */
  complete(
    search: string,
    flowCookieValue: string | null,
    clientAddress: string | null,
    previousIdHash: string | null,
  ): Promise<OidcSession & { next: string | null }>;
};

/**
 * The flows over the instance's settings; null when single sign-on is not configured.
 * @param secondFactor the two-factor gate (app.ts wires it; without it no second factor is asked)
 */
export function createOidcFlows(
  db: Kysely<Database>,
  settings: OidcSettings | null,
  publicUrl: string,
  clock: Clock,
  secondFactor?: SecondFactorGate,
): OidcFlows | null {
  if (!settings) return null;
  const client: OidcClient = createOidcClient(settings, publicUrl, clock);
  return {
    settings,
    async begin(next) {
      const { url, secrets } = await client.begin();
      return { url, flow: newFlow(secrets, clock.nowMs(), safeNext(next)) };
    },
    async complete(search, flowCookieValue, clientAddress, previousIdHash) {
      const { flow, callbackUrl } = checkCallback(search, flowCookieValue, publicUrl, clock);
      const claims = await client.finish(callbackUrl, flow);
      const session = await signInWithClaims(db, settings, claims, clientAddress, previousIdHash, secondFactor);
      return { ...session, next: flow.next };
    },
  };
}

/**
 * The callback's first checks, before any request to the provider: the browser's flow is there,
 * unexpired, and its `state` is the callback's; the provider reported no error.
 * @param search the callback's query string
 * @returns the flow and the callback URL as registered (the provider redirected to it; behind a
 *   proxy the request's own URL differs)
 * @throws AppError OIDC_STATE_INVALID, OIDC_PROVIDER_ERROR
 */
export function checkCallback(search: string, flowCookieValue: string | null, publicUrl: string, clock: Clock): { flow: Flow; callbackUrl: URL } {
  const query = new URLSearchParams(search);
  const flow = readFlow(flowCookieValue, clock.nowMs());
  const state = query.get("state") ?? "";
  if (!flow || !safeEqual(flow.state, state)) {
    throw new AppError("OIDC_STATE_INVALID", "This sign-in was not started in this browser, or took longer than 10 minutes. Start again.");
  }
  if (query.has("error")) {
    const reason = (query.get("error_description") ?? query.get("error") ?? "").slice(0, 200);
    throw new AppError("OIDC_PROVIDER_ERROR", `The identity provider did not sign you in: ${reason}`);
  }
  const callbackUrl = new URL(publicUrl + CALLBACK_PATH);
  callbackUrl.search = query.toString();
  return { flow, callbackUrl };
}
