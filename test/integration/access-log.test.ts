/**
 * `EARSHOT_ACCESS_LOG` (docs/operations.md, "Health"): one JSON line per request with the method,
 * the route template, the status, the duration and the client address — never the path's values
 * (an intake session id), the query string (a signed URL's signature) or a header (a key). And
 * SIGTERM is logged with each step of the drain. Real process, real sockets.
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runCli, startServer } from "../helpers/process.ts";
import { dropTestDatabase } from "../helpers/db.ts";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-access-log-"));
afterAll(async () => {
  await dropTestDatabase(dataDir);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

type Line = Record<string, unknown>;
const linesOf = (output: string): Line[] =>
  output
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Line);

test("the access log (whatever EARSHOT_LOG_LEVEL says) holds route templates, statuses and addresses, no secrets", async () => {
  const ws = JSON.parse((await runCli(["workspace", "create", "--name", "Logged", "--json"], { dataDir })).stdout);
  const server = await startServer({ dataDir, env: { EARSHOT_ACCESS_LOG: "1", EARSHOT_LOG_LEVEL: "warn" } });
  const auth = { authorization: `Bearer ${ws.api_key}`, "content-type": "application/json" };
  const link = (await (
    await fetch(`${server.baseUrl}/api/v1/links/`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: "L", questions: [{ prompt: "Why?", type: "text" }] }),
    })
  ).json()) as { slug: string };
  const sessions = `/api/v1/intake/${ws.workspace_slug}/${link.slug}/sessions/`;
  const session = (await (await fetch(server.baseUrl + sessions, { method: "POST", headers: auth, body: "{}" })).json()) as { session_id: string };
  expect((await fetch(`${server.baseUrl}${sessions}${session.session_id}/?sig=query-secret-value`)).status).toBe(200);
  expect((await fetch(`${server.baseUrl}/api/v1/links/?page=1&secret=another-query-secret`, { headers: auth })).status).toBe(200);
  await server.stop();

  const output = server.output();
  const requests = linesOf(output).filter((l) => l.msg === "request");
  expect(requests).toContainEqual({
    t: expect.any(String),
    level: "info",
    msg: "request",
    method: "GET",
    route: "/api/v1/intake/:workspace_slug/:link_slug/sessions/:session_id/",
    status: 200,
    duration_ms: expect.any(Number),
    client: "127.0.0.1",
  });
  expect(requests).toContainEqual(expect.objectContaining({ method: "POST", route: "/api/v1/links/", status: 201 }));
  expect(requests).toContainEqual(expect.objectContaining({ method: "GET", route: "/api/v1/links/", status: 200 }));
  for (const secret of [session.session_id, "query-secret-value", "another-query-secret", ws.api_key]) expect(output).not.toContain(secret);
}, 60_000);

test("without EARSHOT_ACCESS_LOG no request is logged; SIGTERM logs each step of the drain", async () => {
  const server = await startServer({ dataDir, env: { EARSHOT_LOG_LEVEL: "info" } });
  expect((await fetch(`${server.baseUrl}/healthz/live`)).status).toBe(200);
  await server.stop();
  const output = server.output();
  expect(linesOf(output).filter((l) => l.msg === "request")).toEqual([]);
  const stopping = linesOf(output).filter((l) => String(l.msg).startsWith("stop"));
  expect(stopping.map((l) => l.msg)).toEqual([
    "stopping: no new connections; draining requests in flight, the job in hand and webhook deliveries in flight",
    "stopping: requests drained",
    "stopping: jobs and deliveries drained",
    "stopped",
  ]);
  expect(stopping[0]!.signal).toBe("SIGTERM");
  expect(stopping[3]).toMatchObject({ signal: "SIGTERM", ms: expect.any(Number) });
}, 60_000);
