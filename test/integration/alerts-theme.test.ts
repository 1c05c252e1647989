/**
 * Theme conditions end to end (issue 28 "a theme"; docs/alerts.md "When an alert fires"), on the
 * test engine: answers placed in a theme by the real themes path — an operator's theme built by
 * the real `themes` job and new answers assigned to it by the real `analyse` job, both with the
 * fixture models — fire a rule whose condition is that theme, and the message names the theme.
 * Also when the analysis came before the theme's build (the job queue runs analyses first): the
 * build that places the answer fires the rule then, once.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rm } from "node:fs/promises";
import { type DeliveryHarness, requestsOn, startDeliveryHarness, submitResponse, waitAnalysed } from "../helpers/delivery-harness.ts";
import { createTestCertificates, type TestCertificates } from "../helpers/https-receiver.ts";
import { queueAlertsForThemePlacements } from "../../src/modules/alerts/fire.ts";
import { createProcessing, waitFor } from "../helpers/processing.ts";
import { APP, SHIPPING as TOPIC_SHIPPING, SUPPORT } from "../helpers/topic-answers.ts";

const SHIPPING = TOPIC_SHIPPING.slice(0, 3);
/** Two other topics, so the question's first build has more than one direction to tell apart. */
const OTHERS = [...SUPPORT.slice(0, 5), ...APP.slice(0, 5)];
const LABEL = "Shipping <costs>";

let certs: TestCertificates;
let h: DeliveryHarness;
let processing: Awaited<ReturnType<typeof createProcessing>>;
let link: { uuid: string; slug: string; name: string; questions: { uuid: string }[] };
let questionUuid: string;
let themeUuid: string;

const answerOf = async (responseUuid: string) =>
  h.api.db.selectFrom("answers").select(["uuid", "theme_uuid"]).where("response_uuid", "=", responseUuid).executeTakeFirstOrThrow();

/** A rule on the theme that sends generic JSON to the receiver's `path`. */
async function createThemeRule(name: string, path: string): Promise<void> {
  const rule = await h.api.call("POST", `/api/v1/links/${link.uuid}/alerts/`, {
    body: { name, conditions: [{ type: "theme", theme_uuid: themeUuid }], destination: { kind: "webhook", url: h.receiver.url.replace("/hook", path) } },
  });
  expect(rule.status).toBe(201);
}

beforeAll(async () => {
  certs = await createTestCertificates();
  h = await startDeliveryHarness(certs, { env: { EARSHOT_INTAKE_SESSIONS_PER_MINUTE: "0" } });
  processing = await createProcessing(h.api);
  await processing.runner.start();
  const r = await h.api.call("POST", "/api/v1/links/", { body: { name: "Checkout survey", questions: [{ prompt: "What should we improve?", type: "text" }] } });
  expect(r.status).toBe(201);
  link = r.json;
  questionUuid = link.questions[0]!.uuid;
  // Answers on three topics: the question's first automatic build (after 10) runs.
  const examples: string[] = [];
  for (const text of [...SHIPPING, ...OTHERS]) {
    const responseUuid = await submitResponse(h.api, link.slug, { [questionUuid]: text });
    await waitAnalysed(h.api, responseUuid);
    if (SHIPPING.includes(text)) examples.push((await answerOf(responseUuid)).uuid);
  }
  await waitFor(
    async () => {
      const s = (await h.api.call("GET", `/api/v1/links/${link.uuid}/themes/status/`)).json;
      return s.state === "ready" && s.answers_pending === 0 && s.built_at;
    },
    60_000,
    "the first build",
  );
  // The analyses run first from here on: the runner stops until the rule and a response are in.
  await processing.runner.stop();
  const theme = await h.api.call("POST", `/api/v1/links/${link.uuid}/themes/`, { body: { question_uuid: questionUuid, label: LABEL, examples } });
  expect(theme.status).toBe(201);
  themeUuid = theme.json.uuid;
  await createThemeRule("Shipping complaints", "/theme");
}, 120_000);

afterAll(async () => {
  await processing?.stop();
  await h?.close();
  await rm(certs.dir, { recursive: true, force: true });
});

test("an answer analysed before its theme's build fires the theme rule when the build places it in the theme, once", async () => {
  // Queued now: the rebuild (asked for by the operator's theme) and this answer's analysis, which
  // the queue runs first — so the response's analysis commits before the build that gives the
  // operator's theme its centre (no answer can be assigned to it before that build).
  const responseUuid = await submitResponse(h.api, link.slug, { [questionUuid]: SHIPPING[0]! });
  await processing.runner.start();
  await waitAnalysed(h.api, responseUuid);
  await waitFor(async () => (await answerOf(responseUuid)).theme_uuid === themeUuid, 60_000, "the build placing the answer in the theme");
  const got = await h.receiver.waitFor((rs) => requestsOn("/theme")(rs).length >= 1, 30_000);
  const body = JSON.parse(requestsOn("/theme")(got)[0]!.body);
  expect(body.reasons).toEqual([`Theme “${LABEL}”`]);
  expect(body.quote).toBe(SHIPPING[0]);
  expect(body.response_url).toEndWith(`/console/responses/${responseUuid}`);
  // A later rebuild that keeps the answer where it is does not fire again.
  expect((await h.api.call("POST", `/api/v1/links/${link.uuid}/themes/rebuild/`)).status).toBe(202);
  await waitFor(async () => (await h.api.call("GET", `/api/v1/links/${link.uuid}/themes/status/`)).json.state === "ready", 60_000, "the rebuild");
  await Bun.sleep(500);
  expect(requestsOn("/theme")(h.receiver.requests)).toHaveLength(1);
}, 120_000);

test("an answer the analysis assigns to the theme fires the rule in the analysis's transaction, naming the theme", async () => {
  const before = requestsOn("/theme")(h.receiver.requests).length;
  const responseUuid = await submitResponse(h.api, link.slug, { [questionUuid]: SHIPPING[1]! });
  await waitAnalysed(h.api, responseUuid);
  // Assigned by the analysis itself (the theme has its centre now), before the response's event.
  expect((await answerOf(responseUuid)).theme_uuid).toBe(themeUuid);
  const got = await h.receiver.waitFor((rs) => requestsOn("/theme")(rs).length > before, 30_000);
  const body = JSON.parse(requestsOn("/theme")(got).at(-1)!.body);
  expect(body).toMatchObject({ rule: "Shipping complaints", link: "Checkout survey", reasons: [`Theme “${LABEL}”`], quote: SHIPPING[1] });
  expect(body.response_url).toEndWith(`/console/responses/${responseUuid}`);
}, 120_000);

test("a rule fires once per response however often rebuilds move its answer, and does not look back at responses submitted before it", async () => {
  const before = requestsOn("/theme")(h.receiver.requests).length;
  const responses = await h.api.db
    .selectFrom("responses")
    .select("uuid")
    .where("link_uuid", "=", link.uuid)
    .where("submitted_event_at", "is not", null)
    .execute();
  const answers = await h.api.db.selectFrom("answers").select(["uuid", "theme_uuid"]).where("theme_uuid", "=", themeUuid).execute();
  expect(answers.length).toBeGreaterThan(2);
  // A rule made now: every response above was submitted before it.
  await createThemeRule("Too late", "/late");
  // As if a rebuild had moved each answer out of the theme and back in: the placements a rebuild reports.
  const placements = answers.map((a) => ({ answerUuid: a.uuid, before: null, after: themeUuid }));
  const queued = await h.api.db
    .transaction()
    .execute((trx) =>
      queueAlertsForThemePlacements(trx, { workspaceUuid: h.api.ws.workspace_uuid, linkUuid: link.uuid, publicUrl: h.api.config.publicUrl, placements }),
    );
  // The three example answers' responses never fired the first rule (their rule did not exist yet);
  // the two responses that did fire it are not sent again; the new rule does not look back.
  expect(responses.length).toBeGreaterThan(3);
  expect(queued).toBe(0);
  await Bun.sleep(500);
  expect(requestsOn("/theme")(h.receiver.requests)).toHaveLength(before);
  expect(requestsOn("/late")(h.receiver.requests)).toHaveLength(0);
});
