/**
 * @module oidc/workspace-provider
 * A workspace's own OpenID Provider (issue 28; DESIGN §15 "a workspace may override them in its
 * settings"; docs/decisions/oidc.md "A workspace's own provider"): read, saved after its discovery
 * document loads, removed; and loaded for a sign-in. The client secret is kept AES-256-GCM
 * encrypted under an installation key of its own (`settings.oidc_secret_key`, made at first use,
 * as the two-factor secrets are) and never returned: the view says `client_secret_set`.
 */
import type { Kysely } from "kysely";
import type { Clock } from "../../clock.ts";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../errors.ts";
import { isUuid } from "../../shared/uuid.ts";
import { settingOrCreate } from "../two-factor/repository.ts";
import { decryptSecret, encryptSecret, newInstallationKey } from "../two-factor/secrets.ts";
import { findWorkspaceBySlug, findWorkspaceByUuid, type WorkspaceRow } from "../workspaces/repository.ts";
import { CALLBACK_PATH, createOidcClient } from "./client.ts";
import type { WorkspaceSsoInput, WorkspaceSsoView } from "./model.ts";
import { guardedFetch, providerUrlRefusal } from "./outbound.ts";
import * as repo from "./repository.ts";
import type { OidcSettings, RoleMapping } from "./settings.ts";

export type WorkspaceSsoDeps = {
  db: Kysely<Database>;
  clock: Clock;
  /** EARSHOT_PUBLIC_URL without a trailing slash. */
  publicUrl: string;
  /** EARSHOT_WEBHOOK_ALLOW_HOSTS: hosts the outbound guard lets through (a provider on this machine). */
  allowHosts: readonly string[];
};

/** A workspace's enabled provider, ready for a sign-in. */
export type WorkspaceProvider = { workspace: WorkspaceRow; settings: OidcSettings; version: string };

const KEY_SETTING = "oidc_secret_key";

/** The installation key that encrypts client secrets (made at first use, kept in `settings`). */
function secretKey(db: Kysely<Database>): Promise<string> {
  return settingOrCreate(db, KEY_SETTING, newInstallationKey());
}

function view(row: repo.WorkspaceProviderRow, workspace: WorkspaceRow, publicUrl: string): WorkspaceSsoView {
  return {
    issuer: row.issuer,
    client_id: row.client_id,
    client_secret_set: row.client_secret_encrypted !== null,
    allowed_domains: row.allowed_domains.split(" ").filter(Boolean),
    role_claim: row.role_claim,
    role_map: JSON.parse(row.role_map) as RoleMapping[],
    auto_join: !!row.auto_join,
    default_role: row.default_role,
    provider_name: row.provider_name,
    enabled: !!row.enabled,
    redirect_uri: publicUrl + CALLBACK_PATH,
    sign_in_url: `${publicUrl}/console/login/?workspace=${encodeURIComponent(workspace.slug)}`,
    date_updated: row.date_updated,
  };
}

function toSettings(row: repo.WorkspaceProviderRow, clientSecret: string | null): OidcSettings {
  return Object.freeze({
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecret,
    allowedDomains: row.allowed_domains.split(" ").filter(Boolean),
    roleClaim: row.role_claim,
    roleMap: JSON.parse(row.role_map) as RoleMapping[],
    autoJoin: !!row.auto_join,
    defaultRole: row.default_role,
    providerName: row.provider_name,
  });
}

async function workspaceOf(db: Kysely<Database>, workspaceUuid: string): Promise<WorkspaceRow> {
  const ws = await findWorkspaceByUuid(db, workspaceUuid);
  if (!ws) throw new AppError("NOT_FOUND", "Workspace not found.");
  return ws;
}

/**
 * The workspace's single sign-on settings (the secret only as `client_secret_set`).
 * @throws AppError OIDC_NOT_CONFIGURED when the workspace has none
 */
export async function getWorkspaceSso(deps: WorkspaceSsoDeps, workspaceUuid: string): Promise<WorkspaceSsoView> {
  const row = await repo.findWorkspaceProvider(deps.db, workspaceUuid);
  if (!row) throw new AppError("OIDC_NOT_CONFIGURED", "This workspace has no single sign-on of its own.");
  return view(row, await workspaceOf(deps.db, workspaceUuid), deps.publicUrl);
}

/**
 * Saves the workspace's provider after loading its discovery document (so a typo is caught now,
 * not at the first sign-in). A left-out `client_secret` keeps the stored one; null removes it.
 * Turning it off or changing the issuer ends the sessions it started.
 * @throws AppError VALIDATION_ERROR (`/issuer`), OIDC_DISCOVERY_FAILED (the detail says why)
 */
export async function putWorkspaceSso(deps: WorkspaceSsoDeps, workspaceUuid: string, input: WorkspaceSsoInput): Promise<WorkspaceSsoView> {
  const refusal = providerUrlRefusal(input.issuer, deps.allowHosts);
  if (refusal) throw new AppError("VALIDATION_ERROR", `The issuer ${refusal}.`, { errors: [{ pointer: "/issuer", message: refusal }] });
  const workspace = await workspaceOf(deps.db, workspaceUuid);
  const existing = await repo.findWorkspaceProvider(deps.db, workspaceUuid);
  const key = await secretKey(deps.db);
  let secretEncrypted: string | null;
  if (input.client_secret === undefined) secretEncrypted = existing?.client_secret_encrypted ?? null;
  else secretEncrypted = input.client_secret === null ? null : encryptSecret(input.client_secret, key);
  const now = deps.clock.nowIso();
  const row: repo.WorkspaceProviderRow = {
    workspace_uuid: workspaceUuid,
    issuer: input.issuer,
    client_id: input.client_id,
    client_secret_encrypted: secretEncrypted,
    allowed_domains: [...new Set(input.allowed_domains)].join(" "),
    role_claim: input.role_claim,
    role_map: JSON.stringify(input.role_map),
    auto_join: input.auto_join ? 1 : 0,
    default_role: input.default_role,
    provider_name: input.provider_name,
    enabled: input.enabled ? 1 : 0,
    date_created: existing?.date_created ?? now,
    date_updated: now,
  };
  await discover(deps, toSettings(row, secretEncrypted ? decryptSecret(secretEncrypted, key) : null));
  await deps.db.transaction().execute(async (trx) => {
    await repo.putWorkspaceProvider(trx, row);
    // Sessions it started end when the provider is turned off or is another issuer now.
    if (existing && (!row.enabled || existing.issuer !== row.issuer)) await repo.deleteLimitedSessions(trx, workspaceUuid);
  });
  return view(row, workspace, deps.publicUrl);
}

/**
 * Loads the stored provider's discovery document again (Settings' "Test connection"), through the
 * outbound guard, with the stored settings.
 * @returns the issuer as its document states it (equal to the stored one, or this throws)
 * @throws AppError OIDC_NOT_CONFIGURED, OIDC_DISCOVERY_FAILED (the detail says why)
 */
export async function checkWorkspaceSso(deps: WorkspaceSsoDeps, workspaceUuid: string): Promise<{ issuer: string; checked_at: string }> {
  const row = await repo.findWorkspaceProvider(deps.db, workspaceUuid);
  if (!row) throw new AppError("OIDC_NOT_CONFIGURED", "This workspace has no single sign-on of its own.");
  const secret = row.client_secret_encrypted ? decryptSecret(row.client_secret_encrypted, await secretKey(deps.db)) : null;
  await discover(deps, toSettings(row, secret));
  return { issuer: row.issuer, checked_at: deps.clock.nowIso() };
}

/** @throws AppError OIDC_DISCOVERY_FAILED naming what failed */
async function discover(deps: WorkspaceSsoDeps, settings: OidcSettings): Promise<void> {
  try {
    await createOidcClient(settings, deps.publicUrl, deps.clock, transportFor(deps)).check();
  } catch (err) {
    const detail = err instanceof AppError ? err.message : "The discovery document could not be loaded.";
    throw new AppError("OIDC_DISCOVERY_FAILED", detail);
  }
}

/**
 * Removes the workspace's provider and ends the sessions it started. Its identities stay bound
 * (they name people, not settings): a provider set up again with the same issuer signs the same
 * people in.
 * @throws AppError OIDC_NOT_CONFIGURED when the workspace had none
 */
export async function deleteWorkspaceSso(deps: WorkspaceSsoDeps, workspaceUuid: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    if (!(await repo.deleteWorkspaceProvider(trx, workspaceUuid))) {
      throw new AppError("OIDC_NOT_CONFIGURED", "This workspace has no single sign-on of its own.");
    }
    await repo.deleteLimitedSessions(trx, workspaceUuid);
  });
}

/**
 * The enabled provider of a workspace named by uuid or slug, for the sign-in page and a sign-in.
 * @throws AppError OIDC_NOT_CONFIGURED for an unknown workspace and for one without an enabled
 *   provider alike (the answer does not tell which workspaces exist)
 */
export async function loadWorkspaceProvider(deps: WorkspaceSsoDeps, idOrSlug: string): Promise<WorkspaceProvider> {
  const name = idOrSlug.trim().slice(0, 100);
  const workspace = isUuid(name) ? await findWorkspaceByUuid(deps.db, name) : name ? await findWorkspaceBySlug(deps.db, name.toLowerCase()) : undefined;
  const row = workspace && (await repo.findWorkspaceProvider(deps.db, workspace.uuid));
  if (!workspace || !row?.enabled) throw new AppError("OIDC_NOT_CONFIGURED", "This workspace has no single sign-on of its own.");
  const secret = row.client_secret_encrypted ? decryptSecret(row.client_secret_encrypted, await secretKey(deps.db)) : null;
  return { workspace, settings: toSettings(row, secret), version: row.date_updated };
}

/** How a workspace provider's client reaches it: through the outbound guard. */
export function transportFor(deps: WorkspaceSsoDeps) {
  return { fetch: guardedFetch(deps.allowHosts), allowHttp: true };
}
