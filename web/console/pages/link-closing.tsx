/**
 * The builder's closing and consent fields (issue 25, DESIGN §13, docs/api.md "Closing a link" and
 * "Consent"): "Close at" (a `datetime-local` in the operator's own time zone, sent as an ISO
 * timestamp), "Response limit" (a whole number), and "Consent text" with "Ask for consent"
 * (before recording / before the first answer). Empty inputs send null, which removes the setting.
 */
import type { Settings } from "../../../src/modules/links/model.ts";
import { Field } from "./question-fields.tsx";
import type { FieldErrors } from "./question-draft.ts";

/** The fields as typed: `closeAt` is `YYYY-MM-DDTHH:mm` local time or "", `limit` digits or "". */
export type ClosingForm = { closeAt: string; limit: string; consentText: string; consentBefore: "recording" | "start" };

export const EMPTY_CLOSING: ClosingForm = { closeAt: "", limit: "", consentText: "", consentBefore: "recording" };

const pad = (n: number) => String(n).padStart(2, "0");

/** An API timestamp as a `datetime-local` value in the browser's time zone ("" for null). */
function localInputOf(iso: string | null | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The form of a saved link's settings. */
export function closingFormOf(s: Settings): ClosingForm {
  return {
    closeAt: localInputOf(s.close_at),
    limit: s.response_limit == null ? "" : String(s.response_limit),
    consentText: s.consent?.text ?? "",
    consentBefore: s.consent?.required_before ?? "recording",
  };
}

/**
 * The `settings` members to send. A `closeAt` the browser cannot read is sent as typed, so the
 * API's own error (under /settings/close_at) shows; a limit of 0 or 1.5 goes as typed too.
 */
export function closingPayloadOf(f: ClosingForm): Pick<Settings, "close_at" | "response_limit" | "consent"> {
  const at = f.closeAt ? new Date(f.closeAt) : null;
  const limit = f.limit.trim();
  return {
    close_at: at ? (Number.isFinite(at.getTime()) ? at.toISOString() : f.closeAt) : null,
    response_limit: limit ? Number(limit) : null,
    consent: f.consentText.trim() ? { text: f.consentText.trim(), required_before: f.consentBefore } : null,
  };
}

/** The four inputs, showing the API's errors under their pointers. */
export function ClosingFields(props: { form: ClosingForm; errors: FieldErrors; onChange: (patch: Partial<ClosingForm>) => void }) {
  const { form, errors, onChange } = props;
  return (
    <>
      <div class="grid-2">
        <Field id="link-close-at" label="Close at" pointer="/settings/close_at" errors={errors} hint="Your local time. Empty: never closes.">
          {(aria) => <input {...aria} type="datetime-local" value={form.closeAt} onInput={(e) => onChange({ closeAt: e.currentTarget.value })} />}
        </Field>
        <Field
          id="link-limit"
          label="Response limit"
          pointer="/settings/response_limit"
          errors={errors}
          hint="Closes after this many responses. Empty: no limit."
        >
          {(aria) => <input {...aria} type="number" min={1} step={1} value={form.limit} onInput={(e) => onChange({ limit: e.currentTarget.value })} />}
        </Field>
      </div>
      <Field
        id="link-consent"
        label="Consent text"
        pointer="/settings/consent/text"
        errors={errors}
        hint="Respondents must agree to this. Empty: no consent asked."
      >
        {(aria) => <textarea {...aria} rows={2} value={form.consentText} onInput={(e) => onChange({ consentText: e.currentTarget.value })} />}
      </Field>
      <Field id="link-consent-before" label="Ask for consent" pointer="/settings/consent/required_before" errors={errors}>
        {(aria) => (
          <select {...aria} value={form.consentBefore} onChange={(e) => onChange({ consentBefore: e.currentTarget.value as ClosingForm["consentBefore"] })}>
            <option value="recording">Before recording</option>
            <option value="start">Before the first answer</option>
          </select>
        )}
      </Field>
    </>
  );
}
