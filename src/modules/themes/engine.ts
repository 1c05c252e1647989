/**
 * @module themes/engine
 * Themes in the background (DESIGN §12, issue 24 "Incremental and stable"): the `analyse` job
 * assigns each new answer to its nearest theme ({@link assignNewAnswer}, in the job's own
 * transaction), and the `themes` job rebuilds one question's themes ({@link rebuildThemes}) in the
 * inference worker, keeping identities through `reconcileThemes` and every operator edit.
 *
 * Rebuild rule (docs/api.md "Themes"): a question is rebuilt once the analysed answers since its
 * last build reach max({@link REBUILD_MIN_NEW}, {@link REBUILD_SHARE} × the answers that build saw)
 * — the first build after 10 answers, then after 20 % more —, or when an operator asks
 * (`POST …/themes/rebuild/`) or creates a theme. One rebuild per question at a time
 * (`theme_builds.rebuild_queued`).
 *
 * Operator edits a rebuild keeps: an operator's theme (created, moved into, merged into, renamed)
 * is a seed of the build with its members and examples, so it is never discarded; a pinned label
 * is never replaced; an answer an operator moved (`theme_source = operator`, to a theme or to
 * none) stays where it was put.
 */
import { randomUUID } from "node:crypto";
import type { Kysely, Transaction } from "kysely";
import { nowIso } from "../../clock.ts";
import type { Database, Executor } from "../../db/schema.ts";
import { enqueueJob, isClaimStillOurs, type Job, LeaseLostError } from "../../jobs/queue.ts";
import { PermanentJobError } from "../../jobs/runner.ts";
import { assignAnswer, DEFAULT_ASSIGN_THRESHOLD, reconcileThemes } from "../../ai/themes/incremental.ts";
import type { InferenceClient, StoredBuildOptions, StoredThemeInput } from "../../ai/inference-client.ts";
import { analysisTextOf } from "./analysis-text.ts";
import { llmLabelsOf, type LlmEndpoint } from "./llm-relabel.ts";
import { bytesVector, bytesVectors, vectorBytes, vectorsBytes } from "./codec.ts";
import { cachedModel, storeModel } from "./model-cache.ts";
import * as repo from "./repository.ts";
import { followUpInputs, storeFollowUpVectors } from "./follow-ups.ts";
import { queueAlertsForThemePlacements } from "../alerts/fire.ts";

/** Fewest analysed answers since the last build that trigger an automatic rebuild. */
export const REBUILD_MIN_NEW = 10;
/** Share of the last build's answers that, once new, trigger an automatic rebuild. */
export const REBUILD_SHARE = 0.2;

/**
 * What a rebuild needs; `llm`: the LAN model that labels automatic themes (`EARSHOT_LLM_URL`), or
 * none; `publicUrl` and `nudgeOutbox` for the alerts a placement fires (alerts/fire.ts).
 */
export type ThemeEngineDeps = {
  db: Kysely<Database>;
  inference: Pick<InferenceClient, "buildThemes">;
  llm?: LlmEndpoint | null;
  publicUrl: string;
  nudgeOutbox?: () => void;
};

/**
 * Queues a rebuild of one question unless one is queued or running. Call inside the transaction
 * of the change that asks for it.
 * @returns whether a job was queued now
 */
export async function queueRebuild(trx: Executor, workspaceUuid: string, linkUuid: string, questionUuid: string): Promise<boolean> {
  const now = nowIso();
  await repo.ensureBuild(trx, { link_uuid: linkUuid, question_uuid: questionUuid, workspace_uuid: workspaceUuid }, now);
  const build = await repo.findBuild(trx, linkUuid, questionUuid);
  if (build?.rebuild_queued) return false;
  await repo.updateBuild(trx, linkUuid, questionUuid, { rebuild_queued: 1, date_updated: now });
  await enqueueJob(trx, "themes", { link_uuid: linkUuid, question_uuid: questionUuid });
  return true;
}

/**
 * The theme of one newly analysed answer of an open question, written in the analyse job's
 * transaction: its nearest theme under the question's last build (none before the first build, or
 * below the threshold), and the automatic rebuild when the rule says so. About 1 µs per theme.
 * @param vector the answer's raw embedder vector; `engine` its embedder id.
 * @param cacheOwner the root database instance: the question's decoded model is kept in memory for
 *   it (themes/model-cache.ts); omitted, every call reads the centres.
 * @returns the theme uuid given (or null).
 */
export async function assignNewAnswer(
  trx: Transaction<Database>,
  a: { answerUuid: string; workspaceUuid: string; linkUuid: string; questionUuid: string },
  vector: Float32Array,
  engine: string,
  cacheOwner?: Kysely<Database>,
): Promise<string | null> {
  const theme = await themeOfNewAnswer(trx, a, vector, engine, cacheOwner);
  if (theme) await repo.assignAnswers(trx, [a.answerUuid], theme, "auto", true);
  return theme;
}

/**
 * {@link assignNewAnswer} without the answer's own write: counts the answer, queues the automatic
 * rebuild when due, and returns the theme the caller writes with the answer
 * (`repo.updateAnalysedAnswer`, one statement instead of two). Call it before the caller's write
 * of the answer, in the same transaction, which must not have changed the question's themes.
 * @returns the theme uuid to give (or null: leave the answer's theme alone).
 */
export async function themeOfNewAnswer(
  trx: Transaction<Database>,
  a: { workspaceUuid: string; linkUuid: string; questionUuid: string },
  vector: Float32Array,
  engine: string,
  cacheOwner?: Kysely<Database>,
): Promise<string | null> {
  let build = await repo.countNewAnswer(trx, a.linkUuid, a.questionUuid);
  if (!build) {
    // The question's first analysed answer: its build row, then the count.
    await repo.ensureBuild(trx, { link_uuid: a.linkUuid, question_uuid: a.questionUuid, workspace_uuid: a.workspaceUuid }, nowIso());
    build = (await repo.countNewAnswer(trx, a.linkUuid, a.questionUuid))!;
  }
  let theme: string | null = null;
  if (build.built_at && build.engine === engine) {
    let model = cacheOwner && cachedModel(cacheOwner, a.linkUuid, a.questionUuid, build, vector.length);
    if (!model) {
      // Read under the build row's lock the count just took: what the stamp vouches for.
      const themes = await repo.centresOf(trx, a.linkUuid, a.questionUuid);
      model = {
        engine,
        components: bytesVectors(await repo.componentsOf(trx, a.linkUuid, a.questionUuid), vector.length),
        threshold: build.threshold,
        themes: themes.map((t) => ({ id: t.uuid, centre: bytesVector(t.centre!) })),
      };
      if (cacheOwner) storeModel(cacheOwner, a.linkUuid, a.questionUuid, build, vector.length, model);
    }
    theme = assignAnswer(vector, engine, model).theme;
  }
  // A vector of another engine than the last build's (EARSHOT_EMBEDDING_MODEL changed): no theme
  // until the rebuild that embeds the question's answers again with the new engine, queued now.
  const engineChanged = build.built_at !== null && build.engine !== engine;
  if (!build.rebuild_queued && (engineChanged || build.answers_since >= Math.max(REBUILD_MIN_NEW, REBUILD_SHARE * build.answers_built))) {
    await queueRebuild(trx, a.workspaceUuid, a.linkUuid, a.questionUuid);
  }
  return theme;
}

/** The job's question, or a permanent failure for a malformed payload. */
function targetOf(job: Job): { linkUuid: string; questionUuid: string } {
  const { link_uuid, question_uuid } = job.payload;
  if (typeof link_uuid !== "string" || typeof question_uuid !== "string") throw new PermanentJobError("Job payload has no link_uuid/question_uuid.");
  return { linkUuid: link_uuid, questionUuid: question_uuid };
}

/**
 * Handles a `themes` job: builds the question's themes in the inference worker from the stored
 * vectors, then in one transaction (while the job's lease is ours) maps the new clusters to the
 * old themes (`reconcileThemes`), updates, inserts and retires themes, reassigns the answers the
 * engine placed, and records the build. Operator edits made while the build ran are kept: pinned
 * flags are read inside the transaction and operator-placed answers are never overwritten.
 */
export async function rebuildThemes(deps: ThemeEngineDeps, job: Job): Promise<void> {
  const { linkUuid, questionUuid } = targetOf(job);
  const before = await repo.findBuild(deps.db, linkUuid, questionUuid);
  if (!before) return;
  // Every analysed answer: the worker embeds again those whose vector another engine made (one
  // engine per build: vectors of two engines are not comparable), and the fresh vectors are stored.
  const answers = await repo.embeddedAnswers(deps.db, questionUuid);
  const inIds = new Set(answers.map((r) => r.uuid));
  const existing = await repo.themesOf(deps.db, linkUuid, questionUuid);
  const operatorThemes = existing.filter((t) => t.operator === 1);
  const membersOf = (uuid: string) => answers.filter((r) => r.theme_uuid === uuid).map((r) => r.uuid);
  const options: StoredBuildOptions = {
    seeds: operatorThemes.map((t) => ({
      key: t.uuid,
      label: t.label,
      exampleIds: (JSON.parse(t.examples) as string[]).filter((id) => inIds.has(id)),
      members: membersOf(t.uuid),
    })),
    fixed: new Map(answers.filter((r) => r.theme_source === "operator").map((r) => [r.uuid, r.theme_uuid ?? null])),
  };
  const inputs: StoredThemeInput[] = answers.map((r) => ({
    id: r.uuid,
    // Labels and quotes in the respondent's words when they are English; a translated answer's in English.
    text: (r.translation || r.transcription || r.text || "").trim(),
    vector: bytesVector(r.embedding!),
    engine: r.embedding_engine ?? null,
    embedText: analysisTextOf(r),
    followUps: followUpInputs(r),
  }));
  const built = inputs.length > 0 ? await deps.inference.buildThemes(inputs, options) : null;
  const engine = built?.engine ?? before.engine;
  // Labels from the LAN model, asked outside the transaction (network waits hold no lock).
  const llmLabels =
    built && deps.llm
      ? await llmLabelsOf(
          deps.llm,
          await repo.questionPrompt(deps.db, questionUuid),
          built,
          inputs.map((x) => x.text),
          existing,
        )
      : new Map<string, string>();

  const alerts = await deps.db.transaction().execute(async (trx) => {
    if (!(await isClaimStillOurs(trx, job))) throw new LeaseLostError(job);
    const now = nowIso();
    // The vectors embedded again with the current engine replace the old engine's.
    for (const e of built?.embedded ?? []) await repo.storeEmbedding(trx, e.id, vectorBytes(e.vector), engine!);
    await storeFollowUpVectors(trx, new Map(answers.map((r) => [r.uuid, r])), built?.embeddedFollowUps ?? []);
    const current = new Map((await repo.themesOf(trx, linkUuid, questionUuid)).map((t) => [t.uuid, t]));
    const autoBefore = existing.filter((t) => t.operator === 0 && current.has(t.uuid));
    const found = built?.themes.filter((t) => !t.seeded) ?? [];
    const { ids } = reconcileThemes(
      autoBefore.map((t) => ({ id: t.uuid, members: membersOf(t.uuid), operator: false })),
      found.map((t) => t.members.map((i) => inputs[i]!.id)),
    );
    const kept = new Set<string>();
    const labelOf = (t: { key: string; label: string }) => {
      const llm = llmLabels.get(t.key);
      return llm ? { label: llm, label_source: "llm" as const } : { label: t.label, label_source: "auto" as const };
    };
    for (const t of built?.themes ?? []) {
      // A quote from a follow-up answer names it (`follow_up`: its index), for its own recording.
      const quotes = JSON.stringify(
        t.quotes.map((q) => ({ answer_uuid: inputs[q.answer]!.id, text: q.text, ...(q.followUp === undefined ? {} : { follow_up: q.followUp }) })),
      );
      const common = { keyphrases: JSON.stringify(t.keyphrases), quotes, centre: vectorBytes(t.centre), date_updated: now };
      let uuid: string;
      if (t.seeded) {
        if (!current.has(t.key)) continue; // deleted by an operator while the build ran
        uuid = t.key;
        await repo.updateTheme(trx, uuid, common);
      } else {
        const old = ids[found.indexOf(t)] ?? null;
        const row = old ? current.get(old) : undefined;
        if (row) {
          uuid = row.uuid;
          await repo.updateTheme(trx, uuid, { ...common, ...(row.pinned ? {} : labelOf(t)) });
        } else {
          uuid = randomUUID();
          await repo.insertTheme(trx, {
            uuid,
            workspace_uuid: before.workspace_uuid,
            link_uuid: linkUuid,
            question_uuid: questionUuid,
            ...labelOf(t),
            description: null,
            pinned: 0,
            operator: 0,
            examples: "[]",
            date_created: now,
            ...common,
          });
        }
      }
      kept.add(uuid);
      await repo.assignAnswers(
        trx,
        t.members.map((i) => inputs[i]!.id),
        uuid,
        "auto",
        true,
      );
    }
    // Auto themes no cluster carried over are retired; their remaining answers become unassigned.
    const retired = [...current.values()].filter((t) => t.operator === 0 && !kept.has(t.uuid)).map((t) => t.uuid);
    for (const uuid of retired) await repo.reassignTheme(trx, uuid, null);
    await repo.deleteThemes(trx, retired);
    // Answers the build left unassigned (and no operator placed) lose their old theme.
    const placed = new Set((built?.assignments ?? []).flatMap((key, i) => (key ? [inputs[i]!.id] : [])));
    await repo.assignAnswers(
      trx,
      inputs.filter((x) => !placed.has(x.id)).map((x) => x.id),
      null,
      "auto",
      true,
    );
    const now2 = await repo.findBuild(trx, linkUuid, questionUuid);
    await repo.updateBuild(trx, linkUuid, questionUuid, {
      engine,
      components: built ? vectorsBytes(built.components) : null,
      threshold: DEFAULT_ASSIGN_THRESHOLD,
      answers_built: inputs.length,
      answers_since: Math.max(0, (now2?.answers_since ?? 0) - before.answers_since),
      rebuild_queued: 0,
      built_at: now,
      date_updated: now,
    });
    // Answers this build placed in another theme than before fire the theme rules they now
    // satisfy (an answer analysed before its theme had a centre alerts here, not at its analysis).
    const after = await repo.themesOfAnswers(
      trx,
      inputs.map((x) => x.id),
    );
    const placements = answers.flatMap((r) => {
      const theme = after.get(r.uuid);
      return theme && theme !== (r.theme_uuid ?? null) ? [{ answerUuid: r.uuid, before: r.theme_uuid ?? null, after: theme }] : [];
    });
    return queueAlertsForThemePlacements(trx, { workspaceUuid: before.workspace_uuid, linkUuid, publicUrl: deps.publicUrl, placements });
  });
  if (alerts > 0) deps.nudgeOutbox?.();
}

/** After a rebuild's final failure: let the next trigger queue one again. */
export async function rebuildGivenUp(db: Kysely<Database>, job: Job): Promise<void> {
  const { linkUuid, questionUuid } = targetOf(job);
  await repo.updateBuild(db, linkUuid, questionUuid, { rebuild_queued: 0, date_updated: nowIso() });
}
