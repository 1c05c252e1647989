/**
 * @module workspaces/repository
 * Kysely queries for workspaces and their daily API call counters.
 */
import type { WorkspaceTable, Executor } from "../../db/schema.ts";
import { prepared } from "../../db/prepared.ts";

export type WorkspaceRow = Omit<WorkspaceTable, "keys_created"> & { keys_created: number };

export function insertWorkspace(db: Executor, row: Omit<WorkspaceRow, "keys_created">) {
  return db.insertInto("workspaces").values(row).execute();
}

// Compiled once: authentication reads the key's workspace on every request (db/prepared.ts).
const workspaceByUuid = prepared(1, (db, uuid: string) => db.selectFrom("workspaces").selectAll().where("uuid", "=", uuid));

export async function findWorkspaceByUuid(db: Executor, uuid: string): Promise<WorkspaceRow | undefined> {
  return (await workspaceByUuid(db, uuid))[0];
}

export function findWorkspaceBySlug(db: Executor, slug: string): Promise<WorkspaceRow | undefined> {
  return db.selectFrom("workspaces").selectAll().where("slug", "=", slug).executeTakeFirst();
}

export function findWorkspaceByHost(db: Executor, host: string): Promise<WorkspaceRow | undefined> {
  return db.selectFrom("workspaces").selectAll().where("host", "=", host).executeTakeFirst();
}

export function listWorkspaces(db: Executor): Promise<WorkspaceRow[]> {
  return db.selectFrom("workspaces").selectAll().orderBy("date_created").execute();
}

/** The workspaces that have a dedicated origin (`host`), oldest first. */
export function listWorkspacesWithHost(db: Executor): Promise<WorkspaceRow[]> {
  return db.selectFrom("workspaces").selectAll().where("host", "is not", null).orderBy("date_created").execute();
}

export async function workspaceSlugsLike(db: Executor, base: string): Promise<string[]> {
  const rows = await db.selectFrom("workspaces").select("slug").where("slug", "like", `${base}%`).execute();
  return rows.map((r) => r.slug);
}

export function countWorkspaces(db: Executor): Promise<number> {
  return db
    .selectFrom("workspaces")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}

/** Adds `n` API calls to the workspace's counter of `day` (`YYYY-MM-DD`), creating it at `n`. */
export function addApiCalls(db: Executor, workspaceUuid: string, day: string, n: number) {
  return db
    .insertInto("api_call_counters")
    .values({ workspace_uuid: workspaceUuid, day, calls: n })
    .onConflict((oc) => oc.columns(["workspace_uuid", "day"]).doUpdateSet((eb) => ({ calls: eb("api_call_counters.calls", "+", eb.ref("excluded.calls")) })))
    .execute();
}

export async function apiCallsOn(db: Executor, workspaceUuid: string, day: string): Promise<number> {
  const row = await db.selectFrom("api_call_counters").select("calls").where("workspace_uuid", "=", workspaceUuid).where("day", "=", day).executeTakeFirst();
  return row?.calls ?? 0;
}

export function updateWorkspace(
  db: Executor,
  uuid: string,
  patch: Partial<Pick<WorkspaceRow, "name" | "host" | "plan" | "links_limit" | "requests_per_minute" | "retention" | "embed_origins">>,
) {
  return db.updateTable("workspaces").set(patch).where("uuid", "=", uuid).execute();
}

/** The workspace's change counter (0 before its first change); raised by triggers (migration 2026-11-26T0100). */
export async function workspaceVersion(db: Executor, workspaceUuid: string): Promise<number> {
  const row = await db.selectFrom("workspace_changes").select("version").where("workspace_uuid", "=", workspaceUuid).executeTakeFirst();
  return row?.version ?? 0;
}

/** How many links the workspace has (its usage, and the plan's link limit). */
export async function countLinks(db: Executor, workspaceUuid: string): Promise<number> {
  const r = await db
    .selectFrom("links")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("workspace_uuid", "=", workspaceUuid)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
