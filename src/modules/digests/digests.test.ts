/**
 * Email digests (issue 28) on the test engine (SQLite, or PostgreSQL with
 * EARSHOT_TEST_DATABASE_URL): members choose their digest over the API (audited); responses come
 * in through the real intake and are analysed by the real job runner with the fixture models; the
 * real scheduler, on a manual clock, queues the digests as `mail` jobs that a real job runner sends
 * to a real SMTP server (STARTTLS, credentials). Daily members get the day before, weekly members
 * the week before on Mondays only, `off` nothing; a day without responses sends nothing, mail off
 * queues nothing, and two nodes send each digest once.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { addUser, signIn, type Signed } from "../../../test/helpers/console-session.ts";
import { createTestCertificates, type TestCertificates } from "../../../test/helpers/https-receiver.ts";
import { startProcessing, waitFor } from "../../../test/helpers/processing.ts";
import { startSmtpServer, type TestSmtpServer } from "../../../test/helpers/smtp-server.ts";
import { createManualClock } from "../../clock.ts";
import { createJobRunner, type JobHandler, type JobRunner } from "../../jobs/runner.ts";
import { createScheduler, type Scheduler } from "../../jobs/scheduler.ts";
import { createLogger } from "../../logger.ts";
import { createMailer, type Mailer } from "../../mail/transport.ts";
import { giveUpOnMail, sendMailJob } from "../mail/service.ts";
import { digestTask, queueDigests, type DigestDeps } from "./task.ts";

const USER = "digest-mailer";
const PASS = "s3cret";
const DAY_MS = 86_400_000;
const log = createLogger("silent");
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** 07:00:30 UTC of a day: just after the digests' period began. */
const sevenAm = (d: string) => Date.parse(`${d}T07:00:30Z`);

let certs: TestCertificates;
let smtp: TestSmtpServer;
let api: TestApi;
let stopProcessing: () => Promise<void>;
let mailer: Mailer;
let link: any;
let members: Record<"daily" | "weekly" | "off", Signed>;
/** The UTC day the responses were submitted (real time: intake stamps with the system clock). */
let today: string;
const clock = createManualClock(Date.now());
let deps: DigestDeps;
const nodes: { scheduler: Scheduler; runner: JobRunner }[] = [];

const notHere: JobHandler = async (job) => {
  throw new Error(`no ${job.kind} job runs on this node`);
};

/** A node on the manual clock: its scheduler (the digests task only) and a runner sending mail. */
function startNode() {
  const scheduler = createScheduler({ db: api.db, clock, log, tasks: [digestTask(deps)] });
  const mailDeps = { db: api.db, mailer, log, clock };
  const runner = createJobRunner({
    db: api.db,
    log,
    clock,
    pollMs: 20,
    handlers: { transcribe: notHere, analyse: notHere, themes: notHere, periodic: scheduler.handler, mail: (j) => sendMailJob(mailDeps, j) },
    onGiveUp: (j, e) => giveUpOnMail(mailDeps, j, e),
  });
  const node = { scheduler, runner };
  nodes.push(node);
  return node;
}

async function submit(base: string, answers: Record<string, unknown>, finish = true) {
  const sid = (await api.call("POST", `${base}/sessions/`, { key: null, body: {} })).json.session_id as string;
  for (const [q, value] of Object.entries(answers)) {
    expect((await api.call("PUT", `${base}/sessions/${sid}/answers/${q}/`, { key: null, body: { value } })).status).toBe(200);
  }
  if (finish) expect((await api.call("POST", `${base}/sessions/${sid}/submit/`, { key: null, body: {} })).status).toBe(200);
}

/** Waits until no periodic or mail job is left to run. */
async function settled() {
  await waitFor(
    async () =>
      !(await api.db.selectFrom("jobs").select("id").where("kind", "in", ["periodic", "mail"]).where("state", "in", ["queued", "running"]).executeTakeFirst()),
    30_000,
    "periodic and mail jobs done",
  );
}

const mailsTo = (email: string) => smtp.received.filter((m) => m.to.includes(email));

beforeAll(async () => {
  certs = await createTestCertificates();
  smtp = await startSmtpServer({ certs, auth: { user: USER, pass: PASS } });
  api = await createTestApi({
    EARSHOT_SMTP_URL: `smtp://${USER}:${PASS}@localhost:${smtp.port}/?starttls=required`,
    EARSHOT_MAIL_FROM: "Earshot <earshot@example.com>",
    EARSHOT_SMTP_CA_FILE: certs.caFile,
    EARSHOT_INTAKE_SESSIONS_PER_MINUTE: "0",
  });
  const c = api.config;
  mailer = createMailer({ smtpUrl: c.smtpUrl!, mailFrom: c.mailFrom!, smtpCaFile: c.smtpCaFile }, { timeoutMs: 5000 });
  deps = {
    db: api.db,
    config: c,
    clock,
    log,
    auth: api.deps.auth,
    publicUrl: c.publicUrl,
    signingSecret: api.deps.signingSecret,
    audioUrlTtlS: c.audioUrlTtlS,
  };
  stopProcessing = (await startProcessing(api)).stop;
  const created = await api.call("POST", "/api/v1/links/", {
    body: {
      name: "Checkout <feedback>",
      questions: [
        { prompt: "What should we improve?", type: "text", field_key: "improve" },
        { prompt: "How likely are you to recommend us?", type: "rating", field_key: "nps", configuration: { scale_type: "nps" } },
      ],
    },
  });
  expect(created.status).toBe(201);
  link = created.json;
  const [textQ, npsQ] = link.questions.map((q: { uuid: string }) => q.uuid);
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;
  const answers: [string, number][] = [
    ["The checkout was quick and the support team was lovely.", 10],
    ["Great prices, I will order again.", 9],
    ["Delivery took a while but it was fine.", 7],
    ["Shipping was far too expensive and the app crashed twice.", 3],
  ];
  for (const [text, score] of answers) await submit(base, { [textQ]: text, [npsQ]: score });
  // One respondent started and left: 4 of 5 started responses are completed.
  await submit(base, { [textQ]: "I was going to say" }, false);
  today = day(Date.now());
  await waitFor(
    async () => {
      const rows = await api.db.selectFrom("answers").select("analysis_status").where("question_uuid", "=", textQ).execute();
      return rows.length === 5 && rows.filter((r) => r.analysis_status === "completed").length === 4;
    },
    60_000,
    "answers analysed",
  );
  const make = async (kind: "daily" | "weekly" | "off") => {
    await addUser(api, `${kind}@example.com`, "member");
    return signIn(api, `${kind}@example.com`);
  };
  members = { daily: await make("daily"), weekly: await make("weekly"), off: await make("off") };
}, 120_000);

afterAll(async () => {
  for (const n of nodes) await n.runner.stop();
  await stopProcessing?.();
  mailer?.close();
  await api?.close();
  await smtp?.close();
  if (certs) fs.rmSync(certs.dir, { recursive: true, force: true });
});

test("a member reads and sets their digest of the workspace; the change is audited; bad values and anonymous callers are refused", async () => {
  const got = await members.daily.call("GET", "/api/v1/auth/notifications/");
  expect(got.status).toBe(200);
  expect(got.json).toEqual({ workspace_uuid: api.ws.workspace_uuid, digest: "off", mail_configured: true });
  for (const kind of ["daily", "weekly", "off"] as const) {
    const put = await members[kind].call("PUT", "/api/v1/auth/notifications/", { body: { digest: kind } });
    expect(put.status).toBe(200);
    expect(put.json.digest).toBe(kind);
  }
  expect((await members.weekly.call("GET", "/api/v1/auth/notifications/")).json.digest).toBe("weekly");
  const bad = await members.daily.call("PUT", "/api/v1/auth/notifications/", { body: { digest: "hourly" } });
  expect(bad.status).toBe(400);
  expect(bad.json.code).toBe("VALIDATION_ERROR");
  const csrf = await members.daily.call("PUT", "/api/v1/auth/notifications/", { body: { digest: "off" }, headers: { "x-csrf-token": "wrong" } });
  expect(csrf.status).toBe(403);
  expect((await api.call("GET", "/api/v1/auth/notifications/", { key: null })).status).toBe(401);
  const audit = await api.db.selectFrom("audit_log").select(["action", "target_label"]).where("action", "=", "member.digest_changed").orderBy("time").execute();
  // "off" → "off" changed nothing, so it is not in the log.
  expect(audit.map((a) => a.target_label)).toEqual(["daily@example.com: daily", "weekly@example.com: weekly"]);
}, 60_000);

test("nothing is queued when mail is not configured", async () => {
  clock.set(sevenAm(day(Date.parse(`${today}T00:00:00Z`) + DAY_MS)));
  const off = { ...deps, config: { smtpUrl: null, mailFrom: null } };
  expect(await queueDigests(off, clock.nowIso())).toBe(0);
  expect(await api.db.selectFrom("jobs").select("id").where("kind", "=", "mail").executeTakeFirst()).toBeUndefined();
});

test("the day after, on two nodes, the daily member receives one digest with the day's figures; off receives nothing; weekly only on a Monday", async () => {
  const next = day(Date.parse(`${today}T00:00:00Z`) + DAY_MS);
  const monday = new Date(`${next}T00:00:00Z`).getUTCDay() === 1;
  clock.set(sevenAm(next));
  const [a, b] = [startNode(), startNode()];
  // Both nodes tick: the scheduler's unique key keeps one run of the period.
  const keys = [...(await a.scheduler.tick()), ...(await b.scheduler.tick())];
  expect(keys).toEqual([`digests@${next}T07:00:00.000000Z`]);
  await a.runner.start();
  await b.runner.start();
  await smtp.waitForMessages(monday ? 2 : 1);
  await settled();
  // A retried run queues no second mail (each mail has its own unique key).
  expect(await queueDigests(deps, `${next}T07:00:00.000000Z`)).toBe(0);
  await settled();
  expect(mailsTo("daily@example.com")).toHaveLength(1);
  expect(mailsTo("off@example.com")).toHaveLength(0);
  expect(mailsTo("weekly@example.com")).toHaveLength(monday ? 1 : 0);
  // The sent digests' text (respondents' words) left the jobs' payloads.
  const payloads = await api.db.selectFrom("jobs").select("payload").where("kind", "=", "mail").execute();
  expect(payloads.length).toBe(monday ? 2 : 1);
  for (const j of payloads) expect(JSON.parse(j.payload)).toMatchObject({ kind: "digest", message: null });

  const m = mailsTo("daily@example.com")[0]!.parsed;
  const summary = (await api.call("GET", `/api/v1/links/${link.uuid}/summary/?since=${today}&until=${today}`)).json;
  const s = summary.sentiment;
  expect(s.positive + s.neutral + s.negative).toBe(4);
  expect(m.subject).toBe(`Earshot daily digest: Test workspace, ${today}`);
  expect(m.headers.get("content-language")).toBe("en");
  const text = m.text!;
  expect(text).toContain(`from ${today} to ${today} (UTC)`);
  expect(text).toContain("## Checkout <feedback>");
  expect(text).toContain("- Responses: 4 (previous period 0, +4)");
  expect(text).toContain("- Completion rate: 80 %");
  // Promoters 10 and 9, passive 7, detractor 3: (2 − 1) / 4 = +25.
  expect(text).toContain("- NPS: +25");
  expect(text).toContain(`- Sentiment: ${s.positive} positive, ${s.neutral} neutral, ${s.negative} negative`);
  expect(text).toContain(`Open in the console: ${api.config.publicUrl}/console/links/${link.uuid}/dashboard`);
  const html = m.html as string;
  expect(html).toContain('<h2 style="font-size:1.15em;margin-top:1.5em">Checkout &lt;feedback&gt;</h2>');
  expect(html).not.toContain("<feedback>");
  expect(html).toContain(`href="${api.config.publicUrl}/console/links/${link.uuid}/dashboard"`);
  expect(html).toContain("<li>NPS: +25</li>");
}, 90_000);

test("the weekly digest goes out on the Monday after, about the week before; days and weeks without responses send nothing", async () => {
  const start = Date.parse(`${today}T00:00:00Z`);
  let monday = start + DAY_MS;
  while (new Date(monday).getUTCDay() !== 1) monday += DAY_MS;
  const count = () => ({ daily: mailsTo("daily@example.com").length, weekly: mailsTo("weekly@example.com").length, all: smtp.received.length });
  const before = count();
  /** Runs the digests of `ms`'s day on node 0 and waits for its mails. */
  const runDay = async (ms: number) => {
    clock.set(sevenAm(day(ms)));
    expect(await nodes[0]!.scheduler.tick()).toEqual([`digests@${day(ms)}T07:00:00.000000Z`]);
    await settled();
  };
  if (monday !== start + DAY_MS) {
    // The Monday was not the day after (the test before saw that one's weekly digest).
    await runDay(monday);
    const w = mailsTo("weekly@example.com").at(-1)!.parsed;
    expect(count().weekly).toBe(before.weekly + 1);
    expect(w.subject).toBe(`Earshot weekly digest: Test workspace, ${day(monday - 7 * DAY_MS)} – ${day(monday - DAY_MS)}`);
    expect(w.text).toContain("- Responses: 4 (previous period 0, +4)");
    expect(w.text).toContain("- NPS: +25");
    // The daily member's Sunday had no responses.
    expect(count().daily).toBe(before.daily);
  }
  expect(mailsTo("off@example.com")).toHaveLength(0);
  // The Tuesday: the daily digest would cover a Monday without responses; no weekly digest.
  const quiet = count();
  await runDay(monday + DAY_MS);
  expect(count()).toEqual(quiet);
  // The Monday a week later: its week had no responses.
  await runDay(monday + 7 * DAY_MS);
  expect(count()).toEqual(quiet);
}, 90_000);
