/**
 * Email as an alert destination (issue 28; docs/alerts.md "Email"), on the test engine: rules
 * created through the API, responses submitted through the public intake API and analysed by the
 * real job runner with the fixture models, the alert queued as a `mail` job in the firing
 * transaction and sent by the real mail handler to a real SMTP server (`smtp-server`, STARTTLS
 * with a throw-away CA) — subject, plain text and HTML, the rate limit, the preview, and the 409
 * when mail is not configured.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rm } from "node:fs/promises";
import { createTestApi, type TestApi } from "../helpers/api.ts";
import { createTestCertificates, type TestCertificates } from "../helpers/https-receiver.ts";
import { startProcessing } from "../helpers/processing.ts";
import { startSmtpServer, type ReceivedMail, type TestSmtpServer } from "../helpers/smtp-server.ts";

/** A complaint the fixture sentiment model reads as negative (src/ai/inference-client.test.ts). */
const COMPLAINT = "The checkout page keeps crashing when I pay with my card";
let certs: TestCertificates;
let smtp: TestSmtpServer;

type Link = { uuid: string; slug: string; name: string; questions: { uuid: string }[] };

async function createLink(api: TestApi): Promise<Link> {
  const r = await api.call("POST", "/api/v1/links/", {
    body: { name: `Checkout <survey> ${crypto.randomUUID().slice(0, 6)}`, questions: [{ prompt: "What went wrong?", type: "text" }] },
  });
  expect(r.status).toBe(201);
  return r.json;
}

/** Answers the text question with `text` and submits; waits until the response is analysed. @returns its uuid */
async function respond(api: TestApi, link: Link, text: string): Promise<string> {
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}/sessions/`;
  const s = await api.call("POST", base, { body: {}, key: null });
  expect(s.status).toBe(201);
  expect((await api.call("PUT", `${base}${s.json.session_id}/answers/${link.questions[0]!.uuid}/`, { body: { value: text }, key: null })).status).toBe(200);
  expect((await api.call("POST", `${base}${s.json.session_id}/submit/`, { body: {}, key: null })).status).toBe(200);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await api.db.selectFrom("responses").select("submitted_event_at").where("uuid", "=", s.json.response_uuid).executeTakeFirst();
    if (r?.submitted_event_at) return s.json.response_uuid;
    if (Date.now() > deadline) throw new Error("response not analysed in time");
    await Bun.sleep(100);
  }
}

beforeAll(async () => {
  certs = await createTestCertificates();
  smtp = await startSmtpServer({ certs });
});
afterAll(async () => {
  await smtp.close();
  await rm(certs.dir, { recursive: true, force: true });
});

describe("with mail configured", () => {
  let api: TestApi;
  let processing: { stop(): Promise<void> };
  let link: Link;
  let mails: ReceivedMail[];
  let responseUuid: string;
  let unhappy: { uuid: string; destination: Record<string, unknown> };
  let limited: { uuid: string };

  beforeAll(async () => {
    api = await createTestApi({
      EARSHOT_SMTP_URL: `smtp://localhost:${smtp.port}/?starttls=required`,
      EARSHOT_MAIL_FROM: "Earshot <earshot@example.com>",
      EARSHOT_SMTP_CA_FILE: certs.caFile,
    });
    processing = await startProcessing(api);
    link = await createLink(api);
    const create = async (body: Record<string, unknown>) => {
      const r = await api.call("POST", `/api/v1/links/${link.uuid}/alerts/`, { body });
      expect(r.status).toBe(201);
      return r.json;
    };
    unhappy = await create({
      name: "Unhappy payers",
      conditions: [{ type: "negative" }, { type: "keyword", keyword: "card" }],
      destination: { kind: "email", to: ["support@example.com", "lead@example.org"] },
    });
    limited = await create({
      name: "Limited",
      conditions: [{ type: "keyword", keyword: "crashing" }],
      max_per_hour: 1,
      destination: { kind: "email", to: ["oncall@example.com"] },
    });
    const before = smtp.received.length;
    responseUuid = await respond(api, link, COMPLAINT);
    await respond(api, link, `Again: ${COMPLAINT}`);
    await smtp.waitForMessages(before + 3, 30_000);
    await Bun.sleep(1000);
    mails = smtp.received.slice(before);
  });
  afterAll(async () => {
    await processing.stop();
    await api.close();
  });

  test("the rule's record shows the recipients; one message per firing goes to all of them", async () => {
    expect(unhappy.destination).toEqual({
      kind: "email",
      url: "mailto:support@example.com,lead@example.org",
      room: null,
      has_token: false,
      to: ["support@example.com", "lead@example.org"],
    });
    const toUnhappy = mails.filter((m) => m.parsed.subject?.startsWith("Alert “Unhappy payers”"));
    expect(toUnhappy).toHaveLength(2);
    for (const m of toUnhappy) expect(m.to.sort()).toEqual(["lead@example.org", "support@example.com"]);
  });

  test("the message carries the link, rule, reasons, sentiment, quote and console link; the HTML escapes the link's name", () => {
    const m = mails.find((x) => x.parsed.subject === `Alert “Unhappy payers” on ${link.name}` && x.parsed.text?.includes(`“${COMPLAINT}”`))!;
    expect(m).toBeDefined();
    const consoleUrl = `http://localhost/console/responses/${responseUuid}`;
    expect(m.parsed.text).toContain("Why: Negative sentiment · Keyword “card”");
    expect(m.parsed.text).toContain("Sentiment: negative");
    expect(m.parsed.text).toContain(`Open the response: ${consoleUrl}`);
    const html = String(m.parsed.html);
    expect(html).toContain("Checkout &lt;survey&gt;");
    expect(html).not.toContain("<survey>");
    expect(html).toContain(`${COMPLAINT}</blockquote>`);
    expect(html).toContain(`<a href="${consoleUrl}">Open the response</a>`);
    expect(m.parsed.headers.get("auto-submitted")).toBe("auto-generated");
  });

  test("the rate limit holds for email: one message of the max_per_hour 1 rule, the other counted", async () => {
    expect(mails.filter((m) => m.parsed.subject?.startsWith("Alert “Limited”"))).toHaveLength(1);
    expect(mails).toHaveLength(3);
    const r = await api.call("GET", `/api/v1/links/${link.uuid}/alerts/${limited.uuid}/`);
    expect(r.json.suppressed).toBe(1);
  });

  test("a sent alert's text leaves the mail job (it quotes a respondent)", async () => {
    const jobs = await api.db.selectFrom("jobs").select("payload").where("kind", "=", "mail").execute();
    const alerts = jobs.map((j) => JSON.parse(j.payload)).filter((p) => p.kind === "alert");
    expect(alerts).toHaveLength(3);
    for (const p of alerts) expect(p.message).toBeNull();
  });

  test("the preview returns the message the recipients got (subject, text, html)", async () => {
    const p = await api.call("POST", `/api/v1/links/${link.uuid}/alerts/preview/`, { body: { alert_uuid: unhappy.uuid, response_uuid: responseUuid } });
    expect(p.status).toBe(200);
    expect(p.json.kind).toBe("email");
    expect(p.json.method).toBe("SMTP");
    expect(p.json.email.to).toEqual(["support@example.com", "lead@example.org"]);
    const m = mails.find((x) => x.parsed.text?.includes(`“${COMPLAINT}”`) && x.parsed.subject === p.json.email.subject)!;
    expect(m.parsed.text!.trim()).toBe(p.json.email.text.trim());
    expect(p.json.body).toBe(p.json.email.text);
    expect(p.json.email.html).toContain(`${COMPLAINT}</blockquote>`);
    const draft = await api.call("POST", `/api/v1/links/${link.uuid}/alerts/preview/`, {
      body: { rule: { name: "Draft", conditions: [{ type: "negative" }], destination: { kind: "email", to: ["a@example.com"] } } },
    });
    expect(draft.status).toBe(200);
    expect(draft.json.email.subject).toBe(`Alert “Draft” on ${link.name}`);
  });

  test("recipients are validated: 1–10 well-formed addresses, only for email, and email takes no url", async () => {
    const post = (destination: Record<string, unknown>) =>
      api.call("POST", `/api/v1/links/${link.uuid}/alerts/`, { body: { name: "x", conditions: [{ type: "negative" }], destination } });
    const eleven = Array.from({ length: 11 }, (_, i) => `u${i}@example.com`);
    for (const [destination, pointer] of [
      [{ kind: "email", to: eleven }, "/destination/to"],
      [{ kind: "email", to: [] }, "/destination/to"],
      [{ kind: "email", to: ["not an address"] }, "/destination/to/0"],
      [{ kind: "email" }, "/destination/to"],
      [{ kind: "email", to: ["a@example.com"], url: "https://example.com/" }, "/destination/url"],
      [{ kind: "slack", url: "https://hooks.slack.com/services/x", to: ["a@example.com"] }, "/destination/to"],
    ] as const) {
      const r = await post(destination);
      expect([r.status, r.json.code]).toEqual([400, "VALIDATION_ERROR"]);
      expect(r.json.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
    }
  });
});

test("without mail configured, an email destination is refused with 409 MAIL_NOT_CONFIGURED (create and update)", async () => {
  const api = await createTestApi();
  try {
    const link = await createLink(api);
    const body = { name: "Mail me", conditions: [{ type: "negative" }], destination: { kind: "email", to: ["a@example.com"] } };
    const r = await api.call("POST", `/api/v1/links/${link.uuid}/alerts/`, { body });
    expect([r.status, r.json.code]).toEqual([409, "MAIL_NOT_CONFIGURED"]);
    expect(r.json.detail).toContain("EARSHOT_SMTP_URL");
    const slack = await api.call("POST", `/api/v1/links/${link.uuid}/alerts/`, {
      body: { ...body, destination: { kind: "slack", url: "https://hooks.slack.com/services/x" } },
    });
    expect(slack.status).toBe(201);
    const p = await api.call("PATCH", `/api/v1/links/${link.uuid}/alerts/${slack.json.uuid}/`, {
      body: { destination: { kind: "email", to: ["a@example.com"] } },
    });
    expect([p.status, p.json.code]).toEqual([409, "MAIL_NOT_CONFIGURED"]);
    expect((await api.call("GET", `/api/v1/links/${link.uuid}/alerts/`)).json.count).toBe(1);
  } finally {
    await api.close();
  }
});
