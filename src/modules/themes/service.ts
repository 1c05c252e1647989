/**
 * @module themes/service
 * The themes API (DESIGN §12; docs/api.md "Themes"): list and read a link's themes, an operator's
 * codebook (create, rename / describe / pin, merge, delete, move an answer), rebuild on request,
 * and the build status. Every write runs in one transaction with the caller's revocation re-check;
 * the audit entry is written by the central hook (audit/hook.ts) after a success.
 */
import { randomUUID } from "node:crypto";
import type { Kysely, Transaction } from "kysely";
import type { AuthContext, Authenticator } from "../../auth/authenticate.ts";
import { nowIso } from "../../clock.ts";
import type { Database, Executor } from "../../db/schema.ts";
import { AppError, notFound } from "../../errors.ts";
import { isUuid } from "../../shared/uuid.ts";
import * as linksRepo from "../links/repository.ts";
import { queueRebuild } from "./engine.ts";
import { isOpenType } from "../../shared/question-types.ts";
import type { CreateThemeBody, PatchThemeBody, ThemeRecord, ThemeStatus } from "./model.ts";
import { type RecordDeps, toThemeRecords } from "./records.ts";
import * as repo from "./repository.ts";

export type ThemeDeps = RecordDeps & { db: Kysely<Database>; auth: Authenticator };

const themeNotFound = () => new AppError("THEME_NOT_FOUND", "Theme not found.");

/** The link of the caller's workspace, or NOT_FOUND. */
async function linkOf(db: Executor, auth: AuthContext, linkUuid: string): Promise<linksRepo.LinkRow> {
  const link = isUuid(linkUuid) ? await linksRepo.findLink(db, auth.workspaceUuid, linkUuid) : undefined;
  if (!link) throw notFound("Link");
  return link;
}

/** A theme of the link, or THEME_NOT_FOUND. */
async function themeOf(db: Executor, linkUuid: string, themeUuid: string): Promise<repo.ThemeRow> {
  const t = isUuid(themeUuid) ? await repo.findTheme(db, linkUuid, themeUuid.toLowerCase()) : undefined;
  if (!t) throw themeNotFound();
  return t;
}

/** The open questions of a link (uuid → type). */
async function openQuestions(db: Executor, linkUuid: string): Promise<Map<string, string>> {
  const qs = await linksRepo.questionsOf(db, [linkUuid]);
  return new Map(qs.filter((q) => isOpenType(q.type)).map((q) => [q.uuid, q.type]));
}

/**
 * A page of the link's themes, largest first (ties: oldest first).
 * @throws AppError NOT_FOUND (link)
 */
export async function listThemes(deps: ThemeDeps, auth: AuthContext, linkUuid: string, questionUuid: string | undefined, limit: number, offset: number) {
  const link = await linkOf(deps.db, auth, linkUuid);
  const records = await toThemeRecords(deps.db, deps, await repo.themesOf(deps.db, link.uuid, questionUuid?.toLowerCase()));
  records.sort((a, b) => b.size - a.size || (a.date_created < b.date_created ? -1 : a.date_created > b.date_created ? 1 : 0));
  return { count: records.length, results: records.slice(offset, offset + limit) };
}

/**
 * One theme.
 * @throws AppError NOT_FOUND (link), THEME_NOT_FOUND
 */
export async function getTheme(deps: ThemeDeps, auth: AuthContext, linkUuid: string, themeUuid: string): Promise<ThemeRecord> {
  const link = await linkOf(deps.db, auth, linkUuid);
  const [rec] = await toThemeRecords(deps.db, deps, [await themeOf(deps.db, link.uuid, themeUuid)]);
  return rec!;
}

/**
 * An operator's theme: pinned label, `operator` (kept by every rebuild); its example answers are
 * moved into it (operator placements) and a rebuild is queued so answers near them join it.
 * @throws AppError NOT_FOUND (link), QUESTION_NOT_OPEN (not an open question of the link),
 *   VALIDATION_ERROR (an example that is not an answer to that question of this link)
 */
export async function createTheme(deps: ThemeDeps, auth: AuthContext, linkUuid: string, body: CreateThemeBody): Promise<ThemeRecord> {
  const row = await deps.db.transaction().execute(async (trx) => {
    await deps.auth.assertActive(trx, auth);
    const link = await linkOf(trx, auth, linkUuid);
    const questionUuid = body.question_uuid.toLowerCase();
    if (!(await openQuestions(trx, link.uuid)).has(questionUuid)) {
      throw new AppError("QUESTION_NOT_OPEN", "Themes belong to an open question (voice, voice_text_fallback or text) of this link.");
    }
    const examples = [...new Set((body.examples ?? []).map((e) => e.toLowerCase()))];
    for (const [i, id] of examples.entries()) {
      const a = await repo.findAnswerOfLink(trx, link.uuid, id);
      if (!a || a.question_uuid !== questionUuid) {
        throw new AppError("VALIDATION_ERROR", "An example must be an answer to this question of this link.", {
          errors: [{ pointer: `/examples/${i}`, message: "Not an answer to this question of this link." }],
        });
      }
    }
    const now = nowIso();
    const theme: repo.ThemeRow = {
      uuid: randomUUID(),
      workspace_uuid: auth.workspaceUuid,
      link_uuid: link.uuid,
      question_uuid: questionUuid,
      label: body.label,
      label_source: "operator",
      description: body.description ?? null,
      pinned: 1,
      operator: 1,
      keyphrases: "[]",
      quotes: "[]",
      examples: JSON.stringify(examples),
      centre: null,
      date_created: now,
      date_updated: now,
    };
    await repo.insertTheme(trx, theme);
    await repo.assignAnswers(trx, examples, theme.uuid, "operator");
    await queueRebuild(trx, auth.workspaceUuid, link.uuid, questionUuid);
    return theme;
  });
  const [rec] = await toThemeRecords(deps.db, deps, [row]);
  return rec!;
}

/**
 * Renames, describes or pins a theme. A new label is the operator's (`label_source: operator`)
 * and is pinned unless the body says `pinned: false`; any edit makes the theme the operator's
 * (never discarded by a rebuild).
 * @throws AppError NOT_FOUND (link), THEME_NOT_FOUND
 */
export async function patchTheme(deps: ThemeDeps, auth: AuthContext, linkUuid: string, themeUuid: string, body: PatchThemeBody): Promise<ThemeRecord> {
  const row = await deps.db.transaction().execute(async (trx) => {
    await deps.auth.assertActive(trx, auth);
    const link = await linkOf(trx, auth, linkUuid);
    const t = await themeOf(trx, link.uuid, themeUuid);
    const patch: Partial<repo.ThemeRow> = { operator: 1, date_updated: nowIso() };
    if (body.label !== undefined) Object.assign(patch, { label: body.label, label_source: "operator", pinned: body.pinned === false ? 0 : 1 });
    else if (body.pinned !== undefined) patch.pinned = body.pinned ? 1 : 0;
    if (body.description !== undefined) patch.description = body.description;
    await repo.updateTheme(trx, t.uuid, patch);
    return { ...t, ...patch } as repo.ThemeRow;
  });
  const [rec] = await toThemeRecords(deps.db, deps, [row]);
  return rec!;
}

/**
 * Merges a theme into another of the same question: its answers (and examples) move to `into`,
 * keeping how they were placed; `into` becomes the operator's and survives; the merged theme is
 * deleted.
 * @returns the surviving theme.
 * @throws AppError NOT_FOUND (link), THEME_NOT_FOUND (either), THEME_MERGE_SELF,
 *   THEME_QUESTION_MISMATCH
 */
export async function mergeTheme(deps: ThemeDeps, auth: AuthContext, linkUuid: string, themeUuid: string, into: string): Promise<ThemeRecord> {
  const row = await deps.db.transaction().execute(async (trx) => {
    await deps.auth.assertActive(trx, auth);
    const link = await linkOf(trx, auth, linkUuid);
    const from = await themeOf(trx, link.uuid, themeUuid);
    const target = await themeOf(trx, link.uuid, into);
    if (from.uuid === target.uuid) throw new AppError("THEME_MERGE_SELF", "A theme cannot be merged into itself.");
    if (from.question_uuid !== target.question_uuid) throw new AppError("THEME_QUESTION_MISMATCH", "Only themes of the same question can be merged.");
    await repo.reassignTheme(trx, from.uuid, target.uuid);
    const examples = [...new Set([...(JSON.parse(target.examples) as string[]), ...(JSON.parse(from.examples) as string[])])];
    const patch = { operator: 1, examples: JSON.stringify(examples), date_updated: nowIso() };
    await repo.updateTheme(trx, target.uuid, patch);
    await repo.deleteThemes(trx, [from.uuid]);
    return { ...target, ...patch };
  });
  const [rec] = await toThemeRecords(deps.db, deps, [row]);
  return rec!;
}

/**
 * Deletes a theme; its answers become unassigned, as the operator's placement (a rebuild does not
 * put them back into a theme by itself).
 * @throws AppError NOT_FOUND (link), THEME_NOT_FOUND
 */
export async function deleteTheme(deps: ThemeDeps, auth: AuthContext, linkUuid: string, themeUuid: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await deps.auth.assertActive(trx, auth);
    const link = await linkOf(trx, auth, linkUuid);
    const t = await themeOf(trx, link.uuid, themeUuid);
    await repo.reassignTheme(trx, t.uuid, null, "operator");
    await repo.deleteThemes(trx, [t.uuid]);
  });
}

/**
 * Moves an answer to a theme of its own question (null: unassigned), as the operator's placement
 * (kept across rebuilds); the target theme becomes the operator's. Runs in the caller's
 * transaction (the insights correction).
 * @returns the answer's theme as it now reads.
 * @throws AppError THEME_NOT_FOUND, THEME_QUESTION_MISMATCH
 */
export async function moveAnswer(
  trx: Transaction<Database>,
  answer: { uuid: string; question_uuid: string; link_uuid: string },
  themeUuid: string | null,
): Promise<{ uuid: string; label: string } | null> {
  if (themeUuid === null) {
    await repo.assignAnswers(trx, [answer.uuid], null, "operator");
    return null;
  }
  const t = await themeOf(trx, answer.link_uuid, themeUuid);
  if (t.question_uuid !== answer.question_uuid) throw new AppError("THEME_QUESTION_MISMATCH", "An answer can only move to a theme of its own question.");
  await repo.assignAnswers(trx, [answer.uuid], t.uuid, "operator");
  await repo.updateTheme(trx, t.uuid, { operator: 1, date_updated: nowIso() });
  return { uuid: t.uuid, label: t.label };
}

/**
 * Queues a rebuild of each open question of the link (one at a time per question).
 * @throws AppError NOT_FOUND (link)
 */
export async function requestRebuild(deps: ThemeDeps, auth: AuthContext, linkUuid: string): Promise<ThemeStatus> {
  await deps.db.transaction().execute(async (trx) => {
    await deps.auth.assertActive(trx, auth);
    const link = await linkOf(trx, auth, linkUuid);
    for (const q of (await openQuestions(trx, link.uuid)).keys()) await queueRebuild(trx, auth.workspaceUuid, link.uuid, q);
  });
  return themeStatus(deps, auth, linkUuid);
}

/**
 * The build status of the link's themes: `building` while a rebuild of one of its questions is
 * queued or running.
 * @throws AppError NOT_FOUND (link)
 */
export async function themeStatus(deps: ThemeDeps, auth: AuthContext, linkUuid: string): Promise<ThemeStatus> {
  const link = await linkOf(deps.db, auth, linkUuid);
  const builds = await repo.buildsOf(deps.db, link.uuid);
  const counts = await repo.answerCounts(deps.db, link.uuid, [...(await openQuestions(deps.db, link.uuid)).keys()]);
  const built = builds.map((b) => b.built_at).filter((x): x is string => x !== null);
  return {
    state: builds.some((b) => b.rebuild_queued === 1) ? "building" : "ready",
    answers_total: counts.total,
    answers_assigned: counts.assigned,
    answers_pending: counts.pending,
    built_at: built.length ? built.sort().at(-1)! : null,
  };
}

/** uuid → label of the themes of these answers (for response records). */
export function themeLabels(db: Executor, themeUuids: string[]): Promise<Map<string, string>> {
  return repo.labelsOf(db, [...new Set(themeUuids)]);
}

/**
 * Erasure (DESIGN §7): drops these answers from every theme's stored quotes and examples, so no
 * copy of an erased answer's words stays in a theme. Call in the erasure's transaction (uuids are
 * generated by the server, so the LIKE probe cannot be steered by a respondent).
 */
export async function forgetAnswers(trx: Transaction<Database>, answerUuids: string[]): Promise<void> {
  const gone = new Set(answerUuids);
  for (const t of await repo.themesNaming(trx, answerUuids)) {
    const quotes = (JSON.parse(t.quotes) as { answer_uuid: string }[]).filter((q) => !gone.has(q.answer_uuid));
    const examples = (JSON.parse(t.examples) as string[]).filter((e) => !gone.has(e));
    await repo.updateTheme(trx, t.uuid, { quotes: JSON.stringify(quotes), examples: JSON.stringify(examples) });
  }
}
