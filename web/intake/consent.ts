/**
 * @module web/intake/consent
 * The consent prompt (issue 25, docs/intake.md "Consent"): the link's `settings.consent` text in
 * the page's language, with "I agree" and "No, thanks", shown before the microphone is asked for
 * (or before the first answer). Nothing here touches the microphone: callers open it only after
 * {@link askConsent} resolved true.
 */
import { linkText } from "./content.ts";
import { h, uniqueId } from "./dom.ts";
import { language, t } from "./i18n.ts";
import type { PublicLink } from "./types.ts";

/** The consent text shown now, and the language of its translation (null: the source text). */
export function consentShown(link: PublicLink): { text: string; language: string | null } | null {
  const consent = link.settings.consent;
  if (!consent) return null;
  const translated = linkText(link.translations, language(), "consent");
  return translated ? { text: translated, language: language() } : { text: consent.text, language: null };
}

/**
 * Shows the consent text with its two buttons at the start of `host` and waits for the choice;
 * the prompt is removed once answered.
 * @returns true when the respondent agreed
 */
export function askConsent(host: HTMLElement, text: string): Promise<boolean> {
  return new Promise((resolve) => {
    const titleId = uniqueId("consent");
    const textId = uniqueId("consent-text");
    const answer = (agreed: boolean) => {
      region.remove();
      resolve(agreed);
    };
    const agree = h("button", { type: "button", class: "button", onclick: () => answer(true) }, t("consent.agree"));
    const region = h(
      "section",
      { class: "consent", role: "dialog", "aria-modal": "false", "aria-labelledby": titleId, "aria-describedby": textId },
      h("h3", { id: titleId }, t("consent.title")),
      h("p", { id: textId, class: "consent-text" }, text),
      h(
        "div",
        { class: "consent-actions" },
        agree,
        h("button", { type: "button", class: "button button-secondary", onclick: () => answer(false) }, t("consent.decline")),
      ),
    );
    host.prepend(region);
    agree.focus();
  });
}
