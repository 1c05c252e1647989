/**
 * Themes in the product (DESIGN §12, issue 24), on the real app and the real worker (fixture
 * models): a link's typed answers are analysed by the job runner, each gets a vector and a theme,
 * rebuilds find themes with labels and quotes, an operator's codebook edits survive rebuilds, the
 * responses filter and the export carry themes, every change is audited, scopes and errors hold.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { startProcessing, waitFor } from "../../../test/helpers/processing.ts";
import { WEBM_FIXTURE_PATH } from "../../../test/helpers/fixtures.ts";
import { APP, SHIPPING, SUPPORT } from "../../../test/helpers/topic-answers.ts";

// Three things people say, in varied words (test/helpers/topic-answers.ts), plus a few that fit none.
const NOISE = ["Purple.", "No comment."];
const ANSWERS = [...SHIPPING, ...SUPPORT, ...APP, ...NOISE];

let api: TestApi;
let stopProcessing: () => Promise<void>;
let link: any;
let textQ: string;
let voiceQ: string;
let ratingQ: string;
const themesUrl = () => `/api/v1/links/${link.uuid}/themes/`;
let reader: string;

async function submit(base: string, question: string, value: string): Promise<string> {
  const sid = (await api.call("POST", `${base}/sessions/`, { key: null, body: {} })).json.session_id as string;
  expect((await api.call("PUT", `${base}/sessions/${sid}/answers/${question}/`, { key: null, body: { value } })).status).toBe(200);
  expect((await api.call("POST", `${base}/sessions/${sid}/submit/`, { key: null, body: {} })).status).toBe(200);
  return sid;
}

async function waitReady(): Promise<any> {
  return waitFor(
    async () => {
      const s = (await api.call("GET", `${themesUrl()}status/`)).json;
      return s.state === "ready" && s.answers_pending === 0 && s.built_at ? s : null;
    },
    60_000,
    "themes ready",
  );
}

async function themes(): Promise<any[]> {
  const r = await api.call("GET", `${themesUrl()}?page_size=100&question=${textQ}`);
  expect(r.status).toBe(200);
  return r.json.results;
}

const answerRows = () =>
  api.db.selectFrom("answers").select(["uuid", "text", "theme_uuid", "theme_source", "embedding", "question_uuid", "response_uuid"]).execute();

beforeAll(async () => {
  api = await createTestApi({ EARSHOT_INTAKE_SESSIONS_PER_MINUTE: "0" });
  stopProcessing = (await startProcessing(api)).stop;
  const r = await api.call("POST", "/api/v1/links/", {
    body: {
      name: "Checkout feedback",
      questions: [
        { prompt: "What should we improve?", type: "text", field_key: "improve" },
        { prompt: "Tell us more", type: "voice", field_key: "voice_note", required: false },
        { prompt: "Rate us", type: "rating", field_key: "stars", required: false },
      ],
    },
  });
  expect(r.status).toBe(201);
  link = r.json;
  [textQ, voiceQ, ratingQ] = link.questions.map((q: any) => q.uuid);
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;
  for (const text of ANSWERS) await submit(base, textQ, text);
  // Three voice answers (the fixture Whisper transcribes each as the same sentence).
  const webm = new Uint8Array(fs.readFileSync(WEBM_FIXTURE_PATH));
  for (let i = 0; i < 3; i++) {
    const sid = (await api.call("POST", `${base}/sessions/`, { key: null, body: {} })).json.session_id as string;
    const up = await api.call("POST", `${base}/sessions/${sid}/answers/${voiceQ}/audio/`, { key: null, raw: webm, headers: { "content-type": "audio/webm" } });
    expect(up.status).toBeLessThan(300);
    await api.call("PUT", `${base}/sessions/${sid}/answers/${textQ}/`, { key: null, body: { value: "Nothing else." } });
    expect((await api.call("POST", `${base}/sessions/${sid}/submit/`, { key: null, body: {} })).status).toBe(200);
  }
  reader = (await api.call("POST", "/api/v1/tokens/", { body: { name: "reader", scopes: ["responses:read"] } })).json.key;
}, 120_000);

afterAll(async () => {
  await stopProcessing();
  await api.close();
});

describe("themes of a link", () => {
  test("every analysed answer stores its vector; the rebuilds after 10 and 20 answers ran by themselves", async () => {
    await waitReady();
    const rows = (await answerRows()).filter((a) => a.question_uuid === textQ);
    expect(rows.length).toBe(ANSWERS.length + 3);
    for (const a of rows) expect(a.embedding?.byteLength).toBe(400);
    const build = await api.db.selectFrom("theme_builds").selectAll().where("question_uuid", "=", textQ).executeTakeFirstOrThrow();
    expect(build.built_at).not.toBeNull();
    expect(build.answers_built).toBeGreaterThanOrEqual(20);
  }, 90_000);

  test("a rebuild on request answers 202; themes come largest first with labels, sizes, shares, sentiment, weeks and quotes", async () => {
    const r = await api.call("POST", `${themesUrl()}rebuild/`, { body: {} });
    expect(r.status).toBe(202);
    expect(["building", "ready"]).toContain(r.json.state);
    const status = await waitReady();
    const list = await themes();
    expect(list.length).toBeGreaterThanOrEqual(3);
    expect(status.answers_total).toBe(ANSWERS.length + 3 + 3); // text answers + the voice answers
    expect(status.answers_assigned).toBe((await answerRows()).filter((a) => a.theme_uuid).length);
    const sizes = list.map((t) => t.size);
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
    for (const t of list) {
      expect(t.label.length).toBeGreaterThan(0);
      expect(t.label_source).toBe("auto");
      expect(t.share).toBeGreaterThan(0);
      expect(t.share).toBeLessThanOrEqual(1);
      const s = t.sentiment;
      expect(s.positive + s.neutral + s.negative).toBe(t.size);
      expect(t.weekly.reduce((n: number, w: any) => n + w.count, 0)).toBe(t.size);
      // Near-duplicate sentences are one quote ("Nothing else." three times), so only varied themes have 2–3.
      expect(t.quotes.length).toBeGreaterThanOrEqual(1);
      expect(t.quotes.length).toBeLessThanOrEqual(3);
      for (const q of t.quotes) expect([q.start_s, q.end_s, q.audio_url]).toEqual([null, null, null]);
    }
    // The shipping answers mostly share one theme, and it is not the support answers' theme.
    const rows = await answerRows();
    const themeOf = (text: string) => rows.find((a) => a.text === text)?.theme_uuid ?? null;
    const mode = (texts: string[]) => {
      const c = new Map<string, number>();
      for (const t of texts) if (themeOf(t)) c.set(themeOf(t)!, (c.get(themeOf(t)!) ?? 0) + 1);
      return [...c.entries()].sort((a, b) => b[1] - a[1])[0]!;
    };
    const [shipping, nShipping] = mode(SHIPPING);
    const [support, nSupport] = mode(SUPPORT);
    expect(nShipping).toBeGreaterThanOrEqual(6);
    expect(list.find((t) => t.uuid === shipping).quotes.length).toBeGreaterThanOrEqual(2);
    if (process.env.THEMES_PRINT)
      console.log(
        JSON.stringify(
          list.map((t) => ({ label: t.label, size: t.size, quotes: t.quotes.map((q: any) => q.text) })),
          null,
          1,
        ),
      );
    expect(nSupport).toBeGreaterThanOrEqual(6);
    expect(shipping).not.toBe(support);
    const one = await api.call("GET", `${themesUrl()}${shipping}/`);
    expect(one.status).toBe(200);
    expect(one.json.uuid).toBe(shipping);
  }, 90_000);

  test("responses carry theme, segments and translation; ?theme= filters; the export has a theme column", async () => {
    const [top] = await themes();
    const filtered = await api.call("GET", `/api/v1/links/${link.uuid}/responses/?theme=${top.uuid}&page_size=100`);
    expect(filtered.status).toBe(200);
    expect(filtered.json.count).toBe(top.size);
    for (const r of filtered.json.results) {
      const a = r.answers.find((x: any) => x.question_uuid === textQ);
      expect(a.theme).toEqual({ uuid: top.uuid, label: top.label });
      expect(a.segments).toBeNull();
      expect(a.translation).toBeNull();
    }
    const all = (await api.call("GET", `/api/v1/links/${link.uuid}/responses/?page_size=100`)).json.results;
    const voice = all.flatMap((r: any) => r.answers).filter((a: any) => a.question_uuid === voiceQ);
    expect(voice).toHaveLength(3);
    for (const a of voice) {
      expect(a.segments.length).toBeGreaterThanOrEqual(1);
      expect(a.segments[0].start_s).toBeGreaterThanOrEqual(0);
      expect(a.segments.at(-1).end_s).toBeLessThanOrEqual(a.duration + 0.01);
      expect(a.segments.map((s: any) => s.text).join(" ")).toBe(a.transcription);
    }
    const csv = await api.call("GET", `/api/v1/links/${link.uuid}/responses/export/?format=csv`);
    const [header, ...lines] = csv.text.trim().split("\n");
    const cols = header!.split(",");
    expect(cols.filter((c) => c.endsWith(".theme"))).toEqual(["improve.theme", "voice_note.theme"]);
    expect(cols).not.toContain("stars.theme");
    const themed = lines.filter((l) => l.includes(top.label));
    expect(themed.length).toBeGreaterThanOrEqual(top.size);
  });

  test("operator edits (rename, new theme with examples, merge, move, delete) survive a rebuild", async () => {
    const before = await themes();
    const [a, b, c] = before;
    const rows = await answerRows();
    // Rename pins the label, and the responses' ETag changes (their answers carry the label).
    const listUrl = `/api/v1/links/${link.uuid}/responses/?theme=${a.uuid}`;
    const etag = (await api.call("GET", listUrl)).headers.get("etag")!;
    const renamed = await api.call("PATCH", `${themesUrl()}${a.uuid}/`, { body: { label: "Shipping and delivery costs" } });
    const fresh = await api.call("GET", listUrl, { headers: { "if-none-match": etag } });
    expect(fresh.status).toBe(200);
    expect(fresh.json.results[0].answers.find((x: any) => x.question_uuid === textQ).theme.label).toBe("Shipping and delivery costs");
    expect(renamed.status).toBe(200);
    expect([renamed.json.label, renamed.json.label_source, renamed.json.pinned]).toEqual(["Shipping and delivery costs", "operator", true]);
    // A new theme from two noise answers as examples.
    const examples = rows.filter((x) => NOISE.includes(x.text ?? "")).map((x) => x.uuid);
    const created = await api.call("POST", themesUrl(), { body: { question_uuid: textQ, label: "Off topic", description: "Nothing to act on", examples } });
    expect(created.status).toBe(201);
    expect(created.json.size).toBe(2);
    // Merge c into b (their sizes as they read now: the examples may have come from them).
    const size = async (t: any) => (await api.call("GET", `${themesUrl()}${t.uuid}/`)).json.size as number;
    const [sizeB, sizeC] = [await size(b), await size(c)];
    const merged = await api.call("POST", `${themesUrl()}${c.uuid}/merge/`, { body: { into: b.uuid } });
    expect(merged.status).toBe(200);
    expect(merged.json.uuid).toBe(b.uuid);
    expect(merged.json.size).toBe(sizeB + sizeC);
    expect((await api.call("GET", `${themesUrl()}${c.uuid}/`)).json.code).toBe("THEME_NOT_FOUND");
    // Move one of b's answers to a (the insights correction with theme_uuid).
    const moved = rows.find((x) => x.theme_uuid === b.uuid && !examples.includes(x.uuid))!;
    const mv = await api.call("PATCH", `/api/v1/responses/${moved.response_uuid}/answers/${moved.uuid}/insights/`, { body: { theme_uuid: a.uuid } });
    expect(mv.status).toBe(200);
    expect(mv.json.theme).toEqual({ uuid: a.uuid, label: "Shipping and delivery costs" });
    // A temporary theme, deleted: its example answer becomes (and stays) unassigned.
    const loner = rows.find((x) => x.theme_uuid === a.uuid && x.uuid !== moved.uuid && !examples.includes(x.uuid))!;
    const temp = (await api.call("POST", themesUrl(), { body: { question_uuid: textQ, label: "Temporary", examples: [loner.uuid] } })).json;
    const del = await api.call("DELETE", `${themesUrl()}${temp.uuid}/`);
    expect(del.status).toBe(200);
    expect(del.json.message).toBeString();

    expect((await api.call("POST", `${themesUrl()}rebuild/`, { body: {} })).status).toBe(202);
    await waitReady();
    const after = new Map((await themes()).map((t) => [t.uuid, t]));
    expect(after.get(a.uuid)?.label).toBe("Shipping and delivery costs");
    expect(after.get(a.uuid)?.pinned).toBe(true);
    expect(after.get(created.json.uuid)?.label).toBe("Off topic");
    expect(after.get(b.uuid)).toBeDefined();
    expect(after.has(c.uuid)).toBe(false);
    expect(after.has(temp.uuid)).toBe(false);
    const now = await answerRows();
    for (const e of examples) expect(now.find((x) => x.uuid === e)!.theme_uuid).toBe(created.json.uuid);
    expect(now.find((x) => x.uuid === moved.uuid)!.theme_uuid).toBe(a.uuid);
    expect(now.find((x) => x.uuid === loner.uuid)!.theme_uuid).toBeNull();
  }, 90_000);

  test("a voice answer's quote carries its span and a signed audio URL that plays it", async () => {
    const voice = (await answerRows()).filter((x) => x.question_uuid === voiceQ).map((x) => x.uuid);
    const created = await api.call("POST", themesUrl(), { body: { question_uuid: voiceQ, label: "Voice notes", examples: voice } });
    expect(created.status).toBe(201);
    expect((await api.call("POST", `${themesUrl()}rebuild/`, { body: {} })).status).toBe(202);
    await waitReady();
    const t = (await api.call("GET", `${themesUrl()}${created.json.uuid}/`)).json;
    expect(t.quotes.length).toBeGreaterThanOrEqual(1);
    for (const q of t.quotes) {
      expect(q.start_s).toBeGreaterThanOrEqual(0);
      expect(q.end_s).toBeGreaterThan(q.start_s);
      expect(q.audio_url).toContain(`#t=${q.start_s},${q.end_s}`);
      const audio = await api.call("GET", q.audio_url.replace("http://localhost", "").split("#")[0], { key: null });
      expect(audio.status).toBe(200);
    }
    // Themes of two questions are not merged, nor is an answer moved across questions.
    const textTheme = (await themes())[0];
    const across = await api.call("POST", `${themesUrl()}${textTheme.uuid}/merge/`, { body: { into: created.json.uuid } });
    expect([across.status, across.json.code]).toEqual([422, "THEME_QUESTION_MISMATCH"]);
    const textAnswer = (await answerRows()).find((x) => x.question_uuid === textQ)!;
    const mv = await api.call("PATCH", `/api/v1/responses/${textAnswer.response_uuid}/answers/${textAnswer.uuid}/insights/`, {
      body: { theme_uuid: created.json.uuid },
    });
    expect([mv.status, mv.json.code]).toEqual([422, "THEME_QUESTION_MISMATCH"]);
  }, 90_000);

  test("the summary compares the period with the one before, as JSON and Markdown", async () => {
    const r = await api.call("GET", `/api/v1/links/${link.uuid}/summary/`);
    expect(r.status).toBe(200);
    const s = r.json;
    expect(s.responses).toEqual({ count: ANSWERS.length + 3, previous_count: 0 });
    expect(s.sentiment.positive + s.sentiment.neutral + s.sentiment.negative).toBe(ANSWERS.length + 6);
    expect(s.sentiment.previous).toEqual({ positive: 0, neutral: 0, negative: 0 });
    expect(s.themes.length).toBeGreaterThanOrEqual(3);
    const top = s.themes[0];
    expect(top.previous_count).toBe(0);
    expect(top.quote.text.length).toBeGreaterThan(0);
    expect(s.new_themes).toContain(top.uuid);
    expect(s.markdown).toContain("## What changed: Checkout feedback");
    expect(s.markdown).toContain(top.label.replace(/[\\`*_[\]<>#|]/g, (c: string) => `\\${c}`));
    const empty = await api.call("GET", `/api/v1/links/${link.uuid}/summary/?since=2020-01-01&until=2020-01-07`);
    expect(empty.json.period).toEqual({ since: "2020-01-01", until: "2020-01-07" });
    expect(empty.json.previous).toEqual({ since: "2019-12-25", until: "2019-12-31" });
    expect(empty.json.themes).toEqual([]);
    expect(empty.json.markdown).toContain("No themed answers");
    const bad = await api.call("GET", `/api/v1/links/${link.uuid}/summary/?since=yesterday`);
    expect([bad.status, bad.json.code]).toEqual([400, "VALIDATION_ERROR"]);
  });

  test("erasing a response removes its answer's quote and example from every theme", async () => {
    const t = (await themes()).find((x) => x.quotes.length > 0)!;
    const q = t.quotes[0];
    expect((await api.call("DELETE", `/api/v1/responses/${q.response_uuid}/`)).status).toBe(200);
    const stored = await api.db.selectFrom("themes").select(["quotes", "examples"]).execute();
    for (const row of stored) expect(`${row.quotes}${row.examples}`).not.toContain(q.answer_uuid);
    const after = (await api.call("GET", `${themesUrl()}${t.uuid}/`)).json;
    expect(after.quotes.map((x: any) => x.answer_uuid)).not.toContain(q.answer_uuid);
    expect(after.size).toBe(t.size - 1);
  });

  test("every change is in the audit log", async () => {
    const actions = new Set((await api.db.selectFrom("audit_log").select("action").execute()).map((r) => r.action));
    for (const a of ["theme.created", "theme.updated", "theme.merged", "theme.deleted", "themes.rebuild_requested", "answer.corrected"])
      expect(actions).toContain(a);
  });

  test("scopes: responses:read reads but cannot write; links:read cannot read themes", async () => {
    expect((await api.call("GET", themesUrl(), { key: reader })).status).toBe(200);
    expect((await api.call("GET", `${themesUrl()}status/`, { key: reader })).status).toBe(200);
    for (const [method, url, body] of [
      ["POST", themesUrl(), { question_uuid: textQ, label: "x" }],
      ["POST", `${themesUrl()}rebuild/`, {}],
    ] as const) {
      const r = await api.call(method, url, { key: reader, body });
      expect([r.status, r.json.code]).toEqual([403, "INSUFFICIENT_SCOPE"]);
    }
    const linksOnly = (await api.call("POST", "/api/v1/tokens/", { body: { name: "links", scopes: ["links:read"] } })).json.key;
    const r = await api.call("GET", themesUrl(), { key: linksOnly });
    expect([r.status, r.json.code]).toEqual([403, "INSUFFICIENT_SCOPE"]);
  });

  test("errors: unknown theme, merge into itself, a question that is not open, foreign examples, another workspace, bad bodies", async () => {
    const [t] = await themes();
    const missing = await api.call("GET", `${themesUrl()}${crypto.randomUUID()}/`);
    expect([missing.status, missing.json.code]).toEqual([404, "THEME_NOT_FOUND"]);
    expect((await api.call("PATCH", `${themesUrl()}not-a-uuid/`, { body: { label: "x" } })).json.code).toBe("THEME_NOT_FOUND");
    const self = await api.call("POST", `${themesUrl()}${t.uuid}/merge/`, { body: { into: t.uuid } });
    expect([self.status, self.json.code]).toEqual([422, "THEME_MERGE_SELF"]);
    const rating = await api.call("POST", themesUrl(), { body: { question_uuid: ratingQ, label: "Stars" } });
    expect([rating.status, rating.json.code]).toEqual([422, "QUESTION_NOT_OPEN"]);
    const voiceAnswer = (await answerRows()).find((x) => x.question_uuid === voiceQ)!;
    const foreign = await api.call("POST", themesUrl(), { body: { question_uuid: textQ, label: "x", examples: [voiceAnswer.uuid] } });
    expect([foreign.status, foreign.json.code, foreign.json.errors[0].pointer]).toEqual([400, "VALIDATION_ERROR", "/examples/0"]);
    const blank = await api.call("PATCH", `${themesUrl()}${t.uuid}/`, { body: {} });
    expect([blank.status, blank.json.code]).toEqual([400, "VALIDATION_ERROR"]);
    const long = await api.call("PATCH", `${themesUrl()}${t.uuid}/`, { body: { label: "x".repeat(500) } });
    expect([long.status, long.json.code]).toEqual([400, "VALIDATION_ERROR"]);
    const other = await api.newWorkspace("Elsewhere");
    const r = await api.call("GET", themesUrl(), { key: other.api_key });
    expect([r.status, r.json.code]).toEqual([404, "NOT_FOUND"]);
    const m = await api.call("DELETE", `${themesUrl()}${t.uuid}/`, { key: other.api_key });
    expect(m.status).toBe(404);
    expect((await api.call("GET", `${themesUrl()}${t.uuid}/`)).status).toBe(200);
  });
});
