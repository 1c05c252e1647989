/**
 * The outbound guard of a workspace's provider (oidc/outbound.ts): a discovery document is the
 * workspace owner's word, so each URL it lists is checked before a request — plain HTTP, loopback
 * and cloud-metadata addresses are refused unless the operator lists the host; redirects are not
 * followed. Real requests to a real loopback server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { guardedFetch, providerUrlRefusal } from "./outbound.ts";

let server: ReturnType<typeof Bun.serve>;
let hits = 0;
beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      hits++;
      return new URL(req.url).pathname === "/away" ? Response.redirect("http://169.254.169.254/latest/meta-data/", 302) : Response.json({ ok: true });
    },
  });
});
afterAll(() => server.stop(true));

describe("a workspace provider's outbound requests", () => {
  test("plain HTTP and forbidden addresses are refused before any request; a listed host is reached", async () => {
    const base = `http://127.0.0.1:${server.port}`;
    expect(providerUrlRefusal(`${base}/`, [])).toContain("https://");
    expect(providerUrlRefusal("https://user:pw@id.example/", [])).toContain("password");
    expect(providerUrlRefusal("https://id.example/", [])).toBeNull();
    const open = guardedFetch([]);
    await expect(open(`${base}/token`, { method: "POST" } as never)).rejects.toThrow(/Refused 127\.0\.0\.1/);
    await expect(open(`https://127.0.0.1:${server.port}/token`, { method: "POST" } as never)).rejects.toThrow(/loopback/);
    await expect(open("https://169.254.169.254/latest/meta-data/", { method: "GET" } as never)).rejects.toThrow(/link-local/);
    expect(hits).toBe(0);
    const listed = guardedFetch(["127.0.0.1"]);
    expect((await listed(`${base}/jwks`, { method: "GET" } as never)).status).toBe(200);
    expect(hits).toBe(1);
    // A redirect is handed back, not followed (to wherever it points).
    expect((await listed(`${base}/away`, { method: "GET" } as never)).status).toBe(302);
  });
});
