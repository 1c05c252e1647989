/**
 * @module web/console/pages/theme-card
 * One theme in the Themes view (DESIGN §12): its name, size and share, a sentiment bar (with
 * the shares in words), the actionable count, first and last seen, the weekly trend (uPlot, with
 * the counts in words for screen readers), its quotes with "Play quote", and the actions "Show
 * these answers" (the inbox filtered by the theme), "Rename theme", "Merge theme", "Delete theme".
 * The card is an `article` named by the theme, so its buttons are told apart by where they are.
 */
import { useId } from "preact/hooks";
import { Chart } from "../chart.tsx";
import { Time } from "../components.tsx";
import { sentimentShares, sentimentText, themeInboxHref, weeklySeries, type SentimentMix, type Theme } from "../themes.ts";
import { QuoteItem } from "./theme-quote.tsx";

const WEEK = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", timeZone: "UTC" });

/** A stacked bar of the sentiment mix; the shares are also written out beside it. */
export function SentimentBar({ mix, compact = false }: { mix: SentimentMix; compact?: boolean }) {
  const shares = sentimentShares(mix);
  const total = mix.positive + mix.neutral + mix.negative;
  return (
    <div class={`sentiment${compact ? " sentiment-compact" : ""}`}>
      <div class="sentiment-bar" aria-hidden="true">
        {(["positive", "neutral", "negative"] as const).map((k) =>
          shares[k] > 0 ? (
            <span key={k} class={`nps-${k === "positive" ? "promoters" : k === "neutral" ? "passives" : "detractors"}`} style={{ width: `${shares[k]}%` }} />
          ) : null,
        )}
      </div>
      {!compact && (
        <p class="small muted sentiment-words">
          {total === 0 ? "Not analysed yet" : `${shares.positive} % positive · ${shares.neutral} % neutral · ${shares.negative} % negative`}
          <span class="visually-hidden"> ({sentimentText(mix)})</span>
        </p>
      )}
    </div>
  );
}

/**
 * Answers per ISO week as small bars (at least 6 weeks, so a new theme shows as new; at most
 * 26), with the same numbers as hidden text.
 */
function WeeklyTrend({ weekly }: { weekly: Theme["weekly"] }) {
  const s = weeklySeries(weekly, 26, 6);
  if (s.x.length === 0) return null;
  const names = s.x.map((t) => WEEK.format(new Date(t * 1000)));
  // At most three weeks are labelled (the last always), so labels never overlap on a phone.
  const step = Math.ceil(names.length / 3);
  const labels = names.map((n, i) => ((names.length - 1 - i) % step === 0 ? n : ""));
  const words = names.map((n, i) => `week of ${n}: ${s.y[i]}`).join(", ");
  return (
    <div class="trend">
      <p class="small muted">
        Answers per week<span class="visually-hidden">: {words}</span>
      </p>
      <Chart kind="bars" x={s.x.map((_, i) => i)} labels={labels} series={[{ label: "Answers", values: s.y, color: "--chart-1" }]} height={120} />
    </div>
  );
}

/** The card of one theme; the handlers open the page's dialogs (null: the role may not write). */
export function ThemeCard(props: {
  theme: Theme;
  linkUuid: string;
  questionPrompt: string | null;
  onRename: (() => void) | null;
  onMerge: (() => void) | null;
  onDelete: (() => void) | null;
}) {
  const t = props.theme;
  const headingId = useId();
  return (
    <article class="card theme" aria-labelledby={headingId}>
      <div class="theme-head">
        <h2 id={headingId}>{t.label}</h2>
        {t.pinned && <span class="pill pill-on">Name kept</span>}
        {t.label_source === "operator" && !t.pinned && <span class="pill pill-off">Named by the team</span>}
      </div>
      <div class="theme-body">
        <div class="stack theme-stats">
          <p class="theme-size">
            <strong>{t.size === 1 ? "1 answer" : `${t.size} answers`}</strong>
            <span class="muted">
              {" "}
              · {Math.round(t.share * 100)} % of the answers{props.questionPrompt ? ` to “${props.questionPrompt}”` : ""}
            </span>
          </p>
          {t.description && <p class="muted theme-description">{t.description}</p>}
          <SentimentBar mix={t.sentiment} />
          <dl class="facts theme-facts small">
            <div>
              <dt>Actionable</dt>
              <dd>{t.actionable}</dd>
            </div>
            <div>
              <dt>First seen</dt>
              <dd>
                <Time iso={t.first_seen} mode="date" empty="—" />
              </dd>
            </div>
            <div>
              <dt>Last seen</dt>
              <dd>
                <Time iso={t.last_seen} empty="—" />
              </dd>
            </div>
          </dl>
        </div>
        <WeeklyTrend weekly={t.weekly} />
      </div>
      {t.quotes.length > 0 && (
        <ul class="quotes" aria-label={`Quotes: ${t.label}`}>
          {t.quotes.map((q) => (
            <QuoteItem key={q.answer_uuid} q={q} />
          ))}
        </ul>
      )}
      <div class="actions theme-actions">
        <a class="button-link" href={themeInboxHref(props.linkUuid, t.uuid)}>
          Show these answers
        </a>
        {props.onRename && (
          <button type="button" class="button-secondary" onClick={props.onRename}>
            Rename theme
          </button>
        )}
        {props.onMerge && (
          <button type="button" class="button-secondary" onClick={props.onMerge}>
            Merge theme
          </button>
        )}
        {props.onDelete && (
          <button type="button" class="button-danger-quiet" onClick={props.onDelete}>
            Delete theme
          </button>
        )}
      </div>
    </article>
  );
}
