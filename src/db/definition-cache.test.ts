/**
 * The definition cache (db/definition-cache.ts) is exact: an API key with its workspace, and a link
 * with its questions, are served from memory only while the definition counter stands still, and
 * every change moves it — made through the API (the server's own connection) or by another
 * connection (here: this test process writing the same database, as `earshot` commands or another
 * node would). On both engines (the suite's engine, test/helpers/db.ts), through a real server.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Db } from "./client.ts";
import { definitionVersion } from "./definition-cache.ts";
import { openTestDatabase } from "../../test/helpers/db.ts";
import { runCli, startServer, type RunningServer } from "../../test/helpers/process.ts";

let dataDir: string;
let server: RunningServer;
let db: Db;
let ws: { workspace_uuid: string; workspace_slug: string; api_key: string };
let link: { uuid: string; slug: string; questions: { uuid: string; prompt: string }[] };

const api = (p: string, init: RequestInit = {}) =>
  fetch(`${server.baseUrl}/api/v1/${p}`, { ...init, headers: { authorization: `Bearer ${ws.api_key}`, "content-type": "application/json", ...init.headers } });
const intakeLink = async () => (await (await fetch(`${server.baseUrl}/api/v1/intake/${ws.workspace_slug}/${link.slug}/`)).json()).link;
const version = async () => Number((await db.selectFrom("definition_version").select("version").executeTakeFirstOrThrow()).version);

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-definition-cache-"));
  const created = await runCli(["workspace", "create", "--name", "Cache", "--plan", "enterprise", "--json"], { dataDir });
  ws = JSON.parse(created.stdout);
  server = await startServer({ dataDir });
  db = await openTestDatabase(dataDir);
  const res = await api("links/", { method: "POST", body: JSON.stringify({ name: "Cached", questions: [{ prompt: "First prompt?", type: "text" }] }) });
  expect(res.status).toBe(201);
  link = await res.json();
});
afterAll(async () => {
  await db?.destroy();
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test("a link changed by another connection is served changed at the next intake request", async () => {
  expect((await intakeLink()).questions[0].prompt).toBe("First prompt?");
  expect((await intakeLink()).questions[0].prompt).toBe("First prompt?"); // now from memory
  await db.updateTable("questions").set({ prompt: "Changed elsewhere?" }).where("uuid", "=", link.questions[0]!.uuid).execute();
  expect((await intakeLink()).questions[0].prompt).toBe("Changed elsewhere?");
  await db.updateTable("links").set({ status: "paused" }).where("uuid", "=", link.uuid).execute();
  expect((await intakeLink()).status).toBe("paused");
  await db.updateTable("links").set({ status: "active" }).where("uuid", "=", link.uuid).execute();
});

test("a link changed through the API is served changed at the next intake request", async () => {
  await intakeLink();
  const res = await api(`links/${link.uuid}/`, { method: "PATCH", body: JSON.stringify({ questions: [{ prompt: "Edited in the console?", type: "text" }] }) });
  expect(res.status).toBe(200);
  expect((await intakeLink()).questions.map((q: { prompt: string }) => q.prompt)).toEqual(["Edited in the console?"]);
});

test("a link and its questions changed by another connection are served changed by the API at the next request", async () => {
  const prompts = async () => {
    const one = await (await api(`links/${link.uuid}/`)).json();
    const page = await (await api("links/")).json();
    return [one.questions[0].prompt, page.results.find((l: { uuid: string }) => l.uuid === link.uuid).questions[0].prompt, one.name];
  };
  await prompts();
  await db.updateTable("questions").set({ prompt: "Changed for the API?" }).where("link_uuid", "=", link.uuid).execute();
  await db.updateTable("links").set({ name: "Renamed elsewhere" }).where("uuid", "=", link.uuid).execute();
  expect(await prompts()).toEqual(["Changed for the API?", "Changed for the API?", "Renamed elsewhere"]);
});

test("a key's workspace and the key itself, changed by another connection, count at the next request", async () => {
  expect((await api(`links/${link.uuid}/`)).headers.get("ratelimit-limit")).not.toBe("77");
  await db.updateTable("workspaces").set({ requests_per_minute: 77 }).where("uuid", "=", ws.workspace_uuid).execute();
  expect((await api(`links/${link.uuid}/`)).headers.get("ratelimit-limit")).toBe("77");
  // Scopes narrowed behind the server's back: the next read is refused for the scope it lacks.
  await db.updateTable("api_tokens").set({ scopes: "responses:read" }).where("workspace_uuid", "=", ws.workspace_uuid).execute();
  const refused = await api(`links/${link.uuid}/`);
  expect(refused.status).toBe(403);
  expect((await refused.json()).code).toBe("INSUFFICIENT_SCOPE");
});

test("usage accounting does not move the counter; a change of a key's columns does", async () => {
  const created = await runCli(["token", "create", "--workspace", ws.workspace_uuid, "--name", "Reader", "--json"], { dataDir });
  const reader = JSON.parse(created.stdout) as { key: string };
  const before = await version();
  for (let i = 0; i < 3; i++) expect((await api(`links/${link.uuid}/`, { headers: { authorization: `Bearer ${reader.key}` } })).status).toBe(200);
  // The usage flush (last_used_at, the day's counter) lands within a second (DESIGN §5).
  for (const deadline = Date.now() + 5000; Date.now() < deadline; await Bun.sleep(100)) {
    const row = await db.selectFrom("api_tokens").select("last_used_at").where("name", "=", "Reader").executeTakeFirstOrThrow();
    if (row.last_used_at) break;
  }
  expect((await db.selectFrom("api_tokens").select("last_used_at").where("name", "=", "Reader").executeTakeFirstOrThrow()).last_used_at).not.toBeNull();
  expect(await version()).toBe(before);
  await db.updateTable("api_tokens").set({ name: "Renamed" }).where("name", "=", "Reader").execute();
  expect(await version()).toBeGreaterThan(before);
});

test("inside a transaction the counter is not offered for caching", async () => {
  expect(await definitionVersion(db)).toBe(await version());
  await db.transaction().execute(async (trx) => {
    expect(await definitionVersion(trx)).toBeNull();
  });
});

test("every insert, update and delete of workspaces, links, questions and the key columns of api_tokens raises the counter; last_used_at does not", async () => {
  const raised = async (what: string, change: () => Promise<unknown>, expected = true) => {
    const before = await version();
    await change();
    expect({ what, raised: (await version()) > before }).toEqual({ what, raised: expected });
  };
  const other = JSON.parse((await runCli(["workspace", "create", "--name", "Counted", "--json"], { dataDir })).stdout) as { workspace_uuid: string };
  await raised("workspaces update", () => db.updateTable("workspaces").set({ name: "Counted again" }).where("uuid", "=", other.workspace_uuid).execute());
  const token = await db.selectFrom("api_tokens").selectAll().where("workspace_uuid", "=", other.workspace_uuid).executeTakeFirstOrThrow();
  await raised(
    "api_tokens last_used_at",
    () => db.updateTable("api_tokens").set({ last_used_at: "2026-11-23T00:00:00.000000Z" }).where("uuid", "=", token.uuid).execute(),
    false,
  );
  await raised("api_tokens update", () =>
    db.updateTable("api_tokens").set({ revoked_at: "2026-11-23T00:00:00.000000Z" }).where("uuid", "=", token.uuid).execute(),
  );
  await raised("api_tokens delete", () => db.deleteFrom("api_tokens").where("uuid", "=", token.uuid).execute());
  await raised("api_tokens insert", () =>
    db
      .insertInto("api_tokens")
      .values({ ...token, uuid: crypto.randomUUID(), key_hash: `h-${crypto.randomUUID()}` })
      .execute(),
  );
  const row = await db.selectFrom("links").selectAll().where("uuid", "=", link.uuid).executeTakeFirstOrThrow();
  const copy = { ...row, uuid: crypto.randomUUID(), slug: `copy-${Date.now()}`, workspace_uuid: other.workspace_uuid };
  await raised("links insert", () => db.insertInto("links").values(copy).execute());
  await raised("links update", () => db.updateTable("links").set({ name: "Counted link" }).where("uuid", "=", copy.uuid).execute());
  const question = await db.selectFrom("questions").selectAll().where("link_uuid", "=", link.uuid).executeTakeFirstOrThrow();
  const { id: _id, ...questionColumns } = question as typeof question & { id?: unknown };
  const questionCopy = { ...questionColumns, uuid: crypto.randomUUID(), link_uuid: copy.uuid };
  await raised("questions insert", () => db.insertInto("questions").values(questionCopy).execute());
  await raised("questions update", () => db.updateTable("questions").set({ prompt: "Counted?" }).where("uuid", "=", questionCopy.uuid).execute());
  await raised("questions delete", () => db.deleteFrom("questions").where("uuid", "=", questionCopy.uuid).execute());
  await raised("links delete", () => db.deleteFrom("links").where("uuid", "=", copy.uuid).execute());
  await raised("workspaces delete", () =>
    db.transaction().execute(async (trx) => {
      await trx.deleteFrom("api_tokens").where("workspace_uuid", "=", other.workspace_uuid).execute();
      await trx.deleteFrom("workspaces").where("uuid", "=", other.workspace_uuid).execute();
    }),
  );
  await raised("workspaces insert", () => runCli(["workspace", "create", "--name", "Counted last", "--json"], { dataDir }));
});
