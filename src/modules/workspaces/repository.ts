/**
 * @module workspaces/repository
 * Kysely queries for workspaces and their daily API call counters.
 */
import type { Kysely, Transaction } from "kysely";
import type { Database, WorkspaceTable } from "../../db/schema.ts";
import { prepared } from "../../db/prepared.ts";

type Q = Kysely<Database> | Transaction<Database>;
export type WorkspaceRow = Omit<WorkspaceTable, "keys_created"> & { keys_created: number };

export function insertWorkspace(db: Q, row: Omit<WorkspaceRow, "keys_created">) {
  return db.insertInto("workspaces").values(row).execute();
}

// Compiled once: authentication reads the key's workspace on every request (db/prepared.ts).
const workspaceByUuid = prepared(1, (db, uuid: string) => db.selectFrom("workspaces").selectAll().where("uuid", "=", uuid));

export async function findWorkspaceByUuid(db: Q, uuid: string): Promise<WorkspaceRow | undefined> {
  return (await workspaceByUuid(db, uuid))[0];
}

export function findWorkspaceBySlug(db: Q, slug: string): Promise<WorkspaceRow | undefined> {
  return db.selectFrom("workspaces").selectAll().where("slug", "=", slug).executeTakeFirst();
}

export function findWorkspaceByHost(db: Q, host: string): Promise<WorkspaceRow | undefined> {
  return db.selectFrom("workspaces").selectAll().where("host", "=", host).executeTakeFirst();
}

export function listWorkspaces(db: Q): Promise<WorkspaceRow[]> {
  return db.selectFrom("workspaces").selectAll().orderBy("date_created").execute();
}

/** The workspaces that have a dedicated origin (`host`), oldest first. */
export function listWorkspacesWithHost(db: Q): Promise<WorkspaceRow[]> {
  return db.selectFrom("workspaces").selectAll().where("host", "is not", null).orderBy("date_created").execute();
}

export async function workspaceSlugsLike(db: Q, base: string): Promise<string[]> {
  const rows = await db.selectFrom("workspaces").select("slug").where("slug", "like", `${base}%`).execute();
  return rows.map((r) => r.slug);
}

export function countWorkspaces(db: Q): Promise<number> {
  return db
    .selectFrom("workspaces")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}

export function incrementKeysCreated(db: Q, uuid: string) {
  return db
    .updateTable("workspaces")
    .set((eb) => ({ keys_created: eb("keys_created", "+", 1) }))
    .where("uuid", "=", uuid)
    .execute();
}

/** Adds `n` API calls to the workspace's counter of `day` (`YYYY-MM-DD`), creating it at `n`. */
export function addApiCalls(db: Q, workspaceUuid: string, day: string, n: number) {
  return db
    .insertInto("api_call_counters")
    .values({ workspace_uuid: workspaceUuid, day, calls: n })
    .onConflict((oc) => oc.columns(["workspace_uuid", "day"]).doUpdateSet((eb) => ({ calls: eb("api_call_counters.calls", "+", eb.ref("excluded.calls")) })))
    .execute();
}

export async function apiCallsOn(db: Q, workspaceUuid: string, day: string): Promise<number> {
  const row = await db.selectFrom("api_call_counters").select("calls").where("workspace_uuid", "=", workspaceUuid).where("day", "=", day).executeTakeFirst();
  return row?.calls ?? 0;
}

export function updateWorkspace(
  db: Q,
  uuid: string,
  patch: Partial<Pick<WorkspaceRow, "name" | "host" | "plan" | "links_limit" | "requests_per_minute" | "retention" | "embed_origins">>,
) {
  return db.updateTable("workspaces").set(patch).where("uuid", "=", uuid).execute();
}
