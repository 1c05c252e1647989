/**
 * The "Alerts" card of a saved link (issue 28; docs/alerts.md): the link's alert rules (what they
 * fire on, where they go, whether the destination stopped answering, how many alerts the rate
 * limit dropped, the last delivery), deleting one, and a form to add one — destination kind, URL
 * (Matrix: room and token; ntfy: an optional access token; Email: the recipients), conditions (a
 * theme of the link among them), any/all, messages per hour, the messages' language — with
 * "Preview message" showing the exact request the destination would receive for a sample answer.
 */
import { useState } from "preact/hooks";
import { api, apiPath, paged, type Page } from "../api.ts";
import { ConfirmDialog, ErrorNote, Loading, useAction, useLoad } from "../components.tsx";
import type { Link } from "../../../src/modules/links/model.ts";
import type { Alert, AlertCondition as Condition } from "../../../src/modules/alerts/model.ts";
import type { ThemeRecord } from "../../../src/modules/themes/model.ts";
type Preview = {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  email: { to: string[]; subject: string; text: string; html: string } | null;
};

const KINDS: [string, string][] = [
  ["slack", "Slack"],
  ["teams", "Microsoft Teams"],
  ["mattermost", "Mattermost"],
  ["matrix", "Matrix"],
  ["ntfy", "ntfy"],
  ["webhook", "Generic JSON"],
  ["email", "Email"],
];

/** The addresses typed in the recipients field (commas, semicolons or line breaks between them). */
function recipientsOf(value: string): string[] {
  return value
    .split(/[,;\s]+/)
    .map((a) => a.trim())
    .filter(Boolean);
}

/** What the preview box shows: the request line and body, or an email's recipients, subject and text. */
function previewText(p: Preview): string {
  if (p.email) return `To: ${p.email.to.join(", ")}\nSubject: ${p.email.subject}\n\n${p.email.text}`;
  return `${p.method} ${p.url}\n\n${p.body}`;
}
/** The languages a rule's messages can be in (the mail languages; docs/alerts.md "Language"). */
const LANGUAGES: [string, string][] = [
  ["en", "English"],
  ["de", "Deutsch"],
  ["fr", "Français"],
  ["es", "Español"],
  ["it", "Italiano"],
  ["nl", "Nederlands"],
  ["pt", "Português"],
  ["pl", "Polski"],
  ["ar", "العربية"],
];

const FLAGS: [Condition["type"], string][] = [
  ["negative", "Negative sentiment"],
  ["actionable", "Actionable feedback"],
  ["nps_detractor", "NPS detractor (0–6)"],
];

/** A condition in words (`labels`: theme uuid → label). */
function describe(c: Condition, labels: ReadonlyMap<string, string>): string {
  if (c.type === "keyword") return `keyword “${c.keyword}”`;
  if (c.type === "theme") return `theme “${labels.get(c.theme_uuid) ?? "deleted"}”`;
  return FLAGS.find(([t]) => t === c.type)![1].toLowerCase();
}

/** The request body the form describes (POST …/alerts/, or `rule` of a preview). */
function ruleOf(form: FormData) {
  const kind = String(form.get("kind"));
  const conditions: Condition[] = FLAGS.filter(([t]) => form.get(t) === "on").map(([type]) => ({ type }) as Condition);
  const keyword = String(form.get("keyword") ?? "").trim();
  if (keyword) conditions.push({ type: "keyword", keyword });
  const theme = String(form.get("theme") ?? "");
  if (theme) conditions.push({ type: "theme", theme_uuid: theme });
  const token = String(form.get("token") ?? "");
  const lang = String(form.get("lang") ?? "");
  return {
    name: String(form.get("name") ?? ""),
    conditions,
    match: String(form.get("match")),
    max_per_hour: Number(form.get("max_per_hour") || 10),
    destination: {
      kind,
      ...(kind === "email" ? { to: recipientsOf(String(form.get("to") ?? "")) } : { url: String(form.get("url") ?? "") }),
      ...(kind === "matrix" ? { room: String(form.get("room") ?? ""), token } : {}),
      ...(kind === "ntfy" && token ? { token } : {}),
    },
    // Left out: the API takes the browser's language (Accept-Language).
    ...(lang ? { lang } : {}),
  };
}

export function AlertsCard({ link, writable }: { link: Link; writable: boolean }) {
  const [tick, setTick] = useState(0);
  const [kind, setKind] = useState("slack");
  const [preview, setPreview] = useState<Preview | null>(null);
  const [deleting, setDeleting] = useState<Alert | null>(null);
  const list = useLoad(() => api<Page<Alert>>("GET", paged(apiPath`links/${link.uuid}/alerts/`, 1, 100)), [link.uuid, tick]);
  // The link's themes, for a theme condition (none listed when the role cannot read them).
  const themes = useLoad(() => api<Page<ThemeRecord>>("GET", paged(apiPath`links/${link.uuid}/themes/`, 1, 100)).catch(() => null), [link.uuid]);
  const labels = new Map((themes.data?.results ?? []).map((t) => [t.uuid, t.label]));
  const action = useAction();
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const rule = ruleOf(new FormData(form));
    if ((e.submitter as HTMLButtonElement | null)?.value === "preview") {
      void action.run("", async () => setPreview(await api<Preview>("POST", apiPath`links/${link.uuid}/alerts/preview/`, { rule })));
      return;
    }
    void action.run("Alert created.", async () => {
      await api("POST", apiPath`links/${link.uuid}/alerts/`, rule);
      form.reset();
      setKind("slack");
      setPreview(null);
      setTick(tick + 1);
    });
  };
  // The API's message for one field (its JSON pointer, or one below it), shown at that field too.
  const problemAt = (pointer: string) => action.error?.errors.find((e) => e.pointer === pointer || e.pointer?.startsWith(`${pointer}/`)) ?? null;
  const invalid = (pointer: string, id: string, hint?: string) =>
    problemAt(pointer) ? { "aria-invalid": true as const, "aria-describedby": [hint, `${id}-error`].filter(Boolean).join(" ") } : {};
  const fieldError = (pointer: string, id: string) => {
    const p = problemAt(pointer);
    return p ? (
      <p class="field-error" id={`${id}-error`}>
        {p.message ?? p.detail}
      </p>
    ) : null;
  };
  // Deleting asks first, as every other destructive action of the console does.
  const remove = (a: Alert) =>
    void action.run(`Alert “${a.name}” deleted.`, async () => {
      await api("DELETE", apiPath`links/${link.uuid}/alerts/${a.uuid}/`);
      setDeleting(null);
      setTick(tick + 1);
    });
  return (
    <section class="card stack alerts-card" aria-labelledby="alerts-title">
      <h2 id="alerts-title">Alerts</h2>
      <p class="muted">Tell a channel when an analysed response matches. Delivered like webhooks: retried, and never to a private address you did not allow.</p>
      {list.loading && !list.data && <Loading what="alerts" />}
      <ErrorNote error={list.error} />
      {list.data && list.data.count === 0 && <p>No alerts yet.</p>}
      {list.data && list.data.count > 0 && (
        <ul class="alert-rules" aria-label="Alert rules">
          {list.data.results.map((a) => (
            <li key={a.uuid}>
              <p>
                <strong>{a.name}</strong> → {KINDS.find(([k]) => k === a.destination.kind)?.[1] ?? a.destination.kind}, on{" "}
                {a.conditions.map((c) => describe(c, labels)).join(a.match === "all" ? " and " : " or ")}
                {!a.enabled && " (paused)"}
                {a.disabled_reason && <span class="status-bad"> Stopped: {a.disabled_reason}</span>}
                {a.suppressed > 0 && <span class="muted"> {a.suppressed} held back by the rate limit.</span>}
                {a.last_delivery_at && (
                  <span class="muted">
                    {" "}
                    Last sent {a.last_delivery_at.slice(0, 16).replace("T", " ")} UTC ({a.last_delivery_status ?? "no answer"}).
                  </span>
                )}
              </p>
              {writable && (
                <button type="button" class="button-danger-quiet" aria-label={`Delete alert ${a.name}`} disabled={action.busy} onClick={() => setDeleting(a)}>
                  Delete
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {writable && (
        <form class="stack alert-form" onSubmit={submit} aria-labelledby="alert-new-title">
          <h3 id="alert-new-title">New alert</h3>
          <div class="field">
            <label for="alert-name">Alert name</label>
            <input id="alert-name" name="name" required maxLength={200} {...invalid("/name", "alert-name")} />
            {fieldError("/name", "alert-name")}
          </div>
          <div class="field">
            <label for="alert-kind">Send to</label>
            <select id="alert-kind" name="kind" value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
              {KINDS.map(([k, label]) => (
                <option key={k} value={k}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          {kind === "email" ? (
            <div class="field">
              <label for="alert-to">Recipients</label>
              <input
                id="alert-to"
                name="to"
                required
                placeholder="support@example.com, lead@example.com"
                aria-describedby="alert-to-hint"
                {...invalid("/destination/to", "alert-to", "alert-to-hint")}
              />
              {fieldError("/destination/to", "alert-to")}
              <p class="hint" id="alert-to-hint">
                Up to 10 addresses, separated by commas. Needs mail set up on this server.
              </p>
            </div>
          ) : (
            <div class="field">
              <label for="alert-url">{kind === "matrix" ? "Homeserver URL" : kind === "ntfy" ? "Topic URL" : "Webhook URL"}</label>
              <input id="alert-url" name="url" type="url" required placeholder="https://" {...invalid("/destination/url", "alert-url")} />
              {fieldError("/destination/url", "alert-url")}
            </div>
          )}
          {kind === "matrix" && (
            <>
              <div class="field">
                <label for="alert-room">Room id</label>
                <input id="alert-room" name="room" required placeholder="!abc:example.org" {...invalid("/destination/room", "alert-room")} />
                {fieldError("/destination/room", "alert-room")}
              </div>
              <div class="field">
                <label for="alert-token">Access token</label>
                <input id="alert-token" name="token" type="password" required autoComplete="off" />
              </div>
            </>
          )}
          {kind === "ntfy" && (
            <div class="field">
              <label for="alert-token">Access token (optional)</label>
              <input id="alert-token" name="token" type="password" autoComplete="off" placeholder="tk_…" aria-describedby="alert-token-hint" />
              <p class="hint" id="alert-token-hint">
                For a protected topic. Kept secret: never shown again.
              </p>
            </div>
          )}
          <fieldset class="stack">
            <legend>Fire on</legend>
            <div class="checks">
              {FLAGS.map(([t, label]) => (
                <label key={t} class="check">
                  <input type="checkbox" name={t} /> {label}
                </label>
              ))}
            </div>
            <div class="field">
              <label for="alert-keyword">Keyword (optional)</label>
              <input id="alert-keyword" name="keyword" maxLength={100} aria-describedby="alert-keyword-hint" />
              <p class="hint" id="alert-keyword-hint">
                A whole word or phrase in the answer, any case.
              </p>
            </div>
            {(themes.data?.results.length ?? 0) > 0 && (
              <div class="field">
                <label for="alert-theme">Theme (optional)</label>
                <select id="alert-theme" name="theme">
                  <option value="">No theme</option>
                  {themes.data!.results.map((t) => (
                    <option key={t.uuid} value={t.uuid}>
                      {t.label}
                    </option>
                  ))}
                </select>
              </div>
            )}
            <div class="field">
              <label for="alert-match">Fire when</label>
              <select id="alert-match" name="match">
                <option value="any">Any of these holds</option>
                <option value="all">All of these hold</option>
              </select>
            </div>
          </fieldset>
          <div class="field">
            <label for="alert-rate">Messages per hour at most</label>
            <input id="alert-rate" name="max_per_hour" type="number" min={1} max={1000} defaultValue="10" class="input-short" />
          </div>
          <div class="field">
            <label for="alert-lang">Message language</label>
            <select id="alert-lang" name="lang">
              <option value="">Your browser's language</option>
              {LANGUAGES.map(([code, name]) => (
                <option key={code} value={code} lang={code}>
                  {name}
                </option>
              ))}
            </select>
          </div>
          <ErrorNote error={action.error} />
          <div class="actions">
            <button type="submit" value="create" disabled={action.busy}>
              Create alert
            </button>
            <button type="submit" value="preview" class="button-secondary" disabled={action.busy}>
              Preview message
            </button>
            <span role="status">{action.message}</span>
          </div>
          {preview && (
            <div class="field">
              <label for="alert-preview">What {KINDS.find(([k]) => k === kind)?.[1]} receives</label>
              <textarea id="alert-preview" readOnly class="mono fit" rows={10} value={previewText(preview)} />
            </div>
          )}
        </form>
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete the alert “${deleting?.name ?? ""}”?`}
        confirmLabel="Delete alert"
        danger
        busy={action.busy}
        onConfirm={() => deleting && remove(deleting)}
        onCancel={() => setDeleting(null)}
      >
        <p>Matching responses are no longer announced to this channel. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}
