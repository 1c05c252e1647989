/**
 * Non-English voice answers (issue 24): on a German link with a multilingual Whisper (the
 * fixture's multilingual-configured copy, whose translate task is pointed at a token the random
 * decoder reacts to, so the translation differs from the transcript — see ai/asr-translate.test.ts),
 * the transcribe job also keeps Whisper's English `translation`; the transcript stays what was
 * said; the English engines analyse and embed the translation (the English-only sentiment model
 * would refuse the German transcript); the API, the JSONL and the CSV export carry it. On an
 * English link nothing is translated. Real app, real job runner, real worker, both engines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { WEBM_FIXTURE_PATH } from "../../../test/helpers/fixtures.ts";
import { createProcessing, FIXTURE_MODELS_DIR, waitFor } from "../../../test/helpers/processing.ts";
import { multilingualWhisperFixture } from "../../../test/helpers/audio-fixtures.ts";
import { createSifEmbedder, SIF_ENGINE_ID } from "../../ai/themes/embedder.ts";
import { bytesVector } from "../themes/codec.ts";

const ASR = "whisper-multilingual-random";
let api: TestApi;
let processing: Awaited<ReturnType<typeof createProcessing>>;

/** The multilingual fixture whose `<|translate|>` is `<|notimestamps|>` (the decoder then says something else). */
function translatingWhisper(dir: string): string {
  const modelsDir = multilingualWhisperFixture(dir);
  const model = path.join(modelsDir, ASR);
  const tokens = (JSON.parse(fs.readFileSync(path.join(model, "tokenizer.json"), "utf8")) as { added_tokens: { id: number; content: string }[] }).added_tokens;
  const configPath = path.join(model, "generation_config.json");
  const config = JSON.parse(fs.readFileSync(configPath, "utf8"));
  config.task_to_id.translate = tokens.find((t) => t.content === "<|notimestamps|>")!.id;
  fs.writeFileSync(configPath, JSON.stringify(config));
  fs.symlinkSync(path.join(FIXTURE_MODELS_DIR, "tiny-sentiment-3class"), path.join(modelsDir, "tiny-sentiment-3class"));
  return modelsDir;
}

beforeAll(async () => {
  api = await createTestApi({ EARSHOT_INTAKE_SESSIONS_PER_MINUTE: "0" });
  processing = await createProcessing(api, { modelsDir: translatingWhisper(api.dataDir), asrModel: ASR, embeddingModel: "sif" });
  await processing.runner.start();
});
afterAll(async () => {
  await processing.stop();
  await api.close();
});

/** A voice answer on a link in `language`, submitted; its answer row once the response is delivered. */
async function voiceAnswer(language: string) {
  const r = await api.call("POST", "/api/v1/links/", {
    body: { name: `Voice ${language}`, settings: { language }, questions: [{ prompt: "Tell us", type: "voice", fallback_to_text: false, field_key: "note" }] },
  });
  expect(r.status).toBe(201);
  const link = r.json;
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;
  const sid = (await api.call("POST", `${base}/sessions/`, { key: null, body: {} })).json.session_id as string;
  const webm = new Uint8Array(fs.readFileSync(WEBM_FIXTURE_PATH));
  const up = await api.call("POST", `${base}/sessions/${sid}/answers/${link.questions[0].uuid}/audio/`, {
    key: null,
    raw: webm,
    headers: { "content-type": "audio/webm" },
  });
  expect(up.status).toBe(200);
  expect((await api.call("POST", `${base}/sessions/${sid}/submit/`, { key: null, body: {} })).status).toBe(200);
  const response = await api.db.selectFrom("responses").selectAll().where("session_id", "=", sid).executeTakeFirstOrThrow();
  await waitFor(
    async () => (await api.db.selectFrom("responses").select("submitted_event_at").where("uuid", "=", response.uuid).executeTakeFirst())?.submitted_event_at,
    90_000,
    "the response to be delivered",
  );
  const answer = await api.db.selectFrom("answers").selectAll().where("response_uuid", "=", response.uuid).executeTakeFirstOrThrow();
  return { link, answer };
}

describe("a German voice answer with a multilingual Whisper", () => {
  test("keeps the transcript as said, adds the English translation, and analyses and embeds the translation", async () => {
    const { link, answer } = await voiceAnswer("de");
    expect([answer.transcription_status, answer.language]).toEqual(["completed", "de"]);
    expect(answer.transcription).toContain("fixture transcript");
    expect(answer.translation).toContain("fixture transcript");
    expect(answer.translation).not.toBe(answer.transcription);
    // The English-only sentiment model analysed it: the translation is English.
    expect(answer.analysis_status).toBe("completed");
    expect(answer.ai_insights).not.toBeNull();
    // The theme vector is the translation's, not the transcript's.
    expect(answer.embedding_engine).toBe(SIF_ENGINE_ID);
    const stored = Array.from(bytesVector(answer.embedding!));
    const sif = createSifEmbedder();
    expect(stored).toEqual(Array.from(sif.embed(answer.translation!)));
    expect(stored).not.toEqual(Array.from(sif.embed(answer.transcription!)));

    // The API, the JSONL export and the CSV export carry it.
    const record = (await api.call("GET", `/api/v1/responses/${answer.response_uuid}/`)).json.answers[0];
    expect([record.transcription, record.translation, record.language]).toEqual([answer.transcription, answer.translation, "de"]);
    const jsonl = await api.call("GET", `/api/v1/links/${link.uuid}/responses/export/?format=jsonl`);
    expect(jsonl.status).toBe(200);
    expect(JSON.parse(jsonl.text.trim()).answers[0].translation).toBe(answer.translation);
    const csv = await api.call("GET", `/api/v1/links/${link.uuid}/responses/export/?format=csv`);
    const [header, row] = parse(csv.text) as string[][];
    expect(header!.slice(header!.indexOf("note"), header!.indexOf("note") + 3)).toEqual(["note", "note.translation", "note.theme"]);
    expect([row![header!.indexOf("note")], row![header!.indexOf("note.translation")]]).toEqual([answer.transcription ?? "", answer.translation ?? ""]);
  }, 120_000);

  test("an English link gets no translation, and its transcript is analysed", async () => {
    const { link, answer } = await voiceAnswer("en");
    expect([answer.transcription_status, answer.language, answer.translation, answer.analysis_status]).toEqual(["completed", "en", null, "completed"]);
    expect(Array.from(bytesVector(answer.embedding!))).toEqual(Array.from(createSifEmbedder().embed(answer.transcription!)));
    const record = (await api.call("GET", `/api/v1/links/${link.uuid}/responses/?page_size=10`)).json.results[0].answers[0];
    expect(record.translation).toBeNull();
  }, 120_000);
});
