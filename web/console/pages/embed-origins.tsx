/**
 * Settings › Embedding (issue 29; docs/embedding.md "Allowed origins"): the origins whose pages may
 * show this workspace's links through `/embed.js` (`embed.allowed_origins` of `PATCH workspace/`,
 * scope `workspace:write`), one per line. The API checks and normalises each; its refusal names
 * the line (`/embed/allowed_origins/<i>`).
 */
import { api, apiPath } from "../api.ts";
import { ActionOutcome, ErrorNote, Loading, useAction, useLoad } from "../components.tsx";
import { can } from "../state.ts";

export function EmbedOriginsSection() {
  const ws = useLoad(() => api<{ embed: { allowed_origins: string[] } }>("GET", apiPath`workspace/`), []);
  const action = useAction();
  const editable = can("workspace:write");
  const origins = ws.data?.embed.allowed_origins;
  const save = (e: Event) => {
    e.preventDefault();
    const text = String(new FormData(e.currentTarget as HTMLFormElement).get("origins") ?? "");
    const list = text
      .split(/[\s,]+/)
      .map((o) => o.trim())
      .filter(Boolean);
    return action.run("Allowed origins saved.", async () => {
      await api("PATCH", apiPath`workspace/`, { embed: { allowed_origins: list } });
      ws.reload();
    });
  };
  return (
    <section class="card stack embed-origins" aria-labelledby="embed-title">
      <h2 id="embed-title">Embedding</h2>
      <p class="muted">
        Sites that may show your links with the embed snippet (each link's “Share / Embed” card). Any other site gets a blocked frame and no events.
      </p>
      <ErrorNote error={ws.error} />
      {!origins && !ws.error && <Loading what="the allowed origins" />}
      {origins && (
        <form class="stack" onSubmit={save}>
          <div class="field">
            <label for="embed-origins">Allowed origins</label>
            <textarea
              id="embed-origins"
              name="origins"
              class="mono"
              rows={4}
              disabled={!editable}
              defaultValue={origins.join("\n")}
              key={origins.join("\n")}
              aria-describedby="embed-origins-hint"
              placeholder="https://www.example.com"
            />
            <p class="hint" id="embed-origins-hint">
              One per line: scheme and host, with a port if not the default (https://shop.example.com, https://*.example.com, http://localhost:8080). The
              microphone needs HTTPS, except on localhost.
            </p>
          </div>
          <ActionOutcome action={action} />
          {editable && (
            <div class="actions">
              <button type="submit" disabled={action.busy}>
                Save allowed origins
              </button>
            </div>
          )}
        </form>
      )}
    </section>
  );
}
