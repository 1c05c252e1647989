/**
 * Mail (issue 28, DESIGN §15) against real SMTP servers run in the test (`smtp-server`): plain
 * SMTP upgraded with STARTTLS and implicit TLS (smtps), both with a certificate of a throw-away
 * CA trusted through EARSHOT_SMTP_CA_FILE, credentials from the URL and from
 * EARSHOT_SMTP_URL_FILE. The invite and the password reset are queued as jobs and sent by the real
 * job runner; the link in the message is followed over real HTTP. A refusing or absent server
 * leaves the invite valid, is reported (`mail_state`, `mail_error`) and retried.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { addUser, PASSWORD, signIn, type Signed } from "../../../test/helpers/console-session.ts";
import { createTestCertificates, type TestCertificates } from "../../../test/helpers/https-receiver.ts";
import { startSmtpServer, type TestSmtpServer } from "../../../test/helpers/smtp-server.ts";
import { waitFor } from "../../../test/helpers/processing.ts";
import { createJobRunner, type JobRunner } from "../../jobs/runner.ts";
import { createLogger, type Logger } from "../../logger.ts";
import { createMailer } from "../../mail/transport.ts";
import { passwordResetUrl } from "../users/admin.ts";
import { giveUpOnMail, sendMailJob } from "./service.ts";

const USER = "earshot-mailer";
const PASS = "p@ss/word:with%odd chars";
const FROM = "Earshot <earshot@example.com>";
let certs: TestCertificates;
let starttls: TestSmtpServer;
let smtps: TestSmtpServer;

beforeAll(async () => {
  certs = await createTestCertificates();
  starttls = await startSmtpServer({ certs, auth: { user: USER, pass: PASS } });
  smtps = await startSmtpServer({ certs, secure: true, auth: { user: USER, pass: PASS } });
});
afterAll(async () => {
  await starttls.close();
  await smtps.close();
  fs.rmSync(certs.dir, { recursive: true, force: true });
});

/** A free loopback port (so EARSHOT_PUBLIC_URL can name the port the app then listens on). */
function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

type LogLine = { level: string; msg: string; fields: Record<string, unknown> };
type Env = { api: TestApi; origin: string; runner: JobRunner; owner: Signed; logged: LogLine[]; stop(): Promise<void> };

/** A Logger that keeps what the mail handler logs, so a test can read it (the log is part of the contract). */
function recordingLogger(lines: LogLine[]): Logger {
  const at =
    (level: string) =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      void lines.push({ level, msg, fields });
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** The app over real HTTP with EARSHOT_PUBLIC_URL = its origin, and the real job runner sending mail. */
async function startApp(env: Record<string, string>): Promise<Env> {
  const port = freePort();
  const origin = `http://127.0.0.1:${port}`;
  const api = await createTestApi({ EARSHOT_PUBLIC_URL: origin, EARSHOT_MAIL_FROM: FROM, EARSHOT_SMTP_CA_FILE: certs.caFile, ...env });
  const server = api.app.listen({ port, hostname: "127.0.0.1" });
  const c = api.config;
  const mailer = c.smtpUrl ? createMailer({ smtpUrl: c.smtpUrl, mailFrom: c.mailFrom!, smtpCaFile: c.smtpCaFile }, { timeoutMs: 5000 }) : null;
  const logged: LogLine[] = [];
  const deps = { db: api.db, mailer, log: recordingLogger(logged) };
  const other = async () => {
    throw new Error("not in this test");
  };
  const runner = createJobRunner({
    db: api.db,
    log: createLogger("silent"),
    pollMs: 50,
    handlers: { mail: (j) => sendMailJob(deps, j), transcribe: other, analyse: other, themes: other },
    onGiveUp: (j, e) => giveUpOnMail(deps, j, e),
  });
  await runner.start();
  await addUser(api, "owner@example.com", "owner");
  const owner = await signIn(api, "owner@example.com");
  return {
    api,
    origin,
    runner,
    owner,
    logged,
    async stop() {
      await runner.stop();
      mailer?.close();
      server.stop(true);
      await api.close();
    },
  };
}

const urlOf = (port: number, scheme = "smtp", query = "") => `${scheme}://${encodeURIComponent(USER)}:${encodeURIComponent(PASS)}@localhost:${port}/${query}`;

async function inviteState(owner: Signed, uuid: string) {
  const list = await owner.call("GET", "/api/v1/invites/?page_size=100");
  return list.json.results.find((i: { uuid: string }) => i.uuid === uuid);
}

test("an invite is mailed over STARTTLS (credentials in the URL) in the caller's language, with the right headers, and its link accepts the invite over HTTP", async () => {
  const e = await startApp({ EARSHOT_SMTP_URL: urlOf(starttls.port, "smtp", "?starttls=required") });
  try {
    const before = starttls.received.length;
    const created = await e.owner.call("POST", "/api/v1/invites/", {
      body: { email: "new.member@example.org", role: "member" },
      headers: { "accept-language": "de-CH, en;q=0.5" },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ mail_state: "queued", mail_error: null });
    expect(created.json.url).toStartWith(`${e.origin}/console/invite/?token=`);
    const [mail] = (await starttls.waitForMessages(before + 1)).slice(before);
    expect(mail!.secure).toBe(true);
    expect(mail!.user).toBe(USER);
    expect(mail!.to).toEqual(["new.member@example.org"]);
    const m = mail!.parsed;
    expect(m.from?.value).toEqual([{ address: "earshot@example.com", name: "Earshot" }]);
    expect(m.to && !Array.isArray(m.to) ? m.to.text : "").toBe("new.member@example.org");
    expect(m.subject).toBe("Einladung zu Test workspace auf Earshot");
    expect(m.messageId).toMatch(/^<[0-9a-f-]{36}@example\.com>$/);
    expect(m.date).toBeInstanceOf(Date);
    expect(Math.abs(m.date!.getTime() - Date.now())).toBeLessThan(60_000);
    expect(m.headers.get("auto-submitted")).toBe("auto-generated");
    expect(m.headers.get("content-language")).toBe("de");
    expect(m.text).toContain(created.json.url);
    expect(m.text).toContain("Einladung annehmen");
    expect(m.html).toContain(`href="${created.json.url}"`);
    expect(m.html).toContain('lang="de"');
    await waitFor(async () => (await inviteState(e.owner, created.json.uuid))?.mail_state === "sent", 10_000, "mail_state sent");
    // The one-time URL left the job's payload once sent.
    const job = await e.api.db.selectFrom("jobs").select("payload").where("kind", "=", "mail").executeTakeFirstOrThrow();
    expect(JSON.parse(job.payload).url).toBeNull();
    // Follow the link as the recipient would: the console page, then the API it calls.
    const link = new URL(m.text!.match(/https?:\/\/\S+/)![0]);
    expect(link.origin).toBe(e.origin);
    const token = link.searchParams.get("token")!;
    const described = await fetch(`${e.origin}/api/v1/auth/invites/${token}/`);
    expect(described.status).toBe(200);
    expect(await described.json()).toMatchObject({ email: "new.member@example.org", role: "member" });
    const accepted = await fetch(`${e.origin}/api/v1/auth/invites/${token}/accept/`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: e.origin },
      body: JSON.stringify({ name: "New Member", password: PASSWORD }),
    });
    expect(accepted.status).toBe(201);
    expect(accepted.headers.get("set-cookie")).toContain("earshot_session=");
  } finally {
    await e.stop();
  }
}, 60_000);

test("a password reset is mailed over smtps with credentials from EARSHOT_SMTP_URL_FILE, and its link sets the new password over HTTP", async () => {
  const file = path.join(certs.dir, "smtp-url");
  fs.writeFileSync(file, `${urlOf(smtps.port, "smtps")}\n`);
  const e = await startApp({ EARSHOT_SMTP_URL_FILE: file });
  try {
    expect(e.api.config.smtpUrl).toBe(urlOf(smtps.port, "smtps"));
    await addUser(e.api, "forgetful@example.com", "admin");
    const before = smtps.received.length;
    const printed = await passwordResetUrl(e.api.db, e.origin, "forgetful@example.com", { config: e.api.config, lang: "fr" });
    e.runner.nudge();
    const [mail] = (await smtps.waitForMessages(before + 1)).slice(before);
    expect(mail!.secure).toBe(true);
    expect(mail!.user).toBe(USER);
    const m = mail!.parsed;
    expect(m.subject).toBe("Réinitialiser votre mot de passe Earshot");
    expect(m.headers.get("auto-submitted")).toBe("auto-generated");
    expect(m.text).toContain(printed);
    expect(m.text).toContain("forgetful@example.com");
    expect(m.html).toContain(`href="${printed}"`);
    const token = new URL(m.text!.match(/https?:\/\/\S+/)![0]).searchParams.get("token")!;
    const reset = await fetch(`${e.origin}/api/v1/auth/password-reset/`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: e.origin },
      body: JSON.stringify({ token, password: "a brand new password 42" }),
    });
    expect(reset.status).toBe(200);
    const login = await fetch(`${e.origin}/api/v1/auth/login/`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: e.origin },
      body: JSON.stringify({ email: "forgetful@example.com", password: "a brand new password 42" }),
    });
    expect(login.status).toBe(200);
  } finally {
    await e.stop();
  }
}, 60_000);

test("a refusing server and a server that is down: the invite stays valid, the failure is reported and the mail is retried later", async () => {
  const e = await startApp({ EARSHOT_SMTP_URL: urlOf(starttls.port) });
  try {
    starttls.refuseWith(550);
    const refused = await e.owner.call("POST", "/api/v1/invites/", { body: { email: "refused@example.org", role: "viewer" } });
    expect(refused.status).toBe(201);
    expect(refused.json.url).toContain("/console/invite/?token=");
    const reported = await waitFor(
      async () => {
        const i = await inviteState(e.owner, refused.json.uuid);
        return i?.mail_state === "retrying" ? i : null;
      },
      15_000,
      "mail_state retrying",
    );
    expect(reported.mail_error).toContain("550");
    expect(reported.mail_error).not.toContain(PASS);
    expect(e.logged).toContainEqual(
      expect.objectContaining({
        level: "warn",
        msg: "mail not sent; it is retried",
        fields: expect.objectContaining({ token: refused.json.uuid, error: expect.stringContaining("550") }),
      }),
    );
    // The server takes mail again: the retry (5 s later) delivers it.
    const before = starttls.received.length;
    starttls.refuseWith(null);
    await starttls.waitForMessages(before + 1, 30_000);
    await waitFor(async () => (await inviteState(e.owner, refused.json.uuid))?.mail_state === "sent", 10_000, "mail_state sent after retry");

    // Down: connection refused, reported, then sent once the server is back.
    await starttls.down();
    const whileDown = await e.owner.call("POST", "/api/v1/invites/", { body: { email: "later@example.org", role: "viewer" } });
    expect(whileDown.status).toBe(201);
    const down = await waitFor(
      async () => {
        const i = await inviteState(e.owner, whileDown.json.uuid);
        return i?.mail_state === "retrying" ? i : null;
      },
      15_000,
      "mail_state retrying while down",
    );
    expect(down.mail_error).toMatch(/ECONNREFUSED|connect/i);
    await starttls.up();
    const after = starttls.received.length;
    await starttls.waitForMessages(after + 1, 30_000);
    expect(starttls.received.at(-1)!.to).toEqual(["later@example.org"]);
    await waitFor(async () => (await inviteState(e.owner, whileDown.json.uuid))?.mail_state === "sent", 10_000, "mail_state sent after the server came back");
  } finally {
    starttls.refuseWith(null);
    await e.stop();
  }
}, 90_000);

test("a mail given up after its last attempt is reported failed; the invite still works and its URL leaves the queue", async () => {
  const e = await startApp({ EARSHOT_SMTP_URL: urlOf(starttls.port) });
  try {
    await e.runner.stop();
    starttls.refuseWith(554);
    const created = await e.owner.call("POST", "/api/v1/invites/", { body: { email: "never@example.org", role: "member" } });
    await e.api.db.updateTable("jobs").set({ max_attempts: 1 }).where("kind", "=", "mail").execute();
    await e.runner.start();
    const failed = await waitFor(
      async () => {
        const i = await inviteState(e.owner, created.json.uuid);
        return i?.mail_state === "failed" ? i : null;
      },
      15_000,
      "mail_state failed",
    );
    expect(failed.mail_error).toContain("554");
    expect(e.logged).toContainEqual(
      expect.objectContaining({ level: "error", msg: expect.stringContaining("mail given up"), fields: expect.objectContaining({ token: created.json.uuid }) }),
    );
    const job = await e.api.db.selectFrom("jobs").select(["payload", "state"]).where("kind", "=", "mail").executeTakeFirstOrThrow();
    expect(job.state).toBe("failed");
    expect(JSON.parse(job.payload).url).toBeNull();
    const token = new URL(created.json.url).searchParams.get("token")!;
    const accepted = await fetch(`${e.origin}/api/v1/auth/invites/${token}/accept/`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: e.origin },
      body: JSON.stringify({ name: "Never Mailed", password: PASSWORD }),
    });
    expect(accepted.status).toBe(201);
  } finally {
    starttls.refuseWith(null);
    await e.stop();
  }
}, 60_000);

test("without mail configured an invite carries its URL only (mail_state null) and the test endpoint answers MAIL_NOT_CONFIGURED", async () => {
  const api = await createTestApi();
  try {
    await addUser(api, "owner@example.com", "owner");
    const owner = await signIn(api, "owner@example.com");
    const created = await owner.call("POST", "/api/v1/invites/", { body: { email: "plain@example.org", role: "member" } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ mail_state: null, mail_error: null });
    expect(await api.db.selectFrom("jobs").select("id").where("kind", "=", "mail").execute()).toEqual([]);
    expect((await owner.call("GET", "/api/v1/mail/")).json).toEqual({ configured: false, from: null });
    const r = await owner.call("POST", "/api/v1/mail/test/", { body: {} });
    expect([r.status, r.json.code]).toEqual([409, "MAIL_NOT_CONFIGURED"]);
  } finally {
    await api.close();
  }
});

test("send test email: owners and admins send one at once (to themselves by default) and it is audited; a failure answers the SMTP error without secrets", async () => {
  const e = await startApp({ EARSHOT_SMTP_URL: urlOf(starttls.port, "smtp", "?starttls=required") });
  const wrong = await startApp({ EARSHOT_SMTP_URL: `smtp://${USER}:not-the-password-xyz@localhost:${starttls.port}/` });
  try {
    await addUser(e.api, "viewer@example.com", "viewer");
    const owner = e.owner;
    expect((await owner.call("GET", "/api/v1/mail/")).json).toEqual({ configured: true, from: FROM });
    const before = starttls.received.length;
    const sent = await owner.call("POST", "/api/v1/mail/test/", { body: {}, headers: { "accept-language": "nl" } });
    expect(sent.status).toBe(200);
    expect(sent.json).toMatchObject({ sent: true, to: "owner@example.com" });
    const [mail] = (await starttls.waitForMessages(before + 1)).slice(before);
    expect(mail!.parsed.messageId).toBe(sent.json.message_id);
    expect(mail!.parsed.subject).toBe("Testbericht van Earshot");
    expect(mail!.parsed.text).toContain(`${e.origin}/console/`);
    const other = await owner.call("POST", "/api/v1/mail/test/", { body: { to: "ops@example.net" } });
    expect(other.json.to).toBe("ops@example.net");
    const bad = await owner.call("POST", "/api/v1/mail/test/", { body: { to: "not an address" } });
    expect([bad.status, bad.json.code, bad.json.errors[0].pointer]).toEqual([400, "VALIDATION_ERROR", "/to"]);
    const viewer = await signIn(e.api, "viewer@example.com");
    expect((await viewer.call("POST", "/api/v1/mail/test/", { body: {} })).status).toBe(403);
    const audit = await owner.call("GET", "/api/v1/audit/?action=mail.test_sent");
    expect(audit.json.results.map((a: { target: { label: string } }) => a.target.label).sort()).toEqual(["ops@example.net", "owner@example.com"]);

    const wrongOwner = wrong.owner;
    const failed = await wrongOwner.call("POST", "/api/v1/mail/test/", { body: {} });
    expect([failed.status, failed.json.code]).toEqual([502, "MAIL_SEND_FAILED"]);
    expect(failed.json.detail).toContain("535");
    expect(failed.text).not.toContain("not-the-password-xyz");
    const failures = await wrongOwner.call("GET", "/api/v1/audit/?action=mail.test_failed");
    expect(failures.json.results).toHaveLength(1);
    expect(failures.json.results[0].target.label).toContain("owner@example.com");
    expect(failures.text).not.toContain("not-the-password-xyz");
  } finally {
    await e.stop();
    await wrong.stop();
  }
}, 60_000);

test("TLS: ?starttls=required refuses a server without STARTTLS, opportunistic sends in the clear there and upgrades where offered; an untrusted certificate is refused", async () => {
  const plain = await startSmtpServer({ certs, starttls: false });
  const message = { subject: "s", text: "t", html: "<p>t</p>", lang: "en" };
  const mailer = (url: string, ca: string | null = certs.caFile) => createMailer({ smtpUrl: url, mailFrom: FROM, smtpCaFile: ca }, { timeoutMs: 5000 });
  try {
    const required = mailer(`smtp://localhost:${plain.port}/?starttls=required`);
    await expect(required.send("a@example.org", message)).rejects.toThrow(/STARTTLS|TLS/i);
    expect(plain.received).toHaveLength(0);
    await mailer(`smtp://localhost:${plain.port}/`).send("a@example.org", message);
    expect(plain.received.map((m) => m.secure)).toEqual([false]);
    const before = starttls.received.length;
    await mailer(urlOf(starttls.port)).send("b@example.org", message);
    expect(starttls.received.slice(before).map((m) => m.secure)).toEqual([true]);
    // Without EARSHOT_SMTP_CA_FILE the test CA is not trusted: nothing is sent, and the error says why.
    await expect(mailer(urlOf(smtps.port, "smtps"), null).send("c@example.org", message)).rejects.toThrow(/certificate/i);
  } finally {
    await plain.close();
  }
});
