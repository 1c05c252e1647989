/**
 * A link's dashboard (`/console/links/<uuid>/dashboard/`; issue 11, DESIGN §10): the figures
 * "Responses", "Completion rate" and, with an NPS question, "NPS"; started and completed over
 * time; the NPS breakdown; the distribution of every rating, choice, image-choice and yes/no
 * question; sentiment share over time; the top themes (each opens the inbox filtered by it)
 * and "What changed" (dashboard-themes.tsx, issue 24); the latest actionable answers. Every number is from `GET links/{uuid}/stats/` (SQL
 * aggregates), polled live. Charts are uPlot from `/assets/console-charts.js`, loaded only here;
 * each has a summary line and a table for screen readers.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { api, apiPath } from "../api.ts";
import { ErrorNote, Loading, TableWrap, Time, useLoad } from "../components.tsx";
import { useLive } from "../live.ts";
import type { Link } from "../../../src/modules/links/model.ts";
import type { LinkStats } from "../../../src/modules/stats/model.ts";
import { Chart } from "../chart.tsx";
import { TopThemes, WhatChanged } from "./dashboard-themes.tsx";

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const pct = (n: number | null | undefined) => (n === null || n === undefined ? "—" : `${Math.round(n * 100)} %`);
const daySeconds = (d: string) => Date.parse(`${d}T00:00:00Z`) / 1000;

function Figure({ name, value, note }: { name: string; value: string; note?: string }) {
  return (
    <figure class="card figure" aria-label={name}>
      <figcaption>{name}</figcaption>
      <div class="figure-value">{value}</div>
      {note && <p class="muted small">{note}</p>}
    </figure>
  );
}

function Panel({ title, summary, children, table }: { title: string; summary: string; children?: ComponentChildren; table?: ComponentChildren }) {
  // The table is drawn only while "Show as table" is open (a closed one holds no focusable scroll box).
  const [open, setOpen] = useState(false);
  return (
    <section class="card stack panel">
      <h2>{title}</h2>
      <p class="muted small">{summary}</p>
      {children}
      {table && (
        <details onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
          <summary>Show as table</summary>
          {open && table}
        </details>
      )}
    </section>
  );
}

/** `/console/links/<uuid>/dashboard/`. */
export function DashboardPage() {
  const { params } = useRoute();
  const uuid = params.uuid!;
  const link = useLoad(() => api<Link>("GET", apiPath`links/${uuid}/`), [uuid]);
  const stats = useLive<LinkStats>(apiPath`links/${uuid}/stats/`);
  const s = stats.data;
  if (stats.error && !s) return <ErrorNote error={stats.error} />;
  if (!s) return <Loading what="the dashboard" />;
  const nps = s.questions.find((q) => q.nps);
  const dists = s.questions.filter((q) => q.distribution.length > 0 && ["rating", "multiple_choice", "image_choice", "yes_no"].includes(q.type));
  const x = s.over_time.map((b) => daySeconds(b.date));
  const sentTotal = s.sentiment.positive + s.sentiment.neutral + s.sentiment.negative;
  const share = (n: number, t: number) => (t ? Math.round((n / t) * 1000) / 10 : 0);
  return (
    <section class="stack dashboard">
      <p class="crumb">
        <a href="/console/links/">Links</a> › <a href={`/console/links/${uuid}/`}>{link.data?.name ?? "Link"}</a>
      </p>
      <div class="page-head">
        <h1>Dashboard{link.data ? `: ${link.data.name}` : ""}</h1>
        <div class="actions">
          <a href={`/console/links/${uuid}/themes/`}>Themes</a>
          <a href={`/console/links/${uuid}/responses/`}>Responses</a>
        </div>
      </div>
      <div class={`figures${nps ? "" : " figures-2"}`}>
        <Figure name="Responses" value={String(s.responses.completed)} note={`${s.responses.started} started`} />
        <Figure name="Completion rate" value={pct(s.responses.completion_rate)} note="completed of started" />
        {nps?.nps && <Figure name="NPS" value={nps.nps.score === null ? "—" : String(nps.nps.score)} note={plural(nps.answered, "answer", "answers")} />}
      </div>

      <Panel
        title="Responses over time"
        summary={`${s.responses.started} started and ${s.responses.completed} completed ${s.bucket === "week" ? "by week" : "by day"}, over ${s.bucket === "week" ? plural(s.over_time.length, "week", "weeks") : plural(s.over_time.length, "day", "days")}.`}
        table={
          <TableWrap label="Responses over time">
            <table>
              <thead>
                <tr>
                  <th scope="col">{s.bucket === "week" ? "Week of" : "Day"}</th>
                  <th scope="col">Started</th>
                  <th scope="col">Completed</th>
                </tr>
              </thead>
              <tbody>
                {s.over_time.map((b) => (
                  <tr key={b.date}>
                    <td>{b.date}</td>
                    <td class="num">{b.started}</td>
                    <td class="num">{b.completed}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        }
      >
        {s.over_time.length > 0 ? (
          <>
            <Chart
              kind="lines"
              x={x}
              series={[
                { label: "Started", values: s.over_time.map((b) => b.started), color: "--chart-2" },
                { label: "Completed", values: s.over_time.map((b) => b.completed), color: "--chart-1" },
              ]}
            />
            <p class="legend small" aria-hidden="true">
              <span class="key key-1" /> Completed <span class="key key-2" /> Started
            </p>
          </>
        ) : (
          <p class="muted">No responses yet.</p>
        )}
      </Panel>

      {nps?.nps && (
        <Panel
          title={`NPS: ${nps.prompt}`}
          summary={`Score ${nps.nps.score ?? "—"}: ${nps.nps.promoters} promoters, ${nps.nps.passives} passives, ${nps.nps.detractors} detractors.`}
        >
          <div class="nps-bar" aria-hidden="true">
            {(["promoters", "passives", "detractors"] as const).map((k) => {
              const t = nps.nps!.promoters + nps.nps!.passives + nps.nps!.detractors;
              return t ? <span key={k} class={`nps-${k}`} style={{ width: `${(nps.nps![k] / t) * 100}%` }} /> : null;
            })}
          </div>
          <dl class="facts nps-facts">
            <div>
              <dt>Promoters (9–10)</dt>
              <dd>{nps.nps.promoters}</dd>
            </div>
            <div>
              <dt>Passives (7–8)</dt>
              <dd>{nps.nps.passives}</dd>
            </div>
            <div>
              <dt>Detractors (0–6)</dt>
              <dd>{nps.nps.detractors}</dd>
            </div>
          </dl>
        </Panel>
      )}

      <div class="grid-2 dist-grid">
        {dists.map((q) => {
          const top = [...q.distribution].sort((a, b) => b.count - a.count)[0];
          return (
            <Panel
              key={q.question_uuid}
              title={q.prompt}
              summary={`${plural(q.answered, "answer", "answers")}${q.average !== undefined && q.average !== null ? `, average ${q.average.toFixed(1)}` : ""}${top && top.count ? `; most chosen: ${top.label} (${top.count})` : ""}.`}
              table={
                <TableWrap label={`Answers to ${q.prompt}`}>
                  <table class="distribution" aria-label={`Distribution: ${q.prompt}`}>
                    <thead>
                      <tr>
                        <th scope="col">Answer</th>
                        <th scope="col">Count</th>
                      </tr>
                    </thead>
                    <tbody>
                      {q.distribution.map((d) => (
                        <tr key={String(d.value)}>
                          <td>{d.label}</td>
                          <td class="num">{d.count}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableWrap>
              }
            >
              <Chart
                kind="bars"
                x={q.distribution.map((_, i) => i)}
                labels={q.distribution.map((d) => (d.label.length > 12 ? `${d.label.slice(0, 11)}…` : d.label))}
                series={[{ label: "Answers", values: q.distribution.map((d) => d.count), color: "--chart-1" }]}
                height={180}
              />
            </Panel>
          );
        })}
      </div>

      <Panel
        title="Sentiment"
        summary={
          sentTotal
            ? `${share(s.sentiment.positive, sentTotal)} % positive, ${share(s.sentiment.neutral, sentTotal)} % neutral, ${share(s.sentiment.negative, sentTotal)} % negative of ${plural(sentTotal, "analysed answer", "analysed answers")}.`
            : "No analysed answers yet."
        }
        table={
          <TableWrap label="Sentiment over time">
            <table>
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  <th scope="col">Positive</th>
                  <th scope="col">Neutral</th>
                  <th scope="col">Negative</th>
                </tr>
              </thead>
              <tbody>
                {s.sentiment.over_time.map((b) => (
                  <tr key={b.date}>
                    <td>{b.date}</td>
                    <td class="num">{b.positive}</td>
                    <td class="num">{b.neutral}</td>
                    <td class="num">{b.negative}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        }
      >
        {s.sentiment.over_time.length > 0 && (
          <>
            <Chart
              kind="lines"
              x={s.sentiment.over_time.map((b) => daySeconds(b.date))}
              series={(["positive", "neutral", "negative"] as const).map((k, i) => ({
                label: k,
                values: s.sentiment.over_time.map((b) => share(b[k], b.positive + b.neutral + b.negative)),
                color: `--sentiment-${k}`,
              }))}
            />
            <p class="legend small" aria-hidden="true">
              Share of answers, %: <span class="key key-positive" /> positive <span class="key key-neutral" /> neutral <span class="key key-negative" />{" "}
              negative
            </p>
          </>
        )}
      </Panel>

      <div class="grid-2">
        <TopThemes linkUuid={uuid} />
        <WhatChanged linkUuid={uuid} />
        <section class="card stack panel">
          <h2>Latest actionable answers</h2>
          {s.latest_actionable.length === 0 ? (
            <p class="muted">None yet.</p>
          ) : (
            <ul class="actionable-list">
              {s.latest_actionable.map((a) => (
                <li key={a.answer_uuid}>
                  <p>{a.summary || a.text}</p>
                  <p class="small muted">
                    {a.sentiment && <span class={`pill pill-${a.sentiment}`}>{a.sentiment}</span>} <Time iso={a.date} /> ·{" "}
                    <a href={`/console/responses/${a.response_uuid}/`}>Open response</a>
                  </p>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
    </section>
  );
}
