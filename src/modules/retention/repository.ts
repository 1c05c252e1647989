/**
 * @module retention/repository
 * Kysely queries of retention (issue 25; docs/privacy.md "Retention"): the workspaces' policies,
 * the links that override them, the responses and recordings a policy selects, and the run lease
 * in `settings`. A scope is a set of links (`in`) or every link but some (`notIn`): the workspace
 * default covers the links without an override and the responses of deleted links.
 */
import type { ExpressionBuilder } from "kysely";
import type { AnswerTable, Database, Executor } from "../../db/schema.ts";

/** A link of the workspace with its settings (JSON: `settings.retention` is its override), or undefined. */
export function findLinkSettings(db: Executor, workspaceUuid: string, linkUuid: string): Promise<{ uuid: string; settings: string } | undefined> {
  return db.selectFrom("links").select(["uuid", "settings"]).where("workspace_uuid", "=", workspaceUuid).where("uuid", "=", linkUuid).executeTakeFirst();
}

/** Which responses a policy covers: those of `in` links, or of every link not in `notIn`. */
export type Scope = { workspaceUuid: string; in?: string[]; notIn?: string[] };

export function workspacesWithRetention(db: Executor): Promise<{ uuid: string; retention: string | null }[]> {
  return db.selectFrom("workspaces").select(["uuid", "retention"]).orderBy("uuid").execute() as Promise<{ uuid: string; retention: string | null }[]>;
}

export async function workspaceRetention(db: Executor, workspaceUuid: string): Promise<string | null | undefined> {
  const row = await db.selectFrom("workspaces").select("retention").where("uuid", "=", workspaceUuid).executeTakeFirst();
  return row ? (row.retention ?? null) : undefined;
}

export function setWorkspaceRetention(db: Executor, workspaceUuid: string, retention: string | null) {
  return db.updateTable("workspaces").set({ retention }).where("uuid", "=", workspaceUuid).execute();
}

/** Every link of the workspace with its settings JSON (overrides are read from it). */
export function linkSettingsOf(db: Executor, workspaceUuid: string): Promise<{ uuid: string; settings: string }[]> {
  return db.selectFrom("links").select(["uuid", "settings"]).where("workspace_uuid", "=", workspaceUuid).orderBy("uuid").execute();
}

function inScope(eb: ExpressionBuilder<Database, "responses">, s: Scope) {
  const parts = [eb("responses.workspace_uuid", "=", s.workspaceUuid), eb("responses.status", "=", "completed")];
  // Callers never pass an empty `in` (a scope with no link selects nothing and is not queried).
  if (s.in) parts.push(eb("responses.link_uuid", "in", s.in));
  if (s.notIn?.length) parts.push(eb("responses.link_uuid", "not in", s.notIn));
  return eb.and(parts);
}

/** Submitted responses of the scope submitted before `cutoff`, oldest first. */
export async function responsesSubmittedBefore(db: Executor, s: Scope, cutoff: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom("responses")
    .select("uuid")
    .where((eb) => inScope(eb, s))
    .where("submitted_at", "<", cutoff)
    .orderBy("submitted_at")
    .orderBy("uuid")
    .limit(limit)
    .execute();
  return rows.map((r) => r.uuid);
}

/**
 * Submitted responses of the scope whose `response.submitted` event was delivered (docs/privacy.md
 * "Retention"): at least one delivery of it succeeded, and no delivery to a webhook that still
 * exists and is enabled is anything but `succeeded` (pending, in flight, or failed after its retries).
 */
export async function responsesDelivered(db: Executor, s: Scope, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom("responses")
    .select("uuid")
    .where((eb) => inScope(eb, s))
    .where("submitted_event_at", "is not", null)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("outbox_events as e")
          .innerJoin("webhook_deliveries as d", "d.event_uuid", "e.uuid")
          .select("d.uuid")
          .whereRef("e.response_uuid", "=", "responses.uuid")
          .where("e.type", "=", "response.submitted")
          .where("d.state", "=", "succeeded"),
      ),
    )
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("outbox_events as e")
            .innerJoin("webhook_deliveries as d", "d.event_uuid", "e.uuid")
            .innerJoin("webhooks as w", "w.uuid", "d.webhook_uuid")
            .select("d.uuid")
            .whereRef("e.response_uuid", "=", "responses.uuid")
            .where("e.type", "=", "response.submitted")
            .where("w.enabled", "=", 1)
            .where("d.state", "!=", "succeeded"),
        ),
      ),
    )
    .orderBy("submitted_at")
    .orderBy("uuid")
    .limit(limit)
    .execute();
  return rows.map((r) => r.uuid);
}

export type RecordingCandidate = Pick<AnswerTable, "uuid" | "response_uuid" | "audio_blob" | "transcription_status" | "follow_ups"> & {
  submitted_at: string;
};

/**
 * Answers of submitted responses of the scope that hold a recording (their own or a follow-up's),
 * by uuid after `after`; with `submittedBefore`, only those of responses submitted before it.
 */
export async function answersWithRecordings(db: Executor, s: Scope, after: string, limit: number, submittedBefore?: string): Promise<RecordingCandidate[]> {
  let q = db
    .selectFrom("answers")
    .innerJoin("responses", "responses.uuid", "answers.response_uuid")
    .select(["answers.uuid", "answers.response_uuid", "answers.audio_blob", "answers.transcription_status", "answers.follow_ups", "responses.submitted_at"])
    .where((eb) => inScope(eb, s))
    .where((eb) => eb.or([eb("answers.audio_blob", "is not", null), eb("answers.follow_ups", "like", '%"audio_blob":"%')]))
    .where("answers.uuid", ">", after);
  if (submittedBefore) q = q.where("responses.submitted_at", "<", submittedBefore);
  return (await q.orderBy("answers.uuid").limit(limit).execute()) as RecordingCandidate[];
}

export function dropRecording(db: Executor, answerUuid: string, patch: { audio_blob: string | null; follow_ups: string; audio_deleted_at: string }) {
  const set = patch.audio_blob === null ? { ...patch, audio_mime: null } : patch;
  return db.updateTable("answers").set(set).where("uuid", "=", answerUuid).execute();
}

/** The run lease (one node at a time): the stored `until`, or undefined. */
export async function leaseUntil(db: Executor, key: string): Promise<string | undefined> {
  return (await db.selectFrom("settings").select("value").where("key", "=", key).executeTakeFirst())?.value;
}

export function setLease(db: Executor, key: string, until: string) {
  return db
    .insertInto("settings")
    .values({ key, value: until })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value: until }))
    .execute();
}

export function clearLease(db: Executor, key: string, until: string) {
  return db.deleteFrom("settings").where("key", "=", key).where("value", "=", until).execute();
}
