/**
 * Allowed embed origins (issue 29): what an operator may type, and which parent origins a CSP
 * `frame-ancestors` source list lets the intake page post its events to — the same answers the
 * browser gives for the frame (CSP Level 3 "Does url match expression").
 */
import { expect, test } from "bun:test";
import { normalizeEmbedOrigin, originAllowed, originMatches } from "./frame-origins.ts";

test("an allowed origin is an http(s) origin, stored lowercased without a default port or slash", () => {
  expect(normalizeEmbedOrigin("HTTPS://Shop.Example.com:443/")).toBe("https://shop.example.com");
  expect(normalizeEmbedOrigin("http://localhost:8080")).toBe("http://localhost:8080");
  expect(normalizeEmbedOrigin("http://127.0.0.1:80")).toBe("http://127.0.0.1");
  expect(normalizeEmbedOrigin(" https://*.example.org ")).toBe("https://*.example.org");
  for (const bad of [
    "example.com",
    "*",
    "'self'",
    "https://example.com/page",
    "https://example.com?x=1",
    "https://u@example.com",
    "ftp://example.com",
    "https://ex ample.com",
    "https://example.com:70000",
    "javascript:alert(1)",
  ]) {
    expect([bad, normalizeEmbedOrigin(bad)]).toEqual([bad, null]);
  }
});

test("a parent origin matches sources as CSP frame-ancestors does", () => {
  const self = "http://localhost:3000";
  expect(originMatches("https://shop.example.com", "https://shop.example.com", self)).toBe(true);
  expect(originMatches("https://shop.example.com:8443", "https://shop.example.com", self)).toBe(false);
  expect(originMatches("http://shop.example.com", "https://shop.example.com", self)).toBe(false);
  expect(originMatches("https://shop.example.com", "http://shop.example.com", self)).toBe(true); // upgrade
  expect(originMatches("https://a.example.org", "https://*.example.org", self)).toBe(true);
  expect(originMatches("https://example.org", "https://*.example.org", self)).toBe(false);
  expect(originMatches("https://evil-example.org", "https://*.example.org", self)).toBe(false);
  expect(originMatches("http://localhost:3000", "'self'", self)).toBe(true);
  expect(originMatches("http://127.0.0.1:3000", "'self'", self)).toBe(false);
  expect(originMatches("http://intranet:81", "intranet:81", self)).toBe(true);
  expect(originMatches("http://intranet:82", "intranet:*", self)).toBe(true);
  expect(originMatches("https://anything.example", "https:", self)).toBe(true);
  expect(originMatches("http://anything.example", "https:", self)).toBe(false);
  expect(originMatches("https://x.example", "*", self)).toBe(true);
  expect(originMatches("null", "*", self)).toBe(false);
  expect(originAllowed("https://x.example", [], self)).toBe(false);
  expect(originAllowed("https://x.example", ["'none'"], self)).toBe(false);
  expect(originAllowed("https://x.example", ["'self'", "https://x.example"], self)).toBe(true);
});
