import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { createInsightsEngine } from "./index.ts";
import { chatCompletionsUrl } from "./llm.ts";
import { FIXTURE_MODELS_DIR } from "../../../test/helpers/fixtures.ts";

const VAGUE = "The checkout was kind of weird I guess.";

/** How the test server answers, chosen by the request's model name. */
type Behaviour = "good" | "fenced" | "error-500" | "not-json" | "wrong-shape" | "slow";

interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
}

const received: ChatRequest[] = [];

function completion(content: string): Response {
  return Response.json({
    id: "chatcmpl-test",
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: "test",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
  });
}

const GOOD_REPLY = {
  summary: "Checkout felt odd to the respondent.",
  follow_up_questions: ["What felt weird about the checkout — the steps, the payment, or something else?"],
  custom_fields: { product_mentioned: "checkout flow", wants_callback: null, unasked: "x" },
};

// A real OpenAI-compatible HTTP endpoint on loopback, not a stand-in for our code.
let server: ReturnType<typeof Bun.serve>;
beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (req.method !== "POST" || url.pathname !== "/v1/chat/completions") {
        return new Response("not found", { status: 404 });
      }
      const body = (await req.json()) as ChatRequest;
      received.push(body);
      switch (body.model as Behaviour) {
        case "good":
          return completion(JSON.stringify(GOOD_REPLY));
        case "fenced":
          return completion("Here you go:\n```json\n" + JSON.stringify({ summary: "Fenced summary." }) + "\n```");
        case "error-500":
          return Response.json({ error: { message: "model overloaded" } }, { status: 500 });
        case "not-json":
          return completion("I think the respondent is unhappy.");
        case "wrong-shape":
          return completion(JSON.stringify({ summary: 42, follow_up_questions: "no" }));
        case "slow":
          await Bun.sleep(1500);
          return completion(JSON.stringify(GOOD_REPLY));
        default:
          return Response.json({ error: { message: "unknown model" } }, { status: 400 });
      }
    },
  });
});
afterAll(() => server.stop(true));

function engineFor(model: Behaviour, llmUrl = `http://127.0.0.1:${server.port}`) {
  return createInsightsEngine({
    modelsDir: FIXTURE_MODELS_DIR,
    sentimentModel: "tiny-sentiment-3class",
    llmUrl,
    llmModel: model,
    llmTimeoutMs: 500,
  });
}

const OPTIONS = {
  enableDynamicProbing: true,
  prompt: "How was checkout?",
  evaluatorConfig: { max_follow_ups: 1, custom_fields: ["product_mentioned", "wants_callback"] },
};

describe("LLM endpoint", () => {
  test("URLs: base, /v1 and full path all reach chat completions", () => {
    expect(chatCompletionsUrl("http://10.0.0.5:8000")).toBe("http://10.0.0.5:8000/v1/chat/completions");
    expect(chatCompletionsUrl("http://10.0.0.5:8000/v1/")).toBe("http://10.0.0.5:8000/v1/chat/completions");
    expect(chatCompletionsUrl("http://h/api/v1/chat/completions")).toBe("http://h/api/v1/chat/completions");
  });

  test("a good reply improves summary, follow-ups and custom fields", async () => {
    const local = await createInsightsEngine({ modelsDir: FIXTURE_MODELS_DIR, sentimentModel: "tiny-sentiment-3class" }).analyse(VAGUE, OPTIONS);
    const result = await engineFor("good").analyse(VAGUE, OPTIONS);
    expect(result.engine).toEqual({
      sentiment: "transformer:tiny-sentiment-3class",
      text: "wink-nlp:wink-eng-lite-web-model",
      llm: true,
    });
    expect(result.ai_insights.summary).toBe(GOOD_REPLY.summary);
    expect(result.follow_up_questions).toEqual(GOOD_REPLY.follow_up_questions);
    // The endpoint's null does not erase a local value; keys nobody asked for are dropped.
    expect(result.custom_fields).toEqual({ product_mentioned: "checkout flow", wants_callback: false });
    // Sentiment, topics, actionable and clarity stay local.
    expect(result.ai_insights.sentiment).toBe(local.ai_insights.sentiment);
    expect(result.ai_insights.key_topics).toEqual(local.ai_insights.key_topics);
    expect(result.clarity).toBe(local.clarity);

    const request = received.at(-1)!;
    expect(request.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(JSON.parse(request.messages[1]!.content)).toMatchObject({ question: "How was checkout?", answer: VAGUE });
    expect(request.messages[0]!.content).toContain('["product_mentioned","wants_callback"]');
  });

  test("follow-ups from the endpoint are not used when probing does not ask", async () => {
    const result = await engineFor("good").analyse(VAGUE, { ...OPTIONS, enableDynamicProbing: false });
    expect(result.engine.llm).toBe(true);
    expect(result.follow_up_questions).toEqual([]);
  });

  test("a JSON object wrapped in prose and a fence is found", async () => {
    const result = await engineFor("fenced").analyse(VAGUE, OPTIONS);
    expect(result.engine.llm).toBe(true);
    expect(result.ai_insights.summary).toBe("Fenced summary.");
    expect(result.follow_up_questions[0]).toStartWith("You mentioned the checkout");
  });

  for (const behaviour of ["error-500", "not-json", "wrong-shape", "slow"] as const) {
    test(`falls back to the local result silently: ${behaviour}`, async () => {
      const started = performance.now();
      const result = await engineFor(behaviour).analyse(VAGUE, OPTIONS);
      expect(performance.now() - started).toBeLessThan(1400);
      expect(result.engine.llm).toBe(false);
      expect(result.ai_insights.summary).toBe(VAGUE);
      expect(result.follow_up_questions).toHaveLength(1);
      expect(result.custom_fields).toEqual({ product_mentioned: "checkout", wants_callback: false });
    });
  }

  test("falls back when nothing listens at the URL", async () => {
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const port = closed.port;
    closed.stop(true);
    const result = await engineFor("good", `http://127.0.0.1:${port}`).analyse(VAGUE, OPTIONS);
    expect(result.engine.llm).toBe(false);
    expect(result.ai_insights.summary).toBe(VAGUE);
  });
});
