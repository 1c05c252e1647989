/**
 * Bodies of keyed API routes are read only after a credential check (http/body.ts): a cookie
 * merely named `earshot_session` is not one — the session must exist and be unexpired
 * (security review finding 9).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApi, type TestApi } from "../../test/helpers/api.ts";
import { addUser, signIn } from "../../test/helpers/console-session.ts";

let t: TestApi;
beforeAll(async () => {
  t = await createTestApi();
});
afterAll(() => t.close());

const post = (path: string, headers: Record<string, string>, body: BodyInit) =>
  t.app.handle(
    new Request(`http://localhost${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
      duplex: "half",
    } as RequestInit),
  );

test("a made-up session cookie is refused before the body is read or parsed", async () => {
  const invalid = "{" + "x".repeat(900_000);
  for (const cookie of ["earshot_session=x", `earshot_session=${"A".repeat(43)}`]) {
    const r = await post("/api/v1/links/", { cookie }, invalid);
    expect([r.status, (await r.json()).code]).toEqual([401, "UNAUTHENTICATED"]);
  }
  let pulled = 0;
  const stream = new ReadableStream({
    pull(c) {
      if (pulled > 5_000_000) return c.close();
      pulled += 65_536;
      c.enqueue(new Uint8Array(65_536).fill(32));
    },
  });
  const r = await post("/api/v1/tokens/", { cookie: "earshot_session=x" }, stream);
  expect([r.status, (await r.json()).code]).toEqual([401, "UNAUTHENTICATED"]);
  expect(pulled).toBeLessThan(1_000_000);
});

test("a live session's body is read as before; an ended one is refused before reading", async () => {
  await addUser(t, "writer@example.com", "member");
  const s = await signIn(t, "writer@example.com");
  expect((await s.call("POST", "/api/v1/links/", { body: { name: "Via session" } })).status).toBe(201);
  await s.call("POST", "/api/v1/auth/logout/");
  const r = await post("/api/v1/links/", { cookie: `earshot_session=${s.cookie}` }, "{" + "x".repeat(100_000));
  expect([r.status, (await r.json()).code]).toEqual([401, "UNAUTHENTICATED"]);
});
