/**
 * @module db/schema
 * Kysely table types. Column names stay inside repositories; services map rows to API objects.
 * JSON columns are stored as TEXT and parsed by the repositories. Timestamps are TEXT in the
 * API's format (`YYYY-MM-DDTHH:MM:SS.ffffffZ`), so they sort lexically.
 */
import type { Generated, Kysely, Transaction } from "kysely";

export interface WorkspaceTable {
  uuid: string;
  name: string;
  slug: string;
  plan: "free" | "pro" | "enterprise";
  /** Dedicated origin (e.g. `https://feedback.acme.lan`) or null for `{public_url}/w/{slug}`. */
  host: string | null;
  links_limit: number | null;
  requests_per_minute: number | null;
  keys_created: Generated<number>;
  /** JSON of the default retention policy (DESIGN §13; migration 2026-12-03T0500), or null/absent when none. */
  retention?: string | null;
  /** JSON array of the origins allowed to embed the intake pages (issue 29; migration 2026-12-04T0100), or null/absent when none. */
  embed_origins?: string | null;
  date_created: string;
}

export interface ApiTokenTable {
  uuid: string;
  workspace_uuid: string;
  name: string;
  key_hash: string;
  masked_key: string;
  /** Space-separated scope names. */
  scopes: string;
  date_created: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** The console user who created it (directly or through a key they created); null: the operator. */
  created_by_user_uuid: string | null;
}

export interface ApiCallCounterTable {
  workspace_uuid: string;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  calls: number;
}

export interface LinkTable {
  uuid: string;
  workspace_uuid: string;
  name: string;
  slug: string;
  status: "active" | "paused";
  settings: string;
  /** JSON `{"<language>": {name?, description?, thankYouMessage?}}` (issue 17); the column defaults to `{}`. */
  translations?: string;
  date_created: string;
  date_updated: string;
}

export interface QuestionTable {
  uuid: string;
  link_uuid: string;
  position: number;
  order: number;
  prompt: string;
  type: string;
  field_key: string;
  required: number;
  configuration: string;
  condition: string;
  enable_dynamic_probing: number;
  fallback_to_text: number;
  evaluator_config: string;
  /** JSON `{"<language>": {prompt?, options?, cards?}}` (issue 17); the column defaults to `{}`. */
  translations?: string;
  date_created: string;
  date_updated: string;
}

export interface ResponseTable {
  uuid: string;
  workspace_uuid: string;
  /** Kept after the link is deleted (no foreign key): responses outlive their link. */
  link_uuid: string;
  session_id: string;
  status: "started" | "completed";
  respondent_email: string | null;
  date_created: string;
  date_updated: string;
  submitted_at: string | null;
  /** Set once response.submitted has been queued (after the voice answers are processed). */
  submitted_event_at: string | null;
  /** When the respondent agreed to `settings.consent` (issue 25); null when not asked or not given. */
  consent_given_at?: string | null;
  /** SHA-256 (hex) of the consent text the respondent agreed to. */
  consent_text_sha256?: string | null;
  /** The hidden-field values of the intake URL, JSON object of strings (`{}` when none, the default; issue 25). Optional so that inserts may leave it out. */
  hidden?: string;
}

export interface AnswerTable {
  uuid: string;
  response_uuid: string;
  question_uuid: string;
  field_key: string;
  response_type: string;
  question_text: string;
  position: number;
  /** JSON of the typed value. */
  value: string;
  text: string | null;
  audio_blob: string | null;
  audio_mime: string | null;
  file_blob: string | null;
  /** JSON `{name, size, content_type}` or null. */
  file_meta: string | null;
  transcription: string | null;
  /** `waiting_for_model`: the ASR model is not installed; `transcription_error` says so (issue 12). */
  transcription_status: "pending" | "processing" | "waiting_for_model" | "completed" | "failed" | "not_applicable";
  transcription_error: string | null;
  duration: number | null;
  /** JSON of ai_insights or null. */
  ai_insights: string | null;
  analysis_engine: string | null;
  /**
   * Insights: `pending` until analysed, `not_applicable` for answers without free text,
   * `unsupported_language` when no installed engine knows the answer's language (issue 17).
   */
  analysis_status: "pending" | "completed" | "failed" | "not_applicable" | "unsupported_language";
  /**
   * The answer's language (issue 17): Whisper's ISO 639-1 code, or the link's tag for typed
   * answers; null (or left out on insert) when unknown.
   */
  language?: string | null;
  follow_ups: string;
  custom_fields: string;
  /** When retention dropped the recording (its transcript kept; migration 2026-12-03T0500); null otherwise. */
  audio_deleted_at?: string | null;
  /** The answer's theme vector (little-endian Float32 bytes; migration 2026-12-02T0000); null until analysed. */
  embedding?: Uint8Array | null;
  /**
   * One vector per entry of `follow_ups`, in order, concatenated (zeros for an unanswered one),
   * by the engine of `embedding` (migration 2026-12-03T0601); null until analysed or without follow-ups.
   */
  follow_up_embeddings?: Uint8Array | null;
  /** The embedder id of `embedding` (`sif-wink-100d`). */
  embedding_engine?: string | null;
  /** The answer's theme (DESIGN §12), or null. */
  theme_uuid?: string | null;
  /** `auto` (the engine placed it) or `operator` (an operator moved it: a rebuild keeps it). */
  theme_source?: "auto" | "operator" | null;
  /** Whisper's segments, JSON `[{start_s, end_s, text}]` (voice answers), or null. */
  segments?: string | null;
  /**
   * Whisper's English translation of a non-English voice answer (migration 2026-12-03T0000),
   * analysed and themed in place of the transcript; null otherwise.
   */
  translation?: string | null;
  date_created: string;
  date_updated: string;
}

/** A theme of one open question of a link (DESIGN §12; migration 2026-12-02T0000). */
export interface ThemeTable {
  uuid: string;
  workspace_uuid: string;
  link_uuid: string;
  question_uuid: string;
  label: string;
  label_source: "auto" | "operator" | "llm";
  description: string | null;
  pinned: number;
  /** 1: an operator created it, moved answers into it or merged into it (never discarded by a rebuild). */
  operator: number;
  /** JSON string[] of the build's keyphrases. */
  keyphrases: string;
  /** JSON `[{answer_uuid, text}]` from the last build. */
  quotes: string;
  /** JSON `[answer_uuid]`: an operator's example answers. */
  examples: string;
  /** Unit centre in the build's space (Float32 bytes), or null. */
  centre: Uint8Array | null;
  date_created: string;
  date_updated: string;
}

/** Build state of one question's themes. */
export interface ThemeBuildTable {
  link_uuid: string;
  question_uuid: string;
  workspace_uuid: string;
  engine: string | null;
  components: Uint8Array | null;
  threshold: number;
  answers_built: number;
  /** Analysed answers since the last build (the automatic rebuild's rule counts these). */
  answers_since: number;
  /** 1 while a rebuild job is queued or running. */
  rebuild_queued: number;
  built_at: string | null;
  date_updated: string;
  /** Raised by triggers whenever a theme of the question is added, deleted or gets a new centre (themes/model-cache.ts). */
  centres_version: Generated<number>;
}

export interface JobTable {
  id: Generated<number>;
  /**
   * `themes`: rebuild one question's themes (payload `{link_uuid, question_uuid}`); `periodic`: one
   * run of a scheduled task (payload `{task, period}`, src/jobs/scheduler.ts); `mail`: one message
   * of an invite or password reset (src/mail/).
   */
  kind: "transcribe" | "analyse" | "themes" | "periodic" | "mail";
  /** JSON payload, e.g. `{"answer_uuid": "..."}`. */
  payload: string;
  /** `waiting`: parked until something outside is fixed (the ASR model installed); no attempt is used. */
  state: "queued" | "running" | "waiting" | "done" | "failed";
  priority: Generated<number>;
  attempts: Generated<number>;
  max_attempts: Generated<number>;
  run_at: string;
  lease_until: string | null;
  last_error: string | null;
  date_created: string;
  date_updated: string;
  /** Unique across the table when set (a periodic run: `task@period`); null for every other job. */
  unique_key: Generated<string | null>;
}

export interface WebhookTable {
  uuid: string;
  workspace_uuid: string;
  /** When set, only events of this link are delivered (`on_finished.webhook_url`). */
  link_uuid: string | null;
  url: string;
  /** Space-separated event names. */
  events: string;
  enabled: number;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  disabled_reason: string | null;
  failing_since: string | null;
  last_delivery_at: string | null;
  last_delivery_status: number | null;
  date_created: string;
  date_updated: string;
  /** `webhook` (listed, managed under webhooks/) or `alert` (an alert rule's outbox target; migration 2026-12-05T0000). */
  purpose?: "webhook" | "alert";
}

/** An alert rule of a link (issue 28; src/modules/alerts; migration 2026-12-05T0000). */
export interface AlertRuleTable {
  uuid: string;
  workspace_uuid: string;
  link_uuid: string;
  name: string;
  /** JSON array of conditions (alerts/model.ts). */
  conditions: string;
  /** `any` or `all` of the conditions. */
  match: string;
  destination_kind: string;
  destination_url: string;
  matrix_room: string | null;
  /** The rule's outbox target (`webhooks.purpose = 'alert'`); its `secret` holds a Matrix token. */
  webhook_uuid: string;
  max_per_hour: number;
  /** Start of the current rate-limit hour, or null before the first message. */
  window_start: string | null;
  window_sent: number;
  /** Alerts dropped by the rate limit since the last message sent (reported in the next one). */
  suppressed: number;
  enabled: number;
  date_created: string;
  date_updated: string;
  /** The language of the rule's messages (a mail catalog language); null: English. */
  lang: string | null;
  /** 1 when the target's secret is an access token sent as `Authorization: Bearer` (ntfy); Matrix always sends it. */
  bearer: number;
}

/** A rule that fired (or was counted by its rate limit) for a response (alerts/fire.ts). */
export interface AlertFiringTable {
  rule_uuid: string;
  response_uuid: string;
  date_created: string;
}

export interface OutboxEventTable {
  /** The `webhook-id` (`msg_…`), stable across attempts. */
  uuid: string;
  workspace_uuid: string;
  type: string;
  /** The body sent; a redacted stub once its response is erased. */
  payload: string;
  /** The response a `response.*` event is about (null for `webhook.test`). */
  response_uuid: string | null;
  /** When the response was erased and this payload redacted; redelivery then answers 410. */
  erased_at: string | null;
  date_created: string;
}

export interface WebhookDeliveryTable {
  uuid: string;
  event_uuid: string;
  webhook_uuid: string;
  state: "pending" | "delivering" | "succeeded" | "failed";
  attempts: Generated<number>;
  next_attempt_at: string | null;
  lease_until: string | null;
  last_status_code: number | null;
  last_response_excerpt: string | null;
  last_duration_ms: number | null;
  last_error: string | null;
  date_created: string;
  date_updated: string;
}

export interface WebhookAttemptTable {
  uuid: string;
  delivery_uuid: string;
  attempt: number;
  status_code: number | null;
  response_excerpt: string | null;
  duration_ms: number;
  error: string | null;
  date_created: string;
}

export interface SettingTable {
  key: string;
  value: string;
}

/** One counted sign-in attempt against one key (`a:<email key>` or `ip:<address>`), PostgreSQL nodes only (src/auth/login-throttle.ts). */
export interface LoginFailureTable {
  id: string;
  key: string;
  /** When the attempt began, ms since the epoch. */
  at_ms: number;
}

/** One shared per-minute rate-limit window per key (PostgreSQL nodes; src/auth/rate-limit.ts). */
export interface RateLimitWindowTable {
  key: string;
  /** Start of the key's current window, ms since the epoch. */
  window_start_ms: number;
  /** Requests counted in that window, refused ones included. */
  count: number;
}

export interface UserTable {
  uuid: string;
  email: string;
  /** Lowercased email, unique: emails are unique case-insensitively. */
  email_key: string;
  name: string;
  /** argon2id (`Bun.password`); null until the user sets a password (reset URL). */
  password_hash: string | null;
  date_created: string;
  last_login_at: string | null;
  disabled: Generated<number>;
}

export interface MembershipTable {
  user_uuid: string;
  workspace_uuid: string;
  role: "owner" | "admin" | "member" | "viewer";
  date_created: string;
  /** The member's email digest of this workspace (issue 28): `off` by default. */
  digest: Generated<"off" | "daily" | "weekly">;
  /** The digest's language: the mail language of the request that chose it (null: English). */
  digest_lang: string | null;
}

export interface ConsoleSessionTable {
  /** SHA-256 hex of the cookie value. */
  id_hash: string;
  user_uuid: string;
  /** The workspace the session acts on (null when the user belongs to none). */
  workspace_uuid: string | null;
  csrf_token: string;
  date_created: string;
  last_seen_at: string;
  /** Absolute end (30 days after sign-in). */
  expires_at: string;
  /** Set when the session came from a workspace's own OpenID Provider: it acts on this workspace only (migration 2026-12-06T0000). */
  limited_to_workspace_uuid?: string | null;
}

/** A workspace's own OpenID Provider (issue 28; modules/oidc/workspace-provider.ts). */
export interface WorkspaceOidcProviderTable {
  workspace_uuid: string;
  issuer: string;
  client_id: string;
  /** AES-256-GCM under the installation's OIDC key (`v1.<iv>.<ciphertext+tag>`); null for a public client. */
  client_secret_encrypted: string | null;
  /** Space-separated lower-case domains; never empty. */
  allowed_domains: string;
  role_claim: string | null;
  /** JSON array of `{ value, role }`. */
  role_map: string;
  auto_join: number;
  default_role: "admin" | "member" | "viewer";
  provider_name: string;
  enabled: number;
  date_created: string;
  date_updated: string;
}

/** Who a workspace provider's `(issuer, sub)` is in Earshot. */
export interface OidcIdentityTable {
  issuer: string;
  subject: string;
  user_uuid: string;
  date_created: string;
}

/** A user's TOTP credential (issue 28; modules/two-factor). */
export interface TwoFactorCredentialTable {
  user_uuid: string;
  /** AES-256-GCM under the installation's two-factor key: `v1.<iv>.<ciphertext+tag>` (base64url). */
  secret_encrypted: string;
  /** Null while the enrolment waits for its first code. */
  enabled_at: string | null;
  /** The last accepted 30 s time step; a code of this step or earlier is refused (no replay). */
  last_used_step: number | null;
  date_created: string;
}

/** One single-use recovery code of a user (SHA-256 hex of the normalised code). */
export interface TwoFactorRecoveryCodeTable {
  code_hash: string;
  user_uuid: string;
  used_at: string | null;
  date_created: string;
}

/** A pending second-factor sign-in: SHA-256 hex of the ticket handed out after a correct password. */
export interface TwoFactorChallengeTable {
  ticket_hash: string;
  user_uuid: string;
  expires_at: string;
  used_at: string | null;
  /** The session the code starts is limited to this workspace (a workspace provider's sign-in). */
  limited_to_workspace_uuid?: string | null;
}

/** A workspace that requires its members to use two-factor authentication. */
export interface TwoFactorPolicyTable {
  workspace_uuid: string;
  required_since: string;
}

export interface OneTimeTokenTable {
  uuid: string;
  /** SHA-256 hex of the token; the token itself is only in the URL given out. */
  token_hash: string;
  purpose: "setup" | "invite" | "password_reset";
  workspace_uuid: string | null;
  user_uuid: string | null;
  email: string | null;
  role: string | null;
  date_created: string;
  expires_at: string;
  used_at: string | null;
  /** The console user who issued an invite (directly or through a key they created); else null. */
  created_by_user_uuid: string | null;
  /** Its mail (issue 28): `queued`, `sent`, `retrying`, `failed`; null when none was sent. */
  mail_state: "queued" | "sent" | "retrying" | "failed" | null;
  /** The last SMTP error of its mail (no secrets), or null. */
  mail_error: string | null;
  mail_updated_at: string | null;
}

export interface AuditLogTable {
  uuid: string;
  /** Null for events outside any workspace (a failed sign-in with an unknown email). */
  workspace_uuid: string | null;
  time: string;
  actor_type: "user" | "key" | "system";
  actor_uuid: string | null;
  actor_name: string;
  action: string;
  target_type: string | null;
  target_uuid: string | null;
  target_label: string | null;
  client_address: string | null;
}

/** An operator's correction of an answer's insights (issue 16); the latest row per answer counts. */
export interface InsightCorrectionTable {
  uuid: string;
  workspace_uuid: string;
  response_uuid: string;
  answer_uuid: string;
  /** The engine's values before any correction. */
  original_sentiment: "positive" | "neutral" | "negative";
  original_actionable: number;
  sentiment: "positive" | "neutral" | "negative";
  actionable: number;
  actor_type: "key" | "user";
  actor_uuid: string;
  actor_name: string;
  date_created: string;
}

/** A counter per workspace raised by triggers on any change of its links, responses and answers (ETags). */
export interface WorkspaceChangeTable {
  workspace_uuid: string;
  version: number;
}

/** The one-row counter of definition changes (migration 2026-12-01T0000; src/db/definition-cache.ts). */
export interface DefinitionVersionTable {
  id: number;
  version: number;
}

/** An image uploaded for image-choice cards (`POST media/images/`, issue 26). */
export interface MediaImageTable {
  uuid: string;
  workspace_uuid: string;
  /** `image/png`, `image/jpeg`, `image/webp` or `image/gif`, judged by the bytes. */
  content_type: string;
  /** Bytes. */
  size: number;
  bytes: Uint8Array;
  date_created: string;
}

/** A personal, single-use invitation to a link (issue 25; DESIGN §13; migration 2026-12-03T0300). */
export interface InvitationTable {
  uuid: string;
  workspace_uuid: string;
  link_uuid: string;
  /** JSON object of hidden-field values baked into the invitation. */
  hidden: string;
  expires_at: string | null;
  revoked_at: string | null;
  /** The response this invitation started (unique); null while unused. */
  response_uuid: string | null;
  started_at: string | null;
  submitted_at: string | null;
  date_created: string;
}

export interface Database {
  workspaces: WorkspaceTable;
  api_tokens: ApiTokenTable;
  api_call_counters: ApiCallCounterTable;
  links: LinkTable;
  questions: QuestionTable;
  responses: ResponseTable;
  answers: AnswerTable;
  jobs: JobTable;
  webhooks: WebhookTable;
  alert_rules: AlertRuleTable;
  alert_firings: AlertFiringTable;
  outbox_events: OutboxEventTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
  settings: SettingTable;
  rate_limit_windows: RateLimitWindowTable;
  login_failures: LoginFailureTable;
  users: UserTable;
  memberships: MembershipTable;
  console_sessions: ConsoleSessionTable;
  one_time_tokens: OneTimeTokenTable;
  two_factor_credentials: TwoFactorCredentialTable;
  two_factor_recovery_codes: TwoFactorRecoveryCodeTable;
  two_factor_challenges: TwoFactorChallengeTable;
  two_factor_policies: TwoFactorPolicyTable;
  workspace_oidc_providers: WorkspaceOidcProviderTable;
  oidc_identities: OidcIdentityTable;
  audit_log: AuditLogTable;
  insight_corrections: InsightCorrectionTable;
  workspace_changes: WorkspaceChangeTable;
  definition_version: DefinitionVersionTable;
  media_images: MediaImageTable;
  invitations: InvitationTable;

  themes: ThemeTable;
  theme_builds: ThemeBuildTable;
}

/**
 * What a query runs on: the database, or a transaction of it (Kysely's `Transaction` is a `Kysely`).
 * The one name for the `db` / `trx` parameter of repositories and services.
 */
export type Executor = Kysely<Database> | Transaction<Database>;
