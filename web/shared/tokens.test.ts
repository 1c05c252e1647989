/**
 * @module web/shared/tokens.test
 * The design tokens are one file (issue 23): the intake and console stylesheets use only custom
 * properties that tokens.css (or the stylesheet itself, for local ones) declares, declare none of
 * the tokens a second time, and are served headed by tokens.css, from source and in the build.
 */
import { describe, expect, test } from "bun:test";
import path from "node:path";
import { buildWebAssets, minifiedCss } from "../../src/http/web-assets.ts";

const WEB = path.resolve(import.meta.dir, "..");
const read = (rel: string) => Bun.file(path.join(WEB, rel)).text();
const declared = (css: string) => new Set([...css.matchAll(/(?<![\w-])(--[a-z0-9-]+)\s*:/g)].map((m) => m[1]!));
const used = (css: string) => new Set([...css.matchAll(/var\(\s*(--[a-z0-9-]+)/g)].map((m) => m[1]!));
const SHEETS = ["intake/intake.css", "console/console.css", "console/charts.css"];

describe("design tokens", () => {
  test("every custom property a stylesheet uses is a token or its own; no stylesheet redeclares a token", async () => {
    const tokens = declared(await read("shared/tokens.css"));
    for (const name of ["--bg", "--text", "--accent", "--radius", "--font-sans", "--font-mono", "--space-4"]) expect(tokens.has(name)).toBe(true);
    for (const sheet of SHEETS) {
      const css = await read(sheet);
      const own = declared(css);
      expect({ sheet, undeclared: [...used(css)].filter((n) => !tokens.has(n) && !own.has(n)) }).toEqual({ sheet, undeclared: [] });
      expect({ sheet, redeclared: [...own].filter((n) => tokens.has(n)) }).toEqual({ sheet, redeclared: [] });
    }
  });

  test("both pages' stylesheets are served headed by the tokens (minified as served)", async () => {
    const tokens = new TextDecoder().decode(await minifiedCss(path.join(import.meta.dir, "tokens.css")));
    expect(tokens).toContain("--accent:");
    const assets = await buildWebAssets();
    for (const url of ["/assets/intake.css", "/assets/console.css"]) {
      const body = new TextDecoder().decode(assets.get(url)!.body);
      expect({ url, headed: body.startsWith(tokens) }).toEqual({ url, headed: true });
      expect(body.length).toBeGreaterThan(tokens.length + 1000);
    }
  }, 120_000);
});
