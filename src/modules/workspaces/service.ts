/**
 * @module workspaces/service
 * Workspaces (DESIGN §3): creation with a first API key, the `GET workspace/` view with limits
 * and usage, and the host that builds `public_url`s.
 */
import type { Kysely, Transaction } from "kysely";
import { nowIso } from "../../clock.ts";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../errors.ts";
import { SLUG_PATTERN, toSlug, uniqueVariant } from "../../slugs.ts";
import { createToken } from "../tokens/service.ts";
import { countActiveTokens } from "../tokens/repository.ts";
import { UNLIMITED_LINKS, limitsFor, type Plan } from "../../auth/plans.ts";
import * as repo from "./repository.ts";
import type { UsageRecorder } from "../../auth/usage.ts";
import type { z } from "zod";
import type { workspaceSchema } from "./model.ts";
import { completePolicy, type RetentionPolicy } from "../retention/model.ts";
import { embedOriginsOf } from "../embed/model.ts";

/** The workspace as `GET workspace/` returns it: the output of `workspaceSchema` (model.ts). */
export type WorkspaceView = z.output<typeof workspaceSchema>;

/** What `earshot workspace create --json` prints (DESIGN §2). */
export type CreatedWorkspace = { workspace_uuid: string; workspace_slug: string; api_key: string; token_uuid: string };

/**
 * Creates a workspace and its first API key (all scopes) in one transaction.
 * @throws AppError VALIDATION_ERROR for a malformed slug or a host taken (see `assertHostFree`),
 *   SLUG_CONFLICT for a taken slug
 */
export async function createWorkspace(
  db: Kysely<Database>,
  input: { name: string; plan?: Plan; slug?: string; host?: string | null; publicUrl?: string },
): Promise<CreatedWorkspace> {
  const name = input.name.trim();
  if (!name) throw new AppError("NAME_REQUIRED", "A workspace needs a name.");
  const host = input.host ? normalizeOrigin(input.host) : null;
  return db.transaction().execute(async (trx) => {
    if (host) await assertHostFree(trx, host, null, input.publicUrl);
    let slug: string;
    if (input.slug !== undefined) {
      if (!SLUG_PATTERN.test(input.slug) || input.slug.length > 64) {
        throw new AppError("VALIDATION_ERROR", "The slug must be lowercase letters, digits and single hyphens (at most 64).", {
          errors: [{ pointer: "/slug", message: "Invalid slug." }],
        });
      }
      if (await repo.findWorkspaceBySlug(trx, input.slug)) throw new AppError("SLUG_CONFLICT", `The slug "${input.slug}" is taken.`);
      slug = input.slug;
    } else {
      const base = toSlug(name, 64, "workspace");
      slug = uniqueVariant(base, await repo.workspaceSlugsLike(trx, base), "-");
    }
    const uuid = crypto.randomUUID();
    await repo.insertWorkspace(trx, {
      uuid,
      name,
      slug,
      plan: input.plan ?? "free",
      host,
      links_limit: null,
      requests_per_minute: null,
      date_created: nowIso(),
    });
    const token = await createToken(trx, uuid, { name: "Default key" });
    return { workspace_uuid: uuid, workspace_slug: slug, api_key: token.key, token_uuid: token.uuid };
  });
}

/**
 * Checks a dedicated origin (`https://feedback.acme.lan`, no path) and returns it normalised.
 * @throws AppError VALIDATION_ERROR
 */
export function normalizeOrigin(host: string): string {
  let u: URL | null = null;
  try {
    u = new URL(host);
  } catch {
    u = null;
  }
  if (!u || !/^https?:$/.test(u.protocol) || (u.pathname !== "/" && u.pathname !== "") || u.search || u.username) {
    throw new AppError("VALIDATION_ERROR", "The host must be an origin such as https://feedback.example.lan.", {
      errors: [{ pointer: "/host", message: "Invalid origin." }],
    });
  }
  return u.origin;
}

/**
 * The workspace whose dedicated origin has this `Host` (name and port, compared lowercased), for
 * `/i/{link}` on a workspace's own origin (DESIGN §3); null when none has it.
 */
export async function workspaceSlugOfHost(db: Kysely<Database>, hostHeader: string | null): Promise<string | null> {
  const host = hostHeader?.toLowerCase();
  if (!host) return null;
  const ws = (await repo.listWorkspacesWithHost(db)).find((w) => w.host && new URL(w.host).host.toLowerCase() === host);
  return ws?.slug ?? null;
}

/** `{EARSHOT_PUBLIC_URL}/w/{slug}` unless the workspace has a dedicated origin (DESIGN §3). */
export function workspaceHost(publicUrl: string, ws: { slug: string; host: string | null }): string {
  return ws.host ? ws.host.replace(/\/+$/, "") : `${publicUrl}/w/${ws.slug}`;
}

/** Today's UTC day as `YYYY-MM-DD`, the key of the API call counters. */
export function utcDay(): string {
  return nowIso().slice(0, 10);
}

/**
 * The `GET workspace/` record: identity, limits and usage (DESIGN §3; spec: Authentication 7).
 * @param usage the server's coalesced usage accounting: calls still in memory count too (DESIGN §5)
 * @throws AppError NOT_FOUND when the workspace no longer exists
 */
export async function getWorkspaceView(
  db: Kysely<Database>,
  publicUrl: string,
  uuid: string,
  usage?: Pick<UsageRecorder, "pendingCalls">,
): Promise<WorkspaceView> {
  const ws = await repo.findWorkspaceByUuid(db, uuid);
  if (!ws) throw new AppError("NOT_FOUND", "Workspace not found.");
  const day = utcDay();
  const [links, stored, active] = await Promise.all([repo.countLinks(db, uuid), repo.apiCallsOn(db, uuid, day), countActiveTokens(db, uuid)]);
  const calls = stored + (usage?.pendingCalls(uuid, day) ?? 0);
  return {
    uuid: ws.uuid,
    name: ws.name,
    slug: ws.slug,
    plan: ws.plan,
    host: workspaceHost(publicUrl, ws),
    limits: limitsFor(ws),
    usage: { links, api_calls_today: calls, keys_created: ws.keys_created, keys_active: active },
    retention: completePolicy(ws.retention ? (JSON.parse(ws.retention) as Partial<RetentionPolicy>) : null),
    embed: { allowed_origins: embedOriginsOf(ws) },
    date_created: ws.date_created,
  };
}

/** A change to a workspace: `linksLimit: null` = unlimited; absent fields stay. */
export type WorkspaceUpdate = {
  name?: string;
  host?: string | null;
  plan?: Plan;
  linksLimit?: number | null;
  requestsPerMinute?: number;
  /** Replaces the retention policy (null: none); issue 25. */
  retention?: Partial<RetentionPolicy> | null;
  /** Replaces the origins allowed to embed the intake pages (normalised, embed/model.ts); issue 29. */
  embedOrigins?: string[];
};

/**
 * Refuses a dedicated origin whose host (name and port, lowercased) another workspace already
 * has, or that is the server's own `EARSHOT_PUBLIC_URL`: `/i/{link}` on a host serves that
 * host's workspace, so a second claimant could take over the first one's links (or every link
 * on the public URL). Call inside the writing transaction.
 * @param origin a normalized origin (see `normalizeOrigin`)
 * @throws AppError VALIDATION_ERROR with pointer `/host`
 */
async function assertHostFree(q: Transaction<Database>, origin: string, exceptUuid: string | null, publicUrl: string | undefined): Promise<void> {
  const host = new URL(origin).host;
  const refuse = (message: string) => new AppError("VALIDATION_ERROR", message, { errors: [{ pointer: "/host", message }] });
  if (publicUrl && new URL(publicUrl).host.toLowerCase() === host) {
    throw refuse("This host is the server's own address (EARSHOT_PUBLIC_URL); a workspace needs a host of its own.");
  }
  const taken = (await repo.listWorkspaces(q)).some((w) => w.uuid !== exceptUuid && w.host && new URL(w.host).host.toLowerCase() === host);
  if (taken) throw refuse("Another workspace already uses this host.");
}

/**
 * Updates a workspace (`PATCH workspace/`, `earshot workspace update`) in one transaction.
 * @param opts.publicUrl `EARSHOT_PUBLIC_URL`, which no workspace may take as its host
 * @param opts.recheck runs first inside the transaction (the caller's revocation re-check)
 * @throws AppError NOT_FOUND (no such workspace), NAME_REQUIRED, VALIDATION_ERROR (`/host`: not an
 *   origin, another workspace's host, or the public URL's), whatever `recheck` throws
 */
export async function updateWorkspace(
  db: Kysely<Database>,
  uuid: string,
  input: WorkspaceUpdate,
  opts: { publicUrl?: string; recheck?: (trx: Transaction<Database>) => Promise<void> } = {},
): Promise<void> {
  const patch: Parameters<typeof repo.updateWorkspace>[2] = {};
  if (input.name !== undefined) {
    if (!input.name.trim()) throw new AppError("NAME_REQUIRED", "A workspace needs a name.");
    patch.name = input.name.trim();
  }
  if (input.host !== undefined) patch.host = input.host ? normalizeOrigin(input.host) : null;
  if (input.plan !== undefined) patch.plan = input.plan;
  if (input.linksLimit !== undefined) patch.links_limit = input.linksLimit === null ? UNLIMITED_LINKS : input.linksLimit;
  if (input.requestsPerMinute !== undefined) patch.requests_per_minute = input.requestsPerMinute;
  if (input.retention !== undefined) patch.retention = input.retention === null ? null : JSON.stringify(completePolicy(input.retention));
  if (input.embedOrigins !== undefined) patch.embed_origins = input.embedOrigins.length ? JSON.stringify(input.embedOrigins) : null;
  await db.transaction().execute(async (trx) => {
    await opts.recheck?.(trx);
    if (!(await repo.findWorkspaceByUuid(trx, uuid))) throw new AppError("NOT_FOUND", "Workspace not found.");
    if (patch.host) await assertHostFree(trx, patch.host, uuid, opts.publicUrl);
    if (Object.keys(patch).length) await repo.updateWorkspace(trx, uuid, patch);
  });
}
