/**
 * The kiosk exit PIN's guessing bounds (issue 29; a review found a 4-digit PIN guessable from many
 * addresses): at most KIOSK_PIN_ATTEMPTS_PER_MINUTE per address — an IPv6 address counted by its
 * /64 — and KIOSK_PIN_ATTEMPTS_PER_LINK_PER_MINUTE per link from all addresses together. Real
 * HTTP over a socket; the client address comes from X-Forwarded-For (a trusted proxy on loopback).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { attemptAddress, KIOSK_PIN_ATTEMPTS_PER_LINK_PER_MINUTE, KIOSK_PIN_ATTEMPTS_PER_MINUTE } from "./kiosk.ts";

let api: TestApi;
let server: { server: { port?: number } | null; stop(): unknown };
let origin: string;

beforeAll(async () => {
  api = await createTestApi({ EARSHOT_TRUSTED_PROXIES: "127.0.0.1" }, "enterprise");
  server = api.app.listen({ port: 0, hostname: "127.0.0.1" }) as never;
  origin = `http://127.0.0.1:${server.server!.port}`;
});
afterAll(async () => {
  await server.stop();
  await api.close();
});

async function kioskLink(): Promise<string> {
  const res = await fetch(`${origin}/api/v1/links/`, {
    method: "POST",
    headers: { authorization: `Bearer ${api.ws.api_key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Lobby", settings: { kiosk: { enabled: true, exit_pin: "2468" } }, questions: [{ prompt: "How was it?", type: "text" }] }),
  });
  expect(res.status).toBe(201);
  const link = (await res.json()) as { slug: string };
  return `${origin}/api/v1/intake/${api.ws.workspace_slug}/${link.slug}/kiosk/exit/`;
}

const attempt = (url: string, from: string, pin: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": from }, body: JSON.stringify({ pin }) }).then((r) => r.status);

describe("kiosk exit PIN attempts", () => {
  test("an IPv6 address counts by its /64; IPv4 by itself", () => {
    expect(attemptAddress("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(attemptAddress("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(attemptAddress("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(attemptAddress("203.0.113.7")).toBe("203.0.113.7");
    expect(attemptAddress("::ffff:203.0.113.7")).toBe("::ffff:203.0.113.7");
  });

  test("addresses of one IPv6 /64 share their limit", async () => {
    const url = await kioskLink();
    const statuses: number[] = [];
    for (let i = 1; i <= KIOSK_PIN_ATTEMPTS_PER_MINUTE + 1; i++) statuses.push(await attempt(url, `2001:db8:5:6::${i.toString(16)}`, "1111"));
    expect(statuses).toEqual([...Array(KIOSK_PIN_ATTEMPTS_PER_MINUTE).fill(403), 429]);
    // Another prefix still has its own attempts.
    expect(await attempt(url, "2001:db8:5:7::1", "2468")).toBe(200);
  });

  test("many addresses together stop at the link's limit, and even the right PIN waits", async () => {
    const url = await kioskLink();
    const statuses: number[] = [];
    for (let i = 1; i <= KIOSK_PIN_ATTEMPTS_PER_LINK_PER_MINUTE; i++) statuses.push(await attempt(url, `198.51.100.${i}`, "0000"));
    expect(statuses).toEqual(Array(KIOSK_PIN_ATTEMPTS_PER_LINK_PER_MINUTE).fill(403));
    expect(await attempt(url, "198.51.100.200", "2468")).toBe(429);
  });
});
