/**
 * @module digests/content
 * The figures of one workspace's digest for one period (issue 28): per link with responses
 * submitted in the period, the themes' period summary (modules/themes/summary.ts: responses,
 * sentiment against the previous period of the same length, top and new themes with one quote
 * each) and the dashboard's completion rate and NPS (modules/stats) over the same days.
 */
import type { Kysely } from "kysely";
import type { AuthContext } from "../../auth/authenticate.ts";
import type { WorkspaceRow } from "../../auth/repository.ts";
import type { Database } from "../../db/schema.ts";
import type { DigestLinkData } from "../../mail/digest.ts";
import { getLinkStats } from "../stats/service.ts";
import { linkSummary } from "../themes/summary.ts";
import type { ThemeDeps } from "../themes/service.ts";

/** Links listed in one digest at most, most responses first (the rest are counted in the console). */
export const DIGEST_LINKS = 20;
const DAY_MS = 86_400_000;

/** A period of whole UTC days, both inclusive (YYYY-MM-DD). */
export type DigestPeriod = { since: string; until: string };

const stamp = (d: string) => `${d}T00:00:00.000000Z`;
const nextDay = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);

/** Net sentiment in points: (positive − negative) / analysed × 100, rounded; null when none. */
function net(c: { positive: number; neutral: number; negative: number }): number | null {
  const total = c.positive + c.neutral + c.negative;
  return total ? Math.round(((c.positive - c.negative) * 100) / total) : null;
}

/** A read-only caller inside `ws`, for the services that take one (nothing is written with it). */
function readerOf(ws: WorkspaceRow): AuthContext {
  return {
    actor: { type: "user", uuid: "00000000-0000-4000-8000-000000000000", name: "Email digest" },
    tokenUuid: null,
    sessionIdHash: null,
    role: "viewer",
    clientAddress: null,
    workspaceUuid: ws.uuid,
    workspace: ws,
    scopes: new Set(),
    rateHeaders: {},
  };
}

/**
 * The links of `ws` with completed responses submitted in `period`, with their figures.
 * @returns at most {@link DIGEST_LINKS}, most responses first; empty when nothing happened
 */
export async function digestLinks(deps: ThemeDeps & { db: Kysely<Database> }, ws: WorkspaceRow, period: DigestPeriod): Promise<DigestLinkData[]> {
  const until = stamp(nextDay(period.until));
  const active = await deps.db
    .selectFrom("responses")
    .innerJoin("links", "links.uuid", "responses.link_uuid")
    .select(["links.uuid", "links.name", (eb) => eb.fn.countAll<number>().as("n")])
    .where("links.workspace_uuid", "=", ws.uuid)
    .where("responses.status", "=", "completed")
    .where("responses.submitted_at", ">=", stamp(period.since))
    .where("responses.submitted_at", "<", until)
    .groupBy(["links.uuid", "links.name"])
    .orderBy("n", "desc")
    .orderBy("links.name")
    .limit(DIGEST_LINKS)
    .execute();
  const auth = readerOf(ws);
  const out: DigestLinkData[] = [];
  for (const link of active) {
    const summary = await linkSummary(deps, auth, link.uuid, period);
    const stats = await getLinkStats(deps, auth, link.uuid, { since: stamp(period.since), until, bucket: "day" });
    const nps = stats.questions.find((q) => q.nps && q.nps.score !== null)?.nps?.score ?? null;
    const [now, before] = [net(summary.sentiment), net(summary.sentiment.previous)];
    const fresh = new Set(summary.new_themes);
    out.push({
      name: link.name,
      url: `${deps.publicUrl}/console/links/${link.uuid}/dashboard`,
      responses: summary.responses.count,
      previous_responses: summary.responses.previous_count,
      completion_rate: stats.responses.completion_rate,
      nps,
      sentiment: { positive: summary.sentiment.positive, neutral: summary.sentiment.neutral, negative: summary.sentiment.negative },
      sentiment_shift: now !== null && before !== null ? now - before : null,
      themes: summary.themes.map((t) => ({ label: t.label, count: t.count, is_new: fresh.has(t.uuid), quote: t.quote?.text ?? null })),
    });
  }
  return out;
}
