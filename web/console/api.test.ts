/**
 * @module web/console/api.test
 * The console's request paths (api.ts): `apiPath` takes each parameter as one encoded path
 * segment and refuses anything that could make a path of its own (issue 22); `paged` sets the
 * page and keeps only the filters that have a value.
 */
import { describe, expect, test } from "bun:test";
import { ApiError, apiPath, paged } from "./api.ts";

describe("apiPath", () => {
  test("UUIDs, slugs, tokens and numbers become one segment each", () => {
    expect(String(apiPath`links/${"0b6f0c1e-1111-4222-8333-944455556666"}/stats/`)).toBe("links/0b6f0c1e-1111-4222-8333-944455556666/stats/");
    expect(String(apiPath`workspaces/${"acme_co"}/webhooks/${7}/`)).toBe("workspaces/acme_co/webhooks/7/");
  });

  test("a parameter that could climb, add a segment, a query or a fragment is refused as a 404", () => {
    for (const bad of ["../../tokens/x", "a/b", "..", "%2e%2e", "x?admin=1", "x#y", "", "a b", "x".repeat(201)]) {
      let thrown: unknown = null;
      try {
        apiPath`links/${bad}/`;
      } catch (err) {
        thrown = err;
      }
      expect({ bad, status: thrown instanceof ApiError ? thrown.status : null }).toEqual({ bad, status: 404 });
    }
  });
});

describe("paged", () => {
  test("sets page and page_size, keeps filters with a value, drops empty ones, encodes values", () => {
    const p = paged(apiPath`responses/`, 3, 50, { status: "completed", search: "a&b=c", since: "" });
    const url = new URL(p, "http://x/");
    expect(url.pathname).toBe("/responses/");
    expect([...url.searchParams]).toEqual([
      ["status", "completed"],
      ["search", "a&b=c"],
      ["page", "3"],
      ["page_size", "50"],
    ]);
  });
});
