/**
 * Mail in the console (issue 28, DESIGN §15): the "Mail" settings section — whether mail is
 * configured (`GET mail/`), and "Send test email" (`POST mail/test/`), which shows the server's
 * answer: sent (with its Message-ID) or the SMTP error. And the mail state of a pending invite.
 */
import { useState } from "preact/hooks";
import { api, apiPath } from "../api.ts";
import { ErrorNote, Loading, Notice, useAction, useLoad } from "../components.tsx";
import { can, session } from "../state.ts";

type MailSettings = { configured: boolean; from: string | null };
type TestResult = { sent: true; to: string; message_id: string };

/** Words for an invite's `mail_state` (null: mail is off, the URL was handed over by hand). */
export function MailState({ state, error }: { state: "queued" | "sent" | "retrying" | "failed" | null | undefined; error?: string | null }) {
  if (!state) return <span class="muted">Not mailed</span>;
  const words = { queued: "Queued", sent: "Sent", retrying: "Retrying", failed: "Failed" }[state];
  return (
    <span class={state === "failed" || state === "retrying" ? "mail-state mail-state-problem" : "mail-state"} title={error ?? undefined}>
      {words}
      {error ? <span class="visually-hidden">: {error}</span> : null}
    </span>
  );
}

/** The "Mail" section of Settings. */
export function MailSection() {
  const settings = useLoad(() => api<MailSettings>("GET", apiPath`mail/`), []);
  const action = useAction();
  const [result, setResult] = useState<TestResult | null>(null);
  const send = (e: Event) => {
    e.preventDefault();
    const to = String(new FormData(e.currentTarget as HTMLFormElement).get("to") ?? "").trim();
    setResult(null);
    return action.run("Sent.", async () => {
      setResult(await api<TestResult>("POST", apiPath`mail/test/`, to ? { to } : {}));
    });
  };
  return (
    <section class="card stack" aria-labelledby="mail-title">
      <h2 id="mail-title">Mail</h2>
      {settings.loading && <Loading what="mail settings" />}
      <ErrorNote error={settings.error} />
      {settings.data && !settings.data.configured && (
        <p class="muted">
          Mail is off: invites and password resets are links you hand over yourself. Set <code>EARSHOT_SMTP_URL</code> and <code>EARSHOT_MAIL_FROM</code> on the
          server to send them by mail.
        </p>
      )}
      {settings.data?.configured && (
        <>
          <p>
            Invites and password resets are also sent by mail, from <strong>{settings.data.from}</strong>.
          </p>
          {can("members:write") && (
            <form class="stack" onSubmit={send}>
              <div class="field">
                <label for="mail-test-to">Test recipient</label>
                <input id="mail-test-to" name="to" type="email" placeholder={session.value?.user.email} aria-describedby="mail-test-hint" />
                <p class="hint" id="mail-test-hint">
                  Leave empty to send to yourself.
                </p>
              </div>
              <ErrorNote error={action.error} />
              {result && (
                <Notice>
                  <p>
                    Test email sent to {result.to}. Message-ID <code>{result.message_id}</code>.
                  </p>
                </Notice>
              )}
              <div class="actions">
                <button type="submit" disabled={action.busy}>
                  {action.busy ? "Sending…" : "Send test email"}
                </button>
              </div>
            </form>
          )}
        </>
      )}
    </section>
  );
}
