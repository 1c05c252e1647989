/**
 * @module themes/summary
 * "What changed" (DESIGN §12, `GET links/{link_uuid}/summary/`): per link and period, responses
 * and sentiment against the previous period of the same length, the top themes with their change
 * and one quote each, the themes that are new — as JSON and as Markdown (the email digest).
 */
import type { AuthContext } from "../../auth/authenticate.ts";
import { nowIso } from "../../clock.ts";
import { notFound } from "../../errors.ts";
import { isUuid } from "../../shared/uuid.ts";
import * as linksRepo from "../links/repository.ts";
import { isOpenType } from "../../shared/question-types.ts";
import type { Summary, SummaryQuery } from "./model.ts";
import { quotesOf, type StoredQuote } from "./records.ts";
import * as repo from "./repository.ts";
import type { ThemeDeps } from "./service.ts";

/** Themes listed in a summary, most answers in the period first. */
export const SUMMARY_THEMES = 5;
const DAY_MS = 86_400_000;

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const stamp = (d: string) => `${d}T00:00:00.000000Z`;
const nextDay = (d: string) => day(Date.parse(`${d}T00:00:00Z`) + DAY_MS);
const signed = (n: number) => (n > 0 ? `+${n}` : n < 0 ? `${n}` : "±0");

type Counts = { positive: number; neutral: number; negative: number };
function sentimentOf(rows: { sentiment: string | null }[]): Counts {
  const c: Counts = { positive: 0, neutral: 0, negative: 0 };
  for (const r of rows) if (r.sentiment === "positive" || r.sentiment === "neutral" || r.sentiment === "negative") c[r.sentiment]++;
  return c;
}

function countBy(rows: { theme_uuid: string | null | undefined }[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of rows) if (r.theme_uuid) m.set(r.theme_uuid, (m.get(r.theme_uuid) ?? 0) + 1);
  return m;
}

/**
 * The summary of a link for [since, until] (whole UTC days, inclusive; default the last 7 days
 * ending today) against the period of the same length just before. Answers count by when they were
 * given; responses by when they were submitted.
 * @throws AppError NOT_FOUND (link)
 */
export async function linkSummary(deps: ThemeDeps, auth: AuthContext, linkUuid: string, q: SummaryQuery): Promise<Summary> {
  const link = isUuid(linkUuid) ? await linksRepo.findLink(deps.db, auth.workspaceUuid, linkUuid) : undefined;
  if (!link) throw notFound("Link");
  const until = q.until ?? nowIso().slice(0, 10);
  const since = q.since ?? day(Date.parse(`${until}T00:00:00Z`) - 6 * DAY_MS);
  const [from, to] = since <= until ? [since, until] : [until, since];
  const days = Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
  const prevFrom = day(Date.parse(`${from}T00:00:00Z`) - days * DAY_MS);
  const prevTo = day(Date.parse(`${from}T00:00:00Z`) - DAY_MS);
  const questions = (await linksRepo.questionsOf(deps.db, [link.uuid])).filter((x) => isOpenType(x.type)).map((x) => x.uuid);
  const now = await repo.answersInPeriod(deps.db, link.uuid, questions, stamp(from), stamp(nextDay(to)));
  const before = await repo.answersInPeriod(deps.db, link.uuid, questions, stamp(prevFrom), stamp(from));
  const themes = await repo.themesOf(deps.db, link.uuid);
  const nowCounts = countBy(now);
  const beforeCounts = countBy(before);
  const first = await repo.firstSeen(
    deps.db,
    themes.map((t) => t.uuid),
  );
  const newThemes = themes.filter((t) => (first.get(t.uuid) ?? "") >= stamp(from) && (first.get(t.uuid) ?? "") < stamp(nextDay(to))).map((t) => t.uuid);
  const top = themes
    .filter((t) => (nowCounts.get(t.uuid) ?? 0) > 0)
    .sort((a, b) => nowCounts.get(b.uuid)! - nowCounts.get(a.uuid)! || (a.date_created < b.date_created ? -1 : 1))
    .slice(0, SUMMARY_THEMES);
  const topThemes: Summary["themes"] = [];
  for (const t of top) {
    const [quote] = await quotesOf(deps.db, deps, (JSON.parse(t.quotes) as StoredQuote[]).slice(0, 1));
    topThemes.push({ uuid: t.uuid, label: t.label, count: nowCounts.get(t.uuid)!, previous_count: beforeCounts.get(t.uuid) ?? 0, quote: quote ?? null });
  }
  const summary: Omit<Summary, "markdown"> = {
    period: { since: from, until: to },
    previous: { since: prevFrom, until: prevTo },
    responses: {
      count: await repo.countResponses(deps.db, link.uuid, stamp(from), stamp(nextDay(to))),
      previous_count: await repo.countResponses(deps.db, link.uuid, stamp(prevFrom), stamp(from)),
    },
    sentiment: { ...sentimentOf(now), previous: sentimentOf(before) },
    themes: topThemes,
    new_themes: newThemes,
  };
  return { ...summary, markdown: summaryMarkdown(link.name, summary) };
}

/** Markdown of a summary (headings, a list of themes with one quote each). Labels and quotes are escaped. */
export function summaryMarkdown(linkName: string, s: Omit<Summary, "markdown">): string {
  const esc = (t: string) => t.replace(/[\\`*_[\]<>#|]/g, (c) => `\\${c}`).replace(/\s+/g, " ");
  const sent = (c: Counts) => `${c.positive} positive, ${c.neutral} neutral, ${c.negative} negative`;
  const lines = [
    `## What changed: ${esc(linkName)}, ${s.period.since} – ${s.period.until}`,
    "",
    `- Responses: ${s.responses.count} (previous period ${s.responses.previous_count}, ${signed(s.responses.count - s.responses.previous_count)})`,
    `- Sentiment: ${sent(s.sentiment)} (previous period: ${sent(s.sentiment.previous)})`,
    "",
  ];
  if (s.themes.length === 0) lines.push("No themed answers in this period.");
  else {
    lines.push("### Top themes", "");
    const fresh = new Set(s.new_themes);
    s.themes.forEach((t, i) => {
      const tag = fresh.has(t.uuid) ? " (new)" : "";
      lines.push(`${i + 1}. **${esc(t.label)}**${tag}: ${t.count} answers (previous period ${t.previous_count}, ${signed(t.count - t.previous_count)})`);
      if (t.quote) lines.push(`   > “${esc(t.quote.text)}”`);
    });
  }
  return `${lines.join("\n")}\n`;
}
