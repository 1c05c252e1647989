/**
 * Settings › Retention (issue 25; docs/privacy.md "Retention"): the workspace's default policy.
 * Saving needs a dry run first: "Check what it deletes" asks `POST workspace/retention/preview/`
 * for the counts of the values in the form, and "Save retention" stays disabled until the counts
 * shown are those of the current values (any change asks for a new check).
 */
import { useState } from "preact/hooks";
import { api, apiPath } from "../api.ts";
import { ErrorNote, Loading, Notice, useAction, useLoad } from "../components.tsx";
import { can } from "../state.ts";
import type { RetentionPolicy, RetentionPreview } from "../../../src/modules/retention/model.ts";

/** The policy the form holds (empty day fields are off). */
function policyOf(form: HTMLFormElement): RetentionPolicy {
  const f = new FormData(form);
  const days = (name: string) => {
    const v = String(f.get(name) ?? "").trim();
    return v === "" ? null : Number(v);
  };
  return {
    delete_responses_after_days: days("responses_days"),
    delete_audio_after_days: days("audio_days"),
    delete_audio_after_transcription: f.get("after_transcription") === "on",
    delete_after_delivery: f.get("after_delivery") === "on",
  };
}

export function RetentionSection() {
  const ws = useLoad(() => api<{ retention: RetentionPolicy }>("GET", apiPath`workspace/`), []);
  const action = useAction();
  const [preview, setPreview] = useState<{ key: string; counts: RetentionPreview["counts"] } | null>(null);
  const [current, setCurrent] = useState("");
  const editable = can("workspace:write");
  const p = ws.data?.retention;
  const check = (e: Event) => {
    const form = (e.currentTarget as HTMLElement).closest("form")!;
    const policy = policyOf(form);
    return action.run("", async () => {
      const r = await api<RetentionPreview>("POST", apiPath`workspace/retention/preview/`, { retention: policy });
      setPreview({ key: JSON.stringify(policy), counts: r.counts });
      setCurrent(JSON.stringify(policy));
    });
  };
  const save = (e: Event) => {
    e.preventDefault();
    const policy = policyOf(e.currentTarget as HTMLFormElement);
    return action.run("Retention saved.", async () => {
      await api("PATCH", apiPath`workspace/`, { retention: policy });
      ws.reload();
    });
  };
  const checked = preview !== null && preview.key === current;
  return (
    <section class="card stack" aria-labelledby="retention-title">
      <h2 id="retention-title">Retention</h2>
      <p class="muted">Applies to submitted responses of every link without its own retention settings. Runs hourly; erased responses are gone for good.</p>
      <ErrorNote error={ws.error} />
      {!p && !ws.error && <Loading what="the retention policy" />}
      {p && (
        <form class="stack" onSubmit={save} onInput={(e) => setCurrent(JSON.stringify(policyOf(e.currentTarget as HTMLFormElement)))}>
          <fieldset disabled={!editable} class="grid-2">
            <div class="field">
              <label for="ret-responses">Delete responses after (days)</label>
              <input
                id="ret-responses"
                name="responses_days"
                type="number"
                min={1}
                max={36500}
                defaultValue={p.delete_responses_after_days?.toString() ?? ""}
              />
            </div>
            <div class="field">
              <label for="ret-audio">Delete recordings after (days)</label>
              <input id="ret-audio" name="audio_days" type="number" min={1} max={36500} defaultValue={p.delete_audio_after_days?.toString() ?? ""} />
            </div>
            <label class="check">
              <input type="checkbox" name="after_transcription" defaultChecked={p.delete_audio_after_transcription} /> Delete recordings once transcribed (keep
              the transcript)
            </label>
            <label class="check">
              <input type="checkbox" name="after_delivery" defaultChecked={p.delete_after_delivery} /> Delete responses once every webhook received them
            </label>
          </fieldset>
          <p class="hint">Empty day fields and unticked boxes are off.</p>
          <ErrorNote error={action.error} />
          {checked && (
            <p role="status">
              Saving this policy now deletes {preview.counts.responses} responses and the recordings of {preview.counts.recordings} answers.
            </p>
          )}
          {action.message && (
            <Notice>
              <p>{action.message}</p>
            </Notice>
          )}
          {editable && (
            <div class="actions">
              <button type="button" class="button-secondary" onClick={check} disabled={action.busy}>
                Check what it deletes
              </button>
              <button type="submit" disabled={action.busy || !checked}>
                Save retention
              </button>
            </div>
          )}
        </form>
      )}
    </section>
  );
}
