/**
 * One client-address rule for the intake limits and sign-in throttling / audit (security review
 * finding 16): behind a chain of trusted proxies the client is the right-most untrusted
 * `X-Forwarded-For` entry, not the last proxy's (which every client would share).
 */
import { expect, test } from "bun:test";
import { loadConfig } from "../config.ts";
import { clientAddress as sessionClientAddress } from "../auth/sessions.ts";
import { clientAddress as intakeClientAddress } from "../modules/intake/limits.ts";
import { forwardedClientAddress } from "./client-address.ts";

const PROXIES = ["10.0.0.1", "10.0.0.2"];
const config = loadConfig(
  { EARSHOT_TRUSTED_PROXIES: PROXIES.join(","), EARSHOT_PUBLIC_URL: "https://feedback.example", EARSHOT_LOG_LEVEL: "silent" },
  { dataDir: "/tmp/earshot-unused" },
);
const request = (xff?: string) => new Request("https://feedback.example/api/v1/auth/login/", { headers: xff ? { "x-forwarded-for": xff } : {} });

test("behind two trusted proxies, sign-in throttling and the intake see the same client, never the inner proxy", () => {
  // client → 10.0.0.2 → 10.0.0.1 (the peer); a client-supplied entry on the left is ignored.
  for (const [xff, client] of [
    ["203.0.113.7, 10.0.0.2", "203.0.113.7"],
    ["198.51.100.9, 10.0.0.2", "198.51.100.9"],
    ["1.2.3.4, 203.0.113.7, 10.0.0.2", "203.0.113.7"],
  ] as const) {
    expect(sessionClientAddress(request(xff), "10.0.0.1", config)).toBe(client);
    expect(intakeClientAddress(request(xff), "10.0.0.1", config.trustedProxies)).toBe(client);
  }
});

test("an untrusted peer is the client whatever it forwards; IPv4-mapped peers are normalized; no peer is null", () => {
  expect(forwardedClientAddress(request("9.9.9.9"), "203.0.113.7", PROXIES)).toBe("203.0.113.7");
  expect(forwardedClientAddress(request("203.0.113.7"), "::ffff:10.0.0.1", PROXIES)).toBe("203.0.113.7");
  expect(forwardedClientAddress(request(), "10.0.0.1", PROXIES)).toBe("10.0.0.1");
  expect(forwardedClientAddress(request("9.9.9.9"), null, PROXIES)).toBeNull();
  expect(sessionClientAddress(request(), null, config)).toBeNull();
  expect(intakeClientAddress(request(), null, PROXIES)).toBe("local");
});
