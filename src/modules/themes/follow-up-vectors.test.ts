/**
 * Follow-up answers have their own vectors (issue 24; docs/insights.md "Follow-up answers"), on
 * the real app, job runner and worker (fixture models), both engines: the analyse job stores one
 * vector per follow-up answer, the worker's embedding of exactly that text; a theme's quotes may
 * be a follow-up answer (with its answer's uuid, never the answer's recording), while a vague
 * answer whose follow-up said it all is not quoted for what its follow-up said; a rebuild embeds
 * the follow-up answers that have no stored vector and stores them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { startProcessing, waitFor } from "../../../test/helpers/processing.ts";
import type { InferenceClient } from "../../ai/inference-client.ts";
import { WEBM_FIXTURE_PATH } from "../../../test/helpers/fixtures.ts";
import { bytesVector, bytesVectors } from "./codec.ts";
import { quotesOf } from "./records.ts";
import { SHIPPING as SHIPPING_ANSWERS, SUPPORT as SUPPORT_ANSWERS } from "../../../test/helpers/topic-answers.ts";

// Answers on two topics (test/helpers/topic-answers.ts).
const SHIPPING = [0, 1, 2, 3, 6, 8].map((i) => SHIPPING_ANSWERS[i]!);
const SUPPORT = SUPPORT_ANSWERS.slice(0, 6);
// Vague answers whose follow-up answer says what they meant.
const VAGUE: [string, string][] = [
  ["Not sure.", "The shipping fee was far too expensive for my order."],
  ["Hard to say.", "Delivery charges are expensive, shipping costs too much."],
  ["Meh.", "Expensive shipping, the delivery cost was a surprise at checkout."],
  ["Hmm, maybe.", "Lower the shipping price please, delivery is too expensive."],
  ["Kind of.", "The shipping charges doubled the total, way too expensive."],
  ["Dunno.", "Shipping is so expensive that I nearly cancelled the order."],
];

let api: TestApi;
let processing: { inference: InferenceClient; stop(): Promise<void> };
let link: any;
let qid: string;
const themesUrl = () => `/api/v1/links/${link.uuid}/themes/`;

const rowsOf = () =>
  api.db
    .selectFrom("answers")
    .select(["uuid", "text", "follow_ups", "embedding", "follow_up_embeddings", "analysis_status"])
    .where("question_uuid", "=", qid)
    .execute();

async function waitReady(): Promise<void> {
  await waitFor(
    async () => {
      const s = (await api.call("GET", `${themesUrl()}status/`)).json;
      return s.state === "ready" && s.answers_pending === 0 && s.built_at ? s : null;
    },
    90_000,
    "themes ready",
  );
}

beforeAll(async () => {
  api = await createTestApi({ EARSHOT_INTAKE_SESSIONS_PER_MINUTE: "0" });
  processing = await startProcessing(api);
  const r = await api.call("POST", "/api/v1/links/", {
    body: {
      name: "Follow-up vectors",
      questions: [
        {
          prompt: "What should we improve?",
          type: "text",
          field_key: "improve",
          enable_dynamic_probing: true,
          evaluator_config: { clarity_threshold: 0.99, max_follow_ups: 1 },
        },
      ],
    },
  });
  expect(r.status).toBe(201);
  link = r.json;
  qid = link.questions[0].uuid;
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;
  const answer = async (value: string, followUp: string | null) => {
    const sid = (await api.call("POST", `${base}/sessions/`, { key: null, body: {} })).json.session_id as string;
    expect((await api.call("PUT", `${base}/sessions/${sid}/answers/${qid}/`, { key: null, body: { value } })).status).toBe(200);
    if (followUp !== null) {
      const probe = await api.call("POST", `${base}/sessions/${sid}/answers/${qid}/probe/`, { key: null, body: {} });
      expect(probe.json.follow_up?.index).toBe(0);
      const put = await api.call("PUT", `${base}/sessions/${sid}/answers/${qid}/follow-ups/0/`, { key: null, body: { value: followUp } });
      expect(put.status).toBe(200);
    }
    expect((await api.call("POST", `${base}/sessions/${sid}/submit/`, { key: null, body: {} })).status).toBe(200);
  };
  for (const text of [...SHIPPING, ...SUPPORT]) await answer(text, null);
  for (const [text, followUp] of VAGUE) await answer(text, followUp);
}, 120_000);

afterAll(async () => {
  await processing?.stop();
  await api?.close();
});

describe("follow-up answers' own vectors", () => {
  test("the analyse job stores each follow-up answer's vector: the worker's embedding of that text, not the answer's", async () => {
    await waitFor(async () => (await rowsOf()).every((a) => a.analysis_status === "completed"), 90_000, "analysed");
    const rows = await rowsOf();
    for (const a of rows.filter((x) => !VAGUE.some(([t]) => t === x.text))) expect(a.follow_up_embeddings ?? null).toBeNull();
    for (const [text, followUp] of VAGUE) {
      const a = rows.find((x) => x.text === text)!;
      expect(a.follow_up_embeddings?.byteLength).toBe(a.embedding!.byteLength);
      const [stored] = bytesVectors(a.follow_up_embeddings!, a.embedding!.byteLength / 4);
      const expected = (await processing.inference.analyse(followUp, {}, { embed: true })).embedding!.vector;
      expect(Array.from(stored!).map((x) => x.toFixed(5))).toEqual(Array.from(expected).map((x) => x.toFixed(5)));
      // The answer's own vector is of the answer with its follow-up: another vector.
      expect(Array.from(bytesVector(a.embedding!)).map((x) => x.toFixed(5))).not.toEqual(Array.from(stored!).map((x) => x.toFixed(5)));
    }
  }, 120_000);

  test("a theme quotes follow-up answers (whole, with their answer's uuid, no recording); the vague answers are not quoted", async () => {
    expect((await api.call("POST", `${themesUrl()}rebuild/`, { body: {} })).status).toBe(202);
    await waitReady();
    const list = (await api.call("GET", `${themesUrl()}?page_size=100`)).json.results as any[];
    const quotes = list.flatMap((t) => t.quotes);
    const rows = await rowsOf();
    const fromFollowUps = quotes.filter((q) => VAGUE.some(([, f]) => f === q.text));
    expect(fromFollowUps.length).toBeGreaterThanOrEqual(1);
    for (const q of fromFollowUps) {
      const [text] = VAGUE.find(([, f]) => f === q.text)!;
      expect(q.answer_uuid).toBe(rows.find((a) => a.text === text)!.uuid);
      expect([q.start_s, q.end_s, q.audio_url]).toEqual([null, null, null]);
    }
    for (const q of quotes) expect(VAGUE.map(([t]) => t)).not.toContain(q.text);
  }, 120_000);

  test("a rebuild embeds follow-up answers stored without a vector (analysed before they had one) and stores them", async () => {
    const [text] = VAGUE[0]!;
    const before = (await rowsOf()).find((a) => a.text === text)!;
    await api.db.updateTable("answers").set({ follow_up_embeddings: null }).where("uuid", "=", before.uuid).execute();
    expect((await api.call("POST", `${themesUrl()}rebuild/`, { body: {} })).status).toBe(202);
    const after = await waitFor(
      async () => (await rowsOf()).find((a) => a.uuid === before.uuid && a.follow_up_embeddings),
      90_000,
      "follow-up vector stored again",
    );
    expect(Buffer.from(after.follow_up_embeddings!).equals(Buffer.from(before.follow_up_embeddings!))).toBe(true);
  }, 120_000);

  test("a spoken follow-up quoted plays its own recording, whole (0 to its stored length), never the answer's", async () => {
    const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;
    const sid = (await api.call("POST", `${base}/sessions/`, { key: null, body: {} })).json.session_id as string;
    expect((await api.call("PUT", `${base}/sessions/${sid}/answers/${qid}/`, { key: null, body: { value: "Perhaps." } })).status).toBe(200);
    expect((await api.call("POST", `${base}/sessions/${sid}/answers/${qid}/probe/`, { key: null, body: {} })).json.follow_up?.index).toBe(0);
    const webm = new Uint8Array(await Bun.file(WEBM_FIXTURE_PATH).arrayBuffer());
    const up = await api.call("POST", `${base}/sessions/${sid}/answers/${qid}/follow-ups/0/audio/`, {
      key: null,
      raw: webm,
      headers: { "content-type": "audio/webm" },
    });
    expect(up.status).toBe(200);
    expect((await api.call("POST", `${base}/sessions/${sid}/submit/`, { key: null, body: {} })).status).toBe(200);
    const a = (await rowsOf()).find((x) => x.text === "Perhaps.")!;
    const stored = JSON.parse(a.follow_ups)[0];
    expect(stored.duration_s).toBeGreaterThan(0);
    const m = { publicUrl: api.deps.config.publicUrl, signingSecret: api.deps.signingSecret, audioUrlTtlS: api.deps.config.audioUrlTtlS };
    const [q] = await quotesOf(api.db, m, [{ answer_uuid: a.uuid, text: stored.answer, follow_up: 0 }]);
    expect([q!.start_s, q!.end_s]).toEqual([0, stored.duration_s]);
    expect(q!.audio_url).toContain(`/answers/${a.uuid}/follow-ups/0/audio/`);
    expect(q!.audio_url).toContain(`#t=0,${stored.duration_s}`);
    const audio = await api.call("GET", q!.audio_url!.replace(api.deps.config.publicUrl, "").split("#")[0]!, { key: null });
    expect(audio.status).toBe(200);
  }, 120_000);
});
