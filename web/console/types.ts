/**
 * Shapes of the API records the console's link, response and dashboard pages read (DESIGN §6,
 * §7; `GET links/{uuid}/stats/`). The OpenAPI document is the source; these mirror it.
 */

import { QUESTION_TYPES, type QuestionType } from "../../src/shared/question-types.ts";

export { QUESTION_TYPES, type QuestionType };

/** Human names of the question types, for the "Question type" select's option text. */
export const TYPE_LABELS: Record<QuestionType, string> = {
  voice: "Voice",
  voice_text_fallback: "Voice or text",
  text: "Text",
  multiple_choice: "Multiple choice",
  number: "Number",
  rating: "Rating",
  image_choice: "Image choice",
  email: "Email",
  date: "Date",
  yes_no: "Yes / no",
  file_upload: "File upload",
};

export type Condition = { show_if?: "field_value"; field?: string; operator?: "less_than" | "equals" | "contains"; value?: string | number };

export type Question = {
  uuid: string;
  prompt: string;
  response_type: QuestionType;
  field_key: string;
  order: number;
  required: boolean;
  configuration: Record<string, unknown>;
  condition: Condition;
  enable_dynamic_probing: boolean;
  fallback_to_text: boolean;
  evaluator_config: { clarity_threshold?: number; max_follow_ups?: number; custom_fields?: string[] };
};

export type Settings = {
  description: string | null;
  thankYouMessage: string;
  redirectUrl: string | null;
  tts_enabled: boolean;
  live_transcription: boolean;
  language?: string | null;
  /** Issue 25: typed answers and transcripts are masked before they are stored. */
  redact_pii?: boolean;
  /** "invitation": respondents need a personal invitation (DESIGN §13). */
  access?: "open" | "invitation";
  /** Hidden fields (issue 25): names the intake URL's query may carry. */
  hidden_fields?: string[];
  /** Issue 25: no new sessions from this time (API timestamp), or after this many responses. */
  close_at?: string | null;
  response_limit?: number | null;
  /** Issue 25: what respondents agree to, and when they are asked. */
  consent?: { text: string; required_before: "recording" | "start" } | null;
  /** Issue 29: kiosk mode; the exit PIN is never returned, only whether there is one. */
  kiosk?: { enabled: boolean; idle_timeout_s: number; has_exit_pin: boolean } | null;
};

export type Link = {
  uuid: string;
  name: string;
  slug: string;
  status: "active" | "paused";
  settings: Settings;
  questions: Question[];
  response_count: number;
  public_url: string;
  date_created: string;
  date_updated: string;
};

export type Insights = {
  sentiment: "positive" | "neutral" | "negative";
  sentiment_score: number;
  actionable: boolean;
  key_topics: string[];
  summary: string;
  corrected?: { by: { name: string | null }; at: string };
};

export type Answer = {
  uuid: string;
  question_uuid: string;
  field_key: string;
  response_type: QuestionType;
  question_text: string;
  value: unknown;
  text: string | null;
  audio_url: string | null;
  transcription: string | null;
  transcription_status: "pending" | "processing" | "completed" | "failed" | "not_applicable" | "waiting_for_model";
  transcription_error?: string | null;
  duration: number | null;
  ai_insights: Insights | null;
  /** The answer's theme (open questions, DESIGN §12); absent from servers before themes. */
  theme?: { uuid: string; label: string } | null;
  /** Whisper's segments of a voice answer (DESIGN §12), or null. */
  segments?: { start_s: number; end_s: number; text: string }[] | null;
  follow_ups: { question: string; answer: string | null; audio_url?: string | null; transcription?: string | null }[];
  custom_fields: Record<string, unknown>;
  rating_details?: { value: number | null; max_value: number; scale_type: string };
  selected_card?: { card_id: string; label: string; media_url: string; media_type: string } | null;
  file?: { name: string; size: number; content_type: string; url: string } | null;
};

export type ResponseRecord = {
  uuid: string;
  link_uuid: string;
  session_id: string;
  status: "started" | "completed";
  respondent_email: string | null;
  date_created: string;
  submitted_at: string | null;
  /** The hidden-field values of the intake URL (issue 25); {} when none. */
  hidden?: Record<string, string>;
  answers: Answer[];
};

type SentimentCounts = { positive: number; neutral: number; negative: number };

export type LinkStats = {
  link_uuid: string;
  bucket: "day" | "week";
  responses: { started: number; completed: number; completion_rate: number | null };
  over_time: { date: string; started: number; completed: number }[];
  questions: {
    question_uuid: string;
    field_key: string;
    type: QuestionType;
    prompt: string;
    answered: number;
    distribution: { value: string | number | boolean; label: string; count: number }[];
    nps?: { promoters: number; passives: number; detractors: number; score: number | null };
    average?: number | null;
  }[];
  sentiment: SentimentCounts & { over_time: ({ date: string } & SentimentCounts)[] };
  topics: { topic: string; count: number }[];
  latest_actionable: {
    response_uuid: string;
    answer_uuid: string;
    field_key: string;
    text: string;
    summary: string | null;
    sentiment: "positive" | "neutral" | "negative" | null;
    key_topics: string[];
    date: string;
  }[];
};
