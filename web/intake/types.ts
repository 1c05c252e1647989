/**
 * @module web/intake/types
 * Shapes of the public intake API as the page sees them (docs/intake.md). The server is the
 * source of truth; these types only describe what the page reads.
 */
import type { QuestionType } from "../../src/shared/question-types.ts";
import type { AnswerState as ServerAnswerState, FollowUp as ServerFollowUp } from "../../src/modules/intake/model.ts";
import type { KioskSettings } from "../../src/modules/links/model.ts";

export type { QuestionType };

/** `{}` or the four fields of spec "Condition object". */
export interface Condition {
  show_if?: "field_value";
  field?: string;
  operator?: "less_than" | "equals" | "contains";
  value?: number | string | boolean;
}

export interface ImageCard {
  id: string;
  label: string;
  media_url: string;
  media_type?: "image" | "video";
}

/** Union of every type's configuration keys (spec "Question types and configuration"). */
export interface QuestionConfiguration {
  max_duration?: number;
  enable_ai_evaluation?: boolean;
  max_characters?: number;
  options?: string[];
  allow_multiple?: boolean;
  min?: number;
  max?: number;
  step?: number;
  scale_type?: "stars" | "emojis" | "nps" | "numbers";
  max_value?: number;
  cards?: ImageCard[];
  allowed_types?: string[];
  max_size_mb?: number;
}

export interface PublicQuestion {
  uuid: string;
  prompt: string;
  response_type: QuestionType;
  field_key: string;
  order: number;
  required: boolean;
  configuration: QuestionConfiguration;
  condition: Condition;
  enable_dynamic_probing?: boolean;
  fallback_to_text?: boolean;
  /** Operator translations by language (docs/api.md "Translations"); values stay the source's. */
  translations?: Record<string, QuestionTranslation>;
}

/** A question's texts in one language: prompt, option labels by option, card labels by card id. */
export interface QuestionTranslation {
  prompt?: string;
  options?: Record<string, string>;
  cards?: Record<string, string>;
}

/** A link's texts in one language. */
export interface LinkTranslation {
  name?: string;
  description?: string;
  thankYouMessage?: string;
  /** `settings.consent.text` in this language (issue 25). */
  consent?: string;
}

export interface LinkSettings {
  description?: string | null;
  thankYouMessage?: string | null;
  redirectUrl?: string | null;
  tts_enabled?: boolean | null;
  live_transcription?: boolean | null;
  /** Issue 25 (DESIGN §13): what the respondent agrees to, and before which step. */
  consent?: { text: string; required_before: "recording" | "start" } | null;
  /** Names whose values the page reads from its URL's query (issue 25). */
  hidden_fields?: string[] | null;
  /** Kiosk mode (issue 29): the page resets between respondents; the PIN itself never reaches the page. */
  kiosk?: KioskSettings | null;
}

export interface PublicLink {
  uuid: string;
  name: string;
  status: "active" | "paused";
  /** True once `close_at` passed or `response_limit` responses were submitted (DESIGN §13). */
  is_closed?: boolean;
  settings: LinkSettings;
  questions: PublicQuestion[];
  translations?: Record<string, LinkTranslation>;
}

/** What `<script id="earshot-link">` holds. */
export interface EmbeddedLinkData {
  api_base: string;
  link: PublicLink;
  /** The language the page starts in (a shipped catalog's tag) and its catalog. */
  language?: string;
  /** The translation of the operator's texts when the page's language has none, or null. */
  content_language?: string | null;
  messages?: import("./i18n.ts").Catalog;
  /** Languages the respondent can switch to (shipped catalogs). */
  languages?: string[];
  /** CSP sources allowed to frame the page: a framed page posts its events only to a parent they allow (issue 29). */
  frame_origins?: string[];
}

/** Typed answer values accepted by `PUT …/answers/{question_uuid}/`. */
export type AnswerValue = string | number | boolean | string[] | null;

/**
 * A saved answer as the intake API returns it: the output type of the server's zod schema
 * (src/modules/intake/model.ts; a type-only import, nothing of the server is bundled).
 */
export type AnswerState = ServerAnswerState & {
  /** Not in the contract's list; shown when the server sends it (file_upload). */
  file?: { name?: string; size?: number; content_type?: string } | null;
};

/** A follow-up question of an answer (dynamic probing); `answer` is null until answered. */
export type FollowUp = ServerFollowUp;

/** What `POST …/probe/` answers. */
export interface ProbeResult {
  clarity: number | null;
  follow_up: { index: number; question: string } | null;
  follow_ups: FollowUp[];
}

export interface Session {
  session_id: string;
  response_uuid: string;
  status: "started" | "completed";
  /** The respondent's consent to `settings.consent` (issue 25), null until given. */
  consent?: { given_at: string; text_sha256: string } | null;
  answers: Record<string, AnswerState>;
}

export interface SubmitResult {
  status: "completed";
  thank_you_message?: string | null;
  redirect_url?: string | null;
}
