/**
 * Webhook delivery (DESIGN §8) against a real HTTPS receiver with its own CA: the in-process API
 * over a real SQLite file, the real dispatcher, responses submitted through the public intake
 * API, and every delivery verified with the `standardwebhooks` package.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { createManualClock } from "../../src/clock.ts";
import { claimDueDeliveries, pruneDeliveryLogs, releaseLeases } from "../../src/outbox/repository.ts";
import { createTestApi } from "../helpers/api.ts";
import { type DeliveryHarness, startDeliveryHarness } from "../helpers/delivery-harness.ts";
import { createTestCertificates, type ReceivedRequest, type TestCertificates } from "../helpers/https-receiver.ts";

let certs: TestCertificates;

type Harness = DeliveryHarness;

/** API + dispatcher + receiver; the receiver's host is allowed unless `env` says otherwise. */
const harness = (env: Record<string, string> = {}, timeoutMs = 2000) => startDeliveryHarness(certs, { env, timeoutMs });

/** Creates a webhook on its own receiver path (several webhooks get the same event id). */
async function createHook(h: Harness, body: Record<string, unknown> = {}) {
  const path = `/hook/${crypto.randomUUID().slice(0, 8)}`;
  const r = await h.api.call("POST", h.wsPath, {
    body: { url: h.receiver.url.replace("/hook", path), events: ["response.started", "response.submitted"], ...body },
  });
  expect(r.status).toBe(201);
  return { ...(r.json as { uuid: string; secret: string }), path };
}

/** Requests that reached `hook`. */
const to = (hook: { path: string }, rs: ReceivedRequest[]) => rs.filter((r) => r.path === hook.path);

const QUESTIONS = [
  { prompt: "How would you rate us?", type: "rating", configuration: { scale_type: "stars", max_value: 5 } },
  {
    prompt: "Pick a design",
    type: "image_choice",
    configuration: { cards: [{ id: "a", label: "Design A", media_url: "https://example.com/a.png", media_type: "image" }] },
  },
  { prompt: "Which plan?", type: "multiple_choice", configuration: { options: ["Free", "Pro"] } },
];

async function createLink(h: Harness, extra: Record<string, unknown> = {}) {
  const r = await h.api.call("POST", "/api/v1/links/", { body: { name: `Link ${crypto.randomUUID().slice(0, 8)}`, questions: QUESTIONS, ...extra } });
  expect(r.status).toBe(201);
  return r.json as { uuid: string; slug: string; questions: { uuid: string; response_type: string }[] };
}

/** Starts a session, answers every question, submits. @returns the response uuid */
async function respond(h: Harness, link: Awaited<ReturnType<typeof createLink>>): Promise<string> {
  const base = `/api/v1/intake/${h.api.ws.workspace_slug}/${link.slug}/sessions/`;
  const s = await h.api.call("POST", base, { body: {}, key: null });
  expect(s.status).toBe(201);
  const values: Record<string, unknown> = { rating: 4, image_choice: "a", multiple_choice: "Pro" };
  for (const q of link.questions) {
    const a = await h.api.call("PUT", `${base}${s.json.session_id}/answers/${q.uuid}/`, { body: { value: values[q.response_type] }, key: null });
    expect(a.status).toBe(200);
  }
  expect((await h.api.call("POST", `${base}${s.json.session_id}/submit/`, { body: {}, key: null })).status).toBe(200);
  return s.json.response_uuid;
}

function verify(secret: string | Uint8Array, req: ReceivedRequest): any {
  const wh = typeof secret === "string" ? new Webhook(secret) : new Webhook(secret, { format: "raw" });
  return wh.verify(req.body, req.headers);
}

async function deliveries(h: Harness, hookUuid: string): Promise<any[]> {
  const r = await h.api.call("GET", `${h.wsPath}${hookUuid}/deliveries/?page_size=100`);
  expect(r.status).toBe(200);
  return r.json.results;
}

async function until<T>(fn: () => Promise<T | null | false | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(50);
  }
}

beforeAll(async () => {
  certs = await createTestCertificates();
});
afterAll(async () => {
  const { rm } = await import("node:fs/promises");
  await rm(certs.dir, { recursive: true, force: true });
});

describe("delivery", () => {
  let h: Harness;
  beforeAll(async () => (h = await harness()));
  afterAll(() => h.close());

  test("started and submitted events arrive signed, with the documented envelope and typed answers", async () => {
    const hook = await createHook(h);
    const link = await createLink(h);
    const responseUuid = await respond(h, link);
    const reqs = await h.receiver.waitFor((rs) => to(hook, rs).length >= 2);
    const mine = to(hook, reqs).map((r) => ({ req: r, body: verify(hook.secret, r) }));
    expect(mine.map((m) => m.body.type).sort()).toEqual(["response.started", "response.submitted"]);
    for (const { req, body } of mine) {
      expect(req.headers["webhook-id"]).toMatch(/^msg_[0-9a-f]{32}$/);
      expect(req.headers["content-type"]).toContain("application/json");
      expect(body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      expect(body.data.workspace_uuid).toBe(h.api.ws.workspace_uuid);
      expect(body.data.link).toEqual({ uuid: link.uuid, name: expect.any(String), slug: link.slug });
      expect(body.data.response.uuid).toBe(responseUuid);
    }
    const submitted = mine.find((m) => m.body.type === "response.submitted")!.body.data.response;
    expect(submitted.status).toBe("completed");
    const byType = Object.fromEntries(submitted.answers.map((a: any) => [a.response_type, a]));
    expect(byType.rating.rating_details).toEqual({ value: 4, max_value: 5, scale_type: "stars" });
    expect(byType.image_choice.selected_card).toEqual({ card_id: "a", label: "Design A", media_url: "https://example.com/a.png", media_type: "image" });
    const log = await until(async () => {
      const ds = await deliveries(h, hook.uuid);
      return ds.length >= 2 && ds.every((d) => d.state === "succeeded") && ds;
    });
    expect(log[0]).toMatchObject({ attempts: 1, last_status_code: 200, response_excerpt: "ok", next_attempt_at: null, last_error: null });
    expect(log.map((d) => d.event_id).sort()).toEqual(mine.map((m) => m.req.headers["webhook-id"]).sort());
    const record = await h.api.call("GET", `${h.wsPath}${hook.uuid}/`);
    expect(record.json).toMatchObject({ last_delivery_status: 200, enabled: true });
    expect(record.json.last_delivery_at).toBeString();
  });

  test("a receiver that is down gets every event once it is back, same webhook-id on every attempt", async () => {
    const hook = await createHook(h, { events: ["response.submitted"] });
    await h.receiver.down();
    const link = await createLink(h);
    const uuids = [await respond(h, link), await respond(h, link), await respond(h, link)];
    await until(async () => (await deliveries(h, hook.uuid)).filter((d) => d.attempts >= 2).length === 3);
    h.receiver.up();
    const reqs = to(hook, await h.receiver.waitFor((rs) => uuids.every((u) => to(hook, rs).some((r) => r.body.includes(u)))));
    const ds = await until(async () => {
      const all = await deliveries(h, hook.uuid);
      return all.every((d) => d.state === "succeeded") && all;
    });
    for (const d of ds) {
      const got = reqs.filter((r) => r.headers["webhook-id"] === d.event_id);
      expect(got.length).toBeGreaterThanOrEqual(1);
      for (const r of got) expect(verify(hook.secret, r).type).toBe("response.submitted");
      const detail = await h.api.call("GET", `${h.wsPath}${hook.uuid}/deliveries/${d.uuid}/`);
      const attempts = detail.json.attempt_log;
      expect(attempts.length).toBe(d.attempts);
      expect(attempts.at(-1).status_code).toBe(200);
      expect(attempts[0].status_code).toBeNull();
      expect(attempts[0].error).toMatch(/refused|ECONNREFUSED|connect/i);
    }
  });

  test("5xx and a timeout are retried; only 4 KiB of an answer is kept; a 3xx is a failure, not followed", async () => {
    const hook = await createHook(h);
    h.receiver.queueBehaviors(
      [{ status: 500, body: "x".repeat(10_000) }, { delayMs: 3000 }, { status: 302, headers: { location: "https://localhost/elsewhere" } }],
      hook.path,
    );
    const sent = await h.api.call("POST", `${h.wsPath}${hook.uuid}/test/`);
    expect(sent.status).toBe(202);
    expect(sent.json).toMatchObject({ event_type: "webhook.test", state: "pending" });
    const done = await until(async () => {
      const d = await h.api.call("GET", `${h.wsPath}${hook.uuid}/deliveries/${sent.json.uuid}/`);
      return d.json.state === "succeeded" && d.json;
    });
    const log = done.attempt_log;
    expect(log.map((a: any) => a.status_code)).toEqual([500, null, 302, 200]);
    expect(log[0].response_excerpt.length).toBe(4096);
    expect(log[1].error).toMatch(/timed out/i);
    const reqs = to(hook, h.receiver.requests);
    expect(reqs.length).toBe(4);
    expect(reqs.every((r) => r.headers["webhook-id"] === done.event_id)).toBe(true);
    for (const r of reqs) expect(verify(hook.secret, r)).toMatchObject({ type: "webhook.test", data: { webhook_uuid: hook.uuid } });
  });

  test("redeliver sends the same event again with the same webhook-id", async () => {
    const hook = await createHook(h);
    const sent = await h.api.call("POST", `${h.wsPath}${hook.uuid}/test/`);
    await until(async () => (await deliveries(h, hook.uuid))[0]?.state === "succeeded");
    const again = await h.api.call("POST", `${h.wsPath}${hook.uuid}/deliveries/${sent.json.uuid}/redeliver/`);
    expect(again.status).toBe(202);
    expect(again.json.uuid).not.toBe(sent.json.uuid);
    expect(again.json.event_id).toBe(sent.json.event_id);
    const reqs = to(hook, await h.receiver.waitFor((rs) => to(hook, rs).length === 2));
    for (const r of reqs) expect(r.headers["webhook-id"]).toBe(sent.json.event_id);
    for (const r of reqs) verify(hook.secret, r);
  });

  test("after rotate-secret both the new and the previous secret verify, for 24 h", async () => {
    const hook = await createHook(h);
    const rotated = await h.api.call("POST", `${h.wsPath}${hook.uuid}/rotate-secret/`);
    expect(rotated.status).toBe(200);
    expect(rotated.json.secret).toMatch(/^whsec_/);
    expect(rotated.json.secret).not.toBe(hook.secret);
    const hours = (Date.parse(rotated.json.previous_secret_expires_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    const sent = await h.api.call("POST", `${h.wsPath}${hook.uuid}/test/`);
    const [req] = to(hook, await h.receiver.waitFor((rs) => to(hook, rs).length > 0));
    expect(req!.headers["webhook-id"]).toBe(sent.json.event_id);
    expect(req!.headers["webhook-signature"]!.split(" ").length).toBe(2);
    expect(verify(rotated.json.secret, req!).type).toBe("webhook.test");
    expect(verify(hook.secret, req!).type).toBe("webhook.test");
  });

  test("an on_finished webhook with a plain secret signs with its UTF-8 bytes, for its link only", async () => {
    const secret = "plain secret ünïcode";
    const link = await createLink(h, { on_finished: { webhook_url: h.receiver.url, webhook_secret: secret } });
    const other = await createLink(h);
    const responseUuid = await respond(h, link);
    const otherUuid = await respond(h, other);
    const onFinished = { path: "/hook" };
    const [req] = to(onFinished, await h.receiver.waitFor((rs) => to(onFinished, rs).length > 0));
    expect(verify(new TextEncoder().encode(secret), req!)).toMatchObject({ type: "response.submitted", data: { response: { uuid: responseUuid } } });
    expect(() => verify("whsec_" + Buffer.from(secret).toString("base64"), req!)).not.toThrow();
    // The other link's event has gone out to the workspace-wide webhooks, not to this one.
    await h.receiver.waitFor((rs) => rs.some((r) => r.body.includes(otherUuid) && r.body.includes("response.submitted")));
    await Bun.sleep(200);
    expect(to(onFinished, h.receiver.requests).length).toBe(1);
  });

  test("delivery logs older than the retention are pruned; pending ones are kept", async () => {
    const hook = await createHook(h);
    await h.api.call("POST", `${h.wsPath}${hook.uuid}/test/`);
    await until(async () => (await deliveries(h, hook.uuid))[0]?.state === "succeeded");
    await Bun.sleep(50);
    expect(await pruneDeliveryLogs(h.api.db, 1e-9)).toBeGreaterThan(0);
    expect(await deliveries(h, hook.uuid)).toEqual([]);
  });
});

describe("disabling", () => {
  let h: Harness;
  beforeAll(async () => (h = await harness({ EARSHOT_WEBHOOK_DISABLE_AFTER_S: "1" })));
  afterAll(() => h.close());

  test("410 Gone disables the webhook with a reason; new events are not queued; PATCH re-enables", async () => {
    const hook = await createHook(h);
    h.receiver.queueBehaviors([{ status: 410 }], hook.path);
    const sent = await h.api.call("POST", `${h.wsPath}${hook.uuid}/test/`);
    const record = await until(async () => {
      const r = await h.api.call("GET", `${h.wsPath}${hook.uuid}/`);
      return r.json.enabled === false && r.json;
    });
    expect(record).toMatchObject({ last_delivery_status: 410, disabled_reason: expect.stringContaining("410") });
    const d = await h.api.call("GET", `${h.wsPath}${hook.uuid}/deliveries/${sent.json.uuid}/`);
    expect(d.json).toMatchObject({ state: "failed", attempts: 1, last_status_code: 410, next_attempt_at: null });
    await respond(h, await createLink(h));
    expect((await deliveries(h, hook.uuid)).length).toBe(1);
    const redeliver = await h.api.call("POST", `${h.wsPath}${hook.uuid}/deliveries/${sent.json.uuid}/redeliver/`);
    expect(redeliver.json.code).toBe("VALIDATION_ERROR");
    const enabled = await h.api.call("PATCH", `${h.wsPath}${hook.uuid}/`, { body: { enabled: true } });
    expect(enabled.json).toMatchObject({ enabled: true, disabled_reason: null });
  });

  test("a webhook failing for longer than EARSHOT_WEBHOOK_DISABLE_AFTER_S is disabled", async () => {
    const hook = await createHook(h);
    h.receiver.setBehavior({ status: 503 }, hook.path);
    {
      await h.api.call("POST", `${h.wsPath}${hook.uuid}/test/`);
      const record = await until(async () => {
        const r = await h.api.call("GET", `${h.wsPath}${hook.uuid}/`);
        return r.json.enabled === false && r.json;
      });
      expect(record.disabled_reason).toContain("more than 1 seconds");
      expect(record.last_delivery_status).toBe(503);
      const [d] = await deliveries(h, hook.uuid);
      expect(d).toMatchObject({ state: "failed", last_status_code: 503 });
      expect(d.attempts).toBeGreaterThanOrEqual(3);
    }
  });
});

describe("outbound safety (SSRF)", () => {
  let h: Harness;
  beforeAll(async () => (h = await harness({ EARSHOT_WEBHOOK_ALLOW_HOSTS: "" })));
  afterAll(() => h.close());

  test("literal loopback, link-local, metadata and unspecified addresses are refused at creation", async () => {
    for (const url of [
      "https://127.0.0.1/hook",
      "https://169.254.169.254/latest/meta-data/",
      "https://[::1]:8443/",
      "https://[fd00:ec2::254]/",
      "https://100.100.100.200/",
      "https://0.0.0.0/",
      "https://0x7f.1/",
    ]) {
      const r = await h.api.call("POST", h.wsPath, { body: { url, events: ["response.submitted"] } });
      expect(r.status, url).toBe(400);
      expect(r.json.code).toBe("VALIDATION_ERROR");
      expect(r.json.errors[0].pointer).toBe("/url");
    }
  });

  test("a hostname that resolves to loopback is refused at delivery; the attempt records why", async () => {
    const hook = await createHook(h, { events: ["response.submitted"] });
    const sent = await h.api.call("POST", `${h.wsPath}${hook.uuid}/test/`);
    const d = await until(async () => {
      const r = await h.api.call("GET", `${h.wsPath}${hook.uuid}/deliveries/${sent.json.uuid}/`);
      return r.json.attempts >= 1 && r.json;
    });
    expect(d.attempt_log[0]).toMatchObject({ status_code: null, error: expect.stringMatching(/localhost resolves to .*loopback/) });
    expect(to(hook, h.receiver.requests).length).toBe(0);
  });

  test("a link's on_finished naming the metadata address is refused at creation", async () => {
    const before = (await h.api.call("GET", "/api/v1/links/")).json.count;
    const r = await h.api.call("POST", "/api/v1/links/", {
      body: { name: "Metadata", on_finished: { webhook_url: "https://169.254.169.254/latest/meta-data/" } },
    });
    expect([r.status, r.json.code, r.json.errors[0].pointer]).toEqual([400, "VALIDATION_ERROR", "/on_finished/webhook_url"]);
    expect(r.json.detail).toMatch(/169\.254\.169\.254.*link-local/);
    expect((await h.api.call("GET", "/api/v1/links/")).json.count).toBe(before);
  });
});

describe("leases", () => {
  test("a delivery whose claimer died is claimable again once its lease expires", async () => {
    const api = await createTestApi();
    try {
      const wsPath = `/api/v1/workspaces/${api.ws.workspace_uuid}/webhooks/`;
      const hook = (await api.call("POST", wsPath, { body: { url: "https://hooks.example.com/x", events: ["response.started"] } })).json;
      const sent = (await api.call("POST", `${wsPath}${hook.uuid}/test/`)).json;
      // Time moves when the test says so: no sleeping. It starts 2 ms ahead: the delivery's run_at
      // comes from the system clock, whose microseconds may run up to 1 ms ahead of Date.now().
      const clock = createManualClock(Date.now() + 2);
      const [first] = await claimDueDeliveries(api.db, 10, 30, clock);
      expect(first?.uuid).toBe(sent.uuid);
      expect(await claimDueDeliveries(api.db, 10, 30, clock)).toEqual([]);
      expect(await releaseLeases(api.db, true, clock)).toBe(0);
      clock.advance(30_001);
      const [again] = await claimDueDeliveries(api.db, 10, 30, clock);
      expect(again?.uuid).toBe(sent.uuid);
      expect(again?.eventUuid).toBe(sent.event_id);
      clock.advance(29_000);
      expect(await releaseLeases(api.db, true, clock)).toBe(0);
      clock.advance(1_001);
      expect(await releaseLeases(api.db, true, clock)).toBe(1);
      const d = await api.call("GET", `${wsPath}${hook.uuid}/deliveries/${sent.uuid}/`);
      expect(d.json).toMatchObject({ state: "pending", attempts: 0 });
    } finally {
      await api.close();
    }
  });
});
