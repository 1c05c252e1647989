/**
 * `earshot migrate-to-postgres --to URL` (issue 15, DESIGN §11): an appliance (SQLite + blob files)
 * with every question type, voice answers, an uploaded file, webhooks and keys is copied into a
 * fresh PostgreSQL database by the real CLI; the API of an app on PostgreSQL then answers the same
 * GETs as the appliance's (links, responses, webhooks, tokens) and serves identical recording and
 * file bytes (the appliance's signed audio URL included); a re-run changes nothing; a target with
 * rows of its own is refused. Only on the PostgreSQL run (EARSHOT_TEST_DATABASE_URL): the source
 * is always SQLite.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { createAppDeps, type AppWiring } from "../../src/app-deps.ts";
import { loadConfig } from "../../src/config.ts";
import { createInferenceClient } from "../../src/ai/inference-client.ts";
import { createWorkspace, type CreatedWorkspace } from "../../src/modules/workspaces/service.ts";
import { pruneDeliveryLogs } from "../../src/outbox/repository.ts";
import { ALL_TYPE_QUESTIONS, BASE } from "../helpers/api.ts";
import { FIXTURE_MODELS_DIR, REPO_DIR, runCli } from "../helpers/process.ts";

const ADMIN_URL = process.env.EARSHOT_TEST_DATABASE_URL ?? "";
const onPostgres = /^postgres(ql)?:\/\//.test(ADMIN_URL);
const WEBM = new Uint8Array(fs.readFileSync(path.join(REPO_DIR, "test/fixtures/audio/hello-there.webm")));
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));

const dbName = `hpgops_migrate_${process.pid}_${Date.now()}`;
let targetUrl = "";
let dataDir = "";
let admin: pg.Client;

type Node = {
  wiring: AppWiring;
  request(method: string, p: string, opts?: { body?: unknown; raw?: BodyInit; type?: string; key?: string | null }): Promise<Response>;
};

function node(databaseUrl: string | null, dir: string, key: () => string): Promise<Node> {
  const env = { EARSHOT_ALLOW_INSECURE_HTTP: "1", EARSHOT_PUBLIC_URL: BASE, EARSHOT_LOG_LEVEL: "silent" };
  const config = loadConfig(env, { dataDir: dir, ...(databaseUrl ? { databaseUrl } : {}) });
  const inference = createInferenceClient({ modelsDir: FIXTURE_MODELS_DIR, asrModel: "whisper-tiny-random", sentimentModel: "tiny-sentiment-3class" });
  return createAppDeps(config, { inference, webAssets: new Map() }).then((wiring) => ({
    wiring,
    request(method, p, opts = {}) {
      const headers: Record<string, string> = { accept: "application/json" };
      const k = opts.key === undefined ? key() : opts.key;
      if (k) headers.authorization = `Bearer ${k}`;
      if (opts.body !== undefined) headers["content-type"] = "application/json";
      if (opts.type) headers["content-type"] = opts.type;
      return wiring.app.handle(new Request(BASE + p, { method, headers, body: opts.body !== undefined ? JSON.stringify(opts.body) : opts.raw }));
    },
  }));
}

beforeAll(async () => {
  if (!onPostgres) return;
  admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const u = new URL(ADMIN_URL);
  u.pathname = `/${dbName}`;
  targetUrl = u.toString();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-migrate-"));
});

afterAll(async () => {
  if (!onPostgres) return;
  await admin.query(`drop database if exists ${dbName} with (force)`);
  await admin.end();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The GETs compared across engines; signatures and usage stamps, which the requests themselves change, are left out. */
async function snapshot(n: Node, linkUuid: string, wsUuid: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const p of [
    "/api/v1/links/",
    `/api/v1/links/${linkUuid}/`,
    `/api/v1/links/${linkUuid}/responses/`,
    "/api/v1/responses/?status=all",
    `/api/v1/workspaces/${wsUuid}/webhooks/`,
    "/api/v1/tokens/",
  ]) {
    const r = await n.request("GET", p);
    expect([p, r.status]).toEqual([p, 200]);
    out[p] = JSON.parse((await r.text()).replace(/([?&])exp=\d+&sig=[\w-]+/g, "$1signed"), (k, v) => (k === "last_used_at" ? undefined : v));
  }
  return out;
}

test.skipIf(!onPostgres)(
  "an appliance with every question type, voice answers, a file, webhooks and keys is copied to PostgreSQL; the API answers the same; a re-run is harmless (PostgreSQL only: the target)",
  async () => {
    // The appliance: SQLite in dataDir, blobs under dataDir/blobs.
    let ws: CreatedWorkspace;
    const source = await node(null, dataDir, () => ws.api_key);
    ws = await createWorkspace(source.wiring.db, { name: "Appliance", plan: "enterprise" });
    const link = await (
      await source.request("POST", "/api/v1/links/", {
        body: { name: "All types", questions: ALL_TYPE_QUESTIONS, on_finished: { webhook_url: "https://hooks.example.com/a", webhook_secret: "s3cret" } },
      })
    ).json();
    expect(link.uuid).toBeString();
    expect(
      (
        await source.request("POST", `/api/v1/workspaces/${ws.workspace_uuid}/webhooks/`, {
          body: { url: "https://hooks.example.com/b", events: ["response.submitted", "response.started"] },
        })
      ).status,
    ).toBe(201);
    expect((await source.request("POST", "/api/v1/tokens/", { body: { name: "reader", scopes: ["responses:read"] } })).status).toBe(201);
    const intake = `/api/v1/intake/${ws.workspace_slug}/${link.slug}/sessions/`;
    for (let i = 0; i < 3; i++) {
      const sid = (await (await source.request("POST", intake, { body: {}, key: null })).json()).session_id;
      const q = (n: number) => link.questions[n].uuid;
      expect((await source.request("POST", `${intake}${sid}/answers/${q(0)}/audio/`, { raw: WEBM, type: "audio/webm", key: null })).status).toBe(200);
      for (const [n, value] of [
        [1, "typed fallback"],
        [2, `Answer ${i}`],
        [3, "Pro"],
        [4, 12 + i],
        [5, 4],
        [6, "b"],
        [7, `ada${i}@example.com`],
        [8, "2026-11-01"],
        [9, i % 2 === 0],
      ] as const) {
        expect((await source.request("PUT", `${intake}${sid}/answers/${q(n)}/`, { body: { value }, key: null })).status).toBe(200);
      }
      const form = new FormData();
      form.append("file", new Blob([PNG], { type: "image/png" }), `shot-${i}.png`);
      expect((await source.wiring.app.handle(new Request(`${BASE}${intake}${sid}/answers/${q(10)}/file/`, { method: "POST", body: form }))).status).toBe(200);
      if (i < 2) expect((await source.request("POST", `${intake}${sid}/submit/`, { body: {}, key: null })).status).toBe(200);
    }
    const before = await snapshot(source, link.uuid, ws.workspace_uuid);
    const responses = (before["/api/v1/responses/?status=all"] as { results: any[] }).results;
    expect(responses.length).toBe(3);
    const sourceList = await (await source.request("GET", "/api/v1/responses/?status=all")).json();
    const signedAudioUrl: string = sourceList.results
      .find((r: any) => r.status === "completed")
      .answers.find((a: any) => a.response_type === "voice").audio_url;
    expect(signedAudioUrl).toContain("sig=");
    await source.wiring.close();

    const run = () => runCli(["migrate-to-postgres", "--to", targetUrl, "--json"], { dataDir });
    const first = await run();
    expect(first.stderr).toContain("answers: ");
    expect(first.code).toBe(0);
    const report = JSON.parse(first.stdout);
    expect(report.blobs).toEqual({ referenced: 6, copied: 6, already: 0, missing: [] });
    for (const t of report.tables) expect([t.table, t.target]).toEqual([t.table, t.source]);
    expect(report.tables.find((t: any) => t.table === "answers").source).toBe(33);

    // A re-run (as after stopping the appliance): nothing new to copy, the same counts.
    const second = await run();
    expect([second.code, second.stderr.split("\n").filter((l) => l.startsWith("earshot:"))]).toEqual([0, []]);
    expect(JSON.parse(second.stdout).blobs).toEqual({ referenced: 6, copied: 0, already: 6, missing: [] });
    expect(JSON.parse(second.stdout).tables).toEqual(report.tables);

    const target = await node(targetUrl, fs.mkdtempSync(path.join(os.tmpdir(), "earshot-migrated-")), () => ws.api_key);
    try {
      expect(target.wiring.deps.blobs.kind).toBe("postgres");
      expect(await snapshot(target, link.uuid, ws.workspace_uuid)).toEqual(before);
      // The appliance's signed URL works on PostgreSQL (the signing secret came along) and the bytes are the same.
      const audio = await target.request("GET", new URL(signedAudioUrl).pathname + new URL(signedAudioUrl).search, { key: null });
      expect(audio.status).toBe(200);
      expect(new Uint8Array(await audio.arrayBuffer())).toEqual(WEBM);
      const fileAnswer = responses[0].answers.find((a: any) => a.response_type === "file_upload");
      const file = await target.request("GET", `/api/v1/responses/${responses[0].uuid}/answers/${fileAnswer.uuid}/file/`);
      expect(new Uint8Array(await file.arrayBuffer())).toEqual(PNG);
      // Search over the copied answers works (answers_search is filled as they arrive).
      const found = await (await target.request("GET", "/api/v1/responses/?status=all&search=ada1")).json();
      expect(found.results.length).toBe(1);

      // A target with rows of its own is refused before anything is copied.
      expect(
        (
          await runCli(["workspace", "create", "--name", "Elsewhere", "--json"], {
            dataDir: target.wiring.deps.config.dataDir,
            env: { EARSHOT_DATABASE_URL: targetUrl },
          })
        ).code,
      ).toBe(0);
      const refused = await run();
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("The target database has rows the appliance does not: ");
      // Written since the last run (the workspace, and the key usage of the requests above): not the appliance's.
      expect(refused.stderr).toContain("workspaces (1 row written there since the last run)");
    } finally {
      await target.wiring.close();
    }
  },
  120_000,
);

test.skipIf(!onPostgres)(
  "the two-pass workflow survives deletions between the passes: an erasure, a removed webhook and pruned delivery logs are deleted in the target too; a target written to since is still refused (PostgreSQL only: the target)",
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-migrate-twice-"));
    const name = `${dbName}_twice`;
    await admin.query(`create database ${name}`);
    const u = new URL(ADMIN_URL);
    u.pathname = `/${name}`;
    const target2 = u.toString();
    let ws: CreatedWorkspace;
    const source = await node(null, dir, () => ws.api_key);
    try {
      ws = await createWorkspace(source.wiring.db, { name: "Appliance", plan: "enterprise" });
      const link = await (
        await source.request("POST", "/api/v1/links/", {
          body: {
            name: "Voice",
            questions: [
              { prompt: "Tell us", type: "voice" },
              { prompt: "Comment", type: "text" },
            ],
          },
        })
      ).json();
      const hooks = [];
      for (const url of ["https://hooks.example.com/a", "https://hooks.example.com/b"]) {
        const r = await source.request("POST", `/api/v1/workspaces/${ws.workspace_uuid}/webhooks/`, {
          body: { url, events: ["response.started", "response.submitted"] },
        });
        expect(r.status).toBe(201);
        hooks.push(await r.json());
      }
      const intake = `/api/v1/intake/${ws.workspace_slug}/${link.slug}/sessions/`;
      const respond = async (i: number) => {
        const sid = (await (await source.request("POST", intake, { body: {}, key: null })).json()).session_id;
        expect(
          (await source.request("POST", `${intake}${sid}/answers/${link.questions[0].uuid}/audio/`, { raw: WEBM, type: "audio/webm", key: null })).status,
        ).toBe(200);
        expect((await source.request("PUT", `${intake}${sid}/answers/${link.questions[1].uuid}/`, { body: { value: `Answer ${i}` }, key: null })).status).toBe(
          200,
        );
        expect((await source.request("POST", `${intake}${sid}/submit/`, { body: {}, key: null })).status).toBe(200);
      };
      for (let i = 0; i < 3; i++) await respond(i);
      const sdb = source.wiring.db;
      // Every delivery has long been delivered: the hourly pruning will remove them.
      await sdb.updateTable("webhook_deliveries").set({ state: "succeeded", date_updated: "2020-01-01T00:00:00.000000Z" }).execute();
      await sdb.updateTable("outbox_events").set({ date_created: "2020-01-01T00:00:00.000000Z" }).execute();
      const deliveriesBefore = (await sdb.selectFrom("webhook_deliveries").select("uuid").execute()).length;
      expect(deliveriesBefore).toBeGreaterThan(0);

      // Pass 1 while the appliance runs.
      const run = () => runCli(["migrate-to-postgres", "--to", target2, "--json"], { dataDir: dir });
      const first = await run();
      expect([first.code, first.stderr.split("\n").filter((l) => l.startsWith("earshot:"))]).toEqual([0, []]);

      // Between the passes: an erasure (its recording goes too), a removed webhook, the pruning, one new response.
      const list = await (await source.request("GET", "/api/v1/responses/?status=all")).json();
      const erased = list.results[0];
      expect((await source.request("DELETE", `/api/v1/responses/${erased.uuid}/`)).status).toBe(200);
      expect((await source.request("DELETE", `/api/v1/workspaces/${ws.workspace_uuid}/webhooks/${hooks[1].uuid}/`)).status).toBe(200);
      expect(await pruneDeliveryLogs(sdb, 30)).toBeGreaterThan(0);
      await respond(3);
      const before = await snapshot(source, link.uuid, ws.workspace_uuid);
      const deliveriesLeft = await sdb.selectFrom("webhook_deliveries").select("uuid").orderBy("uuid").execute();
      await source.wiring.close();

      // Pass 2 with the appliance stopped: it succeeds and the target is the appliance.
      const second = await run();
      expect([second.code, second.stderr.split("\n").filter((l) => l.startsWith("earshot:"))]).toEqual([0, []]);
      const report = JSON.parse(second.stdout);
      for (const t of report.tables) expect([t.table, t.target]).toEqual([t.table, t.source]);
      expect(report.deleted).toMatchObject({ responses: 1, webhooks: 1, blobs: 1 });
      expect(report.deleted.webhook_deliveries).toBeGreaterThan(0);
      const target = await node(target2, fs.mkdtempSync(path.join(os.tmpdir(), "earshot-migrated-twice-")), () => ws.api_key);
      try {
        expect(await snapshot(target, link.uuid, ws.workspace_uuid)).toEqual(before);
        expect((await target.request("GET", `/api/v1/responses/${erased.uuid}/`)).status).toBe(404);
        const blobsLeft = await target.wiring.db
          .selectFrom("blobs" as never)
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow();
        expect(Number((blobsLeft as { n: number }).n)).toBe(3); // the three recordings the appliance still has
        // The pruned deliveries are gone; the new response's delivery (pending) is there.
        expect(await target.wiring.db.selectFrom("webhook_deliveries").select("uuid").orderBy("uuid").execute()).toEqual(deliveriesLeft);

        // Something else writes to the target after the last run: the next run refuses, changing nothing.
        expect(
          (
            await runCli(["workspace", "create", "--name", "Elsewhere", "--json"], {
              dataDir: target.wiring.deps.config.dataDir,
              env: { EARSHOT_DATABASE_URL: target2 },
            })
          ).code,
        ).toBe(0);
        const refused = await run();
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain("The target database has rows the appliance does not: ");
        expect(refused.stderr).toContain("workspaces (1 row written there since the last run)");
        expect((await target.request("GET", "/api/v1/responses/?status=all")).status).toBe(200);
      } finally {
        await target.wiring.close();
      }
    } finally {
      await admin.query(`drop database if exists ${name} with (force)`);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
  120_000,
);
