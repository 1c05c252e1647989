/**
 * The analysed parts of an answer on the response page (response.tsx): a voice answer's
 * recording, its transcript (a group named "Transcript") with its status and "Reprocess"; the
 * insights (sentiment in an element named "Sentiment", topics, summary, actionable) with their
 * correction form (`PATCH …/insights/`); and the follow-up questions with their answers.
 */
import { useEffect, useState } from "preact/hooks";
import { api, apiPath } from "../api.ts";
import { ErrorNote, Notice, useAction } from "../components.tsx";
import { can } from "../state.ts";
import type { Answer } from "../../../src/modules/responses/model.ts";
import { STATUS_TEXT } from "./answer-value.tsx";

/** Transcript, insights, correction and follow-ups of a voice (or analysed text) answer. */
export function Insights({ a, responseUuid, onChanged }: { a: Answer; responseUuid: string; onChanged: () => void }) {
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

/** The recording, transcript and "Reprocess" of a voice answer. */
export function VoiceAnswer({ a, responseUuid, onChanged }: { a: Answer; responseUuid: string; onChanged: () => void }) {
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

/** The follow-up questions asked (probing) and their answers. */
export function FollowUps({ a }: { a: Answer }) {
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
