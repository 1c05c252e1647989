/**
 * Creating keys with a key (DESIGN §5; issue 9 item 6): a key creates keys with at most its own
 * scopes, and omitted `scopes` means the creator's own scopes, not all.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { ALL_SCOPES } from "../../auth/keys.ts";

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(() => api.close());

const mint = async (scopes: string[] | undefined, key?: string) =>
  api.call("POST", "/api/v1/tokens/", { key, body: scopes ? { name: "Minted", scopes } : { name: "Minted" } });

test("a key holding only tokens:write cannot create a key with more scopes than its own", async () => {
  const narrow = (await mint(["tokens:write"])).json;
  const count = async () => (await api.db.selectFrom("api_tokens").select("uuid").execute()).length;
  const before = await count();
  const escalate = await mint(["tokens:write", "links:write", "responses:read"], narrow.key);
  expect([escalate.status, escalate.json.code]).toEqual([403, "INSUFFICIENT_SCOPE"]);
  expect(escalate.headers.get("content-type")).toBe("application/problem+json");
  expect(escalate.json.detail).toContain("links:write");
  expect(escalate.json.detail).toContain("responses:read");
  expect(escalate.json.detail).not.toContain('"tokens:write"');
  const all = await mint([...ALL_SCOPES], narrow.key);
  expect([all.status, all.json.code]).toEqual([403, "INSUFFICIENT_SCOPE"]);
  // Nothing was created by the refused requests.
  expect(await count()).toBe(before);
});

test("omitted scopes give the new key the creator's own scopes, not all", async () => {
  const narrow = (await mint(["tokens:write", "links:read"])).json;
  const child = await mint(undefined, narrow.key);
  expect(child.status).toBe(201);
  expect(child.json.scopes).toEqual(["links:read", "tokens:write"]);
  expect((await api.call("POST", "/api/v1/links/", { key: child.json.key, body: { name: "No" } })).json.code).toBe("INSUFFICIENT_SCOPE");
  expect((await api.call("GET", "/api/v1/links/", { key: child.json.key })).status).toBe(200);
});

test("a key may create keys with a subset of its own scopes; a full key still creates full keys", async () => {
  const narrow = (await mint(["tokens:write", "links:read", "responses:read"])).json;
  const subset = await mint(["responses:read"], narrow.key);
  expect([subset.status, subset.json.scopes]).toEqual([201, ["responses:read"]]);
  const full = await mint(undefined);
  expect([full.status, full.json.scopes]).toEqual([201, [...ALL_SCOPES]]);
  const explicit = await mint([...ALL_SCOPES], full.json.key);
  expect([explicit.status, explicit.json.scopes]).toEqual([201, [...ALL_SCOPES]]);
});
