/**
 * @module web/intake/kiosk-exit
 * The exit-PIN dialog of kiosk mode (issue 29; docs/intake.md "Kiosk mode"): a modal asking for the
 * PIN, checked by the server (`POST {api_base}kiosk/exit/`, which holds the PIN's hash and limits
 * attempts); the page never knows the PIN.
 */
import type * as Dom from "./dom.ts";
import type * as I18n from "./i18n.ts";

let h: typeof Dom.h;
let uniqueId: typeof Dom.uniqueId;
let t: typeof I18n.t;

/** The page's modules, handed over through kiosk.ts `provideKit` (see there why). */
export function provideToExit(kit: { h: typeof Dom.h; uniqueId: typeof Dom.uniqueId; t: typeof I18n.t }): void {
  ({ h, uniqueId, t } = kit);
}

/**
 * Asks the server whether `pin` is the link's exit PIN.
 * @returns null when it is, else the message to show (wrong PIN, too many attempts, no network)
 */
async function checkExitPin(apiBase: string, pin: string): Promise<string | null> {
  try {
    const res = await fetch(`${apiBase}kiosk/exit/`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ pin }),
    });
    if (res.ok) return null;
    const problem = (await res.json().catch(() => ({}))) as { code?: string };
    if (problem.code === "KIOSK_PIN_INVALID" || problem.code === "VALIDATION_ERROR") return t("kiosk.pin.wrong");
    return problem.code === "RATE_LIMITED" ? t("error.rateLimited") : t("error.generic");
  } catch {
    return t("error.network");
  }
}

/**
 * Shows the modal "Leave kiosk mode" dialog (textbox "PIN", buttons "Leave" and "Cancel"); a wrong
 * PIN shows its error and clears the field; a right one closes the dialog and calls `onLeave`.
 * @param apiBase the intake API base (`/api/v1/intake/{ws}/{slug}/`)
 */
export function askExitPin(apiBase: string, onLeave: () => void): void {
  const titleId = uniqueId("kiosk-pin");
  const inputId = uniqueId("kiosk-pin-input");
  const error = h("p", { class: "form-error", role: "alert" });
  const input = h("input", { id: inputId, type: "password", inputmode: "numeric", autocomplete: "off", maxlength: 12, class: "kiosk-pin" });
  const submit = h("button", { type: "submit", class: "button button-primary" }, t("kiosk.pin.submit"));
  const form = h(
    "form",
    { method: "dialog" },
    h("h2", { id: titleId }, t("kiosk.leave")),
    h("p", {}, t("kiosk.pin.text")),
    h("label", { for: inputId }, t("kiosk.pin.label")),
    input,
    error,
    h(
      "div",
      { class: "kiosk-actions" },
      submit,
      h("button", { type: "button", class: "button button-secondary", onclick: () => dialog.close() }, t("kiosk.pin.cancel")),
    ),
  );
  const dialog = h("dialog", { class: "kiosk-dialog", "aria-labelledby": titleId }, form);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    submit.disabled = true;
    void checkExitPin(apiBase, input.value)
      .then((problem) => {
        if (!problem) {
          dialog.close();
          return onLeave();
        }
        error.textContent = problem;
        input.value = "";
        input.focus();
      })
      .finally(() => (submit.disabled = false));
  });
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  input.focus();
}
