/**
 * Two-factor authentication in the console (issue 28; docs/console.md "Two-factor
 * authentication"): the user's own section (set up with a QR code or the setup key, confirm with
 * an "Authentication code", recovery codes shown once with Copy and Download, new recovery codes,
 * turning it off), the page a member is sent to when their workspace requires it, and the
 * workspace's requirement switch for owners and admins.
 */
import { useState } from "preact/hooks";
import { api, apiPath } from "../api.ts";
import { ActionOutcome, CopyButton, ErrorNote, Loading, Notice, SecretField, Time, useAction, useLoad } from "../components.tsx";

type Status = { enabled: boolean; enabled_at: string | null; recovery_codes_remaining: number; required_by_workspace: boolean };
type Enrolment = { secret: string; otpauth_uri: string; qr_code: string };

function download(name: string, text: string): void {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

/** The recovery codes, shown once: a list, "Copy" and "Download". */
function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const text = `Earshot recovery codes (each works once)\n\n${codes.join("\n")}\n`;
  return (
    <div class="stack">
      <Notice>
        <p>
          <strong>Save these recovery codes now.</strong> They are shown only this once; each signs you in once if you lose your phone. Earshot keeps only their
          hashes.
        </p>
      </Notice>
      <ol class="recovery-codes mono" aria-label="Recovery codes">
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ol>
      <div class="actions">
        <CopyButton text={codes.join("\n")} />
        <button type="button" class="button-secondary" onClick={() => download("earshot-recovery-codes.txt", text)}>
          Download
        </button>
        <button type="button" onClick={onDone}>
          I have saved them
        </button>
      </div>
    </div>
  );
}

/** Setting up: the QR code, the setup key for typing by hand, and the first code. */
function Enrol({ enrolment, onEnabled }: { enrolment: Enrolment; onEnabled: (codes: string[]) => void }) {
  const action = useAction();
  const confirm = (e: Event) => {
    e.preventDefault();
    const code = String(new FormData(e.currentTarget as HTMLFormElement).get("code") ?? "").trim();
    return action.run("", async () => {
      const r = await api<{ recovery_codes: string[] }>("POST", apiPath`auth/two-factor/enrolment/confirm/`, { code });
      onEnabled(r.recovery_codes);
    });
  };
  return (
    <div class="stack">
      <p>Scan this QR code with an authentication app (such as Aegis, 2FAS, Google Authenticator or 1Password), or type the setup key into it.</p>
      <div class="qr">
        <img src={enrolment.qr_code} alt="QR code for your authentication app" width={220} height={220} />
      </div>
      <SecretField label="Setup key" value={enrolment.secret} wrap />
      <form class="stack" onSubmit={confirm}>
        <div class="field">
          <label for="tf-confirm">Authentication code</label>
          <input
            id="tf-confirm"
            name="code"
            required
            autoComplete="one-time-code"
            inputMode="numeric"
            pattern="[0-9 ]{6,7}"
            maxLength={7}
            aria-describedby="tf-confirm-hint"
          />
          <p class="hint" id="tf-confirm-hint">
            The 6-digit code the app shows now.
          </p>
        </div>
        <ErrorNote error={action.error} />
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            Turn on
          </button>
        </div>
      </form>
    </div>
  );
}

/** Turned on: new recovery codes or turning off, each with the current code or the password. */
function Manage({ status, onCodes, onChanged }: { status: Status; onCodes: (codes: string[]) => void; onChanged: () => void }) {
  const action = useAction();
  const proof = (form: HTMLFormElement) => {
    const v = String(new FormData(form).get("proof") ?? "").trim();
    return /^\d{3} ?\d{3}$/.test(v) ? { code: v } : { password: v };
  };
  const renew = (e: Event) => {
    const form = (e.currentTarget as HTMLButtonElement).form!;
    if (!form.reportValidity()) return;
    return action.run("New recovery codes made; the old ones no longer work.", async () => {
      onCodes((await api<{ recovery_codes: string[] }>("POST", apiPath`auth/two-factor/recovery-codes/`, proof(form))).recovery_codes);
      form.reset();
    });
  };
  const turnOff = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    return action.run("Two-factor authentication is off.", async () => {
      await api("POST", apiPath`auth/two-factor/disable/`, proof(form));
      onChanged();
    });
  };
  return (
    <div class="stack">
      <p>
        <span class="pill pill-on">On</span> since <Time iso={status.enabled_at} mode="date" />. {status.recovery_codes_remaining} of 10 recovery codes left.
      </p>
      <form class="stack" onSubmit={turnOff}>
        <div class="field">
          <label for="tf-proof">Authentication code or password</label>
          <input id="tf-proof" name="proof" type="password" required autoComplete="off" aria-describedby="tf-proof-hint" />
          <p class="hint" id="tf-proof-hint">
            Needed to make new recovery codes or to turn two-factor authentication off.
          </p>
        </div>
        <ActionOutcome action={action} />
        <div class="actions">
          <button type="button" class="button-secondary" disabled={action.busy} onClick={renew}>
            New recovery codes
          </button>
          <button type="submit" class="button-danger" disabled={action.busy}>
            Turn off two-factor authentication
          </button>
        </div>
      </form>
    </div>
  );
}

/** The user's "Two-factor authentication" section. */
export function TwoFactorSection({ headingLevel = 2 }: { headingLevel?: 1 | 2 }) {
  const status = useLoad(() => api<Status>("GET", apiPath`auth/two-factor/`), []);
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const start = useAction();
  const s = status.data;
  const Heading = headingLevel === 1 ? "h1" : "h2";
  const begin = () =>
    start.run("", async () => {
      setEnrolment(await api<Enrolment>("POST", apiPath`auth/two-factor/enrolment/`));
    });
  return (
    <section class="card stack" aria-labelledby="two-factor-title">
      <Heading id="two-factor-title">Two-factor authentication</Heading>
      <ErrorNote error={status.error} />
      {!s && !status.error && <Loading what="two-factor authentication" />}
      {s?.required_by_workspace && !s.enabled && (
        <div class="note note-warn" role="status">
          <p>This workspace requires two-factor authentication. Set it up to use the console.</p>
        </div>
      )}
      {codes && (
        <RecoveryCodes
          codes={codes}
          onDone={() => {
            setCodes(null);
            status.reload();
          }}
        />
      )}
      {!codes && s && !s.enabled && !enrolment && (
        <>
          <p>Sign in with a code from your phone as well as your password, so a stolen password alone does not open this account.</p>
          <ErrorNote error={start.error} />
          <div class="actions">
            <button type="button" onClick={begin} disabled={start.busy}>
              Set up two-factor authentication
            </button>
          </div>
        </>
      )}
      {!codes && s && !s.enabled && enrolment && (
        <Enrol
          enrolment={enrolment}
          onEnabled={(c) => {
            setEnrolment(null);
            setCodes(c);
          }}
        />
      )}
      {!codes && s?.enabled && <Manage status={s} onCodes={setCodes} onChanged={status.reload} />}
    </section>
  );
}

/** `/console/account/two-factor/`: where a member is sent when the workspace requires it. */
export function TwoFactorPage() {
  return (
    <section class="stack">
      <TwoFactorSection headingLevel={1} />
      <p>
        <a href="/console/links/">Continue to Links</a>
      </p>
    </section>
  );
}

/** The workspace's requirement switch (owners and admins: `members:write`). */
export function TwoFactorRequirementSection() {
  const status = useLoad(() => api<Status>("GET", apiPath`auth/two-factor/`), []);
  const action = useAction();
  const [required, setRequired] = useState<boolean | null>(null);
  const current = required ?? status.data?.required_by_workspace ?? false;
  // The switch moves at once; a refusal (TWO_FACTOR_NOT_ENABLED …) moves it back.
  const toggle = (value: boolean) => {
    setRequired(value);
    return action.run(value ? "Every member now needs two-factor authentication." : "Two-factor authentication is optional again.", async () => {
      try {
        setRequired((await api<{ required: boolean }>("PUT", apiPath`workspace/two-factor/`, { required: value })).required);
      } catch (err) {
        setRequired(!value);
        throw err;
      }
    });
  };
  return (
    <section class="card stack" aria-labelledby="tf-require-title">
      <h2 id="tf-require-title">Sign-in security</h2>
      <ErrorNote error={status.error} />
      {status.data && (
        <label class="check">
          <input
            type="checkbox"
            role="switch"
            aria-checked={current}
            checked={current}
            disabled={action.busy}
            onChange={(e) => toggle(e.currentTarget.checked)}
          />
          Require two-factor authentication for every member
        </label>
      )}
      <p class="hint">Members without it are sent to set it up after signing in, and reach nothing else until they do. API keys are not affected.</p>
      <ActionOutcome action={action} />
    </section>
  );
}
