/**
 * The link builder's "Link" card as data (builder.tsx, link-settings.tsx; DESIGN §6, §13,
 * issue 25): the form state of a link's name, slug and settings, the form of a saved link, and
 * the `POST links/` / `PATCH links/{uuid}/` body made from the form and the question drafts.
 * The on/off settings are one list, LINK_OPTIONS: a new option is one entry there.
 */
import type { Link, SettingsInput } from "../../../src/modules/links/model.ts";
import { closingFormOf, closingPayloadOf, EMPTY_CLOSING, type ClosingForm } from "./link-closing.tsx";
import { EMPTY_KIOSK, kioskFormOf, kioskPayloadOf, type KioskForm } from "./link-kiosk.tsx";
import { payloadOf, type Draft } from "./question-draft.ts";

/** One check box of the card: its label, and how it reads and writes the link's settings. */
export type LinkOption = {
  key: string;
  label: string;
  read: (s: Link["settings"]) => boolean;
  write: (on: boolean) => Partial<SettingsInput>;
};

/** The card's check boxes, in the order they are shown. */
export const LINK_OPTIONS = [
  { key: "tts", label: "Read questions aloud (TTS)", read: (s) => s.tts_enabled, write: (on) => ({ tts_enabled: on }) },
  { key: "live", label: "Live transcription while recording", read: (s) => s.live_transcription, write: (on) => ({ live_transcription: on }) },
  {
    // Issue 25: typed answers and transcripts are masked before they are stored.
    key: "redact",
    label: "Mask personal data before it is stored (emails, phone numbers, cards, IBANs, names, addresses)",
    read: (s) => s.redact_pii === true,
    write: (on) => ({ redact_pii: on }),
  },
  {
    // DESIGN §13: only personal invitations can start a response.
    key: "invitationOnly",
    label: "Only personal invitations can answer",
    read: (s) => s.access === "invitation",
    write: (on) => ({ access: on ? "invitation" : "open" }),
  },
] as const satisfies readonly LinkOption[];
export type LinkOptionKey = (typeof LINK_OPTIONS)[number]["key"];

/** The card's fields as typed; `hidden` is the names separated by commas or spaces (issue 25). */
export type LinkForm = {
  name: string;
  slug: string;
  description: string;
  thankYou: string;
  redirectUrl: string;
  hidden: string;
  status: Link["status"];
  options: Record<LinkOptionKey, boolean>;
  /** `close_at`, `response_limit`, `consent` (issue 25; link-closing.tsx). */
  closing: ClosingForm;
  /** `settings.kiosk` (issue 29; link-kiosk.tsx). */
  kiosk: KioskForm;
};

/** A new link's form: every option off, nothing closing it. */
export const EMPTY_LINK_FORM: LinkForm = {
  name: "",
  slug: "",
  description: "",
  thankYou: "",
  redirectUrl: "",
  hidden: "",
  status: "active",
  options: Object.fromEntries(LINK_OPTIONS.map((o) => [o.key, false])) as Record<LinkOptionKey, boolean>,
  closing: EMPTY_CLOSING,
  kiosk: EMPTY_KIOSK,
};

/** The names of the "Hidden fields" input, in order (the API checks them). */
export function hiddenNames(typed: string): string[] {
  return typed.split(/[\s,]+/).filter(Boolean);
}

/** The form of a saved link. */
export function linkFormOf(l: Link): LinkForm {
  const s = l.settings;
  return {
    name: l.name,
    slug: l.slug,
    description: s.description ?? "",
    thankYou: s.thankYouMessage ?? "",
    redirectUrl: s.redirectUrl ?? "",
    hidden: (s.hidden_fields ?? []).join(", "),
    status: l.status,
    options: Object.fromEntries(LINK_OPTIONS.map((o) => [o.key, o.read(s)])) as Record<LinkOptionKey, boolean>,
    closing: closingFormOf(s),
    kiosk: kioskFormOf(s),
  };
}

/**
 * The request body: name, the slug when one is typed, every setting (empty texts as null, which
 * the API reads as its default) and the questions in their order.
 */
export function linkBodyOf(form: LinkForm, drafts: Draft[]) {
  return {
    name: form.name,
    ...(form.slug.trim() ? { slug: form.slug.trim() } : {}),
    settings: {
      description: form.description.trim() || null,
      thankYouMessage: form.thankYou.trim() || null,
      redirectUrl: form.redirectUrl.trim() || null,
      ...Object.assign({}, ...LINK_OPTIONS.map((o) => o.write(form.options[o.key]))),
      hidden_fields: hiddenNames(form.hidden),
      ...closingPayloadOf(form.closing),
      ...kioskPayloadOf(form.kiosk),
    } as SettingsInput,
    questions: drafts.map((d, i) => payloadOf(d, i, drafts)),
  };
}
