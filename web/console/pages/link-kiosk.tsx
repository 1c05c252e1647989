/**
 * The builder's kiosk fields (issue 29; docs/console.md "Kiosk mode", docs/api.md "Kiosk mode"):
 * "Kiosk mode" (the page starts over between respondents), "Idle timeout (seconds)" and "Exit PIN".
 * The PIN is never shown: the API returns only `has_exit_pin`, so an empty PIN field keeps the
 * stored one and "Remove the exit PIN" removes it. A link that never had kiosk mode sends nothing.
 */
import type { Settings } from "../../../src/modules/links/model.ts";
import { Field } from "./question-fields.tsx";
import { errorsAt, type FieldErrors } from "./question-draft.ts";

/** The fields as typed; `hadKiosk`/`hasPin` describe the saved link. */
export type KioskForm = { enabled: boolean; idle: string; pin: string; removePin: boolean; hadKiosk: boolean; hasPin: boolean };

export const EMPTY_KIOSK: KioskForm = { enabled: false, idle: "", pin: "", removePin: false, hadKiosk: false, hasPin: false };

/** The form of a saved link's settings. */
export function kioskFormOf(s: Settings): KioskForm {
  const k = s.kiosk;
  return {
    enabled: k?.enabled ?? false,
    idle: k ? String(k.idle_timeout_s) : "",
    pin: "",
    removePin: false,
    hadKiosk: Boolean(k),
    hasPin: k?.has_exit_pin ?? false,
  };
}

/**
 * The `settings.kiosk` member to send: nothing for a link that never had kiosk mode and still has
 * not; a timeout or PIN the API refuses goes as typed, so its error shows under the field.
 */
export function kioskPayloadOf(f: KioskForm): { kiosk?: Record<string, unknown> } {
  if (!f.enabled && !f.hadKiosk) return {};
  const idle = f.idle.trim();
  const pin = f.pin.trim();
  return {
    kiosk: {
      enabled: f.enabled,
      ...(idle ? { idle_timeout_s: Number(idle) } : {}),
      ...(pin ? { exit_pin: pin } : f.removePin ? { exit_pin: null } : {}),
    },
  };
}

/** The kiosk checkbox and, while it is on, the timeout and PIN inputs with the API's errors under their pointers. */
export function KioskFields(props: { form: KioskForm; errors: FieldErrors; onChange: (patch: Partial<KioskForm>) => void }) {
  const { form, errors, onChange } = props;
  const enabledErrors = errorsAt(errors, "/settings/kiosk/enabled");
  return (
    <fieldset>
      <legend>Kiosk</legend>
      <label class="check">
        <input
          type="checkbox"
          checked={form.enabled}
          aria-describedby="link-kiosk-hint"
          aria-invalid={enabledErrors.length ? "true" : undefined}
          onChange={(e) => onChange({ enabled: e.currentTarget.checked })}
        />
        Kiosk mode
      </label>
      <p class="hint" id="link-kiosk-hint">
        One tablet, many respondents: the page starts over after each response and when left idle, and never resumes an earlier answer.
      </p>
      {enabledErrors.length > 0 && <p class="field-error">{enabledErrors.join(" ")}</p>}
      {form.enabled && (
        <div class="grid-2">
          <Field
            id="link-kiosk-idle"
            label="Idle timeout (seconds)"
            pointer="/settings/kiosk/idle_timeout_s"
            errors={errors}
            hint="15 to 3600. Empty: 90. “Still there?” shows first."
          >
            {(aria) => (
              <input {...aria} type="number" min={15} max={3600} step={1} value={form.idle} onInput={(e) => onChange({ idle: e.currentTarget.value })} />
            )}
          </Field>
          <Field
            id="link-kiosk-pin"
            label="Exit PIN"
            pointer="/settings/kiosk/exit_pin"
            errors={errors}
            hint={
              form.hasPin ? "A PIN is set. Type a new one to replace it; empty keeps it." : "4 to 12 digits, asked before leaving kiosk mode. Empty: no PIN."
            }
          >
            {(aria) => (
              <input
                {...aria}
                type="password"
                inputMode="numeric"
                autoComplete="new-password"
                maxLength={12}
                value={form.pin}
                onInput={(e) => onChange({ pin: e.currentTarget.value })}
              />
            )}
          </Field>
        </div>
      )}
      {form.enabled && form.hasPin && (
        <label class="check">
          <input type="checkbox" checked={form.removePin} onChange={(e) => onChange({ removePin: e.currentTarget.checked })} />
          Remove the exit PIN
        </label>
      )}
    </fieldset>
  );
}
