import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { $ } from "bun";
import { ALL_TYPE_QUESTIONS, createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { FIXTURE_TRANSCRIPT, HEARING, startProcessing, waitFor } from "../../../test/helpers/processing.ts";
import { expectHeard } from "../../../test/helpers/hearing.ts";
import { onPostgres } from "../../../test/helpers/db.ts";

/** A real 1×1 PNG: uploads are recognised by their bytes. */
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));

let api: TestApi;
let processing: Awaited<ReturnType<typeof startProcessing>>;
let wav: Uint8Array;
/** What the voice answers say (espeak-ng); the hearing Whisper fixture must transcribe these words. */
const SAID = "refund my order please";
let link: any;
const base = () => `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;

beforeAll(async () => {
  api = await createTestApi();
  processing = await startProcessing(api, HEARING);
  const file = path.join(api.dataDir, "speech.wav");
  await $`espeak-ng -w ${file} ${SAID}`.quiet();
  wav = new Uint8Array(fs.readFileSync(file));
  link = (await api.call("POST", "/api/v1/links/", { body: { name: "All types", questions: ALL_TYPE_QUESTIONS.map((q, i) => ({ ...q, required: i === 2 })) } }))
    .json;
});
afterAll(async () => {
  await processing.stop();
  await api.close();
});

async function newSession(): Promise<string> {
  const r = await api.call("POST", `${base()}/sessions/`, { key: null, body: {} });
  expect(r.status).toBe(201);
  return r.json.session_id;
}
const q = (i: number) => link.questions[i];
const put = (sid: string, i: number, value: unknown) => api.call("PUT", `${base()}/sessions/${sid}/answers/${q(i).uuid}/`, { key: null, body: { value } });

describe("intake", () => {
  test("a respondent answers all 11 types; the response lists typed values, transcript and details", async () => {
    const sid = await newSession();
    const audio = await api.call("POST", `${base()}/sessions/${sid}/answers/${q(0).uuid}/audio/?duration=2.5`, {
      key: null,
      raw: wav,
      headers: { "content-type": "audio/wav" },
    });
    expect(audio.status).toBe(200);
    expect(audio.json).toMatchObject({ has_audio: true, transcription_status: "pending" });
    for (const [i, value] of [
      [1, "typed fallback"],
      [2, "More dark mode please"],
      [3, "Pro"],
      [4, 12],
      [5, 4],
      [6, "b"],
      [7, "Ada@Example.com"],
      [8, "2026-11-01"],
      [9, true],
    ] as const) {
      const r = await put(sid, i, value);
      expect([i, r.status]).toEqual([i, 200]);
    }
    const form = new FormData();
    form.append("file", new Blob([PNG], { type: "image/png" }), "shot.png");
    const up = await api.app.handle(new Request(`http://localhost${base()}/sessions/${sid}/answers/${q(10).uuid}/file/`, { method: "POST", body: form }));
    expect(up.status).toBe(200);
    const resumed = await api.call("GET", `${base()}/sessions/${sid}/`, { key: null });
    expect(Object.keys(resumed.json.answers).length).toBe(11);
    const submit = await api.call("POST", `${base()}/sessions/${sid}/submit/`, { key: null, body: {} });
    expect(submit.json).toEqual({ status: "completed", thank_you_message: "Thanks for your response!", redirect_url: null });

    const rec = await waitFor(
      async () => {
        const r = await api.call("GET", `/api/v1/links/${link.uuid}/responses/`);
        const resp = r.json.results[0];
        const voice = resp?.answers.find((a: any) => a.response_type === "voice");
        return voice?.transcription_status === "completed" && voice.ai_insights ? resp : null;
      },
      60_000,
      "transcription and analysis",
    );
    expect(rec.status).toBe("completed");
    expect(rec.respondent_email).toBe("Ada@Example.com");
    expect(rec.submitted_at).toMatch(/\.\d{6}Z$/);
    const by = Object.fromEntries(rec.answers.map((a: any) => [a.response_type, a]));
    expectHeard(by.voice.transcription, SAID);
    expect(by.voice.text).toBe(by.voice.transcription);
    expect(by.voice.duration).toBeGreaterThan(1);
    expect(by.voice.audio_url).toMatch(/^http:\/\/localhost\/api\/v1\/responses\/.+\/audio\/\?exp=\d+&sig=/);
    expect(by.voice.ai_insights).toMatchObject({
      sentiment: expect.stringMatching(/^(positive|neutral|negative)$/),
      actionable: expect.any(Boolean),
      key_topics: expect.any(Array),
      summary: expect.any(String),
    });
    expect(by.voice.analysis_engine).toMatchObject({ sentiment: "transformer:tiny-sentiment-3class", llm: false, clarity: expect.any(Number) });
    expect(by.text.value).toBe("More dark mode please");
    expect(by.text.transcription_status).toBe("not_applicable");
    expect(by.multiple_choice.value).toBe("Pro");
    expect(by.number.value).toBe(12);
    expect(by.rating.rating_details).toEqual({ value: 4, max_value: 5, scale_type: "stars" });
    expect(by.image_choice.selected_card).toEqual({ card_id: "b", label: "Design B", media_url: "https://example.com/b.mp4", media_type: "video" });
    expect(by.email.value).toBe("Ada@Example.com");
    expect(by.date.value).toBe("2026-11-01");
    expect(by.yes_no.value).toBe(true);
    expect(by.file_upload.file).toMatchObject({ name: "shot.png", size: PNG.length, content_type: "image/png" });
    expect(rec.answers.every((a: any) => typeof a.question_text === "string")).toBe(true);

    // The signed audio URL streams without a key; a tampered signature does not.
    const audioPath = by.voice.audio_url.replace("http://localhost", "");
    const streamed = await api.app.handle(new Request(`http://localhost${audioPath}`));
    expect(streamed.status).toBe(200);
    expect(Buffer.from(await streamed.arrayBuffer()).equals(Buffer.from(wav))).toBe(true);
    const tampered = await api.app.handle(
      new Request(`http://localhost${audioPath.replace(/sig=(.)/, (_: string, c: string) => `sig=${c === "X" ? "Y" : "X"}`)}`),
    );
    expect(tampered.status).toBe(401);
    const file = await api.app.handle(new Request(by.file_upload.file.url, { headers: { authorization: `Bearer ${api.ws.api_key}` } }));
    expect([file.status, file.headers.get("content-type")]).toEqual([200, "image/png"]);
  });

  test("corrupt audio fails with a reason and silence gives an empty transcript, never a crashed worker", async () => {
    const sid = await newSession();
    // A WAV is read at upload by the decoder's own parser (issue 22), so a damaged one is refused there.
    const corruptWav = new Uint8Array(512);
    corruptWav.set(new TextEncoder().encode("RIFF\u0000\u0002\u0000\u0000WAVEjunk"), 0);
    const refused = await api.call("POST", `${base()}/sessions/${sid}/answers/${q(0).uuid}/audio/`, {
      key: null,
      raw: corruptWav,
      headers: { "content-type": "audio/wav" },
    });
    expect([refused.status, refused.json.code]).toEqual([415, "UNSUPPORTED_MEDIA_TYPE"]);
    // WebM magic bytes followed by garbage: the container check cannot read it, so only the worker refuses it.
    const corrupt = new Uint8Array(512);
    corrupt.set([0x1a, 0x45, 0xdf, 0xa3], 0);
    corrupt.set(crypto.getRandomValues(new Uint8Array(508)), 4);
    await api.call("POST", `${base()}/sessions/${sid}/answers/${q(0).uuid}/audio/`, { key: null, raw: corrupt, headers: { "content-type": "audio/webm" } });
    await put(sid, 2, "required text");
    await api.call("POST", `${base()}/sessions/${sid}/submit/`, { key: null, body: {} });
    const silentSid = await newSession();
    const silent = path.join(api.dataDir, "silence.wav");
    await $`sox -n -r 16000 -c 1 -b 16 ${silent} trim 0 1.5`.quiet();
    await api.call("POST", `${base()}/sessions/${silentSid}/answers/${q(0).uuid}/audio/`, {
      key: null,
      raw: new Uint8Array(fs.readFileSync(silent)),
      headers: { "content-type": "audio/wav" },
    });
    await put(silentSid, 2, "required text");
    await api.call("POST", `${base()}/sessions/${silentSid}/submit/`, { key: null, body: {} });
    const voiceOf = async (s: string) => {
      const list = (await api.call("GET", `/api/v1/responses/?link=${link.uuid}&page_size=100`)).json.results;
      return list.find((r: any) => r.session_id === s)?.answers.find((a: any) => a.response_type === "voice");
    };
    const failed = await waitFor(async () => ((await voiceOf(sid))?.transcription_status === "failed" ? voiceOf(sid) : null), 60_000, "failed transcription");
    expect(failed.transcription_error).toContain("could not be decoded");
    expect(failed.transcription).toBeNull();
    const quiet = await waitFor(
      async () => ((await voiceOf(silentSid))?.transcription_status === "completed" ? voiceOf(silentSid) : null),
      60_000,
      "silent transcription",
    );
    expect(quiet.transcription).toBe("");
    expect(quiet.duration).toBeCloseTo(1.5, 1);
    // The worker still serves: the next transcription works.
    expectHeard((await processing.inference.transcribe(wav)).text, SAID);
  });

  test("bad answers are refused with a pointer and change nothing", async () => {
    const sid = await newSession();
    const cases: [number, unknown][] = [
      [3, "Gold"],
      [3, ["Pro", "Free"]],
      [4, 5000],
      [4, "12"],
      [5, 6],
      [5, 0],
      [6, "z"],
      [7, "not-an-email"],
      [8, "2026-13-45"],
      [9, "yes"],
      [2, 42],
    ];
    for (const [i, value] of cases) {
      const r = await put(sid, i, value);
      expect([i, value, r.status, r.json.code, r.json.errors?.[0]?.pointer]).toEqual([i, value, 400, "VALIDATION_ERROR", "/value"]);
    }
    const state = await api.call("GET", `${base()}/sessions/${sid}/`, { key: null });
    expect(state.json.answers).toEqual({});
    const junk = await api.call("POST", `${base()}/sessions/${sid}/answers/${q(0).uuid}/audio/`, {
      key: null,
      raw: new TextEncoder().encode("not audio"),
      headers: { "content-type": "audio/wav" },
    });
    expect([junk.status, junk.json.code]).toEqual([415, "UNSUPPORTED_MEDIA_TYPE"]);
    const textAudio = await api.call("POST", `${base()}/sessions/${sid}/answers/${q(2).uuid}/audio/`, {
      key: null,
      raw: wav,
      headers: { "content-type": "audio/wav" },
    });
    expect(textAudio.status).toBe(400);
    expect((await api.call("PUT", `${base()}/sessions/ses_nope/answers/${q(2).uuid}/`, { key: null, body: { value: "x" } })).status).toBe(404);
    expect((await api.call("PUT", `${base()}/sessions/${sid}/answers/not-a-uuid/`, { key: null, body: { value: "x" } })).status).toBe(404);
  });

  test("required is enforced only for visible questions; conditions are evaluated on submit", async () => {
    const cond = (
      await api.call("POST", "/api/v1/links/", {
        body: {
          name: "Conditional intake",
          questions: [
            { prompt: "Score", type: "rating", field_key: "score", required: true },
            {
              prompt: "What went wrong?",
              type: "text",
              required: true,
              condition: { show_if: "field_value", field: "score", operator: "less_than", value: 3 },
            },
          ],
        },
      })
    ).json;
    const b = `/api/v1/intake/${api.ws.workspace_slug}/${cond.slug}`;
    const start = async () => (await api.call("POST", `${b}/sessions/`, { key: null, body: {} })).json.session_id;
    const happy = await start();
    const missing = await api.call("POST", `${b}/sessions/${happy}/submit/`, { key: null, body: {} });
    expect(missing.json.errors).toEqual([{ pointer: "/answers/score", message: expect.any(String) }]);
    await api.call("PUT", `${b}/sessions/${happy}/answers/${cond.questions[0].uuid}/`, { key: null, body: { value: 5 } });
    expect((await api.call("POST", `${b}/sessions/${happy}/submit/`, { key: null, body: {} })).status).toBe(200);
    const again = await api.call("POST", `${b}/sessions/${happy}/submit/`, { key: null, body: {} });
    expect([again.status, again.json.code]).toEqual([409, "ALREADY_SUBMITTED"]);
    const unhappy = await start();
    await api.call("PUT", `${b}/sessions/${unhappy}/answers/${cond.questions[0].uuid}/`, { key: null, body: { value: 1 } });
    const needsWhy = await api.call("POST", `${b}/sessions/${unhappy}/submit/`, { key: null, body: {} });
    expect(needsWhy.json.errors).toEqual([{ pointer: "/answers/what_went_wrong", message: expect.any(String) }]);
  });

  test("a paused link refuses sessions with LINK_PAUSED and its page says so", async () => {
    const paused = (await api.call("POST", "/api/v1/links/", { body: { name: "Paused link", status: "paused" } })).json;
    const r = await api.call("POST", `/api/v1/intake/${api.ws.workspace_slug}/${paused.slug}/sessions/`, { key: null, body: {} });
    expect([r.status, r.json.code]).toEqual([409, "LINK_PAUSED"]);
    const page = await api.app.handle(new Request(paused.public_url));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("not accepting responses");
    const missing = await api.app.handle(new Request(`http://localhost/w/${api.ws.workspace_slug}/i/no-such-link`));
    expect(missing.status).toBe(404);
  });
});

describe("responses API", () => {
  test("list filters, search (FTS over text and transcripts, email), ordering, export and erasure", async () => {
    const l = (
      await api.call("POST", "/api/v1/links/", {
        body: {
          name: "Searchable",
          questions: [
            { prompt: "Comment", type: "text" },
            { prompt: "Email", type: "email" },
          ],
        },
      })
    ).json;
    const b = `/api/v1/intake/${api.ws.workspace_slug}/${l.slug}`;
    const answers = [
      ["Love the new Dashboard", "a@x.io"],
      ["Checkout is crashing!", "b@y.io"],
      ["'; DROP TABLE responses; -- <b>", "c@z.io"],
    ];
    for (const [text, email] of answers) {
      const sid = (await api.call("POST", `${b}/sessions/`, { key: null, body: {} })).json.session_id;
      await api.call("PUT", `${b}/sessions/${sid}/answers/${l.questions[0].uuid}/`, { key: null, body: { value: text } });
      await api.call("PUT", `${b}/sessions/${sid}/answers/${l.questions[1].uuid}/`, { key: null, body: { value: email } });
      await api.call("POST", `${b}/sessions/${sid}/submit/`, { key: null, body: {} });
    }
    await api.call("POST", `${b}/sessions/`, { key: null, body: {} }); // one started, never submitted
    const list = (qs: string) => api.call("GET", `/api/v1/links/${l.uuid}/responses/${qs}`);
    expect((await list("")).json.count).toBe(3);
    expect((await list("?status=started")).json.count).toBe(1);
    expect((await list("?status=all")).json.count).toBe(4);
    const newest = (await list("")).json.results.map((r: any) => r.respondent_email);
    expect(newest).toEqual(["c@z.io", "b@y.io", "a@x.io"]);
    expect((await list("?ordering=submitted_at")).json.results.map((r: any) => r.respondent_email)).toEqual(["a@x.io", "b@y.io", "c@z.io"]);
    expect((await list("?search=dashboard")).json.results.map((r: any) => r.respondent_email)).toEqual(["a@x.io"]);
    expect((await list("?search=CRASH")).json.results.map((r: any) => r.respondent_email)).toEqual(["b@y.io"]);
    expect((await list("?search=y.io")).json.results.map((r: any) => r.respondent_email)).toEqual(["b@y.io"]);
    expect((await list(`?search=${encodeURIComponent("DROP TABLE")}`)).json.results.map((r: any) => r.respondent_email)).toEqual(["c@z.io"]);
    expect((await list(`?search=${encodeURIComponent('" OR 1=1 --')}`)).status).toBe(200);
    expect((await list("?ordering=uuid")).status).toBe(400);
    // The job runner analyses the typed answers meanwhile: compare the views once it is done.
    await waitFor(
      async () => (await list("")).json.results.every((r: any) => r.answers.every((a: any) => a.analysis_status !== "pending")),
      30_000,
      "analysis done",
    );
    const one = (await list("")).json.results[0];
    expect((await api.call("GET", `/api/v1/links/${l.uuid}/responses/${one.uuid}/`)).json).toEqual(one);
    expect((await api.call("GET", `/api/v1/responses/${one.uuid}/`)).json).toEqual(one);
    expect((await api.call("GET", `/api/v1/responses/?link=${l.uuid}`)).json.count).toBe(3);

    const csv = await api.call("GET", `/api/v1/links/${l.uuid}/responses/export/?format=csv`);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const lines = csv.text.trim().split("\n");
    expect(lines[0]).toBe(
      "response_uuid,session_id,status,respondent_email,date_created,submitted_at,comment,comment.translation,comment.theme,comment.follow_ups,comment.sentiment,comment.actionable,comment.topics,comment.summary,email",
    );
    expect(lines.length).toBe(5);
    expect(csv.text).toContain('"\'; DROP TABLE responses; -- <b>"'.slice(1, -1));
    const jsonl = await api.call("GET", `/api/v1/links/${l.uuid}/responses/export/?format=jsonl`);
    expect(
      jsonl.text
        .trim()
        .split("\n")
        .map((x) => JSON.parse(x).uuid).length,
    ).toBe(4);

    // Erasure and link deletion: responses outlive their link, erased ones are gone.
    expect((await api.call("DELETE", `/api/v1/links/${l.uuid}/`)).status).toBe(200);
    expect((await api.call("GET", `/api/v1/responses/${one.uuid}/`)).json.answers[0].question_text).toBe("Comment");
    expect((await api.call("GET", `/api/v1/responses/?link=${l.uuid}`)).json.count).toBe(3);
    expect((await api.call("DELETE", `/api/v1/responses/${one.uuid}/`)).json).toEqual({ message: "Response deleted." });
    expect((await api.call("GET", `/api/v1/responses/${one.uuid}/`)).status).toBe(404);
    const other = await api.newWorkspace("Nosy");
    expect(
      (
        await api.call("GET", `/api/v1/responses/${newest[1] ? (await api.call("GET", `/api/v1/responses/?link=${l.uuid}`)).json.results[0].uuid : ""}/`, {
          key: other.api_key,
        })
      ).status,
    ).toBe(404);
  });

  test("erasing a response removes its recording from the blob store (and, on SQLite, from disk)", async () => {
    const sid = await newSession();
    await api.call("POST", `${base()}/sessions/${sid}/answers/${q(0).uuid}/audio/`, { key: null, raw: wav, headers: { "content-type": "audio/wav" } });
    await put(sid, 2, "required text");
    await api.call("POST", `${base()}/sessions/${sid}/submit/`, { key: null, body: {} });
    const blobDir = path.join(api.config.blobsDir, "audio");
    const rec = (await api.call("GET", `/api/v1/responses/?link=${link.uuid}`)).json.results.find((r: any) => r.session_id === sid);
    const row = await api.db
      .selectFrom("answers")
      .select("audio_blob")
      .where("response_uuid", "=", rec.uuid)
      .where("audio_blob", "is not", null)
      .executeTakeFirstOrThrow();
    expect(await api.deps.blobs.size(row.audio_blob!)).toBeGreaterThan(0);
    expect((await api.call("DELETE", `/api/v1/responses/${rec.uuid}/`)).status).toBe(200);
    expect(await api.deps.blobs.size(row.audio_blob!)).toBeNull();
    if (onPostgres) return; // rows in PostgreSQL (src/blobs/); below, the files of the local store
    expect(fs.existsSync(path.join(api.config.blobsDir, row.audio_blob!))).toBe(false);
    expect(fs.readdirSync(blobDir).filter((f) => f.includes(row.audio_blob!.split("/")[1]!))).toEqual([]);
  });
});

describe("dedicated workspace host", () => {
  test("a workspace with its own origin gets public_urls on it and serves /i/<slug> at the root", async () => {
    const { createWorkspace } = await import("../workspaces/service.ts");
    const ws = await createWorkspace(api.db, { name: "Acme", host: "https://feedback.acme.lan/" });
    const l = (await api.call("POST", "/api/v1/links/", { key: ws.api_key, body: { name: "Acme survey", questions: [{ prompt: "Hi?", type: "text" }] } })).json;
    expect(l.public_url).toBe("https://feedback.acme.lan/i/acme-survey");
    const page = await api.app.handle(new Request("http://localhost/i/acme-survey", { headers: { host: "feedback.acme.lan" } }));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`/api/v1/intake/${ws.workspace_slug}/acme-survey/`);
    const elsewhere = await api.app.handle(new Request("http://localhost/i/acme-survey", { headers: { host: "other.lan" } }));
    expect(elsewhere.status).toBe(404);
    await expect(createWorkspace(api.db, { name: "Bad", host: "feedback.lan/path" })).rejects.toThrow();
  });
});

describe("dynamic probing", () => {
  test("a vague answer gets a follow-up question, answered by text and by voice, kept on the response", async () => {
    const l = (
      await api.call("POST", "/api/v1/links/", {
        body: {
          name: "Probing",
          questions: [
            { prompt: "What could we do better?", type: "text", enable_dynamic_probing: true, evaluator_config: { clarity_threshold: 0.9, max_follow_ups: 2 } },
            { prompt: "Tell us more", type: "voice", enable_dynamic_probing: false },
          ],
        },
      })
    ).json;
    const b = `/api/v1/intake/${api.ws.workspace_slug}/${l.slug}`;
    const sid = (await api.call("POST", `${b}/sessions/`, { key: null, body: {} })).json.session_id;
    const qid = l.questions[0].uuid;
    const early = await api.call("POST", `${b}/sessions/${sid}/answers/${qid}/probe/`, { key: null, body: {} });
    expect([early.status, early.json.code]).toEqual([400, "VALIDATION_ERROR"]);
    await api.call("PUT", `${b}/sessions/${sid}/answers/${qid}/`, { key: null, body: { value: "stuff, i guess" } });
    const p1 = await api.call("POST", `${b}/sessions/${sid}/answers/${qid}/probe/`, { key: null, body: {} });
    expect(p1.status).toBe(200);
    expect(p1.json.clarity).toBeLessThan(0.9);
    expect(p1.json.follow_up).toEqual({ index: 0, question: expect.any(String) });
    // An unanswered follow-up blocks the next one.
    expect((await api.call("POST", `${b}/sessions/${sid}/answers/${qid}/probe/`, { key: null, body: {} })).json.follow_up).toBeNull();
    const a1 = await api.call("PUT", `${b}/sessions/${sid}/answers/${qid}/follow-ups/0/`, { key: null, body: { value: "maybe" } });
    expect(a1.json.follow_ups[0]).toMatchObject({ answer: "maybe", has_audio: false });
    const p2 = await api.call("POST", `${b}/sessions/${sid}/answers/${qid}/probe/`, { key: null, body: {} });
    expect(p2.json.follow_up?.index).toBe(1);
    const a2 = await api.call("POST", `${b}/sessions/${sid}/answers/${qid}/follow-ups/1/audio/`, {
      key: null,
      raw: wav,
      headers: { "content-type": "audio/wav" },
    });
    expect(a2.status).toBe(200);
    // A follow-up's voice is transcribed by the API's own inference client (the random fixture).
    expect(a2.json.follow_ups[1]).toMatchObject({ answer: FIXTURE_TRANSCRIPT, transcription: FIXTURE_TRANSCRIPT, has_audio: true });
    expect((await api.call("POST", `${b}/sessions/${sid}/answers/${qid}/probe/`, { key: null, body: {} })).json.follow_up).toBeNull(); // max 2
    expect((await api.call("PUT", `${b}/sessions/${sid}/answers/${qid}/follow-ups/7/`, { key: null, body: { value: "x" } })).status).toBe(404);
    // Probing is off for the voice question.
    await api.call("POST", `${b}/sessions/${sid}/answers/${l.questions[1].uuid}/audio/`, { key: null, raw: wav, headers: { "content-type": "audio/wav" } });
    expect((await api.call("POST", `${b}/sessions/${sid}/answers/${l.questions[1].uuid}/probe/`, { key: null, body: {} })).json.follow_up).toBeNull();
    await api.call("POST", `${b}/sessions/${sid}/submit/`, { key: null, body: {} });
    const rec = await waitFor(
      async () => {
        const r = (await api.call("GET", `/api/v1/links/${l.uuid}/responses/`)).json.results[0];
        return r?.answers.every((a: any) => a.ai_insights) ? r : null;
      },
      60_000,
      "analysis",
    );
    const text = rec.answers.find((a: any) => a.field_key === l.questions[0].field_key);
    expect(text.follow_ups).toEqual([
      { question: p1.json.follow_up.question, answer: "maybe", audio_url: null, transcription: null },
      {
        question: p2.json.follow_up.question,
        answer: FIXTURE_TRANSCRIPT,
        audio_url: expect.stringMatching(/\/follow-ups\/1\/audio\/\?exp=/),
        transcription: FIXTURE_TRANSCRIPT,
      },
    ]);
    const audio = await api.app.handle(new Request(text.follow_ups[1].audio_url));
    expect([audio.status, audio.headers.get("content-type")]).toEqual([200, "audio/wav"]);
  });
});
