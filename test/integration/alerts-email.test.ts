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
import { submitResponse, waitAnalysed } from "../helpers/delivery-harness.ts";
import { createTestCertificates, type TestCertificates } from "../helpers/https-receiver.ts";
import { startProcessing, waitFor } from "../helpers/processing.ts";
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
  const responseUuid = await submitResponse(api, link.slug, { [link.questions[0]!.uuid]: text });
  await waitAnalysed(api, responseUuid);
  return responseUuid;
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
    // Created from a German browser: its message is German.
    const de = await api.call("POST", `/api/v1/links/${link.uuid}/alerts/`, {
      body: { name: "Beschwerden", conditions: [{ type: "keyword", keyword: "again" }], destination: { kind: "email", to: ["team@example.de"] } },
      headers: { "accept-language": "de-DE,de;q=0.9" },
    });
    expect(de.status).toBe(201);
    limited = await create({
      name: "Limited",
      conditions: [{ type: "keyword", keyword: "crashing" }],
      max_per_hour: 1,
      destination: { kind: "email", to: ["oncall@example.com"] },
    });
    const before = smtp.received.length;
    responseUuid = await respond(api, link, COMPLAINT);
    await respond(api, link, `Again: ${COMPLAINT}`);
    await smtp.waitForMessages(before + 4, 30_000);
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
    expect(mails).toHaveLength(4);
    const r = await api.call("GET", `/api/v1/links/${link.uuid}/alerts/${limited.uuid}/`);
    expect(r.json.suppressed).toBe(1);
  });

  test("a sent alert's text leaves the mail job (it quotes a respondent)", async () => {
    const jobs = await api.db.selectFrom("jobs").select("payload").where("kind", "=", "mail").execute();
    const alerts = jobs.map((j) => JSON.parse(j.payload)).filter((p) => p.kind === "alert");
    expect(alerts).toHaveLength(4);
    for (const p of alerts) expect(p.message).toBeNull();
  });

  test("a German rule's mail is German: subject, Content-Language, labels, footer", () => {
    const m = mails.find((x) => x.to.includes("team@example.de"))!;
    expect(m.parsed.subject).toBe(`Alarm „Beschwerden“ für ${link.name}`);
    expect(m.parsed.headers.get("content-language")).toBe("de");
    expect(m.parsed.text).toContain("Grund: Stichwort „again“");
    expect(m.parsed.text).toContain("Stimmung: negativ");
    expect(m.parsed.text).toContain("Antwort öffnen: http://localhost/console/responses/");
    expect(m.parsed.text).toContain("Von Earshot gesendet");
    expect(String(m.parsed.html)).toContain('<html lang="de" dir="ltr">');
  });

  test("an email alert's delivery shows on its rule as an outbox delivery's does: a refusal (550), then the retry's 250", async () => {
    const sent = await api.call("GET", `/api/v1/links/${link.uuid}/alerts/${unhappy.uuid}/`);
    expect(sent.json.last_delivery_status).toBe(250);
    expect(sent.json.last_delivery_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const refused = await api.call("POST", `/api/v1/links/${link.uuid}/alerts/`, {
      body: { name: "Refused", conditions: [{ type: "keyword", keyword: "refund" }], destination: { kind: "email", to: ["refused@example.com"] } },
    });
    expect(refused.status).toBe(201);
    expect(refused.json.last_delivery_status).toBeNull();
    smtp.refuseWith(550);
    const status = (want: number) =>
      waitFor(
        async () => (await api.call("GET", `/api/v1/links/${link.uuid}/alerts/${refused.json.uuid}/`)).json.last_delivery_status === want,
        30_000,
        `status ${want}`,
      );
    try {
      await respond(api, link, "I want a refund now");
      await status(550);
    } finally {
      smtp.refuseWith(null);
    }
    // The mail job retries (5 s later) and the message goes out.
    await status(250);
    expect(smtp.received.filter((m) => m.to.includes("refused@example.com"))).toHaveLength(1);
  }, 60_000);

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
