/**
 * A client written the way a user writes it: types generated from the served document with
 * openapi-typescript, a small openapi-fetch client type-checked under `tsc --strict`, then run
 * against a real `earshot serve` process.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import { REPO_DIR, runCli, startServer, type RunningServer } from "../../test/helpers/process.ts";

/** The user's code: create a link with every question type, list links and responses, create a webhook, read a problem's code. */
const CLIENT = `
import createClient from "openapi-fetch";
import type { components, paths } from "./schema";

type CreateLink = paths["/links/"]["post"]["requestBody"]["content"]["application/json"];
type QuestionInput = NonNullable<CreateLink["questions"]>[number];
type Problem = components["schemas"]["Problem"];

// @ts-expect-error "hearts" is not a rating scale type
export const wrong: QuestionInput = { prompt: "Rate", type: "rating", configuration: { scale_type: "hearts" } };

export async function main(baseUrl: string, key: string) {
  const api = createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${key}\` } });
  const questions: QuestionInput[] = [
    { prompt: "Tell us in your own words", configuration: { max_duration: 60 } },
    { prompt: "Or type if you prefer", type: "voice_text_fallback", configuration: { max_characters: 500 } },
    { prompt: "Anything else?", type: "text" },
    { prompt: "Which plan?", type: "multiple_choice", configuration: { options: ["Free", "Pro"], allow_multiple: false } },
    { prompt: "How many seats?", type: "number", configuration: { min: 1, max: 1000, step: 1 } },
    { prompt: "Would you recommend us?", type: "rating", configuration: { scale_type: "nps" } },
    { prompt: "Pick a design", type: "image_choice", configuration: { cards: [{ id: "a", label: "Design A", media_url: "https://example.com/a.png", media_type: "image" }] } },
    { prompt: "Your email", type: "email", required: true },
    { prompt: "When did it happen?", type: "date" },
    { prompt: "Was it easy?", type: "yes_no" },
    { prompt: "Attach a screenshot", type: "file_upload", configuration: { allowed_types: ["image/png"], max_size_mb: 5 } },
  ];
  const created = await api.POST("/links/", { body: { name: "Typed client", questions, settings: { thankYouMessage: "Thanks!" } } });
  if (!created.data) throw new Error(\`create failed: \${created.error?.code}\`);
  const link = created.data;
  let scale: "stars" | "emojis" | "nps" | "numbers" | undefined;
  for (const q of link.questions) if (q.response_type === "rating") scale = q.configuration.scale_type;

  const links = await api.GET("/links/", { params: { query: { page: 1, page_size: 10, ordering: "-date_created" } } });
  const firstName: string | undefined = links.data?.results[0]?.name;
  const responses = await api.GET("/links/{link_uuid}/responses/", { params: { path: { link_uuid: link.uuid }, query: { status: "all" } } });
  const all = await api.GET("/responses/", { params: { query: { link: link.uuid, page_size: 5 } } });

  const workspace = await api.GET("/workspace/");
  if (!workspace.data) throw new Error("no workspace");
  const hook = await api.POST("/workspaces/{workspace_uuid}/webhooks/", {
    params: { path: { workspace_uuid: workspace.data.uuid } },
    body: { url: "https://hooks.acme.test/earshot", events: ["response.submitted"] },
  });
  if (!hook.data) throw new Error(\`webhook failed: \${hook.error?.code}\`);

  const missing = await api.GET("/links/{link_uuid}/", { params: { path: { link_uuid: "00000000-0000-4000-8000-000000000000" } } });
  const code: Problem["code"] | undefined = missing.error?.code;
  return {
    types: link.questions.map((q) => q.response_type),
    scale,
    firstName,
    responseCount: responses.data?.count,
    allCount: all.data?.count,
    hookEvents: hook.data.events,
    secretShown: hook.data.secret.length > 0,
    code,
    status: missing.response.status,
  };
}
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noUncheckedIndexedAccess: true,
    target: "ES2022",
    module: "ESNext",
    moduleResolution: "bundler",
    lib: ["ES2022", "DOM"],
    types: [],
    noEmit: true,
    skipLibCheck: true,
  },
  files: ["client.ts"],
};

let server: RunningServer;
let apiKey: string;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-client-"));
// Inside the repository's node_modules, so `openapi-fetch` resolves as in a user's project.
const clientDir = path.join(REPO_DIR, "node_modules", ".cache", `earshot-openapi-client-${process.pid}`);

beforeAll(async () => {
  const created = await runCli(["workspace", "create", "--name", "Client", "--slug", "client-ws", "--json"], { dataDir });
  apiKey = JSON.parse(created.stdout).api_key;
  server = await startServer({ dataDir, env: { EARSHOT_JOBS_PAUSED: "1" } });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(clientDir, { recursive: true, force: true });
});

test("a generated openapi-fetch client type-checks under tsc --strict and works against the real server", async () => {
  const doc = await (await fetch(`${server.baseUrl}/api/v1/openapi.json`)).json();
  fs.mkdirSync(clientDir, { recursive: true });
  fs.writeFileSync(path.join(clientDir, "schema.d.ts"), astToString(await openapiTS(doc as never)));
  fs.writeFileSync(path.join(clientDir, "client.ts"), CLIENT);
  fs.writeFileSync(path.join(clientDir, "tsconfig.json"), JSON.stringify(TSCONFIG));

  const tsc = Bun.spawn([path.join(REPO_DIR, "node_modules/.bin/tsc"), "-p", clientDir], { stdout: "pipe", stderr: "pipe" });
  const [out, , code] = await Promise.all([new Response(tsc.stdout).text(), new Response(tsc.stderr).text(), tsc.exited]);
  expect(out).toBe("");
  expect(code).toBe(0);

  const { main } = (await import(path.join(clientDir, "client.ts"))) as { main(baseUrl: string, key: string): Promise<Record<string, unknown>> };
  const result = await main(`${server.baseUrl}/api/v1`, apiKey);
  expect(result).toEqual({
    types: ["voice", "voice_text_fallback", "text", "multiple_choice", "number", "rating", "image_choice", "email", "date", "yes_no", "file_upload"],
    scale: "nps",
    firstName: "Typed client",
    responseCount: 0,
    allCount: 0,
    hookEvents: ["response.submitted"],
    secretShown: true,
    code: "NOT_FOUND",
    status: 404,
  });
}, 120_000);
