/**
 * The themes engine the worker uses (issue 24, DESIGN §12; ai/themes/select.ts), on the real app,
 * the real job runner and the real worker: with no sentence model installed the answers' vectors
 * and the builds are the built-in SIF engine's; once the fixture sentence model is installed under
 * a manifest id (and the worker restarted), a new answer's vector is the model's, the change of
 * engine queues a rebuild at once, and that rebuild embeds every earlier answer of the question
 * again, so one build never mixes two engines. `EARSHOT_EMBEDDING_MODEL=sif` goes back the same way.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { FIXTURE_THEME_SET, installFixtureEmbedder } from "../../../test/helpers/embedder-set.ts";
import { createProcessing, FIXTURE_MODELS_DIR, waitFor } from "../../../test/helpers/processing.ts";
import { SIF_ENGINE_ID } from "../../ai/themes/embedder.ts";

const SENTENCE_MODEL = "Xenova/all-MiniLM-L6-v2";

let api: TestApi;
let link: { uuid: string; slug: string; questions: { uuid: string }[] };
let modelsDir: string;

beforeAll(async () => {
  api = await createTestApi({ EARSHOT_INTAKE_SESSIONS_PER_MINUTE: "0" });
  // The fixture Whisper and sentiment model, and the fixture sentence model as an installed one.
  modelsDir = path.join(api.dataDir, "models");
  fs.mkdirSync(modelsDir);
  for (const id of fs.readdirSync(FIXTURE_MODELS_DIR)) fs.symlinkSync(path.join(FIXTURE_MODELS_DIR, id), path.join(modelsDir, id));
  installFixtureEmbedder(modelsDir, SENTENCE_MODEL);
  const r = await api.call("POST", "/api/v1/links/", { body: { name: "Engines", questions: [{ prompt: "What should we improve?", type: "text" }] } });
  expect(r.status).toBe(201);
  link = r.json;
});
afterAll(() => api.close());

async function submit(value: string): Promise<void> {
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;
  const sid = (await api.call("POST", `${base}/sessions/`, { key: null, body: {} })).json.session_id as string;
  expect((await api.call("PUT", `${base}/sessions/${sid}/answers/${link.questions[0]!.uuid}/`, { key: null, body: { value } })).status).toBe(200);
  expect((await api.call("POST", `${base}/sessions/${sid}/submit/`, { key: null, body: {} })).status).toBe(200);
}

/** Waits until the question's last build is of `engine` with no rebuild queued and every answer analysed. */
async function builtWith(engine: string, answers: number) {
  return waitFor(
    async () => {
      const build = await api.db.selectFrom("theme_builds").selectAll().where("link_uuid", "=", link.uuid).executeTakeFirst();
      const rows = await api.db
        .selectFrom("answers")
        .select(["embedding", "embedding_engine", "theme_uuid"])
        .where("analysis_status", "=", "completed")
        .execute();
      return build?.engine === engine && build.rebuild_queued === 0 && build.answers_built === answers && rows.length === answers ? { build, rows } : null;
    },
    90_000,
    `a build with ${engine} over ${answers} answers`,
  );
}

/** Runs the job runner with a worker configured for `embeddingModel` until `fn` is done. */
async function withWorker<T>(embeddingModel: string, fn: () => Promise<T>): Promise<T> {
  const processing = await createProcessing(api, { modelsDir, embeddingModel });
  await processing.runner.start();
  try {
    return await fn();
  } finally {
    await processing.stop();
  }
}

describe("the themes engine of the worker", () => {
  test("SIF, then the installed sentence model: the change re-embeds the question's answers; then back to SIF", async () => {
    const texts = FIXTURE_THEME_SET.map((a) => a.text);
    // 1. EARSHOT_EMBEDDING_MODEL=sif: SIF vectors (100 floats) and a SIF build after 10 answers.
    const sif = await withWorker("sif", async () => {
      for (const t of texts.slice(0, 12)) await submit(t);
      return builtWith(SIF_ENGINE_ID, 12);
    });
    expect(sif.rows.every((r) => r.embedding_engine === SIF_ENGINE_ID && r.embedding!.byteLength === 400)).toBe(true);

    // 2. auto with the sentence model installed: one new answer is embedded by it, the engine
    //    change queues a rebuild, and the rebuild embeds the twelve SIF answers again.
    const model = await withWorker("auto", async () => {
      await submit(texts[12]!);
      return builtWith(SENTENCE_MODEL, 13);
    });
    expect(model.rows.map((r) => [r.embedding_engine, r.embedding!.byteLength])).toEqual(Array(13).fill([SENTENCE_MODEL, 32 * 4]));
    const themes = await api.db.selectFrom("themes").select(["uuid", "centre"]).where("link_uuid", "=", link.uuid).execute();
    expect(themes.length).toBeGreaterThan(0);
    // Centres live in the model's space too (what assignment compares new vectors with).
    expect(themes.every((t) => t.centre!.byteLength === 32 * 4)).toBe(true);
    expect(model.rows.filter((r) => r.theme_uuid !== null).length).toBeGreaterThan(0);

    // 3. Back to the built-in engine: the same the other way round.
    const back = await withWorker("sif", async () => {
      await submit(texts[13]!);
      return builtWith(SIF_ENGINE_ID, 14);
    });
    expect(back.rows.every((r) => r.embedding_engine === SIF_ENGINE_ID && r.embedding!.byteLength === 400)).toBe(true);
  }, 240_000);
});
