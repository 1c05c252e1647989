/**
 * @module links/service
 * Links and their questions (spec: Feedback link, POST/GET/DELETE links/; DESIGN §6): create
 * with plan quota and unique slug, retrieve, list, PATCH, delete (responses are kept).
 */
import type { Kysely } from "kysely";
import { nowIso, systemClock, type Clock } from "../../clock.ts";
import { createDefinitionCache, definitionVersion } from "../../db/definition-cache.ts";
import type { Database, Executor } from "../../db/schema.ts";
import { AppError, notFound, type FieldError } from "../../errors.ts";
import { toSlug, uniqueVariant } from "../../slugs.ts";
import { isUuid } from "../../shared/uuid.ts";
import type { AuthContext, Authenticator } from "../../auth/authenticate.ts";
import { limitsFor } from "../../auth/plans.ts";
import { workspaceHost } from "../workspaces/service.ts";
import { countLinks } from "../workspaces/repository.ts";
import { createLinkWebhook, deleteWebhooksOfLink } from "../webhooks/service.ts";
import { deleteAlertRulesOfLink } from "../alerts/repository.ts";
import { completeSettings, type CreateLinkInput, type Link, type PatchLinkInput, type Settings } from "./model.ts";
import { mergePatchedQuestions, normalizeQuestions, type NormalizedQuestion } from "./questions.ts";
import * as repo from "./repository.ts";
import { checkLinkTranslations, type LinkTranslations } from "./translations.ts";
import { closedReasonOf } from "./limits-model.ts";
import { hiddenFieldErrors, hiddenFieldsOf } from "./hidden-fields.ts";
import { checkKioskAccess, exitPinHashOf, kioskToStore, publicKiosk, type StoredKiosk } from "./kiosk.ts";

export type LinkDeps = {
  db: Kysely<Database>;
  publicUrl: string;
  auth: Authenticator;
  webhookAllowHosts: readonly string[];
  /** Decides whether `settings.close_at` has passed (default the system clock). */
  clock?: Clock;
};

function questionRows(linkUuid: string, questions: NormalizedQuestion[], existing: Map<string, repo.QuestionRow>, now: string): repo.QuestionRow[] {
  return questions.map((q) => {
    const kept = q.uuid ? existing.get(q.uuid) : undefined;
    return {
      uuid: kept?.uuid ?? crypto.randomUUID(),
      link_uuid: linkUuid,
      position: q.position,
      order: q.order,
      prompt: q.prompt,
      type: q.type,
      field_key: q.field_key,
      required: q.required ? 1 : 0,
      configuration: JSON.stringify(q.configuration),
      condition: JSON.stringify(q.condition),
      enable_dynamic_probing: q.enable_dynamic_probing ? 1 : 0,
      fallback_to_text: q.fallback_to_text ? 1 : 0,
      evaluator_config: JSON.stringify(q.evaluator_config),
      translations: JSON.stringify(q.translations),
      date_created: kept?.date_created ?? now,
      date_updated: now,
    };
  });
}

/**
 * Maps stored rows to the API's link object.
 * @param now the current API timestamp, for `is_closed` (DESIGN §13)
 */
export function toLink(
  publicUrl: string,
  ws: { slug: string; host: string | null },
  row: repo.LinkRow,
  questions: readonly repo.QuestionRow[],
  responseCount: number,
  now: string,
): Link {
  // Links stored before a settings member existed return it with its default (every key, DESIGN §6).
  const settings = completeSettings({}, JSON.parse(row.settings) as Settings);
  const closedReason = closedReasonOf(settings, responseCount, now);
  return {
    uuid: row.uuid,
    name: row.name,
    slug: row.slug,
    status: row.status,
    settings: { ...settings, hidden_fields: hiddenFieldsOf(settings) },
    questions: apiQuestions(questions),
    translations: JSON.parse(row.translations || "{}") as LinkTranslations,
    response_count: responseCount,
    is_closed: closedReason !== null,
    closed_reason: closedReason,
    public_url: `${workspaceHost(publicUrl, ws)}/i/${row.slug}`,
    date_created: row.date_created,
    date_updated: row.date_updated,
  };
}

type ApiQuestion = Link["questions"][number];

/**
 * The API form of the question lists served from memory (frozen, so never changed), made once per
 * list and shared by every response that serves it: read-only by convention, not frozen, because
 * JSON.stringify takes a path ~3.5× slower through frozen objects (bench/api.ts).
 */
const apiQuestionsOf = new WeakMap<readonly repo.QuestionRow[], ApiQuestion[]>();

/** Maps stored questions to the API's; a frozen list (db/definition-cache.ts) is mapped once and shared. */
function apiQuestions(questions: readonly repo.QuestionRow[]): ApiQuestion[] {
  const known = apiQuestionsOf.get(questions);
  if (known) return known;
  const mapped = questions.map((q) => ({
    uuid: q.uuid,
    prompt: q.prompt,
    response_type: q.type as Link["questions"][number]["response_type"],
    field_key: q.field_key,
    order: q.order,
    required: q.required === 1,
    configuration: JSON.parse(q.configuration),
    condition: JSON.parse(q.condition),
    enable_dynamic_probing: q.enable_dynamic_probing === 1,
    fallback_to_text: q.fallback_to_text === 1,
    evaluator_config: JSON.parse(q.evaluator_config),
    translations: JSON.parse(q.translations || "{}"),
    date_created: q.date_created,
    date_updated: q.date_updated,
  }));
  if (Object.isFrozen(questions)) apiQuestionsOf.set(questions, mapped);
  return mapped;
}

/** Link rows (by workspace and uuid) and each link's questions (by link uuid), as read at a definition version. */
const linkRows = createDefinitionCache<{ row: repo.LinkRow }>();
const questionsByLink = createDefinitionCache<{ questions: repo.QuestionRow[] }>(1000);

/**
 * The questions of each link, in order: from memory while the definition counter stands still
 * (db/definition-cache.ts), the others in one read.
 * @param version the definition counter read before (null: read them all)
 */
async function questionsOfLinks(db: Executor, uuids: string[], version: number | null): Promise<Map<string, readonly repo.QuestionRow[]>> {
  const out = new Map<string, readonly repo.QuestionRow[]>();
  const missing: string[] = [];
  for (const uuid of uuids) {
    const cached = questionsByLink.get(db, uuid, version);
    if (cached) out.set(uuid, cached.questions);
    else missing.push(uuid);
  }
  if (missing.length) {
    const rows = await repo.questionsOf(db, missing);
    for (const uuid of missing) {
      const questions = rows.filter((q) => q.link_uuid === uuid);
      questionsByLink.set(db, uuid, version, { questions });
      out.set(uuid, questions);
    }
  }
  return out;
}

async function loadLinks(
  db: Executor,
  clock: Clock | undefined,
  publicUrl: string,
  ws: { slug: string; host: string | null },
  rows: readonly repo.LinkRow[],
  version: number | null,
): Promise<Link[]> {
  const uuids = rows.map((r) => r.uuid);
  const [questions, counts] = await Promise.all([questionsOfLinks(db, uuids, version), repo.responseCounts(db, uuids)]);
  const now = (clock ?? systemClock).nowIso();
  return rows.map((r) => toLink(publicUrl, ws, r, questions.get(r.uuid) ?? [], counts.get(r.uuid) ?? 0, now));
}

/** One link row of a workspace, from memory while the definition counter (read before: `version`) stands still. */
async function findLinkRow(db: Executor, workspaceUuid: string, uuid: string, version: number | null): Promise<repo.LinkRow | undefined> {
  const key = `${workspaceUuid}/${uuid}`;
  const cached = linkRows.get(db, key, version);
  if (cached) return cached.row;
  const row = await repo.findLink(db, workspaceUuid, uuid);
  if (row) linkRows.set(db, key, version, { row });
  return row;
}

/**
 * A link's translations, every translated key present in the source (issue 17).
 * @throws AppError VALIDATION_ERROR with a pointer per problem (`/translations/de/description`)
 */
function validLinkTranslations(translations: LinkTranslations, settings: Settings): LinkTranslations {
  const errors: FieldError[] = [];
  const out = checkLinkTranslations(translations, settings.description, errors, "/translations", Boolean(settings.consent));
  if (errors.length) throw new AppError("VALIDATION_ERROR", `The translations are not valid: ${errors[0]!.pointer} ${errors[0]!.message}`, { errors });
  return out;
}

async function resolveSlug(db: Executor, workspaceUuid: string, name: string, slug: string | undefined, selfUuid?: string): Promise<string> {
  if (slug !== undefined) {
    const taken = await repo.findLinkBySlug(db, workspaceUuid, slug);
    if (taken && taken.uuid !== selfUuid) throw new AppError("SLUG_CONFLICT", `The slug "${slug}" is already used in this workspace.`);
    return slug;
  }
  const base = toSlug(name);
  return uniqueVariant(base, await repo.linkSlugsLike(db, workspaceUuid, base), "-");
}

/**
 * Refuses hidden fields that clash with the questions (links/hidden-fields.ts).
 * @throws AppError VALIDATION_ERROR with pointers `/settings/hidden_fields/{i}`, `/questions/{i}/condition/field`
 */
function checkHiddenFields(settings: Settings, questions: { field_key: string; condition: { field?: unknown } }[]): void {
  const errors = hiddenFieldErrors(hiddenFieldsOf(settings), questions);
  if (errors.length) throw new AppError("VALIDATION_ERROR", `The hidden fields are not valid: ${errors[0]!.pointer} ${errors[0]!.message}`, { errors });
}

/**
 * Creates a link with its questions (and its `on_finished` webhook) in one transaction.
 * @throws AppError LINK_LIMIT_REACHED, SLUG_CONFLICT, VALIDATION_ERROR, UNAUTHENTICATED (revoked meanwhile)
 */
export async function createLink(deps: LinkDeps, auth: AuthContext, input: CreateLinkInput): Promise<Link> {
  const kiosk = kioskToStore(input.settings.kiosk, null, await exitPinHashOf(input.settings.kiosk));
  const settings = completeSettings(input.settings);
  checkKioskAccess(publicKiosk(kiosk), settings.access);
  const questions = normalizeQuestions(input.questions, "/questions", settings.hidden_fields);
  checkHiddenFields(settings, questions);
  const translations = validLinkTranslations(input.translations, settings);
  const uuid = await deps.db.transaction().execute(async (trx) => {
    const limit = limitsFor(auth.workspace).links;
    if (limit !== null && (await countLinks(trx, auth.workspaceUuid)) >= limit) {
      throw new AppError("LINK_LIMIT_REACHED", `The ${auth.workspace.plan} plan allows ${limit} links.`);
    }
    const slug = await resolveSlug(trx, auth.workspaceUuid, input.name, input.slug);
    const now = nowIso();
    const uuid = crypto.randomUUID();
    await repo.insertLink(trx, {
      uuid,
      workspace_uuid: auth.workspaceUuid,
      name: input.name,
      slug,
      status: input.status,
      settings: JSON.stringify({ ...settings, kiosk }),
      translations: JSON.stringify(translations),
      date_created: now,
      date_updated: now,
    });
    await repo.insertQuestions(trx, questionRows(uuid, questions, new Map(), now));
    if (input.on_finished?.webhook_url) {
      await createLinkWebhook(trx, auth.workspaceUuid, uuid, input.on_finished.webhook_url, input.on_finished.webhook_secret, deps.webhookAllowHosts);
    }
    await deps.auth.assertActive(trx, auth);
    return uuid;
  });
  return getLink(deps, auth, uuid);
}

/**
 * One link of the key's workspace.
 * @throws AppError NOT_FOUND (also for malformed or foreign uuids)
 */
export async function getLink(deps: LinkDeps, auth: AuthContext, uuid: string): Promise<Link> {
  if (!isUuid(uuid)) throw notFound("Link");
  // One read of the definition counter vouches for the link row and its questions.
  const version = await definitionVersion(deps.db);
  const row = await findLinkRow(deps.db, auth.workspaceUuid, uuid, version);
  if (!row) throw notFound("Link");
  const [link] = await loadLinks(deps.db, deps.clock, deps.publicUrl, auth.workspace, [row], version);
  return link!;
}

/** One page of the workspace's links and the total count. */
export async function listLinks(deps: LinkDeps, auth: AuthContext, filter: repo.LinkListFilter, limit: number, offset: number) {
  const { rows, count } = await repo.listLinks(deps.db, auth.workspaceUuid, filter, limit, offset);
  return { count, results: await loadLinks(deps.db, deps.clock, deps.publicUrl, auth.workspace, rows, await definitionVersion(deps.db)) };
}

/**
 * Updates name, slug, status, settings (merged) and questions (the whole list; a question sent
 * with its `uuid` keeps it and every member it does not send; docs/api.md "Editing questions")
 * (DESIGN §6).
 * @throws AppError NOT_FOUND, SLUG_CONFLICT, VALIDATION_ERROR, UNAUTHENTICATED
 */
export async function patchLink(deps: LinkDeps, auth: AuthContext, uuid: string, input: PatchLinkInput): Promise<Link> {
  const pinHash = await exitPinHashOf(input.settings?.kiosk);
  await deps.db.transaction().execute(async (trx) => {
    const row = isUuid(uuid) ? await repo.findLink(trx, auth.workspaceUuid, uuid) : undefined;
    if (!row) throw notFound("Link");
    const now = nowIso();
    const patch: Partial<repo.LinkRow> = { date_updated: now };
    if (input.name !== undefined) patch.name = input.name;
    if (input.slug !== undefined && input.slug !== row.slug) patch.slug = await resolveSlug(trx, auth.workspaceUuid, row.name, input.slug, uuid);
    if (input.status !== undefined) patch.status = input.status;
    if (input.settings !== undefined) {
      const stored = JSON.parse(row.settings) as Settings & { kiosk?: StoredKiosk | null };
      const settings = completeSettings(input.settings, stored);
      const kiosk = kioskToStore(input.settings.kiosk, stored.kiosk, pinHash);
      checkKioskAccess(publicKiosk(kiosk), settings.access);
      patch.settings = JSON.stringify({ ...settings, kiosk });
    }
    if (input.translations !== undefined || input.settings !== undefined) {
      // Translations are checked against the settings they end up with (a description removed
      // while a translation of it stays is refused too).
      const settings = JSON.parse(patch.settings ?? row.settings) as Settings;
      const translations = validLinkTranslations(input.translations ?? JSON.parse(row.translations || "{}"), settings);
      if (input.translations !== undefined) patch.translations = JSON.stringify(translations);
    }
    await repo.updateLink(trx, uuid, patch);
    const settings = JSON.parse(patch.settings ?? row.settings) as Settings;
    const existing = new Map((await repo.questionsOf(trx, [uuid])).map((q) => [q.uuid, q]));
    if (input.questions) {
      const questions = normalizeQuestions(mergePatchedQuestions(input.questions, existing), "/questions", hiddenFieldsOf(settings));
      checkHiddenFields(settings, questions);
      await repo.deleteQuestionsOf(trx, uuid);
      await repo.insertQuestions(trx, questionRows(uuid, questions, existing, now));
    } else if (input.settings !== undefined) {
      // The hidden fields changed alone: the questions must not clash with them nor lose a condition's field.
      checkHiddenFields(
        settings,
        [...existing.values()].sort((a, b) => a.position - b.position).map((q) => ({ field_key: q.field_key, condition: JSON.parse(q.condition) })),
      );
    }
    await deps.auth.assertActive(trx, auth);
  });
  return getLink(deps, auth, uuid);
}

/**
 * Deletes a link, its questions and its invitations; its responses stay reachable (spec: States and transitions).
 * @throws AppError NOT_FOUND, UNAUTHENTICATED
 */
export async function deleteLink(deps: LinkDeps, auth: AuthContext, uuid: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const row = isUuid(uuid) ? await repo.findLink(trx, auth.workspaceUuid, uuid) : undefined;
    if (!row) throw notFound("Link");
    await deleteWebhooksOfLink(trx, uuid);
    await deleteAlertRulesOfLink(trx, uuid);
    // Its invitations go with it (their hidden values may be personal data; issue 25).
    await repo.deleteInvitationsOfLink(trx, uuid);
    await repo.deleteLink(trx, uuid);
    await deps.auth.assertActive(trx, auth);
  });
}
