/**
 * @module digests/task
 * The periodic `digests` task (src/periodic.ts; issue 28): once a day at 07:00 UTC, on one node of
 * the cluster (the scheduler's unique key), it queues one `mail` job per member who chose a digest:
 * `daily` members get the day before, `weekly` members on Mondays the 7 days before (Monday to
 * Sunday). Each mail is queued under its own unique key (`digest:{workspace}:{user}:{day}`), so a
 * retried run does not send twice. Nothing is queued when mail is not configured, and no mail
 * goes to a member whose workspace had no responses in the period.
 */
import type { Kysely } from "kysely";
import type { Clock } from "../../clock.ts";
import type { Config } from "../../config.ts";
import type { Database } from "../../db/schema.ts";
import { findWorkspaceByUuid } from "../../auth/repository.ts";
import type { PeriodicTask } from "../../jobs/scheduler.ts";
import { enqueueUniqueJob } from "../../jobs/queue.ts";
import type { Logger } from "../../logger.ts";
import { composeDigest } from "../../mail/digest.ts";
import type { ThemeDeps } from "../themes/service.ts";
import { mailEnabled, type ComposedMailPayload } from "../mail/service.ts";
import { digestLinks, type DigestPeriod } from "./content.ts";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** When the digests go out: 07:00 UTC. */
export const DIGEST_HOUR_UTC = 7;

export type DigestDeps = ThemeDeps & { db: Kysely<Database>; config: Pick<Config, "smtpUrl" | "mailFrom">; clock: Clock; log: Logger };

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The periods a run on `periodIso`'s day covers.
 * @returns daily: the day before; weekly (Mondays only): the 7 days before
 */
export function digestPeriods(periodIso: string): { daily: DigestPeriod; weekly: DigestPeriod | null } {
  const start = Date.parse(`${periodIso.slice(0, 10)}T00:00:00Z`);
  const yesterday = day(start - DAY_MS);
  const monday = new Date(start).getUTCDay() === 1;
  return { daily: { since: yesterday, until: yesterday }, weekly: monday ? { since: day(start - 7 * DAY_MS), until: yesterday } : null };
}

/**
 * One run: queues the digests due on `periodIso`'s day.
 * @returns how many mails were queued (0 when mail is off)
 */
export async function queueDigests(deps: DigestDeps, periodIso: string): Promise<number> {
  if (!mailEnabled(deps.config)) return 0;
  const periods = digestPeriods(periodIso);
  const due = periods.weekly ? ["daily", "weekly"] : ["daily"];
  const members = await deps.db
    .selectFrom("memberships")
    .innerJoin("users", "users.uuid", "memberships.user_uuid")
    .select(["memberships.workspace_uuid", "memberships.digest", "memberships.digest_lang", "users.uuid as user_uuid", "users.email"])
    .where("memberships.digest", "in", due as ("daily" | "weekly")[])
    .where("users.disabled", "=", 0)
    .orderBy("memberships.workspace_uuid")
    .orderBy("users.uuid")
    .execute();
  // The figures are the same for every member of a workspace: computed once per workspace and period.
  const links = new Map<string, Awaited<ReturnType<typeof digestLinks>>>();
  let queued = 0;
  for (const m of members) {
    const frequency = m.digest as "daily" | "weekly";
    const period = frequency === "daily" ? periods.daily : periods.weekly!;
    const ws = await findWorkspaceByUuid(deps.db, m.workspace_uuid);
    if (!ws) continue;
    const key = `${ws.uuid}@${frequency}`;
    if (!links.has(key)) links.set(key, await digestLinks(deps, ws, period));
    const active = links.get(key)!;
    if (active.length === 0) continue;
    const message = composeDigest(
      { workspace: ws.name, frequency, ...period, settingsUrl: `${deps.publicUrl}/console/settings/`, links: active },
      m.digest_lang ?? "en",
    );
    const payload: ComposedMailPayload = { kind: "digest", to: m.email, message, workspace_uuid: ws.uuid, user_uuid: m.user_uuid };
    const unique = `digest:${ws.uuid}:${m.user_uuid}:${periodIso.slice(0, 10)}`;
    if (await enqueueUniqueJob(deps.db, "mail", payload, unique, deps.clock.nowIso(), deps.clock)) queued++;
  }
  if (queued) deps.log.info("email digests queued", { count: queued, period: periodIso });
  return queued;
}

/** The periodic task: every day at {@link DIGEST_HOUR_UTC}:00 UTC. */
export function digestTask(deps: DigestDeps): PeriodicTask {
  return { name: "digests", everyMs: DAY_MS, offsetMs: DIGEST_HOUR_UTC * HOUR_MS, run: (periodIso) => queueDigests(deps, periodIso) };
}
