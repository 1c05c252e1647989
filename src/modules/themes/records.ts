/**
 * @module themes/records
 * Theme rows → API theme records (DESIGN §12). Size, share, sentiment, actionable, first/last
 * seen and the weekly counts are computed from the answers when read (never stored, so they
 * cannot drift from moves, merges and erasures); quotes gain their recording span and a signed
 * `audio_url` with the span as a media fragment (`#t=start,end`).
 */
import type { Executor } from "../../db/schema.ts";
import { signedPath } from "../../auth/signed-url.ts";
import type { ThemeRecord } from "./model.ts";
import * as repo from "./repository.ts";

/** What signing audio URLs needs. */
export type RecordDeps = { publicUrl: string; signingSecret: string; audioUrlTtlS: number };
type Segment = { start_s: number; end_s: number; text: string };
/** A stored quote; `follow_up`: it is that follow-up answer of the answer (index in `follow_ups`). */
export type StoredQuote = { answer_uuid: string; text: string; follow_up?: number };

/** Monday (UTC) of the ISO week of a stored timestamp, YYYY-MM-DD. */
export function weekStart(timestamp: string): string {
  const d = new Date(timestamp.slice(0, 10) + "T00:00:00Z");
  d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  return d.toISOString().slice(0, 10);
}

const words = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];

/**
 * Where a quote lies in a recording: the segments its words fall in (found by the quote's word
 * sequence in the segments' words), or all the segments when it is not found (a quote from a
 * follow-up's text, or a transcript edited since).
 * @returns seconds, or null without segments.
 */
export function quoteSpan(segments: Segment[] | null, quote: string): { start_s: number; end_s: number } | null {
  if (!segments?.length) return null;
  const owner: number[] = [];
  const all: string[] = [];
  segments.forEach((s, i) => {
    for (const w of words(s.text)) {
      all.push(w);
      owner.push(i);
    }
  });
  const q = words(quote);
  let found = -1;
  for (let i = 0; q.length > 0 && i + q.length <= all.length && found < 0; i++) {
    if (q.every((w, j) => all[i + j] === w)) found = i;
  }
  if (found < 0) return { start_s: segments[0]!.start_s, end_s: segments.at(-1)!.end_s };
  return { start_s: segments[owner[found]!]!.start_s, end_s: segments[owner[found + q.length - 1]!]!.end_s };
}

/** Quotes with their response, span and signed URL (answers erased since are dropped). */
export async function quotesOf(db: Executor, m: RecordDeps, quotes: StoredQuote[]): Promise<ThemeRecord["quotes"]> {
  const sources = new Map((await repo.quoteSources(db, [...new Set(quotes.map((q) => q.answer_uuid))])).map((a) => [a.uuid, a]));
  return quotes.flatMap((q) => {
    const a = sources.get(q.answer_uuid);
    if (!a) return [];
    if (q.follow_up !== undefined) {
      // A follow-up answer is quoted whole: its own recording from 0 to its length (no segments
      // are kept for it), never the answer's. Recorded before its length was stored: no span.
      const f = (JSON.parse(a.follow_ups) as { audio_blob?: string | null; duration_s?: number | null }[])[q.follow_up];
      const path = `/api/v1/responses/${a.response_uuid}/answers/${a.uuid}/follow-ups/${q.follow_up}/audio/`;
      const span = f?.audio_blob && typeof f.duration_s === "number" && f.duration_s > 0 ? { start_s: 0, end_s: f.duration_s } : null;
      const url = f?.audio_blob ? m.publicUrl + signedPath(m.signingSecret, path, m.audioUrlTtlS) + (span ? `#t=0,${span.end_s}` : "") : null;
      return [
        { answer_uuid: a.uuid, response_uuid: a.response_uuid, text: q.text, start_s: span?.start_s ?? null, end_s: span?.end_s ?? null, audio_url: url },
      ];
    }
    const span = a.audio_blob ? quoteSpan(a.segments ? (JSON.parse(a.segments) as Segment[]) : null, q.text) : null;
    const path = `/api/v1/responses/${a.response_uuid}/answers/${a.uuid}/audio/`;
    const url = a.audio_blob ? m.publicUrl + signedPath(m.signingSecret, path, m.audioUrlTtlS) + (span ? `#t=${span.start_s},${span.end_s}` : "") : null;
    return [{ answer_uuid: a.uuid, response_uuid: a.response_uuid, text: q.text, start_s: span?.start_s ?? null, end_s: span?.end_s ?? null, audio_url: url }];
  });
}

/** Every ISO week from the first to the last of `counts`, zeros included (a trend line needs no gaps). */
export function everyWeek(counts: Map<string, number>): { week_start: string; count: number }[] {
  const weeks = [...counts.keys()].sort();
  if (weeks.length === 0) return [];
  const out: { week_start: string; count: number }[] = [];
  for (let d = new Date(`${weeks[0]}T00:00:00Z`); d.toISOString().slice(0, 10) <= weeks.at(-1)!; d.setUTCDate(d.getUTCDate() + 7)) {
    const w = d.toISOString().slice(0, 10);
    out.push({ week_start: w, count: counts.get(w) ?? 0 });
  }
  return out;
}

const isTrue = (v: unknown) => v === true || v === 1 || v === "true" || v === "1";

/** The API records of these themes (one query for their answers, one per question for `share`). */
export async function toThemeRecords(db: Executor, m: RecordDeps, themes: repo.ThemeRow[]): Promise<ThemeRecord[]> {
  type Agg = {
    size: number;
    sentiment: { positive: number; neutral: number; negative: number };
    actionable: number;
    first: string | null;
    last: string | null;
    weeks: Map<string, number>;
  };
  const agg = new Map<string, Agg>(
    themes.map((t) => [t.uuid, { size: 0, sentiment: { positive: 0, neutral: 0, negative: 0 }, actionable: 0, first: null, last: null, weeks: new Map() }]),
  );
  for (const r of await repo.memberStats(
    db,
    themes.map((t) => t.uuid),
  )) {
    const a = agg.get(r.theme_uuid!);
    if (!a) continue;
    a.size++;
    if (r.sentiment === "positive" || r.sentiment === "neutral" || r.sentiment === "negative") a.sentiment[r.sentiment]++;
    if (isTrue(r.actionable)) a.actionable++;
    if (a.first === null || r.date_created < a.first) a.first = r.date_created;
    if (a.last === null || r.date_created > a.last) a.last = r.date_created;
    const w = weekStart(r.date_created);
    a.weeks.set(w, (a.weeks.get(w) ?? 0) + 1);
  }
  const analysed = new Map<string, number>();
  for (const q of new Set(themes.map((t) => t.question_uuid))) analysed.set(q, await repo.countAnalysed(db, q));
  const out: ThemeRecord[] = [];
  for (const t of themes) {
    const a = agg.get(t.uuid)!;
    const total = analysed.get(t.question_uuid) ?? 0;
    out.push({
      uuid: t.uuid,
      question_uuid: t.question_uuid,
      label: t.label,
      label_source: t.label_source,
      description: t.description,
      pinned: t.pinned === 1,
      keyphrases: JSON.parse(t.keyphrases) as string[],
      size: a.size,
      share: total > 0 ? Math.min(1, a.size / total) : 0,
      sentiment: a.sentiment,
      actionable: a.actionable,
      first_seen: a.first,
      last_seen: a.last,
      weekly: everyWeek(a.weeks),
      quotes: await quotesOf(db, m, JSON.parse(t.quotes) as StoredQuote[]),
      date_created: t.date_created,
      date_updated: t.date_updated,
    });
  }
  return out;
}
