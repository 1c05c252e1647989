/**
 * The "Your account" section of Settings (DESIGN §10): the operator's own name, email digest
 * (settings-digest.tsx) and password.
 */
import { api, apiPath } from "../api.ts";
import { ActionOutcome, useAction } from "../components.tsx";
import { session, type Session } from "../state.ts";
import { DigestField } from "./settings-digest.tsx";

/** The section (`#account-title`). */
export function AccountSection() {
  const s = session.value!;
  const nameAction = useAction();
  const pwAction = useAction();
  const saveName = (e: Event) => {
    e.preventDefault();
    const name = String(new FormData(e.currentTarget as HTMLFormElement).get("name") ?? "").trim();
    return nameAction.run("Name saved.", async () => {
      session.value = await api<Session>("PATCH", apiPath`auth/me/`, { name });
    });
  };
  const savePassword = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    return pwAction.run("Password changed. Your other sessions are signed out.", async () => {
      await api("POST", apiPath`auth/me/password/`, { current_password: String(f.get("current") ?? ""), new_password: String(f.get("new") ?? "") });
      form.reset();
    });
  };
  return (
    <section class="card stack" aria-labelledby="account-title">
      <h2 id="account-title">Your account</h2>
      <p class="muted">
        Signed in as <strong>{s.user.email}</strong>, {s.role} of this workspace.
      </p>
      <form class="stack" onSubmit={saveName}>
        <div class="field">
          <label for="me-name">Your name</label>
          <input id="me-name" name="name" required defaultValue={s.user.name} autoComplete="name" />
        </div>
        <ActionOutcome action={nameAction} />
        <div class="actions">
          <button type="submit" disabled={nameAction.busy}>
            Save name
          </button>
        </div>
      </form>
      <DigestField />
      <form class="stack" onSubmit={savePassword}>
        <h3>Change password</h3>
        <input type="text" name="username" autoComplete="username" value={s.user.email} hidden readOnly />
        <div class="grid-2">
          <div class="field">
            <label for="me-current">Current password</label>
            <input id="me-current" name="current" type="password" required autoComplete="current-password" />
          </div>
          <div class="field">
            <label for="me-new">New password</label>
            <input id="me-new" name="new" type="password" required minLength={12} autoComplete="new-password" aria-describedby="me-new-hint" />
            <p class="hint" id="me-new-hint">
              At least 12 characters.
            </p>
          </div>
        </div>
        <ActionOutcome action={pwAction} />
        <div class="actions">
          <button type="submit" disabled={pwAction.busy}>
            Change password
          </button>
        </div>
      </form>
    </section>
  );
}
