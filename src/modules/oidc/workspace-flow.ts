/**
 * @module oidc/workspace-flow
 * The two halves of a sign-in through a workspace's own provider (issue 28): `begin` for
 * `GET auth/oidc/start/?workspace=…` and `complete` for the shared callback, which the flow
 * cookie's `workspace_uuid` routes here. The protocol checks are the server provider's
 * (client.ts, with the outbound guard); the account rules are workspace-sign-in.ts's.
 */
import type { SecondFactorGate } from "../users/service.ts";
import { createOidcClient, type OidcClient } from "./client.ts";
import { newFlow, safeNext, type Flow } from "./flow-cookie.ts";
import { checkCallback } from "./flow.ts";
import type { OidcSession } from "./service.ts";
import { loadWorkspaceProvider, transportFor, type WorkspaceProvider, type WorkspaceSsoDeps } from "./workspace-provider.ts";
import { signInToWorkspace } from "./workspace-sign-in.ts";

/** Clients kept (their discovery documents with them); a changed setting makes a new one. */
const MAX_CLIENTS = 200;

export type WorkspaceFlows = {
  /**
   * @param workspace the workspace's uuid or slug
   * @throws AppError OIDC_NOT_CONFIGURED, OIDC_FAILED
   */
  begin(workspace: string, next: string | null): Promise<{ url: string; flow: Flow }>;
  /**
   * Checks the callback against the browser's flow (whose `workspace_uuid` names the provider),
   * exchanges the code, signs the person in to that workspace.
   * @throws AppError OIDC_STATE_INVALID, OIDC_PROVIDER_ERROR, OIDC_NOT_CONFIGURED, OIDC_FAILED and
   *   signInToWorkspace's codes
   */
  complete(
    search: string,
    flowCookieValue: string | null,
    clientAddress: string | null,
    previousIdHash: string | null,
  ): Promise<OidcSession & { next: string | null }>;
};

/** The workspace providers' flows over the app's database and settings. */
export function createWorkspaceFlows(deps: WorkspaceSsoDeps, secondFactor?: SecondFactorGate): WorkspaceFlows {
  const clients = new Map<string, OidcClient>();
  const clientFor = (p: WorkspaceProvider): OidcClient => {
    const key = `${p.workspace.uuid}|${p.version}`;
    let c = clients.get(key);
    if (!c) {
      if (clients.size >= MAX_CLIENTS) clients.delete(clients.keys().next().value!);
      c = createOidcClient(p.settings, deps.publicUrl, deps.clock, transportFor(deps));
      clients.set(key, c);
    }
    return c;
  };
  return {
    async begin(workspace, next) {
      const provider = await loadWorkspaceProvider(deps, workspace);
      const { url, secrets } = await clientFor(provider).begin();
      return { url, flow: newFlow(secrets, deps.clock.nowMs(), safeNext(next), provider.workspace.uuid) };
    },
    async complete(search, flowCookieValue, clientAddress, previousIdHash) {
      const { flow, callbackUrl } = checkCallback(search, flowCookieValue, deps.publicUrl, deps.clock);
      // The provider as it is now: one disabled or removed since the start signs nobody in.
      const provider = await loadWorkspaceProvider(deps, flow.workspace_uuid ?? "");
      const claims = await clientFor(provider).finish(callbackUrl, flow);
      const session = await signInToWorkspace(deps.db, provider, claims, clientAddress, previousIdHash, secondFactor);
      return { ...session, next: flow.next };
    },
  };
}
