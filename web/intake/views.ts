/**
 * @module web/intake/views
 * The screens around the form: loading, a plain message (paused link, failure) and the
 * thank-you screen shown after submitting.
 */
import { h } from "./dom.ts";
import { formatDateTime, t } from "./i18n.ts";

/** Replaces `root` with a message; `action` adds one button (e.g. "Try again"). */
export function showMessage(root: HTMLElement, title: string, text: string, action?: { label: string; run: () => void }): void {
  const heading = h("h2", { class: "message-title", tabindex: "-1" }, title);
  root.replaceChildren(
    h(
      "section",
      { class: "message" },
      heading,
      h("p", {}, text),
      action ? h("button", { type: "button", class: "button button-secondary", onclick: action.run }, action.label) : null,
    ),
  );
}

/**
 * The thank-you screen (with the date and time it was sent, when known). With `redirectUrl` (http or https only) the browser goes there
 * immediately and the screen says so, with a link in case it does not.
 */
export function showThankYou(root: HTMLElement, message: string, redirectUrl: string | null, startAgain?: () => void, sentAt?: Date): void {
  const safeRedirect = redirectUrl && /^https?:\/\//i.test(redirectUrl) ? redirectUrl : null;
  const heading = h("h2", { class: "thanks-message", tabindex: "-1" }, message);
  root.replaceChildren(
    h(
      "section",
      { class: "thanks", "aria-live": "polite" },
      h("div", { class: "thanks-icon", "aria-hidden": "true" }, "✓"),
      heading,
      sentAt ? h("p", { class: "thanks-time" }, t("thanks.sentAt", { date: formatDateTime(sentAt) })) : null,
      safeRedirect ? h("p", {}, `${t("thanks.redirecting")} `, h("a", { href: safeRedirect }, t("thanks.continue"))) : null,
      !safeRedirect && startAgain ? h("button", { type: "button", class: "link-button", onclick: startAgain }, t("thanks.again")) : null,
    ),
  );
  heading.focus();
  if (safeRedirect) window.location.assign(safeRedirect);
}
