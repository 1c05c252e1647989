/**
 * Theme labels from the LAN model (issue 24: "optionally relabelled by the LAN model at
 * EARSHOT_LLM_URL"), on the real app, job runner and worker, against a local HTTP server that
 * speaks the OpenAI chat-completions API as the LAN model would: a rebuild names each automatic
 * theme from its keyphrases and answers (`label_source: "llm"`); the next rebuild keeps those labels
 * where the keyphrases did not change; an operator's label (pinned on rename) and an operator's
 * theme are never replaced nor sent; a failing endpoint or an unusable reply leaves the keyphrase
 * label.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { startProcessing, waitFor } from "../../../test/helpers/processing.ts";
import { requestThemeLabels } from "../../ai/themes/llm-labels.ts";

const ANSWERS = [
  "Shipping cost was way too high for such a small order.",
  "The delivery fee surprised me at checkout, shipping is expensive.",
  "Shipping costs more than the product itself, that is crazy.",
  "I hate the expensive shipping charges added at the end.",
  "Delivery charges were hidden until the last step, too expensive.",
  "Please lower the shipping fees, they are far too expensive.",
  "The support team was friendly and solved my problem quickly.",
  "Customer service answered my email within an hour, great help.",
  "Great customer support, they fixed my account issue fast.",
  "Support replied quickly and the agent was really friendly.",
  "Friendly support staff, quick and helpful answers.",
  "The app crashes every time I open the camera.",
  "The mobile app keeps crashing after the latest update.",
  "Since the update the app crashes on startup.",
  "The app is buggy and crashes constantly on my phone.",
  "The android app crashed three times today.",
];

type Seen = { system: string; user: { question: string | null; keyphrases: string[]; current_label: string; answers: string[] } };
let mode: "first" | "second" | "fail" | "garbage" = "first";
const seen: Seen[] = [];
const llm = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const url = new URL(req.url);
    if (req.method !== "POST" || url.pathname !== "/v1/chat/completions") return new Response("not found", { status: 404 });
    const body = (await req.json()) as { messages: { role: string; content: string }[] };
    const user = JSON.parse(body.messages[1]!.content) as Seen["user"];
    seen.push({ system: body.messages[0]!.content, user });
    if (mode === "fail") return new Response("overloaded", { status: 503 });
    const content =
      mode === "garbage"
        ? `Sure! {"label": "${"x".repeat(200)}"}`
        : `Here you go: {"label": "${mode === "first" ? "About" : "Now"} ${user.keyphrases[0] ?? "nothing"}"}`;
    return Response.json({ choices: [{ message: { role: "assistant", content } }] });
  },
});

let api: TestApi;
let stop: () => Promise<void>;
let link: { uuid: string; slug: string; questions: { uuid: string }[] };
const themesUrl = () => `/api/v1/links/${link.uuid}/themes/`;

beforeAll(async () => {
  api = await createTestApi({ EARSHOT_INTAKE_SESSIONS_PER_MINUTE: "0", EARSHOT_LLM_URL: `http://127.0.0.1:${llm.port}` });
  stop = (await startProcessing(api)).stop;
  link = (await api.call("POST", "/api/v1/links/", { body: { name: "Labels", questions: [{ prompt: "What should we improve?", type: "text" }] } })).json;
  const base = `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;
  for (const value of ANSWERS) {
    const sid = (await api.call("POST", `${base}/sessions/`, { key: null, body: {} })).json.session_id as string;
    expect((await api.call("PUT", `${base}/sessions/${sid}/answers/${link.questions[0]!.uuid}/`, { key: null, body: { value } })).status).toBe(200);
    expect((await api.call("POST", `${base}/sessions/${sid}/submit/`, { key: null, body: {} })).status).toBe(200);
  }
}, 120_000);
afterAll(async () => {
  await stop();
  await api.close();
  llm.stop(true);
});

/** Rebuilds on request and waits until the build has every answer; the themes then. */
async function rebuild(): Promise<any[]> {
  await waitFor(
    async () => (await api.db.selectFrom("answers").select("uuid").where("analysis_status", "=", "completed").execute()).length === ANSWERS.length,
    60_000,
    "analysis",
  );
  const before = (await api.call("GET", `${themesUrl()}status/`)).json.built_at;
  expect((await api.call("POST", `${themesUrl()}rebuild/`, { body: {} })).status).toBe(202);
  await waitFor(
    async () => {
      const s = (await api.call("GET", `${themesUrl()}status/`)).json;
      return s.state === "ready" && s.built_at && s.built_at !== before ? s : null;
    },
    60_000,
    "the rebuild",
  );
  return (await api.call("GET", `${themesUrl()}?page_size=100`)).json.results;
}

describe("LLM theme labels", () => {
  test("a rebuild names the automatic themes; the next keeps unchanged ones and never replaces an operator's label", async () => {
    const first = await rebuild();
    expect(first.length).toBeGreaterThan(1);
    for (const t of first) expect([t.label_source, t.label]).toEqual(["llm", `About ${t.keyphrases[0]}`]);
    // What the endpoint saw: the question, the theme's keyphrases and answers, as data.
    const asked = seen.find((s) => s.user.keyphrases[0] === first[0].keyphrases[0])!;
    expect(asked.user.question).toBe("What should we improve?");
    expect(asked.user.answers.length).toBeGreaterThan(0);
    expect(asked.user.answers.every((a) => ANSWERS.some((x) => x.includes(a) || a.includes(x)))).toBe(true);
    expect(asked.system).toContain("not instructions");

    // An operator pins a label on one theme and creates one of their own.
    const pinned = first[0];
    expect((await api.call("PATCH", `${themesUrl()}${pinned.uuid}/`, { body: { label: "Shipping costs" } })).status).toBe(200);
    const own = await api.call("POST", themesUrl(), { body: { question_uuid: link.questions[0]!.uuid, label: "Billing" } });
    expect(own.status).toBe(201);
    mode = "second";
    seen.length = 0;
    const second = await rebuild();
    const byUuid = new Map(second.map((t) => [t.uuid, t]));
    expect([byUuid.get(pinned.uuid).label, byUuid.get(pinned.uuid).label_source]).toEqual(["Shipping costs", "operator"]);
    expect([byUuid.get(own.json.uuid).label, byUuid.get(own.json.uuid).label_source]).toEqual(["Billing", "operator"]);
    // Operator themes (renamed, created: seeds of the build) are not even asked about.
    expect(seen.filter((s) => ["Shipping costs", "Billing"].includes(s.user.current_label))).toEqual([]);
    // The other themes kept their first LLM labels without a new request.
    let unchanged = 0;
    for (const t of first.slice(1)) {
      const now = byUuid.get(t.uuid);
      if (now && JSON.stringify(now.keyphrases) === JSON.stringify(t.keyphrases)) {
        unchanged++;
        expect([now.label, now.label_source]).toEqual([t.label, "llm"]);
        expect(seen.some((s) => s.user.keyphrases[0] === t.keyphrases[0])).toBe(false);
      }
    }
    expect(unchanged).toBeGreaterThan(0);
  }, 180_000);

  test("a failing endpoint or an unusable reply gives no label (the caller keeps the keyphrase label)", async () => {
    const endpoint = { url: `http://127.0.0.1:${llm.port}/v1`, model: null };
    const theme = { label: "shipping cost", keyphrases: ["shipping cost"], answers: ["Shipping is expensive."] };
    mode = "fail";
    expect(await requestThemeLabels(endpoint, null, [theme])).toEqual([null]);
    mode = "garbage";
    expect(await requestThemeLabels(endpoint, null, [theme])).toEqual([null]);
    mode = "first";
    expect(await requestThemeLabels(endpoint, null, [theme, theme])).toEqual(["About shipping cost", "About shipping cost"]);
    // Nothing listens: null, within the timeout.
    expect(await requestThemeLabels({ url: "http://127.0.0.1:9/v1", model: null, timeoutMs: 2000 }, null, [theme])).toEqual([null]);
  });
});
