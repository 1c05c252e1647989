/**
 * @module intake/consent
 * The respondent's consent (issue 25, DESIGN §13, docs/api.md "Consent"): a link's
 * `settings.consent` `{text, required_before}` is agreed to before the microphone is used
 * (`recording`) or before the session starts (`start`). The response records when, and the SHA-256
 * of the exact text agreed to: the source text, or its translation in the language the page showed.
 */
import { createHash } from "node:crypto";
import type { Transaction } from "kysely";
import type { Clock } from "../../clock.ts";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../errors.ts";
import type { ConsentSettings } from "../links/limits-model.ts";
import * as responsesRepo from "../responses/repository.ts";

/** What a response records of its consent (API shape). */
export type ResponseConsent = { given_at: string; text_sha256: string };

type ConsentLink = { link: { settings: string; translations?: string } };

/** The link's consent settings, or null when it asks for none. */
export function consentOf(l: ConsentLink): ConsentSettings | null {
  return (JSON.parse(l.link.settings) as { consent?: ConsentSettings | null }).consent ?? null;
}

/**
 * The consent text shown in `language` (its translation, else the source text).
 * @param language a BCP 47 tag the page showed, or null for the source
 */
function shownText(l: ConsentLink, consent: ConsentSettings, language: string | null): string {
  if (!language) return consent.text;
  const translations = JSON.parse(l.link.translations || "{}") as Record<string, { consent?: string }>;
  const primary = language.split("-")[0]!;
  return translations[language]?.consent ?? translations[primary]?.consent ?? consent.text;
}

/**
 * Reads `{"language"?: string|null}` from a consent body.
 * @throws AppError VALIDATION_ERROR
 */
export function consentLanguageOf(raw: unknown): string | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== "object" || Array.isArray(raw)) throw new AppError("VALIDATION_ERROR", 'Send {"language": "…"} or {}.');
  const unknown = Object.keys(raw).filter((k) => k !== "language");
  const language = (raw as { language?: unknown }).language;
  const errors = unknown.map((k) => ({ pointer: `/${k.replaceAll("~", "~0").replaceAll("/", "~1")}`, message: "Unknown field." }));
  if (language !== undefined && language !== null && (typeof language !== "string" || !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,4}$/.test(language))) {
    errors.push({ pointer: "/language", message: "Must be a BCP 47 language tag or null." });
  }
  if (errors.length) throw new AppError("VALIDATION_ERROR", `${errors[0]!.pointer}: ${errors[0]!.message}`, { errors });
  return (language as string | null | undefined) ?? null;
}

/**
 * Records the consent on a response (in the caller's transaction).
 * @throws AppError VALIDATION_ERROR when the link asks for no consent
 */
export async function recordConsent(
  trx: Transaction<Database>,
  clock: Clock,
  l: ConsentLink,
  responseUuid: string,
  language: string | null,
): Promise<ResponseConsent> {
  const consent = consentOf(l);
  if (!consent) throw new AppError("VALIDATION_ERROR", "This link asks for no consent.");
  const given = {
    given_at: clock.nowIso(),
    text_sha256: createHash("sha256")
      .update(shownText(l, consent, language), "utf8")
      .digest("hex"),
  };
  await responsesRepo.updateResponse(trx, responseUuid, { consent_given_at: given.given_at, consent_text_sha256: given.text_sha256 });
  return given;
}

/** A response row's consent in the API's shape, or null. */
export function responseConsentOf(r: { consent_given_at?: string | null; consent_text_sha256?: string | null }): ResponseConsent | null {
  return r.consent_given_at && r.consent_text_sha256 ? { given_at: r.consent_given_at, text_sha256: r.consent_text_sha256 } : null;
}

/**
 * Refuses a recording (upload or live socket) of a session that has not consented on a link that asks.
 * @throws AppError CONSENT_REQUIRED
 */
export function requireRecordingConsent(l: ConsentLink, r: { consent_given_at?: string | null }): void {
  if (consentOf(l) && !r.consent_given_at) {
    throw new AppError("CONSENT_REQUIRED", "This link asks for the respondent's consent before recording: POST …/consent/ first.");
  }
}
