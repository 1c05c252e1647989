/**
 * The start-up hint about EARSHOT_PUBLIC_URL (issue 26): due only when the public URL reaches this
 * machine alone while the server listens beyond loopback. (The line in a real server's output is
 * checked by test/e2e/console-first-hour.test.ts.)
 */
import { expect, test } from "bun:test";
import { publicUrlHint } from "./public-url-hint.ts";

test("a loopback-only public URL on a server listening beyond loopback gets the hint, naming the variable", () => {
  for (const url of ["http://localhost:3000", "http://127.0.0.1:8080", "http://[::1]:3000", "https://app.localhost"]) {
    for (const host of ["0.0.0.0", "::", "192.168.1.20"]) {
      const hint = publicUrlHint(url, host);
      expect({ url, host, named: hint?.includes("EARSHOT_PUBLIC_URL") && hint.includes(url) }).toEqual({ url, host, named: true });
    }
  }
});

test("no hint for a real public URL, or a server that only listens on loopback", () => {
  expect(publicUrlHint("https://feedback.example.com", "0.0.0.0")).toBeNull();
  expect(publicUrlHint("http://192.168.1.20:3000", "0.0.0.0")).toBeNull();
  expect(publicUrlHint("http://localhost:3000", "127.0.0.1")).toBeNull();
  expect(publicUrlHint("http://localhost:3000", "localhost")).toBeNull();
  expect(publicUrlHint("http://localhost:3000", "::1")).toBeNull();
});
