/**
 * Initial schema: workspaces, tokens, links, questions, responses, answers, durable jobs,
 * webhooks and the outbox. Frozen: never edit, add a new migration instead (the PostgreSQL
 * branches, DESIGN §11, change nothing on SQLite).
 */
import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = isPostgres(db);
  await db.schema
    .createTable("workspaces")
    .addColumn("uuid", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("slug", "text", (c) => c.notNull().unique())
    .addColumn("plan", "text", (c) => c.notNull())
    .addColumn("host", "text")
    .addColumn("links_limit", "integer")
    .addColumn("requests_per_minute", "integer")
    .addColumn("keys_created", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("date_created", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("api_tokens")
    .addColumn("uuid", "text", (c) => c.primaryKey())
    .addColumn("workspace_uuid", "text", (c) => c.notNull().references("workspaces.uuid"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("key_hash", "text", (c) => c.notNull().unique())
    .addColumn("masked_key", "text", (c) => c.notNull())
    .addColumn("scopes", "text", (c) => c.notNull())
    .addColumn("date_created", "text", (c) => c.notNull())
    .addColumn("last_used_at", "text")
    .addColumn("revoked_at", "text")
    .execute();
  await db.schema.createIndex("api_tokens_workspace").on("api_tokens").columns(["workspace_uuid", "date_created"]).execute();

  await db.schema
    .createTable("api_call_counters")
    .addColumn("workspace_uuid", "text", (c) => c.notNull())
    .addColumn("day", "text", (c) => c.notNull())
    .addColumn("calls", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("api_call_counters_pk", ["workspace_uuid", "day"])
    .execute();

  await db.schema
    .createTable("links")
    .addColumn("uuid", "text", (c) => c.primaryKey())
    .addColumn("workspace_uuid", "text", (c) => c.notNull().references("workspaces.uuid"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("slug", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("settings", "text", (c) => c.notNull())
    .addColumn("date_created", "text", (c) => c.notNull())
    .addColumn("date_updated", "text", (c) => c.notNull())
    .addUniqueConstraint("links_workspace_slug", ["workspace_uuid", "slug"])
    .execute();
  await db.schema.createIndex("links_workspace_created").on("links").columns(["workspace_uuid", "date_created"]).execute();

  await db.schema
    .createTable("questions")
    .addColumn("uuid", "text", (c) => c.primaryKey())
    .addColumn("link_uuid", "text", (c) => c.notNull().references("links.uuid").onDelete("cascade"))
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("order", "integer", (c) => c.notNull())
    .addColumn("prompt", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("field_key", "text", (c) => c.notNull())
    .addColumn("required", "integer", (c) => c.notNull())
    .addColumn("configuration", "text", (c) => c.notNull())
    .addColumn("condition", "text", (c) => c.notNull())
    .addColumn("enable_dynamic_probing", "integer", (c) => c.notNull())
    .addColumn("fallback_to_text", "integer", (c) => c.notNull())
    .addColumn("evaluator_config", "text", (c) => c.notNull())
    .addColumn("date_created", "text", (c) => c.notNull())
    .addColumn("date_updated", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("questions_link").on("questions").columns(["link_uuid", "order", "position"]).execute();

  await db.schema
    .createTable("responses")
    .addColumn("uuid", "text", (c) => c.primaryKey())
    .addColumn("workspace_uuid", "text", (c) => c.notNull())
    .addColumn("link_uuid", "text", (c) => c.notNull())
    .addColumn("session_id", "text", (c) => c.notNull().unique())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("respondent_email", "text")
    .addColumn("date_created", "text", (c) => c.notNull())
    .addColumn("date_updated", "text", (c) => c.notNull())
    .addColumn("submitted_at", "text")
    .addColumn("submitted_event_at", "text")
    .execute();
  await db.schema.createIndex("responses_link_submitted").on("responses").columns(["link_uuid", "status", "submitted_at"]).execute();
  await db.schema.createIndex("responses_workspace_created").on("responses").columns(["workspace_uuid", "date_created"]).execute();

  await db.schema
    .createTable("answers")
    .addColumn("uuid", "text", (c) => c.primaryKey())
    .addColumn("response_uuid", "text", (c) => c.notNull().references("responses.uuid").onDelete("cascade"))
    .addColumn("question_uuid", "text", (c) => c.notNull())
    .addColumn("field_key", "text", (c) => c.notNull())
    .addColumn("response_type", "text", (c) => c.notNull())
    .addColumn("question_text", "text", (c) => c.notNull())
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("text", "text")
    .addColumn("audio_blob", "text")
    .addColumn("audio_mime", "text")
    .addColumn("file_blob", "text")
    .addColumn("file_meta", "text")
    .addColumn("transcription", "text")
    .addColumn("transcription_status", "text", (c) => c.notNull())
    .addColumn("transcription_error", "text")
    .addColumn("duration", pg ? "double precision" : "real")
    .addColumn("ai_insights", "text")
    .addColumn("analysis_engine", "text")
    .addColumn("analysis_status", "text", (c) => c.notNull().defaultTo("not_applicable"))
    .addColumn("follow_ups", "text", (c) => c.notNull())
    .addColumn("custom_fields", "text", (c) => c.notNull())
    .addColumn("date_created", "text", (c) => c.notNull())
    .addColumn("date_updated", "text", (c) => c.notNull())
    .addUniqueConstraint("answers_response_question", ["response_uuid", "question_uuid"])
    .execute();

  await db.schema
    .createTable("jobs")
    .addColumn("id", pg ? "bigint" : "integer", (c) => (pg ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement()))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("priority", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("max_attempts", "integer", (c) => c.notNull().defaultTo(5))
    .addColumn("run_at", "text", (c) => c.notNull())
    .addColumn("lease_until", "text")
    .addColumn("last_error", "text")
    .addColumn("date_created", "text", (c) => c.notNull())
    .addColumn("date_updated", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("jobs_due").on("jobs").columns(["state", "priority", "run_at"]).execute();

  await db.schema
    .createTable("webhooks")
    .addColumn("uuid", "text", (c) => c.primaryKey())
    .addColumn("workspace_uuid", "text", (c) => c.notNull().references("workspaces.uuid"))
    .addColumn("link_uuid", "text")
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("events", "text", (c) => c.notNull())
    .addColumn("enabled", "integer", (c) => c.notNull())
    .addColumn("secret", "text", (c) => c.notNull())
    .addColumn("previous_secret", "text")
    .addColumn("previous_secret_expires_at", "text")
    .addColumn("disabled_reason", "text")
    .addColumn("failing_since", "text")
    .addColumn("last_delivery_at", "text")
    .addColumn("last_delivery_status", "integer")
    .addColumn("date_created", "text", (c) => c.notNull())
    .addColumn("date_updated", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("webhooks_workspace").on("webhooks").columns(["workspace_uuid", "date_created"]).execute();

  await db.schema
    .createTable("outbox_events")
    .addColumn("uuid", "text", (c) => c.primaryKey())
    .addColumn("workspace_uuid", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("date_created", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("uuid", "text", (c) => c.primaryKey())
    .addColumn("event_uuid", "text", (c) => c.notNull().references("outbox_events.uuid").onDelete("cascade"))
    .addColumn("webhook_uuid", "text", (c) => c.notNull().references("webhooks.uuid").onDelete("cascade"))
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "text")
    .addColumn("lease_until", "text")
    .addColumn("last_status_code", "integer")
    .addColumn("last_response_excerpt", "text")
    .addColumn("last_duration_ms", "integer")
    .addColumn("last_error", "text")
    .addColumn("date_created", "text", (c) => c.notNull())
    .addColumn("date_updated", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("webhook_deliveries_due").on("webhook_deliveries").columns(["state", "next_attempt_at"]).execute();
  await db.schema.createIndex("webhook_deliveries_webhook").on("webhook_deliveries").columns(["webhook_uuid", "date_created"]).execute();

  await db.schema
    .createTable("webhook_attempts")
    .addColumn("uuid", "text", (c) => c.primaryKey())
    .addColumn("delivery_uuid", "text", (c) => c.notNull().references("webhook_deliveries.uuid").onDelete("cascade"))
    .addColumn("attempt", "integer", (c) => c.notNull())
    .addColumn("status_code", "integer")
    .addColumn("response_excerpt", "text")
    .addColumn("duration_ms", "integer", (c) => c.notNull())
    .addColumn("error", "text")
    .addColumn("date_created", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("settings")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .execute();

  // Full-text search over typed text and transcripts (DESIGN §7), one row per answer, kept in
  // step by triggers so no code path can forget it.
  if (pg) return createPostgresSearch(db);
  await sql`CREATE VIRTUAL TABLE answers_fts USING fts5(body, answer_uuid UNINDEXED, response_uuid UNINDEXED, tokenize = 'unicode61 remove_diacritics 2')`.execute(
    db,
  );
  await sql`CREATE TRIGGER answers_fts_ai AFTER INSERT ON answers BEGIN
    INSERT INTO answers_fts(body, answer_uuid, response_uuid)
    VALUES (coalesce(new.text, '') || ' ' || coalesce(new.transcription, ''), new.uuid, new.response_uuid);
  END`.execute(db);
  await sql`CREATE TRIGGER answers_fts_au AFTER UPDATE OF text, transcription ON answers BEGIN
    DELETE FROM answers_fts WHERE answer_uuid = old.uuid;
    INSERT INTO answers_fts(body, answer_uuid, response_uuid)
    VALUES (coalesce(new.text, '') || ' ' || coalesce(new.transcription, ''), new.uuid, new.response_uuid);
  END`.execute(db);
  await sql`CREATE TRIGGER answers_fts_ad AFTER DELETE ON answers BEGIN
    DELETE FROM answers_fts WHERE answer_uuid = old.uuid;
  END`.execute(db);
}

/**
 * PostgreSQL's counterpart of `answers_fts` (docs/decisions/postgres.md "Search"): a `tsvector` per
 * answer in `answers_search` (GIN), written by a trigger, with the text search configuration
 * `earshot_search` — `simple` (lower case, no stemming, no stop words) after `unaccent` when the
 * extension can be had, as FTS5's `unicode61 remove_diacritics 2` does. ASCII punctuation becomes
 * a space first, so `a@b.com` or `e-mail` are separate words as in FTS5. `db/search.ts` queries it.
 */
async function createPostgresSearch(db: Kysely<unknown>): Promise<void> {
  await sql`DO $$ BEGIN CREATE EXTENSION IF NOT EXISTS unaccent; EXCEPTION WHEN others THEN NULL; END $$`.execute(db);
  await sql`CREATE TEXT SEARCH CONFIGURATION earshot_search (COPY = pg_catalog.simple)`.execute(db);
  await sql`DO $$ BEGIN
    IF EXISTS (SELECT 1 FROM pg_ts_dict WHERE dictname = 'unaccent') THEN
      ALTER TEXT SEARCH CONFIGURATION earshot_search ALTER MAPPING
        FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part, numword, numhword, hword_numpart WITH unaccent, simple;
    END IF;
  END $$`.execute(db);
  await sql`CREATE TABLE answers_search (
    answer_uuid text PRIMARY KEY REFERENCES answers(uuid) ON DELETE CASCADE,
    response_uuid text NOT NULL,
    body tsvector NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX answers_search_body ON answers_search USING gin (body)`.execute(db);
  await sql`CREATE FUNCTION answers_search_sync() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO answers_search (answer_uuid, response_uuid, body)
    VALUES (NEW.uuid, NEW.response_uuid, to_tsvector('earshot_search',
      regexp_replace(coalesce(NEW.text, '') || ' ' || coalesce(NEW.transcription, ''), '[\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]+', ' ', 'g')))
    ON CONFLICT (answer_uuid) DO UPDATE SET response_uuid = EXCLUDED.response_uuid, body = EXCLUDED.body;
    RETURN NULL;
  END $$`.execute(db);
  await sql`CREATE TRIGGER answers_search_ai AFTER INSERT ON answers FOR EACH ROW EXECUTE FUNCTION answers_search_sync()`.execute(db);
  await sql`CREATE TRIGGER answers_search_au AFTER UPDATE OF text, transcription ON answers FOR EACH ROW EXECUTE FUNCTION answers_search_sync()`.execute(db);
}
