/**
 * @module test/helpers/seed-varied
 * Seeds a link with many realistic responses straight through the database (like
 * `seed-responses.ts`): one question of each answerable type, voice and text answers with
 * transcripts and `ai_insights`, started and completed responses spread over 30 days. The
 * generator is deterministic (seeded PRNG), and every seeded row is returned so tests can compute
 * the numbers they expect from the data, independently of the SQL under test.
 */
import type { Kysely } from "kysely";
import type { Database } from "../../src/db/schema.ts";

/** The link to create (POST links/ body) so that {@link seedVariedResponses} fits it. */
export const VARIED_LINK = {
  name: "Varied feedback",
  questions: [
    { prompt: "Tell us about your visit", type: "voice", field_key: "visit" },
    { prompt: "Anything else?", type: "text", field_key: "notes" },
    {
      prompt: "Which features do you use?",
      type: "multiple_choice",
      field_key: "features",
      configuration: { options: ["Search", "Export", "Alerts", "Reports"], allow_multiple: true },
    },
    { prompt: "Which plan are you on?", type: "multiple_choice", field_key: "plan", configuration: { options: ["Free", "Pro", "Team"] } },
    { prompt: "How likely are you to recommend us?", type: "rating", field_key: "nps", configuration: { scale_type: "nps" } },
    { prompt: "Rate the support", type: "rating", field_key: "support", configuration: { scale_type: "stars", max_value: 5 } },
    { prompt: "Would you come back?", type: "yes_no", field_key: "come_back" },
    {
      prompt: "Pick a design",
      type: "image_choice",
      field_key: "design",
      configuration: {
        cards: [
          { id: "a", label: "Classic", media_url: "https://example.com/a.png" },
          { id: "b", label: "Modern", media_url: "https://example.com/b.png" },
        ],
      },
    },
    { prompt: "How many people are in your team?", type: "number", field_key: "team_size", configuration: { min: 1, max: 500 } },
    { prompt: "When did you start?", type: "date", field_key: "started_on" },
    { prompt: "Your email", type: "email", field_key: "email" },
  ],
} as const;

export type SeededAnswer = {
  uuid: string;
  question_uuid: string;
  field_key: string;
  response_type: string;
  value: unknown;
  text: string | null;
  insights: { sentiment: "positive" | "neutral" | "negative"; actionable: boolean; key_topics: string[]; summary: string } | null;
};
export type SeededResponse = {
  uuid: string;
  status: "started" | "completed";
  date_created: string;
  submitted_at: string | null;
  email: string | null;
  answers: SeededAnswer[];
};

const SAYINGS: { text: string; sentiment: "positive" | "neutral" | "negative"; actionable: boolean; topics: string[] }[] = [
  {
    text: "The checkout was slow and the page froze twice, please fix the payment step.",
    sentiment: "negative",
    actionable: true,
    topics: ["checkout", "performance"],
  },
  { text: "Support answered within minutes and solved my problem, great team.", sentiment: "positive", actionable: false, topics: ["support"] },
  { text: "Pricing is confusing, I could not tell which plan includes exports.", sentiment: "negative", actionable: true, topics: ["pricing", "exports"] },
  { text: "It works as expected, nothing special to report.", sentiment: "neutral", actionable: false, topics: [] },
  { text: "I love the new reports, they save me an hour every week.", sentiment: "positive", actionable: false, topics: ["reports"] },
  { text: "Search results are often wrong for product names with numbers.", sentiment: "negative", actionable: true, topics: ["search"] },
  { text: "The mobile app is fine but the alerts come late.", sentiment: "neutral", actionable: true, topics: ["alerts", "mobile app"] },
];

/** A small deterministic PRNG (mulberry32), so seeded data are the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const stamp = (ms: number) => new Date(ms).toISOString().replace("Z", "000Z");

/**
 * Inserts `count` responses to `link` (created from {@link VARIED_LINK}), from 2026-01-01 over 30
 * days; about one in six is `started` (fewer answers, no `submitted_at`).
 * @returns every seeded response with its answers, oldest first
 */
export async function seedVariedResponses(
  db: Kysely<Database>,
  workspaceUuid: string,
  link: { uuid: string; questions: { uuid: string; field_key: string; prompt: string; response_type: string }[] },
  count: number,
  seed = 42,
): Promise<SeededResponse[]> {
  const rand = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const base = Date.parse("2026-01-01T00:00:00Z");
  const spanMs = 30 * 86_400_000;
  const out: SeededResponse[] = [];
  const q = (key: string) => link.questions.find((x) => x.field_key === key)!;
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < count; i++) {
      const createdMs = base + Math.floor((i * spanMs) / count);
      const started = rand() < 1 / 6;
      const submittedMs = createdMs + 60_000 + Math.floor(rand() * 600_000);
      const email = rand() < 0.5 ? `person${i}@example.com` : null;
      const uuid = crypto.randomUUID();
      const answers: SeededAnswer[] = [];
      const add = (key: string, value: unknown, text: string | null, insights: SeededAnswer["insights"] = null) =>
        answers.push({ uuid: crypto.randomUUID(), question_uuid: q(key).uuid, field_key: key, response_type: q(key).response_type, value, text, insights });
      const said = pick(SAYINGS);
      const insightsOf = (s: (typeof SAYINGS)[number]) => ({
        sentiment: s.sentiment,
        actionable: s.actionable,
        key_topics: [...s.topics],
        summary: s.text.split(",")[0]!,
      });
      add("visit", null, said.text, insightsOf(said));
      if (!started || rand() < 0.5) {
        if (rand() < 0.4) {
          const more = pick(SAYINGS);
          add("notes", more.text, more.text, insightsOf(more));
        }
        const features = ["Search", "Export", "Alerts", "Reports"].filter(() => rand() < 0.4);
        if (features.length) add("features", features, features.join(", "));
        const plan = pick(["Free", "Pro", "Team"]);
        add("plan", plan, plan);
        const nps = Math.floor(rand() * 11);
        add("nps", nps, String(nps));
        const stars = 1 + Math.floor(rand() * 5);
        add("support", stars, String(stars));
        const back = rand() < 0.7;
        add("come_back", back, back ? "Yes" : "No");
        const card = pick(["a", "b"]);
        add("design", card, card === "a" ? "Classic" : "Modern");
        const team = 1 + Math.floor(rand() * 50);
        add("team_size", team, String(team));
        const day = `2025-${String(1 + Math.floor(rand() * 12)).padStart(2, "0")}-15`;
        add("started_on", day, day);
        if (email) add("email", email, email);
      }
      const status = started ? "started" : "completed";
      const created = stamp(createdMs);
      const submitted = started ? null : stamp(submittedMs);
      out.push({ uuid, status, date_created: created, submitted_at: submitted, email, answers });
      await trx
        .insertInto("responses")
        .values({
          uuid,
          workspace_uuid: workspaceUuid,
          link_uuid: link.uuid,
          session_id: crypto.randomUUID(),
          status,
          respondent_email: email,
          date_created: created,
          date_updated: submitted ?? created,
          submitted_at: submitted,
          submitted_event_at: submitted,
        })
        .execute();
      for (const [position, a] of answers.entries()) {
        const voice = a.response_type === "voice";
        await trx
          .insertInto("answers")
          .values({
            uuid: a.uuid,
            response_uuid: uuid,
            question_uuid: a.question_uuid,
            field_key: a.field_key,
            response_type: a.response_type,
            question_text: q(a.field_key).prompt,
            position,
            value: JSON.stringify(a.value),
            text: a.text,
            audio_blob: null,
            audio_mime: null,
            file_blob: null,
            file_meta: null,
            transcription: voice ? a.text : null,
            transcription_status: voice ? "completed" : "not_applicable",
            transcription_error: null,
            duration: voice ? 4.2 : null,
            ai_insights: a.insights
              ? JSON.stringify({ ...a.insights, sentiment_score: a.insights.sentiment === "positive" ? 0.6 : a.insights.sentiment === "negative" ? -0.6 : 0 })
              : null,
            analysis_engine: a.insights ? JSON.stringify({ sentiment: "seed", text: "seed", llm: false, clarity: 0.8 }) : null,
            analysis_status: a.insights ? "completed" : "not_applicable",
            follow_ups: "[]",
            custom_fields: "{}",
            date_created: created,
            date_updated: submitted ?? created,
          })
          .execute();
      }
    }
  });
  return out;
}
