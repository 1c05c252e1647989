/**
 * Alerts (issue 28; docs/alerts.md) end to end, on the test engine: rules created through the API,
 * responses submitted through the public intake API and analysed by the real job runner with the
 * fixture models, alert messages delivered by the real dispatcher to a real HTTPS receiver — each
 * destination's format, the preview's exact body, retries after a 500, the SSRF guard and the
 * per-rule rate limit.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type DeliveryHarness, requestsOn as on, startDeliveryHarness, submitResponse, waitAnalysed } from "../helpers/delivery-harness.ts";
import { createTestCertificates, type ReceivedRequest, type TestCertificates } from "../helpers/https-receiver.ts";
import { waitFor } from "../helpers/processing.ts";

/** A complaint the fixture sentiment model reads as negative (src/ai/inference-client.test.ts). */
const COMPLAINT = "The checkout page keeps crashing when I pay with my card";
const NTFY_TOKEN = "tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2";
let certs: TestCertificates;

type Harness = DeliveryHarness;

/** API, dispatcher, receiver and the job runner with the fixture models. */
const harness = (env: Record<string, string> = {}) => startDeliveryHarness(certs, { env, processing: true });

type Link = { uuid: string; slug: string; name: string; questions: { uuid: string; response_type: string }[] };

async function createLink(h: Harness): Promise<Link> {
  const r = await h.api.call("POST", "/api/v1/links/", {
    body: {
      name: `Checkout <survey> ${crypto.randomUUID().slice(0, 6)}`,
      questions: [
        { prompt: "How likely are you to recommend us?", type: "rating", configuration: { scale_type: "nps" } },
        { prompt: "What went wrong?", type: "text" },
      ],
    },
  });
  expect(r.status).toBe(201);
  return r.json;
}

/** Answers the NPS question with `nps` and the text question with `text`, submits. @returns the response uuid */
function respond(h: Harness, link: Link, nps: number, text: string): Promise<string> {
  const [npsQ, textQ] = link.questions;
  return submitResponse(h.api, link.slug, { [npsQ!.uuid]: nps, [textQ!.uuid]: text });
}

async function createAlert(h: Harness, link: Link, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const r = await h.api.call("POST", `/api/v1/links/${link.uuid}/alerts/`, { body, headers });
  expect(r.status).toBe(201);
  return r.json as { uuid: string; destination: Record<string, unknown>; lang: string };
}

const url = (h: Harness, path: string) => h.receiver.url.replace("/hook", path);

beforeAll(async () => {
  certs = await createTestCertificates();
});
afterAll(async () => {
  const { rm } = await import("node:fs/promises");
  await rm(certs.dir, { recursive: true, force: true });
});

describe("destinations", () => {
  let h: Harness;
  let link: Link;
  let responseUuid: string;
  let received: ReceivedRequest[];
  const rules: Record<string, { uuid: string; lang?: string }> = {};
  const responseUrl = () => `http://localhost/console/responses/${responseUuid}`;

  beforeAll(async () => {
    h = await harness();
    link = await createLink(h);
    const make = async (name: string, path: string, conditions: unknown[], destination: Record<string, unknown> = {}, match = "any") => {
      rules[name] = await createAlert(h, link, { name, conditions, match, destination: { kind: name, url: url(h, path), ...destination } });
    };
    await make("slack", "/slack", [{ type: "negative" }]);
    await make("teams", "/teams", [{ type: "actionable" }]);
    await make("mattermost", "/mattermost", [{ type: "nps_detractor" }]);
    await make("matrix", "", [{ type: "keyword", keyword: "CHECKOUT" }], { room: "!room:example.org", token: "syt_secret_token" });
    await make("ntfy", "/ntfy/support-alerts", [{ type: "keyword", keyword: "keeps crashing" }]);
    await make("webhook", "/generic", [{ type: "negative" }, { type: "keyword", keyword: "card" }], {}, "all");
    // A topic protected by an access token: the receiver refuses a publish without it (403).
    h.receiver.setBehavior({ requireBearer: NTFY_TOKEN }, "/ntfy/private");
    rules.ntfyPrivate = await createAlert(h, link, {
      name: "ntfy private",
      conditions: [{ type: "negative" }],
      destination: { kind: "ntfy", url: url(h, "/ntfy/private"), token: NTFY_TOKEN },
    });
    // Created from a German browser: the rule's messages are German.
    rules.german = await createAlert(
      h,
      link,
      { name: "Beschwerden", conditions: [{ type: "negative" }, { type: "nps_detractor" }], destination: { kind: "slack", url: url(h, "/de-slack") } },
      { "accept-language": "de-CH,de;q=0.9,en;q=0.5" },
    );
    // Rules that must not fire: a word inside a longer word, a missing word, all-of with one miss.
    rules.part = await createAlert(h, link, {
      name: "part",
      conditions: [{ type: "keyword", keyword: "check" }],
      destination: { kind: "slack", url: url(h, "/nofire") },
    });
    rules.all = await createAlert(h, link, {
      name: "all",
      match: "all",
      conditions: [{ type: "negative" }, { type: "keyword", keyword: "refund" }],
      destination: { kind: "slack", url: url(h, "/nofire") },
    });
    responseUuid = await respond(h, link, 3, COMPLAINT);
    received = await h.receiver.waitFor(
      (rs) =>
        ["/slack", "/teams", "/mattermost", "/_matrix", "/ntfy/support-alerts", "/ntfy/private", "/generic", "/de-slack"].every((p) => on(p)(rs).length >= 1),
      60_000,
    );
  });
  afterAll(() => h.close());

  test("Slack gets {text, blocks} with the link, rule, reason, sentiment, quote and console link (mrkdwn escaped)", () => {
    const [req] = on("/slack")(received);
    expect(req!.method).toBe("POST");
    expect(req!.headers["content-type"]).toBe("application/json");
    const body = JSON.parse(req!.body);
    expect(body.text).toContain("&lt;survey&gt;");
    expect(body.text).toContain("Negative sentiment");
    expect(body.blocks[0]).toEqual({ type: "section", text: { type: "mrkdwn", text: expect.stringContaining("*Alert “slack” on Checkout &lt;survey&gt;") } });
    expect(body.blocks[1].text.text).toBe(`>${COMPLAINT}`);
    expect(body.blocks[2].elements[0].text).toBe(`Sentiment: negative · <${responseUrl()}|Open the response>`);
    // Not a signed webhook: no Standard Webhooks headers leak the target's secret.
    expect(req!.headers["webhook-signature"]).toBeUndefined();
  });

  test("Teams gets a message with one Adaptive Card attachment and an Open URL action", () => {
    const body = JSON.parse(on("/teams")(received)[0]!.body);
    expect(body.type).toBe("message");
    expect(body.attachments).toHaveLength(1);
    expect(body.attachments[0].contentType).toBe("application/vnd.microsoft.card.adaptive");
    const card = body.attachments[0].content;
    expect(card).toMatchObject({ type: "AdaptiveCard", version: "1.4" });
    expect(card.body[0].text).toBe(`Alert “teams” on ${link.name}`);
    expect(card.body[1].facts).toEqual([
      { title: "Why", value: "Actionable feedback" },
      { title: "Sentiment", value: "negative" },
    ]);
    expect(card.body[2].text).toBe(`“${COMPLAINT}”`);
    expect(card.actions).toEqual([{ type: "Action.OpenUrl", title: "Open the response", url: responseUrl() }]);
  });

  test("Mattermost gets {text} in Markdown naming the NPS detractor's score", () => {
    const body = JSON.parse(on("/mattermost")(received)[0]!.body);
    expect(Object.keys(body)).toEqual(["text"]);
    expect(body.text).toContain("**Why:** NPS detractor \\(3/10\\)");
    expect(body.text).toContain(`[Open the response](${responseUrl()})`);
    expect(body.text).toContain("Checkout \\<survey\\>");
  });

  test("Matrix gets PUT …/rooms/{room}/send/m.room.message/{txnId} with the bearer token and an m.notice", () => {
    const [req] = on("/_matrix")(received);
    expect(req!.method).toBe("PUT");
    expect(req!.path).toMatch(/^\/_matrix\/client\/v3\/rooms\/!room%3Aexample\.org\/send\/m\.room\.message\/earshot-[0-9a-f]{32}$/);
    expect(req!.headers.authorization).toBe("Bearer syt_secret_token");
    const body = JSON.parse(req!.body);
    expect(body.msgtype).toBe("m.notice");
    expect(body.format).toBe("org.matrix.custom.html");
    expect(body.body).toContain("Keyword “CHECKOUT”");
    expect(body.formatted_body).toContain(`<blockquote>${COMPLAINT}</blockquote>`);
    expect(body.formatted_body).toContain("Checkout &lt;survey&gt;");
  });

  test("ntfy gets a plain-text POST to the topic with Title (RFC 2047 when not ASCII), Tags and Click", () => {
    const [req] = on("/ntfy/support-alerts")(received);
    expect(req!.method).toBe("POST");
    expect(req!.headers["content-type"]).toBe("text/plain; charset=utf-8");
    const title = req!.headers.title!;
    expect(title).toMatch(/^=\?UTF-8\?B\?[A-Za-z0-9+/=]+\?=$/);
    expect(Buffer.from(title.slice(10, -2), "base64").toString("utf8")).toBe(`Alert “ntfy” on ${link.name}`);
    expect(req!.headers.tags).toBe("rotating_light,thumbsdown");
    expect(req!.headers.click).toBe(responseUrl());
    expect(req!.body).toContain(`“${COMPLAINT}”`);
    expect(req!.body).toContain("Why: Keyword “keeps crashing”");
  });

  test("a protected ntfy topic gets Authorization: Bearer with the rule's token (the receiver refuses it without), which the API never returns", async () => {
    const [req] = on("/ntfy/private")(received);
    expect(req!.headers.authorization).toBe(`Bearer ${NTFY_TOKEN}`);
    expect(req!.body).toContain("Why: Negative sentiment");
    // The unprotected topic gets no Authorization header (the target's generated secret is not sent).
    expect(on("/ntfy/support-alerts")(received)[0]!.headers.authorization).toBeUndefined();
    // The delivery is recorded once the receiver's answer is back.
    const rule = await waitFor(async () => {
      const r = await h.api.call("GET", `/api/v1/links/${link.uuid}/alerts/${rules.ntfyPrivate!.uuid}/`);
      return r.json.last_delivery_status !== null && r;
    });
    expect(rule.json.destination).toEqual({ kind: "ntfy", url: url(h, "/ntfy/private"), room: null, has_token: true, to: null });
    expect(rule.json.last_delivery_status).toBe(200);
    expect(JSON.stringify(rule.json)).not.toContain(NTFY_TOKEN);
    const p = await h.api.call("POST", `/api/v1/links/${link.uuid}/alerts/preview/`, { body: { alert_uuid: rules.ntfyPrivate!.uuid } });
    expect(p.json.headers.authorization).toBe("Bearer …");
    expect(JSON.stringify(p.json)).not.toContain(NTFY_TOKEN);
    const plain = (await h.api.call("GET", `/api/v1/links/${link.uuid}/alerts/${rules.ntfy!.uuid}/`)).json;
    expect(plain.destination.has_token).toBe(false);
    // A token on a kind that takes none is refused.
    const bad = await h.api.call("POST", `/api/v1/links/${link.uuid}/alerts/`, {
      body: { name: "x", conditions: [{ type: "negative" }], destination: { kind: "slack", url: "https://hooks.slack.com/x", token: "tk_x" } },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].pointer).toBe("/destination/token");
  });

  test("a rule created from a German browser sends German messages, and says so in its record and preview", async () => {
    expect(rules.german!.lang).toBe("de");
    const body = JSON.parse(on("/de-slack")(received)[0]!.body);
    expect(body.text).toStartWith("Alarm „Beschwerden“ für Checkout &lt;survey&gt;");
    expect(body.text).toContain("Negative Stimmung · NPS-Kritiker (3/10)");
    expect(body.blocks[2].elements[0].text).toBe(`Stimmung: negativ · <${responseUrl()}|Antwort öffnen>`);
    // The preview is in the rule's language whatever the previewing browser's.
    const p = await h.api.call("POST", `/api/v1/links/${link.uuid}/alerts/preview/`, {
      body: { alert_uuid: rules.german!.uuid, response_uuid: responseUuid },
      headers: { "accept-language": "fr" },
    });
    expect(p.json.body).toBe(on("/de-slack")(received)[0]!.body);
    // A draft previews in the browser's language; `lang` changes a rule's language.
    const draft = await h.api.call("POST", `/api/v1/links/${link.uuid}/alerts/preview/`, {
      body: { rule: { name: "Plaintes", conditions: [{ type: "negative" }], destination: { kind: "mattermost", url: "https://chat.example.com/hooks/x" } } },
      headers: { "accept-language": "fr-FR" },
    });
    expect(JSON.parse(draft.json.body).text).toContain("**Motif:** Sentiment négatif");
    const patched = await h.api.call("PATCH", `/api/v1/links/${link.uuid}/alerts/${rules.german!.uuid}/`, { body: { lang: "pl" } });
    expect(patched.json.lang).toBe("pl");
    expect((await h.api.call("PATCH", `/api/v1/links/${link.uuid}/alerts/${rules.german!.uuid}/`, { body: { lang: "xx" } })).status).toBe(400);
    // Without Accept-Language (an API client), English.
    expect(rules.slack!.lang ?? (await h.api.call("GET", `/api/v1/links/${link.uuid}/alerts/${rules.slack!.uuid}/`)).json.lang).toBe("en");
  });

  test("the generic webhook gets the alert's fields as JSON (an all-of rule whose conditions all held)", () => {
    const body = JSON.parse(on("/generic")(received)[0]!.body);
    expect(body).toEqual({
      type: "alert",
      link: link.name,
      rule: "webhook",
      reasons: ["Negative sentiment", "Keyword “card”"],
      sentiment: "negative",
      quote: COMPLAINT,
      response_url: responseUrl(),
      suppressed: 0,
      lang: "en",
    });
  });

  test("a keyword inside a longer word, and an all-of rule with a miss, do not fire", async () => {
    await Bun.sleep(500);
    expect(on("/nofire")(h.receiver.requests)).toHaveLength(0);
  });

  test("the preview returns the exact body each destination received for that response", async () => {
    for (const kind of ["slack", "teams", "mattermost", "ntfy", "webhook"]) {
      const p = await h.api.call("POST", `/api/v1/links/${link.uuid}/alerts/preview/`, {
        body: { alert_uuid: rules[kind]!.uuid, response_uuid: responseUuid },
      });
      expect(p.status).toBe(200);
      const path = { slack: "/slack", teams: "/teams", mattermost: "/mattermost", ntfy: "/ntfy/support-alerts", webhook: "/generic" }[kind]!;
      const got = on(path)(received)[0]!;
      expect(p.json.body).toBe(got.body);
      expect(p.json.kind).toBe(kind);
    }
    const m = await h.api.call("POST", `/api/v1/links/${link.uuid}/alerts/preview/`, { body: { alert_uuid: rules.matrix!.uuid } });
    expect(m.status).toBe(200);
    expect(m.json.method).toBe("PUT");
    expect(m.json.headers.authorization).toBe("Bearer …");
    expect(JSON.stringify(m.json)).not.toContain("syt_secret_token");
    expect(JSON.parse(m.json.body).body).toContain("Keyword “CHECKOUT”");
    // A draft rule and the sample answer.
    const d = await h.api.call("POST", `/api/v1/links/${link.uuid}/alerts/preview/`, {
      body: { rule: { name: "Draft", conditions: [{ type: "nps_detractor" }], destination: { kind: "mattermost", url: "https://chat.example.com/hooks/x" } } },
    });
    expect(d.status).toBe(200);
    expect(d.json.url).toBe("https://chat.example.com/hooks/x");
    expect(JSON.parse(d.json.body).text).toContain("Alert “Draft”");
  });

  test("the API keeps the Matrix token write-only, hides the targets from the webhooks list, and audits changes", async () => {
    const list = await h.api.call("GET", `/api/v1/links/${link.uuid}/alerts/`);
    expect(list.status).toBe(200);
    expect(list.json.count).toBe(10);
    expect(JSON.stringify(list.json)).not.toContain("syt_secret_token");
    const one = await h.api.call("GET", `/api/v1/links/${link.uuid}/alerts/${rules.matrix!.uuid}/`);
    expect(one.json.destination).toEqual({ kind: "matrix", url: h.receiver.url.replace("/hook", ""), room: "!room:example.org", has_token: true, to: null });
    expect(one.json.last_delivery_status).toBe(200);
    const hooks = await h.api.call("GET", `/api/v1/workspaces/${h.api.ws.workspace_uuid}/webhooks/`);
    expect(hooks.json.count).toBe(0);
    const patched = await h.api.call("PATCH", `/api/v1/links/${link.uuid}/alerts/${rules.part!.uuid}/`, { body: { name: "renamed", enabled: false } });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ name: "renamed", enabled: false });
    expect((await h.api.call("DELETE", `/api/v1/links/${link.uuid}/alerts/${rules.all!.uuid}/`)).status).toBe(200);
    expect((await h.api.call("GET", `/api/v1/links/${link.uuid}/alerts/${rules.all!.uuid}/`)).status).toBe(404);
    const actions = await h.api.db.selectFrom("audit_log").select("action").where("action", "like", "alert.%").execute();
    expect(actions.map((a) => a.action).sort()).toEqual([...Array(10).fill("alert.created"), "alert.deleted", "alert.updated", "alert.updated"]);
  });
});

describe("delivery", () => {
  let h: Harness;
  let link: Link;
  beforeAll(async () => {
    h = await harness();
    link = await createLink(h);
  });
  afterAll(() => h.close());

  test("a 500 is retried with the same body", async () => {
    await createAlert(h, link, {
      name: "retry",
      conditions: [{ type: "keyword", keyword: "checkout" }],
      destination: { kind: "slack", url: url(h, "/retry") },
    });
    h.receiver.queueBehaviors([{ status: 500 }], "/retry");
    await respond(h, link, 9, COMPLAINT);
    const rs = on("/retry")(await h.receiver.waitFor((all) => on("/retry")(all).length >= 2, 60_000));
    expect(rs[0]!.body).toBe(rs[1]!.body);
  });

  test("erasing the response ends its pending alert and redacts the stored message", async () => {
    const alert = await createAlert(h, link, {
      name: "erased",
      conditions: [{ type: "keyword", keyword: "pay" }],
      destination: { kind: "ntfy", url: url(h, "/erased") },
    });
    h.receiver.setBehavior({ status: 503 }, "/erased");
    const responseUuid = await respond(h, link, 9, COMPLAINT);
    await h.receiver.waitFor((all) => on("/erased")(all).length >= 1, 60_000);
    expect((await h.api.call("DELETE", `/api/v1/responses/${responseUuid}/`)).status).toBe(200);
    const rule = await h.api.db.selectFrom("alert_rules").select("webhook_uuid").where("uuid", "=", alert.uuid).executeTakeFirstOrThrow();
    const rows = await h.api.db
      .selectFrom("webhook_deliveries as d")
      .innerJoin("outbox_events as e", "e.uuid", "d.event_uuid")
      .select(["d.state", "e.payload"])
      .where("d.webhook_uuid", "=", rule.webhook_uuid)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.state).toBe("failed");
    expect(rows[0]!.payload).not.toContain("checkout");
    const sent = on("/erased")(h.receiver.requests).length;
    await Bun.sleep(1000);
    expect(on("/erased")(h.receiver.requests)).toHaveLength(sent);
  });

  test("the rate limit sends at most max_per_hour, counts the rest, and reports them in the next hour's first message", async () => {
    const alert = await createAlert(h, link, {
      name: "limited",
      conditions: [{ type: "keyword", keyword: "crashing" }],
      max_per_hour: 2,
      destination: { kind: "webhook", url: url(h, "/limited") },
    });
    for (let i = 0; i < 4; i++) await waitAnalysed(h.api, await respond(h, link, 8, COMPLAINT));
    await h.receiver.waitFor((all) => on("/limited")(all).length >= 2, 30_000);
    await Bun.sleep(1000);
    expect(on("/limited")(h.receiver.requests)).toHaveLength(2);
    const rule = await h.api.call("GET", `/api/v1/links/${link.uuid}/alerts/${alert.uuid}/`);
    expect(rule.json.suppressed).toBe(2);
    // An hour passes (the window's start moves back an hour).
    await h.api.db.updateTable("alert_rules").set({ window_start: "2000-01-01T00:00:00.000000Z" }).where("uuid", "=", alert.uuid).execute();
    await respond(h, link, 8, COMPLAINT);
    const rs = on("/limited")(await h.receiver.waitFor((all) => on("/limited")(all).length >= 3, 30_000));
    expect(JSON.parse(rs[2]!.body).suppressed).toBe(2);
    expect((await h.api.call("GET", `/api/v1/links/${link.uuid}/alerts/${alert.uuid}/`)).json.suppressed).toBe(0);
  });
});

describe("SSRF guard", () => {
  let h: Harness;
  beforeAll(async () => (h = await harness({ EARSHOT_WEBHOOK_ALLOW_HOSTS: "" })));
  afterAll(() => h.close());

  test("a literal loopback destination is refused at creation, a name resolving to one at delivery", async () => {
    const link = await createLink(h);
    const literal = await h.api.call("POST", `/api/v1/links/${link.uuid}/alerts/`, {
      body: { name: "x", conditions: [{ type: "negative" }], destination: { kind: "slack", url: "https://127.0.0.1/hook" } },
    });
    expect(literal.status).toBe(400);
    expect(literal.json.code).toBe("VALIDATION_ERROR");
    expect(literal.json.errors[0].pointer).toBe("/destination/url");
    const port = new URL(h.receiver.url).port;
    const alert = await createAlert(h, link, {
      name: "guarded",
      conditions: [{ type: "keyword", keyword: "checkout" }],
      destination: { kind: "slack", url: `https://localhost:${port}/guarded` },
    });
    await respond(h, link, 9, COMPLAINT);
    const rule = await h.api.db.selectFrom("alert_rules").select("webhook_uuid").where("uuid", "=", alert.uuid).executeTakeFirstOrThrow();
    const attempt = await (async () => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const a = await h.api.db
          .selectFrom("webhook_attempts as a")
          .innerJoin("webhook_deliveries as d", "d.uuid", "a.delivery_uuid")
          .select(["a.error", "a.status_code"])
          .where("d.webhook_uuid", "=", rule.webhook_uuid)
          .executeTakeFirst();
        if (a) return a;
        if (Date.now() > deadline) throw new Error("no attempt");
        await Bun.sleep(100);
      }
    })();
    expect(attempt.status_code).toBeNull();
    expect(attempt.error).toContain("loopback");
    expect(on("/guarded")(h.receiver.requests)).toHaveLength(0);
  });
});

describe("validation", () => {
  let h: Harness;
  beforeAll(async () => (h = await harness()));
  afterAll(() => h.close());

  test("bad rules get problem details with pointers; another workspace's or a malformed link is 404", async () => {
    const link = await createLink(h);
    const post = (body: unknown, to = link.uuid) => h.api.call("POST", `/api/v1/links/${to}/alerts/`, { body });
    const matrix = await post({
      name: "m",
      conditions: [{ type: "negative" }],
      destination: { kind: "matrix", url: "https://matrix.example.org", room: "!r:example.org" },
    });
    expect(matrix.status).toBe(400);
    expect(matrix.json.errors.map((e: { pointer: string }) => e.pointer)).toContain("/destination/token");
    const http = await post({ name: "h", conditions: [{ type: "negative" }], destination: { kind: "slack", url: "http://hooks.slack.com/x" } });
    expect(http.json.errors[0].pointer).toBe("/destination/url");
    const none = await post({ name: "n", conditions: [], destination: { kind: "slack", url: "https://hooks.slack.com/x" } });
    expect(none.json.errors[0].pointer).toBe("/conditions");
    const theme = await post({
      name: "t",
      conditions: [{ type: "theme", theme_uuid: crypto.randomUUID() }],
      destination: { kind: "slack", url: "https://hooks.slack.com/x" },
    });
    expect(theme.status).toBe(400);
    expect(theme.json.errors[0].pointer).toBe("/conditions/0/theme_uuid");
    const long = await post({
      name: "k",
      conditions: [{ type: "keyword", keyword: "x".repeat(101) }],
      destination: { kind: "slack", url: "https://hooks.slack.com/x" },
    });
    expect(long.json.errors[0].pointer).toBe("/conditions/0/keyword");
    expect(
      (await post({ name: "x", conditions: [{ type: "negative" }], destination: { kind: "slack", url: "https://hooks.slack.com/x" } }, crypto.randomUUID()))
        .status,
    ).toBe(404);
    expect((await h.api.call("GET", "/api/v1/links/not-a-uuid/alerts/")).status).toBe(404);
  });

  test("deleting the link deletes its rules and their outbox targets", async () => {
    const link = await createLink(h);
    await createAlert(h, link, { name: "gone", conditions: [{ type: "negative" }], destination: { kind: "slack", url: "https://hooks.slack.com/x" } });
    const count = async () => {
      const rules = await h.api.db.selectFrom("alert_rules").select("uuid").where("link_uuid", "=", link.uuid).execute();
      const targets = await h.api.db.selectFrom("webhooks").select("uuid").where("link_uuid", "=", link.uuid).execute();
      return [rules.length, targets.length];
    };
    expect(await count()).toEqual([1, 1]);
    expect((await h.api.call("DELETE", `/api/v1/links/${link.uuid}/`)).status).toBe(200);
    expect(await count()).toEqual([0, 0]);
  });
});
