/**
 * @module web/console/pages/dashboard-themes
 * The dashboard's theme cards (issue 24, DESIGN §12): "Top themes" (the five largest themes of
 * the link, each opening the inbox filtered by it, with its sentiment bar; "All themes" opens the
 * Themes view) and "What changed" (`GET links/{uuid}/summary/`: the last 7 days against the 7
 * before — responses, negative share, the top themes with their change and one quote each, new
 * themes marked). Both poll like the rest of the dashboard (live.ts).
 */
import { useId } from "preact/hooks";
import { paged, type Page, apiPath } from "../api.ts";
import { ErrorNote, Loading } from "../components.tsx";
import { useLive } from "../live.ts";
import { changeText, sentimentShares, sentimentText, themeInboxHref, type Summary, type Theme } from "../themes.ts";
import { SentimentBar } from "./theme-card.tsx";
import { QuoteItem } from "./theme-quote.tsx";

const DAY = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", timeZone: "UTC" });
const day = (iso: string) => DAY.format(new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso));

/** "Top themes": the link's five largest themes. */
export function TopThemes({ linkUuid }: { linkUuid: string }) {
  const list = useLive<Page<Theme>>(paged(apiPath`links/${linkUuid}/themes/`, 1, 5));
  const themes = list.data?.results ?? [];
  const id = useId();
  return (
    <section class="card stack panel" aria-labelledby={id}>
      <div class="page-head">
        <h2 id={id}>Top themes</h2>
        <a href={`/console/links/${linkUuid}/themes/`}>All themes</a>
      </div>
      <ErrorNote error={list.data ? null : list.error} />
      {!list.data && !list.error && <Loading what="the themes" />}
      {list.data && themes.length === 0 && <p class="muted">No themes yet: they form once a few answers to an open question have been analysed.</p>}
      {themes.length > 0 && (
        <ol class="topics top-themes">
          {themes.map((t) => (
            <li key={t.uuid}>
              <div class="top-theme-name">
                <a href={themeInboxHref(linkUuid, t.uuid)} aria-label={`${t.label}: ${t.size} answers (${sentimentText(t.sentiment)})`}>
                  {t.label}
                </a>
                <SentimentBar mix={t.sentiment} compact />
              </div>
              <span class="count">{t.size}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** "What changed": the summary of the last 7 days against the 7 before. */
export function WhatChanged({ linkUuid }: { linkUuid: string }) {
  const summary = useLive<Summary>(apiPath`links/${linkUuid}/summary/`);
  const id = useId();
  const s = summary.data;
  if (!s) {
    return (
      <section class="card stack panel" aria-labelledby={id}>
        <h2 id={id}>What changed</h2>
        <ErrorNote error={summary.error} />
        {!summary.error && <Loading what="the summary" />}
      </section>
    );
  }
  const now = sentimentShares(s.sentiment);
  const before = sentimentShares(s.sentiment.previous);
  const hadBefore = s.sentiment.previous.positive + s.sentiment.previous.neutral + s.sentiment.previous.negative > 0;
  const isNew = new Set(s.new_themes);
  return (
    <section class="card stack panel what-changed" aria-labelledby={id}>
      <h2 id={id}>What changed</h2>
      <p class="muted small">
        {day(s.period.since)}–{day(s.period.until)}, against {day(s.previous.since)}–{day(s.previous.until)}.
      </p>
      <dl class="facts small">
        <div>
          <dt>Responses</dt>
          <dd>
            {s.responses.count}{" "}
            <span class="muted">
              {s.responses.previous_count === 0
                ? "(none before)"
                : `(${changeText(s.responses.count, s.responses.previous_count)} against ${s.responses.previous_count})`}
            </span>
          </dd>
        </div>
        <div>
          <dt>Negative</dt>
          <dd>
            {now.negative} % <span class="muted">{hadBefore ? `(before: ${before.negative} %)` : "(none before)"}</span>
          </dd>
        </div>
      </dl>
      {s.themes.length === 0 ? (
        <p class="muted">No themed answers in this period.</p>
      ) : (
        <ol class="changes">
          {s.themes.map((t) => (
            <li key={t.uuid}>
              <p class="change-head">
                <a href={themeInboxHref(linkUuid, t.uuid)}>{t.label}</a>{" "}
                <span class="count">
                  {t.count}{" "}
                  <span class={`pill ${isNew.has(t.uuid) ? "pill-on" : "pill-off"}`}>
                    {isNew.has(t.uuid) ? "new theme" : changeText(t.count, t.previous_count)}
                  </span>
                </span>
              </p>
              {t.quote && (
                <ul class="quotes">
                  <QuoteItem q={t.quote} showLink={false} />
                </ul>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
