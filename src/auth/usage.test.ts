/**
 * Coalesced usage accounting (DESIGN §5): no request writes usage itself; counts and
 * `last_used_at` reach the database within a second, at shutdown, and are exact in the process's
 * own answers meanwhile. Real SQLite files; the shutdown case over a real `earshot serve`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createTestApi, type TestApi } from "../../test/helpers/api.ts";
import { runCli, startServer } from "../../test/helpers/process.ts";
import { dropTestDatabase, openTestDatabase } from "../../test/helpers/db.ts";
import { nowIso } from "../clock.ts";
import { createWorkspace } from "../modules/workspaces/service.ts";
import { createUsageRecorder } from "./usage.ts";

const stored = (api: TestApi) =>
  api.db
    .selectFrom("api_tokens")
    .leftJoin("api_call_counters", (j) => j.onRef("api_call_counters.workspace_uuid", "=", "api_tokens.workspace_uuid"))
    .select(["api_tokens.last_used_at", "api_call_counters.calls"])
    .where("api_tokens.uuid", "=", api.ws.token_uuid)
    .executeTakeFirstOrThrow();

describe("usage accounting in process", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await createTestApi();
  });
  afterAll(async () => {
    await api.close();
  });

  test("requests write no usage themselves; the counts and last_used_at are stored within a second", async () => {
    // Warm the database connections without the key (on PostgreSQL the pool's first connections
    // take longer than a flush interval).
    await Promise.all(Array.from({ length: 5 }, () => api.call("GET", "/api/v1/links/", { key: null })));
    const before = nowIso();
    for (let i = 0; i < 5; i++) expect((await api.call("GET", "/api/v1/links/")).status).toBe(200);
    const after = nowIso();
    // Nothing written by the requests (a flush is at least FLUSH_INTERVAL_MS away)...
    expect(await stored(api)).toEqual({ last_used_at: null, calls: null });
    // ...but this process's own answers already count them.
    const view = await api.call("GET", "/api/v1/workspace/");
    expect(view.json.usage.api_calls_today).toBe(6);
    const listed = (await api.call("GET", "/api/v1/tokens/")).json.results.find((t: any) => t.uuid === api.ws.token_uuid);
    expect(listed.last_used_at > after).toBe(true);
    // DESIGN §5: flushed at least once a second.
    await Bun.sleep(1000);
    const row = await stored(api);
    expect(row.calls).toBe(7);
    // Exact to the second: the time of the latest request, not of the flush.
    expect(row.last_used_at! >= before).toBe(true);
    expect(Date.parse(row.last_used_at!) - Date.parse(listed.last_used_at)).toBeLessThan(1000);
    expect((await api.call("GET", "/api/v1/workspace/")).json.usage.api_calls_today).toBe(8);
  });

  test("a revoked key fails at once, whatever usage is pending", async () => {
    const t = (await api.call("POST", "/api/v1/tokens/", { body: { name: "Short-lived" } })).json;
    expect((await api.call("GET", "/api/v1/links/", { key: t.key })).status).toBe(200);
    expect((await api.call("DELETE", `/api/v1/tokens/${t.uuid}/`)).status).toBe(200);
    const r = await api.call("GET", "/api/v1/links/", { key: t.key });
    expect([r.status, r.json.code]).toEqual([401, "UNAUTHENTICATED"]);
  });
});

test("stop() writes what is pending; counts of many records add up, per workspace and day", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-usage-"));
  const db = await openTestDatabase(dir);
  try {
    const a = await createWorkspace(db, { name: "A", plan: "enterprise" });
    const b = await createWorkspace(db, { name: "B", plan: "enterprise" });
    // An interval no test waits for: only stop() can write these.
    const usage = createUsageRecorder(db, { flushIntervalMs: 3_600_000 });
    for (let i = 0; i < 250; i++) usage.record(a.token_uuid, a.workspace_uuid, `2026-11-23T10:00:00.${String(i).padStart(6, "0")}Z`);
    usage.record(a.token_uuid, a.workspace_uuid, "2026-11-24T00:00:01.000000Z");
    usage.record(b.token_uuid, b.workspace_uuid, "2026-11-23T11:00:00.000000Z");
    await usage.flush();
    usage.record(b.token_uuid, b.workspace_uuid, "2026-11-23T12:00:00.000000Z");
    expect(usage.pendingCalls(b.workspace_uuid, "2026-11-23")).toBe(1);
    await usage.stop();
    const counters = await db.selectFrom("api_call_counters").select(["workspace_uuid", "day", "calls"]).orderBy("workspace_uuid").orderBy("day").execute();
    expect(counters).toEqual(
      [
        { workspace_uuid: a.workspace_uuid, day: "2026-11-23", calls: 250 },
        { workspace_uuid: a.workspace_uuid, day: "2026-11-24", calls: 1 },
        { workspace_uuid: b.workspace_uuid, day: "2026-11-23", calls: 2 },
      ].sort((x, y) => (x.workspace_uuid < y.workspace_uuid ? -1 : x.workspace_uuid > y.workspace_uuid ? 1 : 0)),
    );
    const tokens = await db.selectFrom("api_tokens").select(["uuid", "last_used_at"]).where("uuid", "in", [a.token_uuid, b.token_uuid]).execute();
    expect(Object.fromEntries(tokens.map((t) => [t.uuid, t.last_used_at]))).toEqual({
      [a.token_uuid]: "2026-11-24T00:00:01.000000Z",
      [b.token_uuid]: "2026-11-23T12:00:00.000000Z",
    });
    expect(usage.pendingCalls(b.workspace_uuid, "2026-11-23")).toBe(0);
  } finally {
    await db.destroy();
    await dropTestDatabase(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("several nodes' flushes add up, in any order; last_used_at never moves back", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-usage-nodes-"));
  const dbs = [await openTestDatabase(dir), await openTestDatabase(dir), await openTestDatabase(dir)]; // three nodes
  try {
    const ws = await createWorkspace(dbs[0]!, { name: "Shared", plan: "enterprise" });
    const nodes = dbs.map((db) => createUsageRecorder(db, { flushIntervalMs: 3_600_000 }));
    // Node 2 saw the key last; node 0 flushes its older use after it.
    for (let i = 0; i < 100; i++) nodes[i % 3]!.record(ws.token_uuid, ws.workspace_uuid, `2026-11-23T10:00:00.${String(i).padStart(6, "0")}Z`);
    nodes[2]!.record(ws.token_uuid, ws.workspace_uuid, "2026-11-23T11:00:00.000000Z");
    await nodes[2]!.flush();
    await nodes[0]!.flush();
    await nodes[1]!.flush();
    const counter = await dbs[0]!.selectFrom("api_call_counters").select("calls").where("workspace_uuid", "=", ws.workspace_uuid).executeTakeFirstOrThrow();
    expect(counter.calls).toBe(101);
    const token = await dbs[1]!.selectFrom("api_tokens").select("last_used_at").where("uuid", "=", ws.token_uuid).executeTakeFirstOrThrow();
    expect(token.last_used_at).toBe("2026-11-23T11:00:00.000000Z");
    await Promise.all(nodes.map((n) => n.stop()));
  } finally {
    for (const db of dbs) await db.destroy();
    await dropTestDatabase(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("earshot serve writes pending usage when it stops (SIGTERM right after the requests)", async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-usage-serve-"));
  try {
    const ws = JSON.parse((await runCli(["workspace", "create", "--name", "Usage", "--plan", "enterprise", "--json"], { dataDir })).stdout);
    const server = await startServer({ dataDir });
    const n = 40;
    await Promise.all(
      Array.from({ length: n }, () => fetch(`${server.baseUrl}/api/v1/links/`, { headers: { authorization: `Bearer ${ws.api_key}` } }).then((r) => r.text())),
    );
    // Well inside FLUSH_INTERVAL_MS of the last request: only the shutdown flush can store them all.
    await server.stop();
    const db = await openTestDatabase(dataDir);
    const row = await db.selectFrom("api_call_counters").select("calls").where("workspace_uuid", "=", ws.workspace_uuid).executeTakeFirst();
    const token = await db.selectFrom("api_tokens").select("last_used_at").where("workspace_uuid", "=", ws.workspace_uuid).executeTakeFirstOrThrow();
    await db.destroy();
    expect(row?.calls).toBe(n);
    expect(token.last_used_at).not.toBeNull();
  } finally {
    await dropTestDatabase(dataDir);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);
