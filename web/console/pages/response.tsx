/**
 * A response's page (`/console/responses/<uuid>/`; DESIGN §7, §10): every answer under its
 * question text, rendered by type; a voice answer with its `audio` player (signed `audio_url`),
 * its transcript (an element named "Transcript") with its status ("Reprocess" when it failed or
 * waits for the model), and its insights (sentiment in an element named "Sentiment", topics,
 * summary, actionable) with a correction form (`PATCH …/insights/`), and the follow-up questions
 * with their answers; an open question's theme and "Move answer" (theme-move.tsx). "Erase
 * response" asks first; erasure is irreversible. Live (live.ts).
 */
import { useEffect, useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { api, apiPath } from "../api.ts";
import { ConfirmDialog, ErrorNote, Loading, Notice, Time, useAction } from "../components.tsx";
import { useLive } from "../live.ts";
import { can } from "../state.ts";
import type { Link } from "../../../src/modules/links/model.ts";
import type { Answer, ResponseRecord } from "../../../src/modules/responses/model.ts";
import { useLoad } from "../components.tsx";
import { AnswerTheme } from "./theme-move.tsx";

const STATUS_TEXT: Record<Answer["transcription_status"], string> = {
  pending: "Waiting to be transcribed",
  processing: "Transcribing…",
  completed: "Transcribed",
  failed: "Transcription failed",
  not_applicable: "",
  waiting_for_model: "Waiting for the speech model",
};

function formatSize(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A typed answer's value in words (voice answers are drawn by VoiceAnswer). */
function Value({ a }: { a: Answer }) {
  const v = a.value;
  if (v === null || v === undefined || (Array.isArray(v) && v.length === 0)) return <p class="muted">No answer</p>;
  switch (a.response_type) {
    case "rating": {
      const d = a.rating_details;
      const n = Number(v);
      if (d?.scale_type === "stars")
        return (
          <p class="rating">
            <span aria-hidden="true" class="stars">
              {"★".repeat(Math.max(0, n))}
              <span class="stars-off">{"★".repeat(Math.max(0, d.max_value - n))}</span>
            </span>{" "}
            <span>
              {n} of {d.max_value} stars
            </span>
          </p>
        );
      return (
        <p class="big-number">
          {n}
          <span class="muted small"> {d?.scale_type === "nps" ? "of 10 (NPS)" : `of ${d?.max_value ?? ""}`}</span>
        </p>
      );
    }
    case "multiple_choice":
      return (
        <ul class="tags chosen">
          {(Array.isArray(v) ? v : [v]).map((o) => (
            <li key={String(o)}>{String(o)}</li>
          ))}
        </ul>
      );
    case "image_choice": {
      const c = a.selected_card;
      if (!c) return <p>{String(v)}</p>;
      return (
        <figure class="chosen-card">
          {c.media_type === "video" ? (
            <video src={c.media_url} controls preload="metadata" aria-label={c.label} />
          ) : (
            <img src={c.media_url} alt={c.label} loading="lazy" />
          )}
          <figcaption>{c.label}</figcaption>
        </figure>
      );
    }
    case "yes_no":
      return <p class="strong">{v === true ? "Yes" : v === false ? "No" : String(v)}</p>;
    case "date": {
      const d = new Date(`${String(v)}T00:00:00`);
      return <p>{Number.isNaN(d.getTime()) ? String(v) : <time dateTime={String(v)}>{d.toLocaleDateString(undefined, { dateStyle: "long" })}</time>}</p>;
    }
    case "file_upload": {
      const f = a.file;
      if (!f) return <p class="muted">No file</p>;
      return (
        <p>
          <a href={f.url} download={f.name}>
            Download {f.name}
          </a>{" "}
          <span class="muted small">
            ({f.content_type}, {formatSize(f.size)})
          </span>
        </p>
      );
    }
    case "email":
      return (
        <p>
          <a href={`mailto:${String(v)}`}>{String(v)}</a>
        </p>
      );
    default:
      return <p class="answer-text">{typeof v === "object" ? JSON.stringify(v) : String(v)}</p>;
  }
}

/** Transcript, insights, correction and follow-ups of a voice (or analysed text) answer. */
function Insights({ a, responseUuid, onChanged }: { a: Answer; responseUuid: string; onChanged: () => void }) {
  const i = a.ai_insights;
  const action = useAction();
  const [sentiment, setSentiment] = useState(i?.sentiment ?? "neutral");
  const [actionable, setActionable] = useState(i?.actionable ?? false);
  // A newer analysis or someone else's correction arrives by live update: the form follows it.
  useEffect(() => {
    setSentiment(i?.sentiment ?? "neutral");
    setActionable(i?.actionable ?? false);
  }, [i?.sentiment, i?.actionable]);
  if (!i) return null;
  const correct = (e: Event) => {
    e.preventDefault();
    action.run("Correction saved.", async () => {
      await api("PATCH", apiPath`responses/${responseUuid}/answers/${a.uuid}/insights/`, { sentiment, actionable });
      onChanged();
    });
  };
  return (
    <div class="insights">
      <dl class="facts">
        <div>
          <dt>Sentiment</dt>
          <dd>
            <span role="group" aria-label="Sentiment" class={`pill pill-${i.sentiment}`}>
              {i.sentiment}
            </span>{" "}
            <span class="muted small">score {i.sentiment_score.toFixed(2)}</span>
            {i.corrected && <span class="muted small"> · corrected by {i.corrected.by.name ?? "an operator"}</span>}
          </dd>
        </div>
        <div>
          <dt>Actionable</dt>
          <dd>{i.actionable ? <span class="pill pill-actionable">Actionable</span> : "No"}</dd>
        </div>
        <div>
          <dt>Topics</dt>
          <dd>
            {i.key_topics.length ? (
              <ul class="tags" aria-label="Topics">
                {i.key_topics.map((t) => (
                  <li key={t}>{t}</li>
                ))}
              </ul>
            ) : (
              <span class="muted">None</span>
            )}
          </dd>
        </div>
        <div class="wide">
          <dt>Summary</dt>
          <dd>{i.summary || <span class="muted">None</span>}</dd>
        </div>
      </dl>
      {can("responses:write") && (
        <details class="correct">
          <summary>Correct the insights</summary>
          <form class="actions" onSubmit={correct}>
            <label class="inline-field">
              <span>Corrected sentiment</span>
              <select value={sentiment} onChange={(e) => setSentiment(e.currentTarget.value as typeof sentiment)}>
                <option value="positive">positive</option>
                <option value="neutral">neutral</option>
                <option value="negative">negative</option>
              </select>
            </label>
            <label class="check">
              <input type="checkbox" checked={actionable} onChange={(e) => setActionable(e.currentTarget.checked)} />
              Actionable
            </label>
            <button type="submit" class="button-secondary" disabled={action.busy}>
              Save correction
            </button>
          </form>
          <ErrorNote error={action.error} />
          {action.message && <Notice>{action.message}</Notice>}
        </details>
      )}
    </div>
  );
}

function VoiceAnswer({ a, responseUuid, onChanged }: { a: Answer; responseUuid: string; onChanged: () => void }) {
  const action = useAction();
  const status = a.transcription_status;
  const reprocess = () =>
    action.run("Queued again: the transcript will appear here.", async () => {
      await api("POST", apiPath`responses/${responseUuid}/reprocess/`, {});
      onChanged();
    });
  return (
    <div class="stack voice">
      {a.audio_url && (
        <div class="player">
          <audio controls preload="metadata" src={a.audio_url} aria-label={`Recording: ${a.question_text}`} />
          {a.duration !== null && <span class="muted small">{a.duration.toFixed(1)} s</span>}
        </div>
      )}
      {!a.audio_url && a.text && <p class="answer-text">{a.text}</p>}
      {(a.audio_url || status !== "not_applicable") && (
        <div role="group" aria-label="Transcript" class="transcript">
          <p class="transcript-status small">
            <span class={`pill pill-${status}`}>{STATUS_TEXT[status] || status}</span>
            {a.transcription_error && <span class="muted"> {a.transcription_error}</span>}
          </p>
          {a.transcription ? <blockquote>{a.transcription}</blockquote> : null}
        </div>
      )}
      {(status === "failed" || status === "waiting_for_model") && can("responses:write") && (
        <div class="actions">
          <button type="button" class="button-secondary" onClick={reprocess} disabled={action.busy}>
            Reprocess
          </button>
        </div>
      )}
      <ErrorNote error={action.error} />
      {action.message && <Notice>{action.message}</Notice>}
    </div>
  );
}

function FollowUps({ a }: { a: Answer }) {
  if (!a.follow_ups.length) return null;
  return (
    <div class="follow-ups">
      <h4>Follow-up questions</h4>
      <ol>
        {a.follow_ups.map((f, i) => (
          <li key={i}>
            <p class="strong">{f.question}</p>
            {f.audio_url && <audio controls preload="metadata" src={f.audio_url} aria-label={`Recording of follow-up ${i + 1}`} />}
            <p>{f.transcription ?? f.answer ?? <span class="muted">Not answered</span>}</p>
          </li>
        ))}
      </ol>
    </div>
  );
}

/** `/console/responses/<uuid>/`. */
export function ResponsePage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const uuid = params.uuid!;
  const r = useLive<ResponseRecord>(apiPath`responses/${uuid}/`);
  const link = useLoad(() => (r.data ? api<Link>("GET", apiPath`links/${r.data.link_uuid}/`).catch(() => null) : Promise.resolve(null)), [r.data?.link_uuid]);
  const [erasing, setErasing] = useState(false);
  const erase = useAction();
  const doErase = () =>
    erase.run("", async () => {
      await api("DELETE", apiPath`responses/${uuid}/`);
      setErasing(false);
      route(link.data ? `/console/links/${link.data.uuid}/responses/` : "/console/responses/");
    });
  if (r.error && !r.data) return <ErrorNote error={r.error} />;
  if (!r.data) return <Loading what="the response" />;
  const res = r.data;
  return (
    <section class="stack response-page">
      <p class="crumb">
        <a href="/console/responses/">Responses</a>
        {link.data && (
          <>
            {" "}
            › <a href={`/console/links/${link.data.uuid}/responses/`}>{link.data.name}</a>
          </>
        )}
      </p>
      <div class="page-head">
        <h1>Response</h1>
        {can("responses:write") && (
          <button type="button" class="button-danger-quiet" onClick={() => setErasing(true)}>
            Erase response
          </button>
        )}
      </div>
      <dl class="facts card">
        <div>
          <dt>Respondent</dt>
          <dd>{res.respondent_email ?? "Anonymous"}</dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd>{res.status === "completed" ? "Completed" : "Started, not submitted"}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>
            <Time iso={res.date_created} />
          </dd>
        </div>
        <div>
          <dt>Submitted</dt>
          <dd>
            <Time iso={res.submitted_at} empty="Not yet" />
          </dd>
        </div>
        {/* Hidden-field values from the intake URL (issue 25), each as its own fact. */}
        {Object.entries(res.hidden ?? {}).map(([name, value]) => (
          <div key={name}>
            <dt class="mono">{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <ErrorNote error={erase.error} />
      <ol class="answers">
        {res.answers.map((a) => (
          <li key={a.uuid} class="card answer">
            <h2 class="question-text">{a.question_text}</h2>
            {a.response_type === "voice" || a.response_type === "voice_text_fallback" ? (
              <VoiceAnswer a={a} responseUuid={res.uuid} onChanged={r.reload} />
            ) : (
              <Value a={a} />
            )}
            <Insights a={a} responseUuid={res.uuid} onChanged={r.reload} />
            <AnswerTheme a={a} responseUuid={res.uuid} linkUuid={res.link_uuid} onChanged={r.reload} />
            <FollowUps a={a} />
            {Object.keys(a.custom_fields ?? {}).length > 0 && (
              <dl class="facts small">
                {Object.entries(a.custom_fields).map(([k, v]) => (
                  <div key={k}>
                    <dt class="mono">{k}</dt>
                    <dd>{typeof v === "object" ? JSON.stringify(v) : String(v)}</dd>
                  </div>
                ))}
              </dl>
            )}
          </li>
        ))}
        {res.answers.length === 0 && <li class="muted">No answers.</li>}
      </ol>
      <ConfirmDialog
        open={erasing}
        title="Erase this response?"
        confirmLabel="Erase response"
        danger
        busy={erase.busy}
        onConfirm={doErase}
        onCancel={() => setErasing(false)}
      >
        <p>Its answers, recordings and files are deleted for good. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}
