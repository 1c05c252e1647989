/**
 * The builder's "Link" card: "Name", "Slug", "Description", "Thank-you message", "Redirect URL",
 * "Hidden fields", the closing and consent fields (link-closing.tsx) and one check box per entry
 * of LINK_OPTIONS (link-form.ts). Server errors appear under the field their pointer names.
 */
import { ClosingFields } from "./link-closing.tsx";
import { KioskFields } from "./link-kiosk.tsx";
import { LINK_OPTIONS, type LinkForm } from "./link-form.ts";
import type { FieldErrors } from "./question-draft.ts";
import { Field } from "./question-fields.tsx";

/** The card; `saved` says whether the link exists (the slug's hint differs). */
export function LinkSettingsCard({
  form,
  errors,
  saved,
  onChange,
}: {
  form: LinkForm;
  errors: FieldErrors;
  saved: boolean;
  onChange: (patch: Partial<LinkForm>) => void;
}) {
  return (
    <div class="card stack">
      <h2>Link</h2>
      <div class="grid-2">
        <Field id="link-name" label="Name" pointer="/name" errors={errors}>
          {(aria) => <input {...aria} value={form.name} required onInput={(e) => onChange({ name: e.currentTarget.value })} />}
        </Field>
        <Field
          id="link-slug"
          label="Slug"
          pointer="/slug"
          errors={errors}
          hint={saved ? "Changing it changes the public URL." : "Leave empty to make one from the name."}
        >
          {(aria) => <input {...aria} class="mono" value={form.slug} onInput={(e) => onChange({ slug: e.currentTarget.value })} />}
        </Field>
      </div>
      <Field id="link-description" label="Description" pointer="/settings/description" errors={errors} hint="Shown above the first question.">
        {(aria) => <textarea {...aria} rows={2} value={form.description} onInput={(e) => onChange({ description: e.currentTarget.value })} />}
      </Field>
      <div class="grid-2">
        <Field id="link-thanks" label="Thank-you message" pointer="/settings/thankYouMessage" errors={errors} hint="Empty: “Thanks for your response!”">
          {(aria) => <input {...aria} value={form.thankYou} onInput={(e) => onChange({ thankYou: e.currentTarget.value })} />}
        </Field>
        <Field id="link-redirect" label="Redirect URL" pointer="/settings/redirectUrl" errors={errors} hint="Where respondents go after submitting (optional).">
          {(aria) => (
            <input {...aria} type="url" placeholder="https://" value={form.redirectUrl} onInput={(e) => onChange({ redirectUrl: e.currentTarget.value })} />
          )}
        </Field>
      </div>
      <Field
        id="link-hidden"
        label="Hidden fields"
        pointer="/settings/hidden_fields"
        errors={errors}
        hint="Names the link's URL may carry, e.g. order_id, plan: /i/slug?order_id=123. Separate with commas."
      >
        {(aria) => <input {...aria} class="mono" value={form.hidden} onInput={(e) => onChange({ hidden: e.currentTarget.value })} />}
      </Field>
      <ClosingFields form={form.closing} errors={errors} onChange={(patch) => onChange({ closing: { ...form.closing, ...patch } })} />
      <KioskFields form={form.kiosk} errors={errors} onChange={(patch) => onChange({ kiosk: { ...form.kiosk, ...patch } })} />
      <div class="actions">
        {LINK_OPTIONS.map((o) => (
          <label key={o.key} class="check">
            <input
              type="checkbox"
              checked={form.options[o.key]}
              onChange={(e) => onChange({ options: { ...form.options, [o.key]: e.currentTarget.checked } })}
            />
            {o.label}
          </label>
        ))}
      </div>
    </div>
  );
}
