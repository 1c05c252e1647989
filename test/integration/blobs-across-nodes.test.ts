/**
 * Two nodes on one database (DESIGN §11): a recording and a file uploaded through one app are
 * served by a second app on the same database — the signed `audio_url` minted by the first
 * verifies on the second (the signing secret is in the database, not a node-local file) and the
 * bytes are the same. On PostgreSQL the blobs live in the database (chunked `bytea`) and the
 * second node has its own, empty data directory; on SQLite the two apps share the data directory,
 * as two processes of one appliance would.
 */
import { afterAll, expect, test } from "bun:test";
import { sql } from "kysely";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createAppDeps, type AppWiring } from "../../src/app-deps.ts";
import { createInferenceClient } from "../../src/ai/inference-client.ts";
import { loadConfig } from "../../src/config.ts";
import { createWorkspace } from "../../src/modules/workspaces/service.ts";
import { BASE } from "../helpers/api.ts";
import { dropTestDatabase, onPostgres, testDatabaseUrl } from "../helpers/db.ts";
import { FIXTURE_MODELS_DIR, REPO_DIR } from "../helpers/process.ts";

const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));
const WEBM = new Uint8Array(fs.readFileSync(path.join(REPO_DIR, "test/fixtures/audio/hello-there.webm")));
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-two-nodes-"));
const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-two-nodes-b-"));
const wirings: AppWiring[] = [];

afterAll(async () => {
  for (const w of wirings) await w.close();
  await dropTestDatabase(dataDir);
  for (const d of [dataDir, otherDir]) fs.rmSync(d, { recursive: true, force: true });
});

/** An app on the test engine's database of `dataDir`; on PostgreSQL with its own data directory `nodeDir`. */
async function appNode(nodeDir: string) {
  const databaseUrl = await testDatabaseUrl(dataDir);
  const config = loadConfig(
    { EARSHOT_ALLOW_INSECURE_HTTP: "1", EARSHOT_PUBLIC_URL: BASE, EARSHOT_LOG_LEVEL: "silent" },
    { dataDir: databaseUrl ? nodeDir : dataDir, ...(databaseUrl ? { databaseUrl } : {}) },
  );
  const inference = createInferenceClient({ modelsDir: FIXTURE_MODELS_DIR, asrModel: "whisper-tiny-random", sentimentModel: "tiny-sentiment-3class" });
  const wiring = await createAppDeps(config, { inference, webAssets: new Map() });
  wirings.push(wiring);
  return (method: string, p: string, opts: { key?: string; body?: unknown; raw?: BodyInit; type?: string } = {}) => {
    const headers: Record<string, string> = {};
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    if (opts.body !== undefined) headers["content-type"] = "application/json";
    if (opts.type) headers["content-type"] = opts.type;
    return wiring.app.handle(new Request(BASE + p, { method, headers, body: opts.body !== undefined ? JSON.stringify(opts.body) : opts.raw }));
  };
}

test("a signed audio URL minted by one node is served by another node on the same database, with the same bytes", async () => {
  const a = await appNode(dataDir);
  const ws = await createWorkspace(wirings[0]!.db, { name: "Two nodes", plan: "enterprise" });
  const b = await appNode(otherDir);
  expect(wirings[1]!.deps.blobs.kind).toBe(onPostgres ? "postgres" : "local");

  const link = await (
    await a("POST", "/api/v1/links/", {
      key: ws.api_key,
      body: {
        name: "Voice",
        questions: [
          { prompt: "Say it", type: "voice" },
          { prompt: "Attach", type: "file_upload" },
        ],
      },
    })
  ).json();
  const base = `/api/v1/intake/${ws.workspace_slug}/${link.slug}/sessions/`;
  const sid = (await (await a("POST", base, { body: {} })).json()).session_id;
  expect((await a("POST", `${base}${sid}/answers/${link.questions[0].uuid}/audio/`, { raw: WEBM, type: "audio/webm" })).status).toBe(200);
  const form = new FormData();
  form.append("file", new Blob([PNG], { type: "image/png" }), "shot.png");
  expect((await a("POST", `${base}${sid}/answers/${link.questions[1].uuid}/file/`, { raw: form })).status).toBe(200);
  expect((await a("POST", `${base}${sid}/submit/`, { body: {} })).status).toBe(200);

  const response = (await (await a("GET", `/api/v1/links/${link.uuid}/responses/`, { key: ws.api_key })).json()).results[0];
  const voice = response.answers.find((x: any) => x.response_type === "voice");
  const signed = new URL(voice.audio_url);
  expect(signed.searchParams.get("sig")).toBeString();

  // Node B: no key, only A's signature.
  const audio = await b("GET", signed.pathname + signed.search);
  expect(audio.status).toBe(200);
  expect(audio.headers.get("content-type")).toBe("audio/webm");
  expect(new Uint8Array(await audio.arrayBuffer())).toEqual(WEBM);
  // A forged signature is refused on B too.
  signed.searchParams.set("sig", "A".repeat(43));
  expect((await b("GET", signed.pathname + signed.search)).status).toBe(401);

  const fileAnswer = response.answers.find((x: any) => x.response_type === "file_upload");
  const file = await b("GET", `/api/v1/responses/${response.uuid}/answers/${fileAnswer.uuid}/file/`, { key: ws.api_key });
  expect(file.status).toBe(200);
  expect(new Uint8Array(await file.arrayBuffer())).toEqual(PNG);

  // Erasing the response through B removes its blobs (on PostgreSQL: the chunk rows) for A as well.
  const db = wirings[0]!.db;
  const keys = (await db.selectFrom("answers").select(["audio_blob", "file_blob"]).where("response_uuid", "=", response.uuid).execute())
    .flatMap((r) => [r.audio_blob, r.file_blob])
    .filter((k): k is string => !!k);
  expect(keys.length).toBe(2);
  expect((await b("DELETE", `/api/v1/responses/${response.uuid}/`, { key: ws.api_key })).status).toBe(200);
  for (const key of keys) expect(await wirings[0]!.deps.blobs.size(key)).toBeNull();
  if (onPostgres) {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from blob_chunks`.execute(db);
    expect(rows[0]!.n).toBe(0);
  }
}, 120_000);
