/**
 * The email digest's content (issue 28 "Digests"), on the test engine and a manual clock: a link
 * whose answers (through the real intake, analysed by the real job runner with the fixture
 * models) were grouped into themes by the real themes job; some of them given the day before, so
 * the digest shows a sentiment shift and tells new themes from old ones. The member chose the
 * digest from a German browser: the mail (plain text and HTML, sent to a real SMTP server) is
 * German, with each top theme's quote, the new themes marked and the links to the console.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import { submitResponse } from "../../../test/helpers/delivery-harness.ts";
import { APP as TOPIC_APP, SHIPPING as TOPIC_SHIPPING, SUPPORT as TOPIC_SUPPORT } from "../../../test/helpers/topic-answers.ts";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { addUser, signIn } from "../../../test/helpers/console-session.ts";
import { createTestCertificates, type TestCertificates } from "../../../test/helpers/https-receiver.ts";
import { startProcessing, waitFor } from "../../../test/helpers/processing.ts";
import { startSmtpServer, type TestSmtpServer } from "../../../test/helpers/smtp-server.ts";
import { createManualClock } from "../../clock.ts";
import { createJobRunner } from "../../jobs/runner.ts";
import { createLogger } from "../../logger.ts";
import { createMailer, type Mailer } from "../../mail/transport.ts";
import { sendMailJob } from "../mail/service.ts";
import { queueDigests } from "./task.ts";

const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const signed = (n: number) => (n > 0 ? `+${n}` : n < 0 ? `${n}` : "±0");
// Answers on three topics (test/helpers/topic-answers.ts): enough for the question's first build.
const SHIPPING = TOPIC_SHIPPING.slice(0, 5);
const SUPPORT = TOPIC_SUPPORT.slice(0, 5);
const APP = TOPIC_APP.slice(0, 4);

let certs: TestCertificates;
let smtp: TestSmtpServer;
let api: TestApi;
let mailer: Mailer;
let stopProcessing: () => Promise<void>;
let link: { uuid: string; slug: string; name: string; questions: { uuid: string }[] };
let today: string;
let yesterday: string;

beforeAll(async () => {
  certs = await createTestCertificates();
  smtp = await startSmtpServer({ certs });
  api = await createTestApi({
    EARSHOT_SMTP_URL: `smtp://localhost:${smtp.port}/?starttls=required`,
    EARSHOT_MAIL_FROM: "Earshot <earshot@example.com>",
    EARSHOT_SMTP_CA_FILE: certs.caFile,
    EARSHOT_INTAKE_SESSIONS_PER_MINUTE: "0",
  });
  mailer = createMailer({ smtpUrl: api.config.smtpUrl!, mailFrom: api.config.mailFrom!, smtpCaFile: api.config.smtpCaFile }, { timeoutMs: 5000 });
  stopProcessing = (await startProcessing(api)).stop;
  const r = await api.call("POST", "/api/v1/links/", {
    body: { name: "Checkout <feedback>", questions: [{ prompt: "What should we improve?", type: "text" }] },
  });
  expect(r.status).toBe(201);
  link = r.json;
  const q = link.questions[0]!.uuid;
  const support: string[] = [];
  for (const text of [...SUPPORT, ...SHIPPING, ...APP]) {
    const responseUuid = await submitResponse(api, link.slug, { [q]: text });
    if (SUPPORT.includes(text)) support.push(responseUuid);
  }
  await waitFor(
    async () => {
      const s = (await api.call("GET", `/api/v1/links/${link.uuid}/themes/status/`)).json;
      return s.state === "ready" && s.answers_pending === 0 && s.answers_assigned > 0 && s.built_at;
    },
    90_000,
    "themes built",
  );
  today = day(Date.now());
  yesterday = day(Date.now() - DAY_MS);
  // The support answers were given the day before (moved back a day): the previous period.
  const back = (iso: string | null) => (iso ? `${yesterday}${iso.slice(10)}` : iso);
  for (const uuid of support) {
    const resp = await api.db.selectFrom("responses").select(["date_created", "submitted_at"]).where("uuid", "=", uuid).executeTakeFirstOrThrow();
    await api.db
      .updateTable("responses")
      .set({ date_created: back(resp.date_created)!, submitted_at: back(resp.submitted_at) })
      .where("uuid", "=", uuid)
      .execute();
    const a = await api.db.selectFrom("answers").select(["uuid", "date_created"]).where("response_uuid", "=", uuid).executeTakeFirstOrThrow();
    await api.db
      .updateTable("answers")
      .set({ date_created: back(a.date_created)! })
      .where("uuid", "=", a.uuid)
      .execute();
  }
  await addUser(api, "leser@example.de", "member");
  const member = await signIn(api, "leser@example.de");
  const put = await member.call("PUT", "/api/v1/auth/notifications/", { body: { digest: "daily" }, headers: { "accept-language": "de-DE,de;q=0.9,en;q=0.8" } });
  expect(put.status).toBe(200);
}, 180_000);

afterAll(async () => {
  await stopProcessing?.();
  mailer?.close();
  await api?.close();
  await smtp?.close();
  if (certs) fs.rmSync(certs.dir, { recursive: true, force: true });
});

test("the daily digest, in the member's language: responses, sentiment and its shift, top themes with a quote each, new ones marked, console links; HTML and text", async () => {
  const clock = createManualClock(Date.parse(`${day(Date.now() + DAY_MS)}T07:00:30Z`));
  const deps = {
    db: api.db,
    config: api.config,
    clock,
    log: createLogger("silent"),
    auth: api.deps.auth,
    publicUrl: api.config.publicUrl,
    signingSecret: api.deps.signingSecret,
    audioUrlTtlS: api.config.audioUrlTtlS,
  };
  expect(await queueDigests(deps, clock.nowIso())).toBe(1);
  // A runner on the same clock sends the queued mail (the processing runner's clock is real time).
  const log = createLogger("silent");
  const notHere = async () => {
    throw new Error("not on this runner");
  };
  const runner = createJobRunner({
    db: api.db,
    log,
    clock,
    pollMs: 20,
    handlers: { transcribe: notHere, analyse: notHere, themes: notHere, mail: (j) => sendMailJob({ db: api.db, mailer, log, clock }, j) },
    onGiveUp: async () => {},
  });
  await runner.start();
  try {
    await smtp.waitForMessages(1, 30_000);
  } finally {
    await runner.stop();
  }
  const m = smtp.received.find((x) => x.to.includes("leser@example.de"))!.parsed;

  const summary = (await api.call("GET", `/api/v1/links/${link.uuid}/summary/?since=${today}&until=${today}`)).json;
  const net = (c: { positive: number; neutral: number; negative: number }) =>
    Math.round(((c.positive - c.negative) * 100) / (c.positive + c.neutral + c.negative));
  const shift = net(summary.sentiment) - net(summary.sentiment.previous);
  expect(summary.themes.length).toBeGreaterThan(0);
  expect(summary.themes.every((t: { quote: unknown }) => t.quote !== null)).toBe(true);

  expect(m.subject).toBe(`Earshot – tägliche Zusammenfassung: Test workspace, ${today}`);
  expect(m.headers.get("content-language")).toBe("de");
  const text = m.text!;
  expect(text).toContain(`vom ${today} bis ${today} (UTC)`);
  expect(text).toContain("## Checkout <feedback>");
  expect(text).toContain(
    `- Antworten: ${SHIPPING.length + APP.length} (Vorperiode ${SUPPORT.length}, ${signed(SHIPPING.length + APP.length - SUPPORT.length)})`,
  );
  const s = summary.sentiment;
  expect(text).toContain(
    `- Stimmung: ${s.positive} positiv, ${s.neutral} neutral, ${s.negative} negativ (Netto-Stimmung ${signed(shift)} Punkte gegenüber der Vorperiode)`,
  );
  expect(text).toContain("Häufigste Themen:");
  for (const t of summary.themes) {
    const isNew = summary.new_themes.includes(t.uuid);
    expect(text).toContain(`  * ${t.label}${isNew ? " (neu)" : ""}: ${t.count}\n    “${t.quote.text}”`);
  }
  // Themes first seen today (shipping, the app) are new ones.
  expect(summary.new_themes.length).toBeGreaterThan(0);
  expect(text).toContain(`In der Konsole öffnen: ${api.config.publicUrl}/console/links/${link.uuid}/dashboard`);
  expect(text).toContain(`${api.config.publicUrl}/console/settings/`);
  const html = String(m.html);
  expect(html).toContain('<html lang="de" dir="ltr">');
  expect(html).toContain("Checkout &lt;feedback&gt;");
  expect(html).not.toContain("<feedback>");
  expect(html).toContain("<strong>Häufigste Themen</strong>");
  for (const t of summary.themes) expect(html).toContain(`<q style="color:#444">${Bun.escapeHTML(t.quote.text)}</q>`);
  expect(html).toContain(`<a href="${api.config.publicUrl}/console/links/${link.uuid}/dashboard">In der Konsole öffnen</a>`);
}, 90_000);
