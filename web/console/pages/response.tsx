/**
 * A response's page (`/console/responses/<uuid>/`; DESIGN §7, §10): every answer under its
 * question text, rendered by type; a voice answer with its `audio` player (signed `audio_url`),
 * its transcript (an element named "Transcript") with its status ("Reprocess" when it failed or
 * waits for the model), and its insights (sentiment in an element named "Sentiment", topics,
 * summary, actionable) with a correction form (`PATCH …/insights/`), and the follow-up questions
 * with their answers (answer-value.tsx, answer-voice.tsx); an open question's theme and "Move answer" (theme-move.tsx). "Erase
 * response" asks first; erasure is irreversible. Live (live.ts).
 */
import { useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { api, apiPath } from "../api.ts";
import { ConfirmDialog, ErrorNote, Loading, Time, useAction } from "../components.tsx";
import { useLive } from "../live.ts";
import { can } from "../state.ts";
import type { Link } from "../../../src/modules/links/model.ts";
import type { ResponseRecord } from "../../../src/modules/responses/model.ts";
import { useLoad } from "../components.tsx";
import { AnswerTheme } from "./theme-move.tsx";
import { Value } from "./answer-value.tsx";
import { FollowUps, Insights, VoiceAnswer } from "./answer-voice.tsx";

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
