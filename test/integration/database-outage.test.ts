/**
 * A node that loses its PostgreSQL (DESIGN §11): while the database is down `earshot serve` keeps
 * running, answers API requests `503 DATABASE_UNAVAILABLE` problem+json (no stack, no path) and
 * `/healthz` 503 with `database.reachable: false`, `/healthz/ready` 503 (and `earshot healthcheck`
 * exits 1) while `/healthz/live` stays 200; once the database is back it answers normally
 * again without a restart. Runs on its own throw-away cluster (stopped and started here), never
 * the shared one; only on the PostgreSQL run (EARSHOT_TEST_DATABASE_URL).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pauseCluster, resumeCluster, startCluster, stopCluster, type PgCluster } from "../../scripts/pg-cluster.ts";
import { runCli, startServer, type RunningServer } from "../helpers/process.ts";

const onPostgres = /^postgres(ql)?:\/\//.test(process.env.EARSHOT_TEST_DATABASE_URL ?? "");

let cluster: PgCluster;
let server: RunningServer;
let dataDir: string;
let key: string;

beforeAll(async () => {
  if (!onPostgres) return;
  cluster = await startCluster();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-outage-"));
  const env = { EARSHOT_DATABASE_URL: cluster.url };
  const created = await runCli(["workspace", "create", "--name", "Outage", "--json"], { dataDir, env });
  expect(created.code).toBe(0);
  key = JSON.parse(created.stdout).api_key;
  server = await startServer({ dataDir, env: { ...env, EARSHOT_ALLOW_INSECURE_HTTP: "1" } });
}, 120_000);

afterAll(async () => {
  if (!onPostgres) return;
  await server?.stop();
  if (cluster) stopCluster(cluster.dir);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test.skipIf(!onPostgres)(
  "a node answers 503 DATABASE_UNAVAILABLE while PostgreSQL is down and recovers by itself when it returns (PostgreSQL only: a database server to lose)",
  async () => {
    const links = () => fetch(`${server.baseUrl}/api/v1/links/`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(10_000) });
    const health = () => fetch(`${server.baseUrl}/healthz`, { signal: AbortSignal.timeout(10_000) });
    const ready = async () => {
      const res = await fetch(`${server.baseUrl}/healthz/ready`, { signal: AbortSignal.timeout(10_000) });
      return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, string> } };
    };
    // `earshot healthcheck` (the container's HEALTHCHECK) says the same by its exit code.
    const healthcheck = async () => (await runCli(["healthcheck", "--url", server.baseUrl], { dataDir, env: { EARSHOT_DATABASE_URL: cluster.url } })).code;
    const live = async () => (await fetch(`${server.baseUrl}/healthz/live`, { signal: AbortSignal.timeout(10_000) })).status;

    const before = await links();
    expect(before.status).toBe(200);
    expect(await (await health()).json()).toMatchObject({ status: "ok", database: { kind: "postgres", reachable: true } });
    // Ready once the job runner and the dispatcher turn (they start just after listening: "starting").
    let first = await ready();
    for (let i = 0; i < 50 && first.status !== 200; i++) {
      await Bun.sleep(100);
      first = await ready();
    }
    expect(first).toMatchObject({ status: 200, body: { status: "ready", checks: { database: "ok", migrations: "ok", worker: "ok" } } });
    expect(await healthcheck()).toBe(0);

    pauseCluster(cluster.dir);
    const down = await links();
    expect(down.status).toBe(503);
    expect(down.headers.get("content-type")).toBe("application/problem+json");
    expect(down.headers.get("retry-after")).toBe("5");
    const problem = (await down.json()) as Record<string, unknown>;
    expect(problem).toMatchObject({ status: 503, code: "DATABASE_UNAVAILABLE" });
    expect(JSON.stringify(problem)).not.toMatch(/\bat |\/work\/|\/tmp\/|node_modules|ECONNREFUSED/);
    const h = await health();
    expect(h.status).toBe(503);
    expect(await h.json()).toMatchObject({ status: "unavailable", database: { kind: "postgres", reachable: false }, jobs: null });
    expect(await ready()).toMatchObject({ status: 503, body: { status: "not_ready", checks: { database: "unreachable" } } });
    expect(await healthcheck()).toBe(1);
    expect(await live()).toBe(200); // the process is up: no restart needed
    // A few seconds down: the job runner and the webhook dispatcher keep polling a dead database.
    await Bun.sleep(3000);
    expect(server.proc.exitCode).toBeNull();

    resumeCluster(cluster.dir);
    let after = await links();
    for (let i = 0; i < 50 && after.status !== 200; i++) {
      await Bun.sleep(200);
      after = await links();
    }
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual(await before.json());
    expect(await (await health()).json()).toMatchObject({ status: "ok", database: { kind: "postgres", reachable: true } });
    expect(await ready()).toMatchObject({ status: 200, body: { status: "ready" } });
    expect(await healthcheck()).toBe(0);
    expect(server.proc.exitCode).toBeNull();
  },
  120_000,
);
