/**
 * PII redaction wired into the product (issue 25; DESIGN §13 `settings.redact_pii`; docs/privacy.md
 * "Where redaction runs"). A link with `redact_pii: true` gets typed answers, a voice question's
 * typed fallback and a typed follow-up answer, each holding an email, a phone number, a Luhn-valid
 * card, an IBAN, a cued name and a street address; it is submitted through the public intake API,
 * the real job runner analyses it (fixture models), and `response.submitted` is delivered to a real
 * HTTPS receiver. Then four places are read and none holds a raw value while the masks are there:
 * (1) the database — every column of every table (a dump over SQL, both engines) and, on SQLite,
 * the bytes of the `.db` and `-wal` files; (2) the CSV and JSONL exports; (3) the search index —
 * a search for each raw value finds nothing (both engines) and, on SQLite, the FTS5 index's own
 * term list (fts5vocab) holds none of their words; (4) the delivered payload.
 * A link without the setting stores the same text unchanged (and the same scans find it, so they
 * can fail). The transcript path: the fixture ASR cannot speak PII, so the function the transcribe
 * job calls before its write (`storableTranscript`) is given a PII transcript and its output is
 * written with the job's own repository call; the scans then read the database and the index.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, existsSync } from "node:fs";
import { sql } from "kysely";
import { createLogger } from "../../src/logger.ts";
import { createDispatcher, type Dispatcher } from "../../src/outbox/dispatcher.ts";
import * as responsesRepo from "../../src/modules/responses/repository.ts";
import { storableTranscript } from "../../src/modules/responses/processing.ts";
import { createTestApi, type TestApi } from "../helpers/api.ts";
import { startHttpsReceiver, type HttpsReceiver } from "../helpers/https-receiver.ts";
import { HEARING, startProcessing } from "../helpers/processing.ts";
import { expectHeard } from "../helpers/hearing.ts";
import { WEBM_FIXTURE_PATH } from "../helpers/fixtures.ts";
import { onPostgres, tableNames } from "../helpers/db.ts";

const EMAIL = "quokkaredact7f3a@example.org";
const PHONE = "+44 20 7946 0958";
const CARD = "4929 7306 8415 2038";
const IBAN = "GB82 WEST 1234 5698 7654 32";
const NAME = "Zebulon Quaxworth";
const ADDRESS = "42 Marigold Lane";
const RAW = [EMAIL, PHONE, CARD, IBAN, NAME, ADDRESS];
/** The words of the raw values as a search index keeps them (hex-free or long enough not to occur by chance). */
const WORDS = ["quokkaredact7f3a", "zebulon", "quaxworth", "marigold", "gb82", "7946", "0958", "4929", "7306", "8415", "2038", "5698", "7654"];
const MASKS = ["[email]", "[phone]", "[card]", "[iban]", "[name]", "[address]"];
const said = (lead: string) =>
  `${lead} Write to ${EMAIL} or call ${PHONE}. My card ${CARD} was charged twice, refund to ${IBAN} please. My name is ${NAME} and I live at ${ADDRESS}, Bristol.`;

let api: TestApi;
let receiver: HttpsReceiver;
let dispatcher: Dispatcher;
let processing: Awaited<ReturnType<typeof startProcessing>>;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  api = await createTestApi({
    EARSHOT_WEBHOOK_ALLOW_HOSTS: "127.0.0.1,localhost",
    EARSHOT_WEBHOOK_CA_FILE: receiver.certs.caFile,
    EARSHOT_OUTBOX_POLL_MS: "50",
  });
  dispatcher = createDispatcher({ db: api.db, log: createLogger("silent"), config: api.config, timeoutMs: 5000 });
  await dispatcher.start();
  processing = await startProcessing(api, HEARING);
  const hook = await api.call("POST", `/api/v1/workspaces/${api.ws.workspace_uuid}/webhooks/`, { body: { url: receiver.url, events: ["response.submitted"] } });
  expect(hook.status).toBe(201);
});

afterAll(async () => {
  await processing.stop();
  await dispatcher.stop();
  await receiver.close();
  await api.close();
});

/** Every `table.column` whose value holds a needle (case-insensitive): the database read over SQL. */
async function columnsHolding(needles: string[]): Promise<string[]> {
  const found = new Set<string>();
  for (const name of await tableNames(api.db)) {
    for (const row of (await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(name)}`.execute(api.db)).rows) {
      for (const [column, value] of Object.entries(row)) {
        const text = typeof value === "string" ? value : value instanceof Uint8Array ? Buffer.from(value).toString("latin1") : null;
        if (text && needles.some((n) => text.toLowerCase().includes(n.toLowerCase()))) found.add(`${name}.${column}`);
      }
    }
  }
  return [...found];
}

/** Raw values present in the SQLite `.db` and `-wal` files' bytes, read as they are (no checkpoint). */
function fileHolding(needles: string[]): string[] {
  const files = [api.config.dbFile, `${api.config.dbFile}-wal`].filter(existsSync);
  const bytes = files.map((f) => readFileSync(f).toString("latin1").toLowerCase()).join("\n");
  return needles.filter((n) => bytes.includes(n.toLowerCase()));
}

/** SQLite: every term of the FTS5 index (read from its segments through an fts5vocab table). */
async function indexTerms(): Promise<Set<string>> {
  await sql`CREATE VIRTUAL TABLE IF NOT EXISTS temp.answers_fts_terms USING fts5vocab(main, 'answers_fts', 'row')`.execute(api.db);
  return new Set((await sql<{ term: string }>`SELECT term FROM temp.answers_fts_terms`.execute(api.db)).rows.map((r) => r.term));
}

async function searchCount(linkUuid: string, q: string): Promise<number> {
  const r = await api.call("GET", `/api/v1/links/${linkUuid}/responses/?status=all&search=${encodeURIComponent(q)}`);
  expect(r.status).toBe(200);
  return r.json.count;
}

/** Creates a link, answers its text question, fallback and one typed follow-up, submits; returns the link and response. */
async function submitted(name: string, settings: Record<string, unknown>) {
  const link = await api.call("POST", "/api/v1/links/", {
    body: {
      name,
      settings,
      questions: [
        { prompt: "What went wrong?", type: "text", enable_dynamic_probing: true, evaluator_config: { clarity_threshold: 1, max_follow_ups: 1 } },
        { prompt: "Tell us, or type", type: "voice_text_fallback" },
      ],
    },
  });
  expect(link.status).toBe(201);
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.json.slug}/sessions/`;
  const s = await api.call("POST", base, { body: {}, key: null });
  expect(s.status).toBe(201);
  const [textQ, fallbackQ] = link.json.questions;
  const at = `${base}${s.json.session_id}/answers/`;
  // A vague first answer gets a follow-up (a detailed one is clear enough); the answer is then
  // typed again, in full, and keeps its follow-up.
  expect((await api.call("PUT", `${at}${textQ.uuid}/`, { body: { value: "stuff, i guess" }, key: null })).status).toBe(200);
  const probe = await api.call("POST", `${at}${textQ.uuid}/probe/`, { body: {}, key: null });
  expect(probe.json.follow_up?.index).toBe(0);
  const followUp = await api.call("PUT", `${at}${textQ.uuid}/follow-ups/0/`, { body: { value: said("Follow-up.") }, key: null });
  expect(followUp.status).toBe(200);
  const typed = await api.call("PUT", `${at}${textQ.uuid}/`, { body: { value: said("Typed.") }, key: null });
  expect(typed.status).toBe(200);
  expect(typed.json.follow_ups).toHaveLength(1);
  expect((await api.call("PUT", `${at}${fallbackQ.uuid}/`, { body: { value: said("Fallback.") }, key: null })).status).toBe(200);
  expect((await api.call("POST", `${base}${s.json.session_id}/submit/`, { body: {}, key: null })).status).toBe(200);
  const responseUuid = s.json.response_uuid as string;
  const received = await receiver.waitFor((rs) => rs.some((r) => r.body.includes(responseUuid)), 60_000);
  const delivered = received.find((r) => r.body.includes(responseUuid))!;
  return { link: link.json, responseUuid, typed: typed.json, followUp: followUp.json, delivered };
}

async function exported(linkUuid: string, format: "csv" | "jsonl"): Promise<string> {
  const r = await api.call("GET", `/api/v1/links/${linkUuid}/responses/export/?format=${format}`);
  expect(r.status).toBe(200);
  return r.text;
}

describe("settings.redact_pii", () => {
  test("on: no raw value in the database, the exports, the search index or the delivered payload; the masks are there", async () => {
    const { link, responseUuid, typed, followUp, delivered } = await submitted("Redacting", { redact_pii: true });
    expect(link.settings.redact_pii).toBe(true);
    // What the respondent's page gets back is what was stored.
    expect(typed.text).toBe(
      "Typed. Write to [email] or call [phone]. My card [card] was charged twice, refund to [iban] please. My name is [name] and I live at [address], Bristol.",
    );
    expect(followUp.follow_ups[0].answer).toContain("[address]");

    // The insights ran on the masked text (the payload waits for them).
    const payload = JSON.parse(delivered.body);
    const answers = payload.data.response.answers as { ai_insights: { summary?: string; key_topics?: string[] } | null; text: string }[];
    expect(answers.every((a) => a.ai_insights && typeof a.ai_insights.summary === "string")).toBe(true);

    // (4) the delivered payload
    for (const raw of RAW) expect(delivered.body.toLowerCase()).not.toContain(raw.toLowerCase());
    // A word of a raw value, standing alone: "8415" may occur by chance inside a microsecond
    // timestamp ("…26.578415Z") or a UUID's hex group, which are not the respondent's words.
    const alone = (w: string) => new RegExp(`(?<![0-9a-z-])${w}(?![0-9a-z-])`, "i");
    for (const word of WORDS) expect({ word, found: alone(word).test(delivered.body) }).toEqual({ word, found: false });
    for (const m of MASKS) expect(delivered.body).toContain(m);

    // (2) the exports
    for (const format of ["csv", "jsonl"] as const) {
      const text = await exported(link.uuid, format);
      expect(text).toContain(responseUuid);
      for (const raw of RAW) expect(text).not.toContain(raw);
      for (const m of MASKS) expect(text).toContain(m);
    }

    // (3) the search index: the masks are found, no raw value is
    expect(await searchCount(link.uuid, "iban")).toBe(1);
    for (const raw of [...RAW, ...WORDS]) expect({ raw, found: await searchCount(link.uuid, raw) }).toEqual({ raw, found: 0 });
    if (!onPostgres) {
      const terms = await indexTerms();
      expect(["email", "phone", "card", "iban", "name", "address"].every((t) => terms.has(t))).toBe(true);
      expect(WORDS.filter((w) => terms.has(w))).toEqual([]);
    }

    // (1) the database: every column of every table (both engines), and the SQLite files' bytes
    expect(await columnsHolding([...RAW, ...WORDS.slice(0, 5)])).toEqual([]);
    expect(await columnsHolding(MASKS)).toEqual(expect.arrayContaining(["answers.text", "answers.value", "answers.follow_ups", "outbox_events.payload"]));
    if (!onPostgres) {
      expect(fileHolding([...RAW, ...WORDS.slice(0, 5)])).toEqual([]);
      await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(api.db);
      expect(fileHolding([...RAW, ...WORDS.slice(0, 5)])).toEqual([]);
    }
  }, 120_000);

  test("off (the default): the same text is stored, indexed, exported and delivered unchanged", async () => {
    const { link, responseUuid, typed, delivered } = await submitted("Plain", {});
    expect(link.settings.redact_pii).toBe(false);
    expect(typed.text).toBe(said("Typed."));
    for (const raw of RAW) expect(delivered.body).toContain(raw);
    expect(await exported(link.uuid, "jsonl")).toContain(EMAIL);
    expect(await searchCount(link.uuid, "quaxworth")).toBe(1);
    expect(await columnsHolding([NAME])).toEqual(expect.arrayContaining(["answers.text", "answers.value", "answers.follow_ups", "outbox_events.payload"]));
    if (!onPostgres) {
      expect((await indexTerms()).has("quaxworth")).toBe(true);
      expect(fileHolding([NAME])).toEqual([NAME]);
    }
    // Erase it so the next test's scans read only what it wrote.
    expect((await api.call("DELETE", `/api/v1/responses/${responseUuid}/`)).status).toBe(200);
  }, 120_000);

  test("the setting is a boolean (400 VALIDATION_ERROR otherwise) that PATCH turns on for the answers saved after", async () => {
    const bad = await api.call("POST", "/api/v1/links/", { body: { name: "Bad", settings: { redact_pii: "yes" } } });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe("VALIDATION_ERROR");
    expect(JSON.stringify(bad.json.errors)).toContain("/settings/redact_pii");
    const link = await api.call("POST", "/api/v1/links/", { body: { name: "Later", questions: [{ prompt: "Tell us", type: "text" }] } });
    const on = await api.call("PATCH", `/api/v1/links/${link.json.uuid}/`, { body: { settings: { redact_pii: true } } });
    expect(on.json.settings.redact_pii).toBe(true);
    const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.json.slug}/sessions/`;
    const s = await api.call("POST", base, { body: {}, key: null });
    const saved = await api.call("PUT", `${base}${s.json.session_id}/answers/${link.json.questions[0].uuid}/`, { body: { value: `mail ${EMAIL}` }, key: null });
    expect(saved.json.text).toBe("mail [email]");
    const off = await api.call("PATCH", `/api/v1/links/${link.json.uuid}/`, { body: { settings: { redact_pii: null } } });
    expect(off.json.settings.redact_pii).toBe(false);
  });

  test("a voice answer on a redacting link goes through the real transcribe job: the job carries the link's choice and stores the (PII-free) words as said", async () => {
    const link = await api.call("POST", "/api/v1/links/", {
      body: { name: "Spoken", settings: { redact_pii: true }, questions: [{ prompt: "Say it", type: "voice" }] },
    });
    const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.json.slug}/sessions/`;
    const s = await api.call("POST", base, { body: {}, key: null });
    const webm = new Uint8Array(readFileSync(WEBM_FIXTURE_PATH));
    const up = await api.call("POST", `${base}${s.json.session_id}/answers/${link.json.questions[0].uuid}/audio/`, {
      key: null,
      raw: webm,
      headers: { "content-type": "audio/webm" },
    });
    expect(up.status).toBe(200);
    expect((await api.call("POST", `${base}${s.json.session_id}/submit/`, { body: {}, key: null })).status).toBe(200);
    const answerUuid = (await responsesRepo.answersOf(api.db, [s.json.response_uuid]))[0]!.uuid;
    const job = await api.db
      .selectFrom("jobs")
      .select("payload")
      .where("kind", "=", "transcribe")
      .where("payload", "like", `%${answerUuid}%`)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(job.payload)).toEqual({ answer_uuid: answerUuid, redact_pii: true });
    const deadline = Date.now() + 60_000;
    let answer = await responsesRepo.findAnswer(api.db, answerUuid);
    while (answer?.transcription_status !== "completed" && Date.now() < deadline) {
      await Bun.sleep(100);
      answer = await responsesRepo.findAnswer(api.db, answerUuid);
    }
    // The recording says "hello there" (no PII): the hearing fixture's words are stored unchanged.
    expectHeard(answer?.transcription ?? "", "hello there");
    expect(
      JSON.parse(answer!.segments!)
        .map((x: { text: string }) => x.text)
        .join(" "),
    ).toBe(answer?.transcription);
  }, 90_000);

  test("a transcript of a deleted link's answer: the job's flag decides, and without one it is masked", async () => {
    const link = await api.call("POST", "/api/v1/links/", { body: { name: "Gone", questions: [{ prompt: "Say it", type: "voice" }] } });
    const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.json.slug}/sessions/`;
    const s = await api.call("POST", base, { body: {}, key: null });
    await api.call("PUT", `${base}${s.json.session_id}/answers/${link.json.questions[0].uuid}/`, { body: { value: null }, key: null });
    const answer = (await responsesRepo.answersOf(api.db, [s.json.response_uuid]))[0]!;
    const result = { text: `mail ${EMAIL}` };
    expect((await storableTranscript(api.db, answer, result, { redact_pii: false })).transcript).toBe(result.text);
    expect((await api.call("DELETE", `/api/v1/links/${link.json.uuid}/`)).status).toBe(200);
    expect((await storableTranscript(api.db, answer, result, { redact_pii: false })).transcript).toBe(result.text);
    expect((await storableTranscript(api.db, answer, result, { redact_pii: true })).transcript).toBe("mail [email]");
    expect((await storableTranscript(api.db, answer, result, {})).transcript).toBe("mail [email]");
  });

  test("the transcript path: the step before the transcribe job's write masks the transcript and Whisper's segments (a value split across two segments included)", async () => {
    // The fixture ASR says only its fixture sentence: a transcript with PII is given to the
    // function the job calls, and its result is written as the job writes it (see the header).
    const link = await api.call("POST", "/api/v1/links/", {
      body: { name: "Voice", settings: { redact_pii: true, language: "en-GB" }, questions: [{ prompt: "Say it", type: "voice" }] },
    });
    const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.json.slug}/sessions/`;
    const s = await api.call("POST", base, { body: {}, key: null });
    // A typed empty value creates the answer row (a voice question's answer; no text).
    expect((await api.call("PUT", `${base}${s.json.session_id}/answers/${link.json.questions[0].uuid}/`, { body: { value: null }, key: null })).status).toBe(
      200,
    );
    const answer = (await responsesRepo.answersOf(api.db, [s.json.response_uuid]))[0]!;
    const segments = [
      { start_s: 0, end_s: 4, text: `My name is ${NAME}, mail ${EMAIL}, call +44 20` },
      { start_s: 4, end_s: 9, text: `7946 0958. Card ${CARD}, IBAN ${IBAN}, I live at ${ADDRESS}.` },
    ];
    const stored = await storableTranscript(
      api.db,
      answer,
      { text: segments.map((x) => x.text).join(" "), language: "en", segments },
      { answer_uuid: answer.uuid, redact_pii: true },
    );
    await responsesRepo.updateAnswer(api.db, answer.uuid, {
      transcription: stored.transcript,
      text: stored.transcript,
      segments: stored.segments,
      transcription_status: "completed",
    });
    expect(stored.transcript).toBe("My name is [name], mail [email], call [phone]. Card [card], IBAN [iban], I live at [address].");
    expect(JSON.parse(stored.segments!).map((x: { text: string }) => x.text)).toEqual([
      "My name is [name], mail [email], call [phone]",
      ". Card [card], IBAN [iban], I live at [address].",
    ]);
    expect(await columnsHolding([...RAW, ...WORDS.slice(0, 5), "7946 0958"])).toEqual([]);
    expect(await searchCount(link.json.uuid, "quaxworth")).toBe(0);
    expect(await searchCount(link.json.uuid, "iban")).toBe(1);
    if (!onPostgres) {
      const terms = await indexTerms();
      expect(WORDS.filter((w) => terms.has(w))).toEqual([]);
    }
  }, 60_000);
});
