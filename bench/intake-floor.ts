/**
 * @module bench/intake-floor
 * The SQL floor of one completed intake response, the ceiling bench/intake.ts is compared with
 * (docs/performance.md "Intake, second pass"): the statements Earshot runs for a session, three
 * typed answers and a submit, through raw bun:sqlite statements prepared once, on a freshly
 * migrated file with Earshot's pragmas, triggers and indexes — no HTTP, no Kysely, no Elysia.
 * Two shapes: one write transaction per request (5 per response, random v4 ids), and group commit
 * (the units of 5 responses per transaction, UUIDv7 ids), as src/modules/intake does now.
 * Prints CPU and wall time per response; asserts nothing about time.
 *
 *   npx bun bench/intake-floor.ts [--responses 2000]
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { migrateToLatest, openDatabase } from "../src/db/client.ts";

const { values: flags } = parseArgs({ options: { responses: { type: "string", default: "2000" } } });
const N = Number(flags.responses);
if (!(N >= 1)) throw new Error("usage: bench/intake-floor.ts [--responses N>=1]");

const TEXTS = [
  "I wanted to compare plans before renewing.",
  "The checkout page was slow on my phone and lost my address once.",
  "Support answered quickly, thank you.",
];

async function measure(grouped: boolean): Promise<{ cpuUs: number; wallUs: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), "earshot-floor-"));
  const file = path.join(dir, "earshot.db");
  const migrated = openDatabase(file);
  await migrateToLatest(migrated);
  await migrated.destroy();
  const db = new Database(file);
  for (const pragma of ["journal_mode = WAL", "synchronous = NORMAL", "foreign_keys = ON", "secure_delete = ON"]) db.exec(`PRAGMA ${pragma}`);
  const ws = crypto.randomUUID();
  const link = crypto.randomUUID();
  const questions = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
  const q = {
    insertResponse: db.query(
      "insert into responses (uuid, workspace_uuid, link_uuid, session_id, status, respondent_email, date_created, date_updated, submitted_at, submitted_event_at) values (?, ?, ?, ?, 'started', null, ?, ?, null, null)",
    ),
    hooks: db.query("select * from webhooks where workspace_uuid = ? and enabled = 1 and (link_uuid is null or link_uuid = ?)"),
    bySession: db.query("select * from responses where session_id = ?"),
    answerOf: db.query("select * from answers where response_uuid = ? and question_uuid = ?"),
    insertAnswer: db.query(
      "insert into answers (uuid, response_uuid, question_uuid, field_key, response_type, question_text, position, value, text, transcription_status, analysis_status, follow_ups, custom_fields, date_created, date_updated) values (?, ?, ?, ?, 'text', 'Q', ?, ?, ?, 'not_applicable', 'not_applicable', '[]', '{}', ?, ?)",
    ),
    answersOf: db.query("select * from answers where response_uuid = ? order by position"),
    markPending: db.query("update answers set analysis_status = 'pending', date_updated = ? where uuid = ?"),
    insertJob: db.query("insert into jobs (kind, payload, state, priority, run_at, date_created, date_updated) values ('analyse', ?, 'queued', 0, ?, ?, ?)"),
    complete: db.query("update responses set status = 'completed', submitted_at = ?, date_updated = ? where uuid = ?"),
    begin: db.query("begin immediate"),
    commit: db.query("commit"),
  };
  const newId = grouped ? () => Bun.randomUUIDv7() : () => crypto.randomUUID();
  // One write transaction per request unless grouped (then the caller wraps several responses).
  const tx = (fn: () => void) => {
    if (!grouped) q.begin.run();
    fn();
    if (!grouped) q.commit.run();
  };
  const respond = (n: number) => {
    const now = new Date().toISOString();
    const r = newId();
    const session = `ses_${crypto.randomUUID().replaceAll("-", "")}`;
    tx(() => {
      q.insertResponse.run(r, ws, link, session, now, now);
      q.hooks.all(ws, link);
    });
    for (const [i, question] of questions.entries()) {
      tx(() => {
        q.bySession.all(session);
        q.answerOf.all(r, question);
        q.insertAnswer.run(newId(), r, question, `q${i}`, i, JSON.stringify(TEXTS[i]), `${TEXTS[i]} (#${n})`, now, now);
      });
    }
    tx(() => {
      q.bySession.all(session);
      for (const a of q.answersOf.all(r) as { uuid: string }[]) {
        q.markPending.run(now, a.uuid);
        q.insertJob.run(JSON.stringify({ answer_uuid: a.uuid }), now, now, now);
      }
      q.complete.run(now, now, r);
    });
  };
  const run = (count: number) => {
    for (let i = 0; i < count; i++) {
      if (grouped && i % 5 === 0) q.begin.run();
      respond(i);
      if (grouped && (i % 5 === 4 || i === count - 1)) q.commit.run();
    }
  };
  run(300); // warm-up
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  run(N);
  const wallUs = ((performance.now() - t0) * 1000) / N;
  const c = process.cpuUsage(c0);
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return { cpuUs: (c.user + c.system) / N, wallUs };
}

const load = loadavg()
  .map((x) => x.toFixed(2))
  .join(" ");
const perRequest = await measure(false);
const grouped = await measure(true);
console.log(`Intake SQL floor — ${new Date().toISOString()}, Bun ${Bun.version}, ${N} responses each, load average at start ${load}\n`);
console.log("| shape | CPU µs/response | wall µs/response |");
console.log("| --- | ---: | ---: |");
console.log(`| one write transaction per request (5 per response), v4 ids | ${perRequest.cpuUs.toFixed(0)} | ${perRequest.wallUs.toFixed(0)} |`);
console.log(`| group commit: 5 responses' units per transaction, UUIDv7 ids | ${grouped.cpuUs.toFixed(0)} | ${grouped.wallUs.toFixed(0)} |`);
