/**
 * The auth macro (http/auth-plugin.ts) guards every operation the OpenAPI catalogue gives a scope:
 * no credential answers 401 UNAUTHENTICATED, a key without the operation's scope 403
 * INSUFFICIENT_SCOPE naming it, and the RateLimit-* headers ride on the refusal. Driven by the
 * catalogue, so a route that loses its `auth` option (or gets the wrong scope) fails here.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApi, type TestApi } from "../../test/helpers/api.ts";
import { apiOperations } from "../api/operations.ts";

let api: TestApi;
let keyWith: Record<"links:read" | "responses:read", string>;

beforeAll(async () => {
  api = await createTestApi();
  const mint = async (scope: string) => (await api.call("POST", "/api/v1/tokens/", { body: { name: scope, scopes: [scope] } })).json.key as string;
  keyWith = { "links:read": await mint("links:read"), "responses:read": await mint("responses:read") };
});
afterAll(() => api.close());

const guarded = apiOperations.filter((op) => op.scope !== "public");
const pathOf = (p: string) => p.replace(":workspace_uuid", api.ws.workspace_uuid).replace(/:[a-z_]+/g, crypto.randomUUID());
const send = (method: string, p: string, key: string | null) =>
  api.call(method.toUpperCase(), pathOf(p), { key, ...(["post", "patch", "put"].includes(method) ? { body: {} } : {}) });

test("the catalogue has guarded operations of every kind (a broken filter would pass the tests below)", () => {
  expect(guarded.length).toBeGreaterThanOrEqual(40);
  expect(guarded.some((op) => op.scope === null)).toBe(true);
});

test("every guarded operation answers 401 UNAUTHENTICATED without a credential", async () => {
  const wrong: string[] = [];
  for (const op of guarded) {
    const r = await send(op.method, op.path, null);
    if (r.status !== 401 || r.json?.code !== "UNAUTHENTICATED") wrong.push(`${op.method} ${op.path}: ${r.status} ${r.json?.code}`);
  }
  expect(wrong).toEqual([]);
});

test("every operation with a scope answers 403 INSUFFICIENT_SCOPE, with RateLimit-*, to a key without it", async () => {
  const wrong: string[] = [];
  for (const op of guarded.filter((o) => o.scope !== null)) {
    const key = op.scope === "links:read" ? keyWith["responses:read"] : keyWith["links:read"];
    const r = await send(op.method, op.path, key);
    const ok = r.status === 403 && r.json?.code === "INSUFFICIENT_SCOPE" && String(r.json?.detail).includes(op.scope!) && r.headers.has("ratelimit-limit");
    if (!ok) wrong.push(`${op.method} ${op.path}: ${r.status} ${r.json?.code} ${r.json?.detail}`);
  }
  expect(wrong).toEqual([]);
});
