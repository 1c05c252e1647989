/**
 * Words said only in a follow-up answer are found by the inbox search, and the CSV export carries
 * each open question's follow-ups and insights (issue 26), over real HTTP against a server process
 * on the test engine (FTS5 on SQLite, tsvector on PostgreSQL). The search index of rows written
 * before the migration is backfilled (migration 2026-12-02T0100-search-follow-ups).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parse } from "csv-parse/sync";
import { sql } from "kysely";
import { matchingResponseUuids } from "../../src/db/search.ts";
import { up as searchFollowUps } from "../../src/db/migrations/2026-12-02T0100-search-follow-ups.ts";
import { onPostgres, openTestDatabase, dropTestDatabase } from "../helpers/db.ts";
import { startServer, type RunningServer } from "../helpers/process.ts";
import { api, createWorkspace, makeDataDir, removeDir } from "../e2e/voice-flow.ts";

const PROMPT = "What could we do better?";
const FOLLOW_UP_ANSWER = "The Zanzibarquux export crashed twice";

let dataDir: string;
let server: RunningServer;
let apiKey: string;
let link: any;

beforeAll(async () => {
  dataDir = await makeDataDir();
  apiKey = (await createWorkspace(dataDir)).api_key;
  server = await startServer({ dataDir });
  link = await api(server, apiKey, "POST", "links/", {
    name: "Follow-ups",
    questions: [
      { prompt: PROMPT, type: "text", required: true, enable_dynamic_probing: true, evaluator_config: { clarity_threshold: 0.99, max_follow_ups: 1 } },
      { prompt: "How many seats?", type: "number", required: false },
    ],
  });
  // A respondent over the public intake API: a vague answer, its follow-up answered by text.
  const base = `${server.baseUrl}/api/v1/intake/${link.public_url.split("/").at(-3)}/${link.slug}`;
  const intake = async (method: string, p: string, body: unknown) => {
    const res = await fetch(`${base}/${p}`, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${p} → ${res.status} ${await res.text()}`);
    return res.json() as Promise<any>;
  };
  const sid = (await intake("POST", "sessions/", {})).session_id;
  const qid = link.questions[0].uuid;
  await intake("PUT", `sessions/${sid}/answers/${qid}/`, { value: "stuff" });
  await intake("PUT", `sessions/${sid}/answers/${link.questions[1].uuid}/`, { value: 12 });
  const probe = await intake("POST", `sessions/${sid}/answers/${qid}/probe/`, {});
  expect(probe.follow_up?.index).toBe(0);
  await intake("PUT", `sessions/${sid}/answers/${qid}/follow-ups/0/`, { value: FOLLOW_UP_ANSWER });
  await intake("POST", `sessions/${sid}/submit/`, {});
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await dropTestDatabase(dataDir);
  await removeDir(dataDir);
});

describe("follow-up answers in search and CSV", () => {
  test("searching for a word said only in a follow-up finds the response (inbox and link list)", async () => {
    const inbox = await api(server, apiKey, "GET", "responses/?search=zanzibarq");
    expect(inbox.count).toBe(1);
    const own = await api(server, apiKey, "GET", `links/${link.uuid}/responses/?search=zanzibarquux%20crashed`);
    expect(own.count).toBe(1);
    expect((await api(server, apiKey, "GET", "responses/?search=zanzibarquux%20nowhere")).count).toBe(0);
  });

  test("the CSV export has follow-up and insight columns for the open question only", async () => {
    // Insights come from the analysis job: wait for it (the fixture sentiment model).
    const deadline = Date.now() + 60_000;
    while ((await api(server, apiKey, "GET", `links/${link.uuid}/responses/`)).results[0].answers[0].analysis_status === "pending") {
      if (Date.now() > deadline) throw new Error("analysis did not finish");
      await Bun.sleep(200);
    }
    const record = (await api(server, apiKey, "GET", `links/${link.uuid}/responses/`)).results[0];
    const insights = record.answers.find((a: any) => a.question_text === PROMPT).ai_insights;
    for (const url of [`links/${link.uuid}/responses/export/?format=csv`, "responses/export/?format=csv"]) {
      const res = await fetch(`${server.baseUrl}/api/v1/${url}`, { headers: { Authorization: `Bearer ${apiKey}` } });
      expect(res.status).toBe(200);
      const [header, row] = parse(await res.text()) as string[][];
      const key = link.questions[0].field_key;
      const at = (name: string) => header!.indexOf(name);
      expect(header!.slice(at(key), at(key) + 8)).toEqual([
        key,
        `${key}.translation`,
        `${key}.theme`,
        `${key}.follow_ups`,
        `${key}.sentiment`,
        `${key}.actionable`,
        `${key}.topics`,
        `${key}.summary`,
      ]);
      expect(header!.filter((h) => h.startsWith(`${link.questions[1].field_key}.`))).toEqual([]);
      const question = record.answers[0].follow_ups[0].question;
      expect(row![at(`${key}.follow_ups`)]).toBe(`Q: ${question}\nA: ${FOLLOW_UP_ANSWER}`);
      expect(row![at(`${key}.sentiment`)]).toBe(insights.sentiment);
      expect(row![at(`${key}.actionable`)]).toBe(String(insights.actionable));
      expect(row![at(`${key}.topics`)]).toBe(insights.key_topics.join("; "));
      expect(row![at(`${key}.summary`)]).toBe(insights.summary);
      expect(row![at(link.questions[1].field_key)]).toBe("12");
    }
  });
});

test("the migration backfills the index of answers written before it, and later follow-up edits are indexed", async () => {
  const dir = await makeDataDir();
  const db = await openTestDatabase(dir);
  try {
    const now = "2026-11-28T03:00:00.000000Z";
    await sql`INSERT INTO responses (uuid, workspace_uuid, link_uuid, session_id, status, date_created, date_updated)
      VALUES ('r1', 'ws', 'link', 'ses_r1', 'started', ${now}, ${now})`.execute(db);
    const followUps = JSON.stringify([{ question: "Why?", answer: null, transcription: "Quibbleflonk said aloud" }]);
    await sql`INSERT INTO answers (uuid, response_uuid, question_uuid, field_key, response_type, question_text, position, value, text,
        transcription_status, follow_ups, custom_fields, date_created, date_updated)
      VALUES ('a1', 'r1', 'q1', 'f', 'text', 'Q', 0, '"meh"', 'meh', 'not_applicable', ${followUps}, '{}', ${now}, ${now})`.execute(db);
    const found = async (words: string) =>
      (await db.selectFrom("responses").select("uuid").where("uuid", "in", matchingResponseUuids(db, words)!).execute()).length;
    expect(await found("quibbleflonk")).toBe(1);
    // The index as it was before the migration: typed text and transcript only.
    if (onPostgres) await sql`UPDATE answers_search SET body = to_tsvector('earshot_search', 'meh')`.execute(db);
    else {
      await sql`INSERT INTO answers_fts(answers_fts) VALUES ('delete-all')`.execute(db);
      await sql`INSERT INTO answers_fts(rowid, body, response_uuid) SELECT rowid, 'meh ', response_uuid FROM answers`.execute(db);
    }
    expect(await found("quibbleflonk")).toBe(0);
    await searchFollowUps(db);
    expect(await found("quibbleflonk")).toBe(1);
    expect(await found("meh")).toBe(1);
    // A follow-up answered later, then the answer erased: the index follows.
    const next = JSON.stringify([{ question: "Why?", answer: "Wobbleglint typed", transcription: null }]);
    await sql`UPDATE answers SET follow_ups = ${next} WHERE uuid = 'a1'`.execute(db);
    expect(await found("quibbleflonk")).toBe(0);
    expect(await found("wobbleglint")).toBe(1);
    await sql`DELETE FROM answers WHERE uuid = 'a1'`.execute(db);
    expect(await found("wobbleglint")).toBe(0);
    expect(await found("meh")).toBe(0);
  } finally {
    await db.destroy();
    await dropTestDatabase(dir);
    await removeDir(dir);
  }
});
