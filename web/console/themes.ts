/**
 * @module web/console/themes
 * The console's view of themes (DESIGN §12): the record types of `GET links/{uuid}/themes/`,
 * `…/themes/status/` and `…/summary/` (the server's, from themes/model.ts), and the pure helpers the Themes view and the dashboard's
 * theme cards draw with (ranking, sentiment shares, the weekly trend with its empty weeks filled,
 * change against the previous period, the span a quote plays). No DOM here, so it is unit-tested
 * with `bun test` (themes.test.ts).
 */
import { OPEN_TYPES } from "../../src/shared/question-types.ts";
import type { Summary, ThemeQuote, ThemeRecord, ThemeStatus } from "../../src/modules/themes/model.ts";

// The record shapes are the server's own (themes/model.ts); only the names the views use are here.
export type { Summary, ThemeStatus };
/** A representative quote; `start_s`, `end_s` and `audio_url` are null for typed answers. */
export type Quote = ThemeQuote;
/** A theme record (DESIGN §12). */
export type Theme = ThemeRecord;
/** Counts of analysed answers per sentiment. */
export type SentimentMix = Theme["sentiment"];

/** Question types whose answers are grouped into themes (DESIGN §12). */
export const THEMED_TYPES = OPEN_TYPES;

/** True when answers to a question of this type can carry a theme. */
export function isThemed(type: string): boolean {
  return (THEMED_TYPES as readonly string[]).includes(type);
}

/** Largest first; ties by label, so the order is stable between polls. */
export function rankThemes(themes: Theme[]): Theme[] {
  return [...themes].sort((a, b) => b.size - a.size || a.label.localeCompare(b.label));
}

/**
 * Whole-number percentages of a sentiment mix that add up to 100 (largest remainder), or all
 * zero when nothing was analysed.
 */
export function sentimentShares(mix: SentimentMix): SentimentMix {
  const keys = ["positive", "neutral", "negative"] as const;
  const total = mix.positive + mix.neutral + mix.negative;
  const out: SentimentMix = { positive: 0, neutral: 0, negative: 0 };
  if (total <= 0) return out;
  const exact = keys.map((k) => (mix[k] / total) * 100);
  keys.forEach((k, i) => (out[k] = Math.floor(exact[i]!)));
  let left = 100 - keys.reduce((s, k) => s + out[k], 0);
  const order = keys.map((k, i) => ({ k, r: exact[i]! - Math.floor(exact[i]!) })).sort((a, b) => b.r - a.r);
  for (const { k } of order) {
    if (left <= 0) break;
    out[k] += 1;
    left -= 1;
  }
  return out;
}

/** "3 positive, 1 neutral, 5 negative" — the sentiment bar's words for screen readers. */
export function sentimentText(mix: SentimentMix): string {
  return `${mix.positive} positive, ${mix.neutral} neutral, ${mix.negative} negative`;
}

const WEEK_MS = 7 * 86_400_000;

/**
 * The weekly counts as a continuous series: every ISO week (Monday, UTC) from the first to the
 * last given, missing weeks as 0, at least `minWeeks` (earlier empty weeks added, so a new theme
 * reads as new) and at most `maxWeeks` (the latest ones).
 * @param weekly `[{week_start: "YYYY-MM-DD", count}]` in any order
 * @returns x as seconds since the epoch (week starts), y the counts
 */
export function weeklySeries(weekly: { week_start: string; count: number }[], maxWeeks = 26, minWeeks = 1): { x: number[]; y: number[] } {
  const byWeek = new Map(weekly.map((w) => [Date.parse(`${w.week_start}T00:00:00Z`), w.count]));
  const starts = [...byWeek.keys()].filter(Number.isFinite).sort((a, b) => a - b);
  if (starts.length === 0) return { x: [], y: [] };
  const last = starts[starts.length - 1]!;
  const first = Math.max(Math.min(starts[0]!, last - (minWeeks - 1) * WEEK_MS), last - (maxWeeks - 1) * WEEK_MS);
  const x: number[] = [];
  const y: number[] = [];
  for (let t = first; t <= last; t += WEEK_MS) {
    x.push(t / 1000);
    y.push(byWeek.get(t) ?? 0);
  }
  return { x, y };
}

/** "+3", "−2", "±0" against the previous period; "new" when there was none before. */
export function changeText(count: number, previous: number): string {
  if (previous === 0 && count > 0) return "new";
  const d = count - previous;
  return d > 0 ? `+${d}` : d < 0 ? `−${-d}` : "±0";
}

/** A span in seconds as "0:03.2–0:07.9". */
export function formatSpan(start: number, end: number): string {
  const f = (s: number) => {
    const m = Math.floor(s / 60);
    const rest = s - m * 60;
    return `${m}:${rest < 10 ? "0" : ""}${rest.toFixed(1)}`;
  };
  return `${f(start)}–${f(end)}`;
}

/** True when a quote has a recording span to play. */
export function isPlayable(q: Quote): q is Quote & { start_s: number; end_s: number; audio_url: string } {
  return q.audio_url !== null && q.start_s !== null && q.end_s !== null && q.end_s > q.start_s;
}

/** The inbox of one link filtered by a theme (the API's `theme=` filter). */
export function themeInboxHref(linkUuid: string, themeUuid: string): string {
  return `/console/links/${linkUuid}/responses/?theme=${encodeURIComponent(themeUuid)}`;
}
