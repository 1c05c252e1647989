/**
 * Erasure reaches every copy (issue 9 item 8, docs/api.md "Erasure", docs/webhooks.md "Erased
 * responses"): a response with an email and typed text is submitted through the public intake
 * API, its events are delivered to a real HTTPS receiver (one webhook's receiver echoes the
 * personal data in its answer, another fails so a retry is pending), then `DELETE
 * responses/{uuid}/`. Afterwards no table of the database file — shadow tables of the search
 * index included, text and blob columns alike — nor the file's bytes hold the email or the text;
 * the pending retry is cancelled and never sent; redelivery answers 410 `RESPONSE_ERASED`. The
 * purge of abandoned sessions (intake/purge.ts) leaves no trace either: the search index deletes
 * securely (FTS5 secure-delete, migration 2026-11-27T0200), with no compaction by either path.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { sql } from "kysely";
import { createLogger } from "../../src/logger.ts";
import { formatMicros } from "../../src/clock.ts";
import { purgeIntake } from "../../src/modules/intake/purge.ts";
import { createDispatcher, type Dispatcher } from "../../src/outbox/dispatcher.ts";
import { createTestApi, type TestApi } from "../helpers/api.ts";
import { startHttpsReceiver, type HttpsReceiver } from "../helpers/https-receiver.ts";
import { startProcessing } from "../helpers/processing.ts";
import { onPostgres, tableNames } from "../helpers/db.ts";

const EMAIL = "quokkaprobe7f3a@example.org";
const TEXT = "My parrot Zanzibarquux hated the checkout page";
/** What must be gone: the whole values, and their most distinctive words as the search index stores them. */
const NEEDLES = [EMAIL, TEXT, "quokkaprobe7f3a", "zanzibarquux"];

let api: TestApi;
let receiver: HttpsReceiver;
let dispatcher: Dispatcher;
let processing: Awaited<ReturnType<typeof startProcessing>>;
let wsPath: string;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  api = await createTestApi({
    EARSHOT_WEBHOOK_ALLOW_HOSTS: "127.0.0.1,localhost",
    EARSHOT_WEBHOOK_CA_FILE: receiver.certs.caFile,
    EARSHOT_WEBHOOK_RETRY_SCHEDULE_S: "3,3,3",
    EARSHOT_OUTBOX_POLL_MS: "50",
  });
  dispatcher = createDispatcher({ db: api.db, log: createLogger("silent"), config: api.config, timeoutMs: 5000 });
  await dispatcher.start();
  processing = await startProcessing(api);
  wsPath = `/api/v1/workspaces/${api.ws.workspace_uuid}/webhooks/`;
});

afterAll(async () => {
  await processing.stop();
  await dispatcher.stop();
  await receiver.close();
  await api.close();
});

async function createHook(path: string) {
  const r = await api.call("POST", wsPath, { body: { url: receiver.url.replace("/hook", path), events: ["response.started", "response.submitted"] } });
  expect(r.status).toBe(201);
  return r.json as { uuid: string };
}

async function deliveries(hookUuid: string): Promise<any[]> {
  return (await api.call("GET", `${wsPath}${hookUuid}/deliveries/?page_size=100`)).json.results;
}

async function until<T>(fn: () => Promise<T | null | false | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(50);
  }
}

/** Every `table.column` of the database (shadow tables of FTS5 included) whose value holds a needle. */
async function tablesHolding(needles: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const name of await tableNames(api.db)) {
    const rows = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(name)}`.execute(api.db);
    for (const row of rows.rows) {
      for (const [column, value] of Object.entries(row)) {
        const text = typeof value === "string" ? value.toLowerCase() : value instanceof Uint8Array ? Buffer.from(value).toString("latin1").toLowerCase() : null;
        if (text && needles.some((n) => text.includes(n.toLowerCase()))) found.push(`${name}.${column}`);
      }
    }
  }
  return [...new Set(found)];
}

/**
 * Needles present anywhere in the database file's bytes (after a checkpoint empties the WAL).
 * SQLite only: on PostgreSQL deleted rows leave the data files at the next VACUUM (autovacuum;
 * docs/decisions/postgres.md "Search"), and the server's files are not the test's to read; there
 * `tablesHolding`, which also reads the search index (`answers_search`), is the check.
 */
async function fileHolding(needles: string[]): Promise<string[]> {
  if (onPostgres) return [];
  await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(api.db);
  const bytes = readFileSync(api.config.dbFile).toString("latin1").toLowerCase();
  return needles.filter((n) => bytes.includes(n.toLowerCase()));
}

test("erasing a response removes every copy of its data, cancels its pending deliveries, and redelivery answers 410", async () => {
  const ok = await createHook("/ok");
  const echo = await createHook("/echo");
  const failing = await createHook("/failing");
  receiver.setBehavior({ status: 200, body: `thanks for ${EMAIL}: ${TEXT}` }, "/echo");
  receiver.setBehavior({ status: 503 }, "/failing");

  const link = await api.call("POST", "/api/v1/links/", {
    body: {
      name: "Erasure",
      questions: [
        { prompt: "Your email", type: "email" },
        { prompt: "What went wrong?", type: "text" },
      ],
    },
  });
  expect(link.status).toBe(201);
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.json.slug}/sessions/`;
  const s = await api.call("POST", base, { body: {}, key: null });
  expect(s.status).toBe(201);
  const [emailQ, textQ] = link.json.questions;
  expect((await api.call("PUT", `${base}${s.json.session_id}/answers/${emailQ.uuid}/`, { body: { value: EMAIL }, key: null })).status).toBe(200);
  expect((await api.call("PUT", `${base}${s.json.session_id}/answers/${textQ.uuid}/`, { body: { value: TEXT }, key: null })).status).toBe(200);
  expect((await api.call("POST", `${base}${s.json.session_id}/submit/`, { body: {}, key: null })).status).toBe(200);
  const responseUuid = s.json.response_uuid as string;

  // Both events reached the healthy receivers with the data; the failing one waits for a retry.
  const submittedTo = (path: string) => (rs: { path: string; body: string }[]) =>
    rs.some((r) => r.path === path && r.body.includes(EMAIL) && r.body.includes(TEXT));
  await receiver.waitFor((rs) => submittedTo("/ok")(rs) && submittedTo("/echo")(rs), 60_000);
  const delivered = await until(async () => {
    const ds = await deliveries(echo.uuid);
    return ds.length === 2 && ds.every((d) => d.state === "succeeded") && ds;
  });
  expect(delivered[0].response_excerpt).toContain(EMAIL);
  await until(async () => {
    const ds = await deliveries(failing.uuid);
    return ds.length === 2 && ds.every((d) => d.state === "pending" && d.attempts >= 1) && ds;
  });
  // The scans see the data while it is there (so they can fail).
  expect(await tablesHolding(NEEDLES)).toEqual(
    expect.arrayContaining([
      "responses.respondent_email",
      "answers.text",
      "outbox_events.payload",
      "webhook_deliveries.last_response_excerpt",
      "webhook_attempts.response_excerpt",
    ]),
  );

  const erased = await api.call("DELETE", `/api/v1/responses/${responseUuid}/`);
  expect(erased.status).toBe(200);
  const requestsAtErasure = receiver.requests.length;

  expect(await tablesHolding(NEEDLES)).toEqual([]);
  expect(await fileHolding(NEEDLES)).toEqual([]);

  // Pending deliveries are cancelled: failed, with the reason, and never attempted again.
  const cancelled = await deliveries(failing.uuid);
  expect(cancelled.map((d) => [d.state, d.last_error, d.next_attempt_at])).toEqual([
    ["failed", "The response was erased.", null],
    ["failed", "The response was erased.", null],
  ]);
  const echoed = await api.call("GET", `${wsPath}${echo.uuid}/deliveries/${delivered[0].uuid}/`);
  expect(echoed.json.response_excerpt).toBeNull();
  expect(echoed.json.attempt_log.map((a: { response_excerpt: unknown }) => a.response_excerpt)).toEqual([null]);

  // Redelivering any of its events answers 410 problem+json, for a finished or a cancelled delivery.
  for (const [hook, d] of [
    [ok, (await deliveries(ok.uuid))[0]],
    [failing, cancelled[0]],
  ] as const) {
    const r = await api.call("POST", `${wsPath}${hook.uuid}/deliveries/${d.uuid}/redeliver/`);
    expect(r.status).toBe(410);
    expect(r.headers.get("content-type")).toContain("application/problem+json");
    expect(r.json).toMatchObject({ status: 410, code: "RESPONSE_ERASED" });
  }
  await Bun.sleep(3500);
  expect(receiver.requests.slice(requestsAtErasure)).toEqual([]);
  expect(await tablesHolding(NEEDLES)).toEqual([]);
}, 120_000);

test("the purge of an abandoned session leaves no trace of its answers, the search index included", async () => {
  const WORDS = "Abandoned draft about the Xylophorbquux invoice";
  const needles = [WORDS, "xylophorbquux"];
  const link = await api.call("POST", "/api/v1/links/", {
    body: {
      name: "Abandoned",
      questions: [
        { prompt: "Anything?", type: "text" },
        { prompt: "More?", type: "text" },
      ],
    },
  });
  expect(link.status).toBe(201);
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.json.slug}/sessions/`;
  const s = await api.call("POST", base, { body: {}, key: null });
  const [first, second] = link.json.questions;
  expect((await api.call("PUT", `${base}${s.json.session_id}/answers/${first.uuid}/`, { body: { value: WORDS }, key: null })).status).toBe(200);
  // A corrected answer: the old words must not linger in the index either.
  expect(
    (await api.call("PUT", `${base}${s.json.session_id}/answers/${second.uuid}/`, { body: { value: "first Xylophorbquux thought" }, key: null })).status,
  ).toBe(200);
  expect((await api.call("PUT", `${base}${s.json.session_id}/answers/${second.uuid}/`, { body: { value: "nothing more" }, key: null })).status).toBe(200);
  expect(await tablesHolding(needles)).toEqual(expect.arrayContaining(["answers.text"]));

  const longAgo = formatMicros(BigInt(Date.now() - 40 * 86_400_000) * 1000n);
  await api.db.updateTable("responses").set({ date_updated: longAgo }).where("uuid", "=", s.json.response_uuid).execute();
  await api.db.updateTable("answers").set({ date_updated: longAgo }).where("response_uuid", "=", s.json.response_uuid).execute();
  const report = await purgeIntake({ db: api.db, blobs: api.deps.blobs, log: createLogger("silent"), blobsDir: api.config.blobsDir }, { retentionDays: 30 });
  expect(report.sessions).toBe(1);

  expect(await tablesHolding(needles)).toEqual([]);
  expect(await fileHolding(needles)).toEqual([]);
  if (!onPostgres) {
    // FTS5's own setting (PostgreSQL's answers_search has no segments to scrub).
    const config = await sql<{ v: number }>`SELECT v FROM answers_fts_config WHERE k = 'secure-delete'`.execute(api.db);
    expect(config.rows[0]?.v).toBe(1);
  }
});
