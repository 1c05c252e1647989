/**
 * @module bench/themes-assign
 * The server-side cost of themes per analysed answer (issue 24; docs/performance.md "Themes in
 * the product"): CPU of the analyse job's write with and without the theme work of
 * `themeOfNewAnswer` (build row counter, the question's model from memory — themes/model-cache.ts —,
 * nearest theme, the theme written with the answer), on a real SQLite file holding one question with `--answers` embedded answers and
 * `--themes` themes. Plus the embedding itself (SIF, in the worker, same request as the analysis).
 * Alternating rounds; prints medians. Asserts nothing about time.
 *
 *   npx bun bench/themes-assign.ts [--answers 10000] [--themes 20] [--n 2000] [--rounds 5]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { migrateToLatest, openDatabase } from "../src/db/client.ts";
import { createSifEmbedder } from "../src/ai/themes/embedder.ts";
import { themeOfNewAnswer } from "../src/modules/themes/engine.ts";
import { updateAnalysedAnswer } from "../src/modules/themes/repository.ts";
import { vectorBytes, vectorsBytes } from "../src/modules/themes/codec.ts";

const { values: flags } = parseArgs({
  options: {
    answers: { type: "string", default: "10000" },
    themes: { type: "string", default: "20" },
    n: { type: "string", default: "2000" },
    rounds: { type: "string", default: "5" },
  },
});
const ANSWERS = Number(flags.answers);
const THEMES = Number(flags.themes);
const N = Number(flags.n);
const ROUNDS = Number(flags.rounds);

const dir = await mkdtemp(path.join(tmpdir(), "earshot-themes-assign-"));
const db = openDatabase(path.join(dir, "earshot.db"));
await migrateToLatest(db);
const embedder = createSifEmbedder();
const now = new Date().toISOString().replace("Z", "000Z");
const ws = crypto.randomUUID();
const link = crypto.randomUUID();
const question = crypto.randomUUID();
const words = ["shipping", "price", "support", "friendly", "app", "crash", "checkout", "slow", "delivery", "refund", "login", "password", "search", "export"];
const text = (i: number) => `The ${words[i % words.length]} was ${words[(i * 7) % words.length]} and the ${words[(i * 3) % words.length]} too`;

await db
  .insertInto("workspaces")
  .values({ uuid: ws, name: "Bench", slug: "bench", plan: "enterprise", host: null, links_limit: null, requests_per_minute: null, date_created: now })
  .execute();
const responseRow = (uuid: string) => ({
  uuid,
  workspace_uuid: ws,
  link_uuid: link,
  session_id: crypto.randomUUID(),
  status: "completed" as const,
  respondent_email: null,
  date_created: now,
  date_updated: now,
  submitted_at: now,
  submitted_event_at: now,
});
/** One answer of its own response (one answer per response and question). */
const answerRow = (uuid: string, i: number) => ({
  uuid,
  response_uuid: uuid,
  question_uuid: question,
  field_key: "q",
  response_type: "text",
  question_text: "Q",
  position: 0,
  value: JSON.stringify(text(i)),
  text: text(i),
  audio_blob: null,
  audio_mime: null,
  file_blob: null,
  file_meta: null,
  transcription: null,
  transcription_status: "not_applicable" as const,
  transcription_error: null,
  duration: null,
  ai_insights: null,
  analysis_engine: null,
  analysis_status: "pending" as const,
  follow_ups: "[]",
  custom_fields: "{}",
  date_created: now,
  date_updated: now,
});
await db.transaction().execute(async (trx) => {
  for (let i = 0; i < ANSWERS; i += 500) {
    const rows = Array.from({ length: Math.min(500, ANSWERS - i) }, (_, j) => ({
      ...answerRow(crypto.randomUUID(), i + j),
      embedding: vectorBytes(embedder.embed(text(i + j))),
      embedding_engine: embedder.id,
      analysis_status: "completed" as const,
    }));
    await trx
      .insertInto("responses")
      .values(rows.map((r) => responseRow(r.uuid)))
      .execute();
    await trx.insertInto("answers").values(rows).execute();
  }
  for (let k = 0; k < THEMES; k++) {
    await trx
      .insertInto("themes")
      .values({
        uuid: crypto.randomUUID(),
        workspace_uuid: ws,
        link_uuid: link,
        question_uuid: question,
        label: `t${k}`,
        label_source: "auto",
        description: null,
        pinned: 0,
        operator: 0,
        keyphrases: "[]",
        quotes: "[]",
        examples: "[]",
        centre: vectorBytes(embedder.embed(text(k))),
        date_created: now,
        date_updated: now,
      })
      .execute();
  }
  await trx
    .insertInto("theme_builds")
    .values({
      link_uuid: link,
      question_uuid: question,
      workspace_uuid: ws,
      engine: embedder.id,
      components: vectorsBytes([embedder.embed("the and was")]),
      threshold: 0.3,
      answers_built: ANSWERS,
      answers_since: 0,
      // Held at 1 so the bench measures assignment, not a queued rebuild.
      rebuild_queued: 1,
      built_at: now,
      date_updated: now,
    })
    .execute();
});

/** CPU ms per answer of N analyse-like writes (insert + update in a transaction), with or without the theme work. */
async function round(withThemes: boolean): Promise<number> {
  const uuids = Array.from({ length: N }, () => crypto.randomUUID());
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < N; i += 500) {
      await trx
        .insertInto("responses")
        .values(uuids.slice(i, i + 500).map(responseRow))
        .execute();
      await trx
        .insertInto("answers")
        .values(uuids.slice(i, i + 500).map((u, j) => answerRow(u, i + j)))
        .execute();
    }
  });
  const vectors = uuids.map((_, i) => embedder.embed(text(i + 1)));
  const start = process.cpuUsage();
  for (const [i, uuid] of uuids.entries()) {
    await db.transaction().execute(async (trx) => {
      const patch = {
        analysis_status: "completed" as const,
        ai_insights: '{"sentiment":"neutral"}',
        ...(withThemes ? { embedding: vectorBytes(vectors[i]!), embedding_engine: embedder.id } : {}),
        date_updated: now,
      };
      // As the analyse job does (responses/processing.ts): the theme first (counting the answer,
      // the question's model from memory), then one write of the answer with its theme.
      const a = { workspaceUuid: ws, linkUuid: link, questionUuid: question };
      const theme = withThemes ? await themeOfNewAnswer(trx, a, vectors[i]!, embedder.id, db) : null;
      await updateAnalysedAnswer(trx, uuid, patch, theme);
    });
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / N;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const plain: number[] = [];
const themed: number[] = [];
await round(true); // warm-up
for (let r = 0; r < ROUNDS; r++) {
  plain.push(await round(false));
  themed.push(await round(true));
}
const t0 = process.cpuUsage();
for (let i = 0; i < N; i++) embedder.embed(text(i));
const embedMs = (process.cpuUsage(t0).user + process.cpuUsage(t0).system) / 1000 / N;
console.log(`question: ${ANSWERS} embedded answers, ${THEMES} themes; ${N} answers a round, ${ROUNDS} rounds alternating (median CPU per answer)`);
console.log(`analyse write alone:              ${median(plain).toFixed(3)} ms`);
console.log(`analyse write + theme assignment: ${median(themed).toFixed(3)} ms  (added ${(median(themed) - median(plain)).toFixed(3)} ms)`);
console.log(`SIF embedding (worker):           ${embedMs.toFixed(3)} ms`);
db.destroy();
await rm(dir, { recursive: true, force: true });
