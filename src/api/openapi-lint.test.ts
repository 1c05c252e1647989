/**
 * Redocly lint (its `recommended` rules, `redocly.yaml`) over the document the server serves.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createTestApi, type TestApi } from "../../test/helpers/api.ts";
import { REPO_DIR } from "../../test/helpers/process.ts";

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi({ EARSHOT_PUBLIC_URL: "https://feedback.acme.test" });
});
afterAll(() => api.close());

test("Redocly lint passes on the served document (recommended rules, trailing slashes allowed)", async () => {
  const doc = await api.call("GET", "/api/v1/openapi.json", { key: null });
  expect(doc.status).toBe(200);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-lint-"));
  try {
    const file = path.join(dir, "openapi.json");
    fs.writeFileSync(file, doc.text);
    const proc = Bun.spawn([path.join(REPO_DIR, "node_modules/.bin/redocly"), "lint", "--config", path.join(REPO_DIR, "redocly.yaml"), "--format=json", file], {
      cwd: dir,
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
    });
    const [out] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    const report = JSON.parse(out) as {
      totals: { errors: number };
      problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
    };
    const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
    // The accepted warnings: the live-transcript WebSocket answers 101 Switching Protocols, and
    // single sign-on's start and callback are browser navigations answering 303; OpenAPI can
    // document both, but Redocly wants a 2xx beside.
    const accepted = [
      "warn operation-2xx-response #/paths/~1intake~1{workspace_slug}~1{link_slug}~1sessions~1{session_id}~1live~1/get/responses",
      "warn operation-2xx-response #/paths/~1auth~1oidc~1start~1/get/responses",
      "warn operation-2xx-response #/paths/~1auth~1oidc~1callback~1/get/responses",
    ];
    expect(problems.filter((p) => !accepted.some((a) => p.startsWith(a)))).toEqual([]);
    expect(report.totals.errors).toBe(0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
