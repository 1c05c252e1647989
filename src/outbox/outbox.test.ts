/**
 * Pure parts of the outbox: signatures (cross-checked with the `standardwebhooks` package), the
 * retry policy, and the outbound address rules.
 */
import { describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { decideAfterAttempt, retryDelayS } from "./retry-policy.ts";
import { signPayload, webhookHeaders } from "./signing.ts";
import { forbiddenReason, isAllowedHost, literalHostRefusal } from "./url-guard.ts";

describe("signing", () => {
  const body = JSON.stringify({ type: "webhook.test", data: { n: 1 } });
  const ts = Math.floor(Date.now() / 1000);

  test("a whsec_ secret signs exactly as Standard Webhooks does", () => {
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    expect(signPayload(secret, "msg_1", ts, body)).toBe(new Webhook(secret).sign("msg_1", new Date(ts * 1000), body));
  });

  test("another secret is used as its UTF-8 bytes; rotation sends two signatures", () => {
    const plain = "plain ü secret";
    const headers = webhookHeaders(["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", plain], "msg_2", ts, body);
    expect(headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(new Webhook(new TextEncoder().encode(plain), { format: "raw" }).verify(body, headers)).toMatchObject({ type: "webhook.test" });
    expect(new Webhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").verify(body, headers)).toMatchObject({ data: { n: 1 } });
  });
});

describe("retry policy", () => {
  const policy = { scheduleS: [5, 300, 1800], disableAfterS: 3600 };

  test("delays follow the schedule within ±10 %, then stop", () => {
    expect(retryDelayS(1, policy.scheduleS, () => 0)).toBeCloseTo(4.5);
    expect(retryDelayS(1, policy.scheduleS, () => 0.999999)).toBeCloseTo(5.5);
    expect(retryDelayS(2, policy.scheduleS, () => 0.5)).toBe(300);
    expect(retryDelayS(4, policy.scheduleS)).toBeNull();
  });

  test("2xx succeeds, 410 disables, a long failure streak disables, the last attempt fails", () => {
    expect(decideAfterAttempt({ statusCode: 204, error: null }, 1, 0, policy)).toEqual({ state: "succeeded" });
    expect(decideAfterAttempt({ statusCode: 410, error: null }, 1, 0, policy)).toMatchObject({
      state: "failed",
      disableReason: expect.stringContaining("410"),
    });
    expect(decideAfterAttempt({ statusCode: 500, error: null }, 1, 3601, policy)).toMatchObject({ state: "failed", disableReason: expect.any(String) });
    expect(decideAfterAttempt({ statusCode: 302, error: null }, 1, 0, policy)).toMatchObject({ state: "pending" });
    expect(decideAfterAttempt({ statusCode: null, error: "timeout" }, 4, 10, policy)).toEqual({ state: "failed", disableReason: null });
  });
});

describe("outbound address rules", () => {
  test.each([
    ["127.0.0.1", "loopback"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["169.254.169.254", "link-local (cloud metadata)"],
    ["fe80::1", "link-local"],
    ["fd00:ec2::254", "cloud metadata"],
    ["100.100.100.200", "cloud metadata"],
    ["64:ff9b::a9fe:a9fe", "link-local (cloud metadata)"],
    ["224.0.0.1", "multicast"],
  ])("%s is refused (%s)", (ip, reason) => expect(forbiddenReason(ip)).toBe(reason));

  test.each(["10.0.0.5", "192.168.1.20", "172.16.0.1", "fd12:3456::1", "93.184.216.34", "2001:db8::1"])("%s is allowed", (ip) =>
    expect(forbiddenReason(ip)).toBeNull(),
  );

  test("allow list entries: names, addresses, CIDRs", () => {
    expect(isAllowedHost("LocalHost", ["localhost"])).toBe(true);
    expect(isAllowedHost("[::1]", ["::1"])).toBe(true);
    expect(isAllowedHost("169.254.10.1", ["169.254.0.0/16"])).toBe(true);
    expect(isAllowedHost("127.0.0.1", ["localhost"])).toBe(false);
  });

  test("creation refuses literal forbidden hosts, whatever their spelling", () => {
    expect(literalHostRefusal("https://0x7f.1/x", [])).toContain("loopback");
    expect(literalHostRefusal("https://[::ffff:169.254.169.254]/", [])).toContain("link-local");
    expect(literalHostRefusal("https://127.0.0.1/x", ["127.0.0.1"])).toBeNull();
    expect(literalHostRefusal("https://metadata.example/", [])).toBeNull();
  });
});
