/**
 * @module test/helpers/api
 * An in-process Earshot for API tests: a real SQLite file in a temp folder, migrations, a real
 * workspace and key, and the real app answering through `app.handle(new Request(...))`. Every
 * successful JSON answer is checked against its OpenAPI schema (test/helpers/openapi-check.ts).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { App } from "../../src/app.ts";
import { createAppDeps, type AppWiring } from "../../src/app-deps.ts";
import { loadConfig, type Config } from "../../src/config.ts";
import type { Db } from "../../src/db/client.ts";
import { createWorkspace, type CreatedWorkspace } from "../../src/modules/workspaces/service.ts";
import type { Plan } from "../../src/auth/plans.ts";
import { createInferenceClient } from "../../src/ai/inference-client.ts";
import { outputChecker } from "./openapi-check.ts";
import type { Clock } from "../../src/clock.ts";
import { dropTestDatabase, testDatabaseUrl } from "./db.ts";
import { FIXTURE_MODELS_DIR } from "./fixtures.ts";

export type ApiReply = { status: number; headers: Headers; json: any; text: string };

export type TestApi = {
  app: App;
  db: Db;
  /** What the app was built from (src/app-deps.ts): blob store, authenticator, signing secret… */
  deps: AppWiring["deps"];
  config: Config;
  dataDir: string;
  ws: CreatedWorkspace;
  /** Sends a request; `key` defaults to the workspace's key, `null` sends none. */
  call(
    method: string,
    urlPath: string,
    opts?: { body?: unknown; raw?: BodyInit | Uint8Array; key?: string | null; headers?: Record<string, string> },
  ): Promise<ApiReply>;
  /**
   * Serves the app on 127.0.0.1 and a free port, for tests of real HTTP over a real socket (the
   * first call starts it; `close()` stops it).
   * @returns its origin, and `call` as above but over that socket
   */
  listen(): { origin: string; call: TestApi["call"] };
  /** Creates another workspace (for isolation tests). */
  newWorkspace(name: string, plan?: Plan): Promise<CreatedWorkspace>;
  close(): Promise<void>;
};

type CallOptions = Parameters<TestApi["call"]>[2];

export const BASE = "http://localhost";

/**
 * Starts an in-process API over a fresh data directory.
 * @param opts.clock the app's time source (a test's manual clock); default the system clock
 */
export async function createTestApi(env: Record<string, string> = {}, plan: Plan = "enterprise", opts: { clock?: Clock } = {}): Promise<TestApi> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-api-"));
  // The test engine (test/helpers/db.ts): this data directory's own PostgreSQL database, or its SQLite file.
  const databaseUrl = await testDatabaseUrl(dataDir);
  const config = loadConfig(
    { EARSHOT_ALLOW_INSECURE_HTTP: "1", EARSHOT_PUBLIC_URL: BASE, EARSHOT_LOG_LEVEL: "silent", ...env },
    { dataDir, ...(databaseUrl ? { databaseUrl } : {}) },
  );
  // The real worker over the fixture models, started lazily on the first request that needs it.
  const inference = createInferenceClient({ modelsDir: FIXTURE_MODELS_DIR, asrModel: "whisper-tiny-random", sentimentModel: "tiny-sentiment-3class" });
  const { app, db, deps, close } = await createAppDeps(config, { inference, webAssets: new Map(), clock: opts.clock });
  const ws = await createWorkspace(db, { name: "Test workspace", plan });
  /** A request to `origin` + `urlPath` through `send` (in-process or a socket), its answer checked. */
  const request = async (send: (req: Request) => Promise<Response>, origin: string, method: string, urlPath: string, opts: CallOptions = {}) => {
    const headers: Record<string, string> = { accept: "application/json", ...opts.headers };
    const key = opts.key === undefined ? ws.api_key : opts.key;
    if (key) headers.authorization = `Bearer ${key}`;
    let body = opts.raw as BodyInit | undefined;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers["content-type"] ??= "application/json";
    }
    const res = await send(new Request(origin + urlPath, { method, headers, body }));
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    // Every successful JSON answer must match the schema the OpenAPI document gives it.
    outputChecker().check(method, urlPath, res.status, res.headers.get("content-type"), json);
    return { status: res.status, headers: res.headers, json, text };
  };
  let served: { origin: string; call: TestApi["call"]; stop: () => Promise<unknown> } | null = null;
  return {
    app,
    db,
    deps,
    config,
    dataDir,
    ws,
    call: (method, urlPath, opts) => request((req) => app.handle(req), BASE, method, urlPath, opts),
    listen() {
      if (!served) {
        const listening = app.listen({ port: 0, hostname: "127.0.0.1" });
        const origin = `http://127.0.0.1:${listening.server!.port}`;
        served = { origin, call: (method, urlPath, opts) => request(fetch, origin, method, urlPath, opts), stop: async () => listening.stop(true) };
      }
      return served;
    },
    newWorkspace: (name, p = "enterprise") => createWorkspace(db, { name, plan: p }),
    async close() {
      await served?.stop();
      await close();
      await dropTestDatabase(dataDir);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A question of every one of the 11 types, valid as sent on `POST links/`. */
export const ALL_TYPE_QUESTIONS = [
  { prompt: "Tell us in your own words", type: "voice", configuration: { max_duration: 60 } },
  { prompt: "Or type if you prefer", type: "voice_text_fallback", configuration: { max_characters: 500 } },
  { prompt: "Anything else?", type: "text" },
  { prompt: "Which plan are you on?", type: "multiple_choice", configuration: { options: ["Free", "Pro", "Enterprise"], allow_multiple: false } },
  { prompt: "How many seats?", type: "number", configuration: { min: 1, max: 1000, step: 1 } },
  { prompt: "How would you rate us?", type: "rating", configuration: { scale_type: "stars", max_value: 5 } },
  {
    prompt: "Pick a design",
    type: "image_choice",
    configuration: {
      cards: [
        { id: "a", label: "Design A", media_url: "https://example.com/a.png", media_type: "image" },
        { id: "b", label: "Design B", media_url: "https://example.com/b.mp4", media_type: "video" },
      ],
    },
  },
  { prompt: "Your email", type: "email" },
  { prompt: "When did it happen?", type: "date" },
  { prompt: "Would you recommend us?", type: "yes_no" },
  { prompt: "Attach a screenshot", type: "file_upload", configuration: { allowed_types: ["image/png", ".pdf"], max_size_mb: 5 } },
];
