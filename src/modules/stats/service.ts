/**
 * @module stats/service
 * A link's dashboard numbers (`GET links/{uuid}/stats/`, issue 11; docs/api.md "Dashboard
 * numbers"): counts and completion rate, counts over time, per-question distributions with NPS and
 * averages, sentiment over time, frequent topics and the latest actionable answers. The
 * repository aggregates in SQL; this module only shapes the grouped rows (labels, zero buckets,
 * weeks). The change tag behind its `ETag` is the workspace's (workspaces/change-tag.ts).
 */
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { notFound } from "../../errors.ts";
import type { AuthContext } from "../../auth/authenticate.ts";
import { isUuid } from "../../shared/uuid.ts";
import * as linksRepo from "../links/repository.ts";
import type { QuestionType } from "../links/question-model.ts";
import type { LinkStats, StatsQuery } from "./model.ts";
import * as repo from "./repository.ts";

export type StatsDeps = { db: Kysely<Database> };

const TOPICS = 20;
const ACTIONABLE = 10;
const MAX_FILLED_BUCKETS = 3700;
const DAY_MS = 86_400_000;

type Sentiment = "positive" | "neutral" | "negative";
type Distribution = LinkStats["questions"][number]["distribution"];

/** First day (YYYY-MM-DD) of the bucket holding `day`: the day, or the Monday of its ISO week. */
function bucketOf(day: string, bucket: "day" | "week"): string {
  if (bucket === "day") return day;
  const ms = Date.parse(`${day}T00:00:00Z`);
  const weekday = (new Date(ms).getUTCDay() + 6) % 7;
  return new Date(ms - weekday * DAY_MS).toISOString().slice(0, 10);
}

/** Every bucket from `first` to `last` (days, YYYY-MM-DD), or null when there would be too many. */
function bucketRange(first: string, last: string, bucket: "day" | "week"): string[] | null {
  const out: string[] = [];
  const step = bucket === "day" ? DAY_MS : 7 * DAY_MS;
  const end = Date.parse(`${bucketOf(last, bucket)}T00:00:00Z`);
  for (let ms = Date.parse(`${bucketOf(first, bucket)}T00:00:00Z`); ms <= end; ms += step) {
    if (out.length >= MAX_FILLED_BUCKETS) return null;
    out.push(new Date(ms).toISOString().slice(0, 10));
  }
  return out;
}

/** The day of the last instant before an exclusive stored end. */
function lastDayBefore(until: string): string {
  return new Date(Date.parse(until) - 1).toISOString().slice(0, 10);
}

/** Scale points, options, cards or yes/no for a question: each with its label, zeros kept. */
function knownValues(type: QuestionType, config: Record<string, unknown>): { value: string | number | boolean; label: string }[] {
  switch (type) {
    case "multiple_choice":
      return ((config.options ?? []) as string[]).map((o) => ({ value: o, label: o }));
    case "image_choice":
      return ((config.cards ?? []) as { id: string; label: string }[]).map((c) => ({ value: c.id, label: c.label }));
    case "yes_no":
      return [
        { value: true, label: "Yes" },
        { value: false, label: "No" },
      ];
    case "rating": {
      const nps = config.scale_type === "nps";
      const max = nps ? 10 : Number(config.max_value ?? 5);
      return Array.from({ length: nps ? 11 : max }, (_, i) => (nps ? i : i + 1)).map((v) => ({ value: v, label: String(v) }));
    }
    default:
      return [];
  }
}

function distributionOf(type: QuestionType, config: Record<string, unknown>, counts: Map<string | number | boolean, number>): Distribution {
  const known = knownValues(type, config);
  const out: Distribution = known.map((k) => ({ ...k, count: counts.get(k.value) ?? 0 }));
  const extra = [...counts.entries()].filter(([v]) => !known.some((k) => k.value === v));
  extra.sort(([a], [b]) => (typeof a === "number" && typeof b === "number" ? a - b : String(a).localeCompare(String(b))));
  // Values no longer configured (a removed option) still count; numbers keep numeric order.
  for (const [value, count] of extra) out.push({ value, label: String(value), count });
  return out;
}

/**
 * The link's dashboard numbers over `[since, until)`.
 * @throws AppError NOT_FOUND when the link is not in the caller's workspace (or malformed)
 */
export async function getLinkStats(deps: StatsDeps, auth: AuthContext, linkUuid: string, query: StatsQuery): Promise<LinkStats> {
  const link = isUuid(linkUuid) ? await linksRepo.findLink(deps.db, auth.workspaceUuid, linkUuid) : undefined;
  if (!link) throw notFound("Link");
  const range: repo.StatsRange = { linkUuid: link.uuid, since: query.since, until: query.until };
  const questions = await linksRepo.questionsOf(deps.db, [link.uuid]);
  const undistributed = questions.filter((q) => !repo.DISTRIBUTED_TYPES.includes(q.type)).map((q) => q.uuid);
  const [started, completed, answeredOthers, values, positive, neutral, negative, topics, actionable] = await Promise.all([
    repo.startedByDay(deps.db, range),
    repo.completedByDay(deps.db, range),
    repo.answeredByQuestion(deps.db, range, undistributed),
    repo.valueCounts(deps.db, range),
    repo.sentimentByDay(deps.db, range, "positive"),
    repo.sentimentByDay(deps.db, range, "neutral"),
    repo.sentimentByDay(deps.db, range, "negative"),
    repo.topTopics(deps.db, range, TOPICS),
    repo.latestActionable(deps.db, range, ACTIONABLE),
  ]);
  const sentiments = [
    ...positive.map((r) => ({ ...r, sentiment: "positive" as const })),
    ...neutral.map((r) => ({ ...r, sentiment: "neutral" as const })),
    ...negative.map((r) => ({ ...r, sentiment: "negative" as const })),
  ];

  const bucket = query.bucket;
  const days = [...started.map((r) => r.day), ...completed.map((r) => r.day), ...sentiments.map((r) => r.day)].sort();
  const first = query.since?.slice(0, 10) ?? days[0];
  const last = query.until ? lastDayBefore(query.until) : days.at(-1);
  const filled = first && last && first <= last ? bucketRange(first, last, bucket) : null;
  const buckets = new Map<string, { started: number; completed: number } & Record<Sentiment, number>>();
  const at = (day: string) => {
    const key = bucketOf(day, bucket);
    let b = buckets.get(key);
    if (!b) buckets.set(key, (b = { started: 0, completed: 0, positive: 0, neutral: 0, negative: 0 }));
    return b;
  };
  for (const day of filled ?? []) at(day);
  let startedTotal = 0;
  let startedCompleted = 0;
  for (const r of started) {
    at(r.day).started += Number(r.started);
    startedTotal += Number(r.started);
    startedCompleted += Number(r.completed_since);
  }
  let completedTotal = 0;
  for (const r of completed) {
    at(r.day).completed += Number(r.completed);
    completedTotal += Number(r.completed);
  }
  const sentimentTotal = { positive: 0, neutral: 0, negative: 0 };
  for (const r of sentiments) {
    const s = r.sentiment;
    at(r.day)[s] += Number(r.n);
    sentimentTotal[s] += Number(r.n);
  }
  const ordered = [...buckets.entries()].sort(([a], [b]) => a.localeCompare(b));

  const answeredOf = new Map<string, number>();
  const countsOf = new Map<string, Map<string | number | boolean, number>>();
  const add = (questionUuid: string, v: string | number | boolean, n: number) => {
    const m = countsOf.get(questionUuid) ?? new Map<string | number | boolean, number>();
    countsOf.set(questionUuid, m);
    m.set(v, (m.get(v) ?? 0) + n);
  };
  const addAnswered = (questionUuid: string, n: number) => answeredOf.set(questionUuid, (answeredOf.get(questionUuid) ?? 0) + n);
  for (const r of answeredOthers) addAnswered(r.question_uuid, Number(r.n));
  const isCountable = (v: unknown): v is string | number | boolean => typeof v === "string" || typeof v === "number" || typeof v === "boolean";
  for (const r of values) {
    const parsed = JSON.parse(r.value) as unknown;
    // A multi-select answer counts once per option chosen.
    for (const v of Array.isArray(parsed) ? new Set(parsed) : [parsed]) if (isCountable(v)) add(r.question_uuid, v, Number(r.n));
    addAnswered(r.question_uuid, Number(r.n));
  }

  return {
    link_uuid: link.uuid,
    since: query.since ?? null,
    until: query.until ?? null,
    bucket,
    responses: { started: startedTotal, completed: completedTotal, completion_rate: startedTotal ? startedCompleted / startedTotal : null },
    over_time: ordered.map(([date, b]) => ({ date, started: b.started, completed: b.completed })),
    questions: questions.map((q) => {
      const type = q.type as QuestionType;
      const config = JSON.parse(q.configuration) as Record<string, unknown>;
      const counts = countsOf.get(q.uuid) ?? new Map();
      const distribution = repo.DISTRIBUTED_TYPES.includes(type) ? distributionOf(type, config, counts) : [];
      const out: LinkStats["questions"][number] = {
        question_uuid: q.uuid,
        field_key: q.field_key,
        type,
        prompt: q.prompt,
        answered: answeredOf.get(q.uuid) ?? 0,
        distribution,
      };
      if (type === "rating" || type === "number") {
        let n = 0;
        let sum = 0;
        for (const [v, c] of counts) if (typeof v === "number") (n += c), (sum += v * c);
        out.average = n ? Math.round((sum / n) * 1000) / 1000 : null;
      }
      if (type === "rating" && config.scale_type === "nps") {
        const band = (lo: number, hi: number) =>
          distribution.reduce((s, d) => s + (typeof d.value === "number" && d.value >= lo && d.value <= hi ? d.count : 0), 0);
        const promoters = band(9, 10);
        const passives = band(7, 8);
        const detractors = band(0, 6);
        const total = promoters + passives + detractors;
        out.nps = { promoters, passives, detractors, score: total ? Math.round(((promoters - detractors) * 100) / total) : null };
      }
      return out;
    }),
    sentiment: { ...sentimentTotal, over_time: ordered.map(([date, b]) => ({ date, positive: b.positive, neutral: b.neutral, negative: b.negative })) },
    topics: topics.map((t) => ({ topic: t.topic, count: Number(t.n) })),
    latest_actionable: actionable.map((a) => {
      const insights = JSON.parse(a.ai_insights!) as { sentiment?: Sentiment; summary?: string; key_topics?: string[] };
      return {
        response_uuid: a.response_uuid,
        answer_uuid: a.uuid,
        question_uuid: a.question_uuid,
        field_key: a.field_key,
        text: (a.transcription || a.text || "").slice(0, 500),
        summary: insights.summary ?? null,
        sentiment: insights.sentiment ?? null,
        key_topics: insights.key_topics ?? [],
        date: a.submitted_at!,
      };
    }),
  };
}

/** Recent dashboards by change version (see {@link cachedLinkStats}). */
export type StatsCache = Map<string, LinkStats>;
const CACHE_ENTRIES = 64;

/**
 * {@link getLinkStats}, remembered per workspace change version: several people (or tabs) watching
 * the same dashboard compute it once per change. A change raises the tag, so an entry is never
 * stale; the oldest entries are dropped beyond 64.
 * @param version the workspace's current change version (workspaces/change-tag.ts)
 */
export async function cachedLinkStats(
  cache: StatsCache,
  version: string,
  deps: StatsDeps,
  auth: AuthContext,
  linkUuid: string,
  query: StatsQuery,
): Promise<LinkStats> {
  const key = JSON.stringify([version, auth.workspaceUuid, linkUuid, query.since ?? null, query.until ?? null, query.bucket]);
  const hit = cache.get(key);
  if (hit) return hit;
  const stats = await getLinkStats(deps, auth, linkUuid, query);
  cache.set(key, stats);
  for (const old of cache.keys()) {
    if (cache.size <= CACHE_ENTRIES) break;
    cache.delete(old);
  }
  return stats;
}
