/**
 * An acknowledged intake write survives `kill -9` (issue 14: the intake write path may get faster,
 * never less durable). A real `earshot serve` over real sockets; the process is killed the moment
 * the last answer and the submit are acknowledged, then the database file is read as it was left.
 */
import { expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runCli, startServer } from "../helpers/process.ts";
import { openTestDatabase } from "../helpers/db.ts";

test("answers and a submission acknowledged just before kill -9 are stored", async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-intake-kill-"));
  try {
    const ws = JSON.parse((await runCli(["workspace", "create", "--name", "Durable", "--plan", "enterprise", "--json"], { dataDir })).stdout);
    const server = await startServer({ dataDir, env: { EARSHOT_JOBS_PAUSED: "1", EARSHOT_INTAKE_SESSIONS_PER_MINUTE: "0" } });
    const created = await fetch(`${server.baseUrl}/api/v1/links/`, {
      method: "POST",
      headers: { authorization: `Bearer ${ws.api_key}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "Durable",
        questions: [
          { prompt: "What went well?", type: "text" },
          { prompt: "Score", type: "rating", configuration: { scale_type: "stars", max_value: 5 } },
        ],
      }),
    });
    const link = await created.json();
    const [, wsSlug, linkSlug] = /\/w\/([^/]+)\/i\/([^/]+)/.exec(link.public_url)!;
    const base = `${server.baseUrl}/api/v1/intake/${wsSlug}/${linkSlug}/`;
    const json = { "content-type": "application/json" };
    // Several respondents; the last one stops after its answers, without submitting.
    const submitted: string[] = [];
    let open = "";
    for (let i = 0; i < 6; i++) {
      const s = await (await fetch(`${base}sessions/`, { method: "POST", headers: json, body: "{}" })).json();
      expect(
        (
          await fetch(`${base}sessions/${s.session_id}/answers/${link.questions[0].uuid}/`, {
            method: "PUT",
            headers: json,
            body: JSON.stringify({ value: `Answer ${i}` }),
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await fetch(`${base}sessions/${s.session_id}/answers/${link.questions[1].uuid}/`, {
            method: "PUT",
            headers: json,
            body: JSON.stringify({ value: 4 }),
          })
        ).status,
      ).toBe(200);
      if (i === 5) {
        open = s.response_uuid;
        break;
      }
      expect((await fetch(`${base}sessions/${s.session_id}/submit/`, { method: "POST", headers: json, body: "{}" })).status).toBe(200);
      submitted.push(s.response_uuid);
    }
    server.kill9();
    await server.proc.exited;

    const db = await openTestDatabase(dataDir);
    const rows = await db
      .selectFrom("responses as r")
      .leftJoin("answers as a", "a.response_uuid", "r.uuid")
      .select((eb) => ["r.uuid", "r.status", eb.fn.count<number>("a.uuid").as("answers")])
      .groupBy(["r.uuid", "r.status"])
      .execute();
    await db.destroy();
    const byUuid = new Map(rows.map((r) => [r.uuid, r]));
    for (const uuid of submitted) expect(byUuid.get(uuid)).toEqual({ uuid, status: "completed", answers: 2 });
    expect(byUuid.get(open)).toEqual({ uuid: open, status: "started", answers: 2 });
    expect(rows.length).toBe(6);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);
