import { describe, expect, test } from "bun:test";
import { buildThemes } from "./build.ts";
import { createSifEmbedder } from "./embedder.ts";
import { assignAnswer } from "./incremental.ts";
import { loadThemeSet } from "./labelled-set.ts";
import { decodeThemeModel, encodeThemeModel, themeModelOf } from "./model-store.ts";

const embedder = createSifEmbedder();
const delivery = loadThemeSet("dev").find((q) => q.group === "dev-delivery")!;
const inputs = delivery.items.map((it) => ({ id: it.id, text: it.text, vector: embedder.embed(it.text) }));
const build = buildThemes(inputs, embedder);

describe("theme model: from a build, to JSON and back", () => {
  test("a decoded model assigns every answer exactly as the original", () => {
    const ids = new Map(build.themes.map((t, i) => [t.key, `uuid-${i}`]));
    const model = themeModelOf(build, { ids, examples: new Map([["uuid-0", [embedder.embed("the food was cold")]]]) });
    expect(model.themes.map((t) => t.id)).toEqual(build.themes.map((_, i) => `uuid-${i}`));
    const text = encodeThemeModel(model);
    const decoded = decodeThemeModel(text);
    expect(decoded.engine).toBe("sif-wink-100d");
    expect(decoded.themes[0]!.examples).toHaveLength(1);
    for (const a of inputs) expect(assignAnswer(a.vector, embedder.id, decoded)).toEqual(assignAnswer(a.vector, embedder.id, model));
    // Compact: base64 float32, not decimals.
    expect(text.length).toBeLessThan(700 * (build.themes.length + build.components.length + 1) + 500);
  });

  test("malformed stored models are refused with a reason", () => {
    const good = JSON.parse(encodeThemeModel(themeModelOf(build)));
    expect(() => decodeThemeModel("{")).toThrow("not JSON");
    expect(() => decodeThemeModel(JSON.stringify({ ...good, version: 2 }))).toThrow("version");
    expect(() => decodeThemeModel(JSON.stringify({ ...good, themes: [{ id: "x", centre: "AAAA" }] }))).toThrow("expected 100");
    const nan = Buffer.from(new Float32Array(100).fill(Number.NaN).buffer).toString("base64");
    expect(() => decodeThemeModel(JSON.stringify({ ...good, themes: [{ id: "x", centre: nan }] }))).toThrow("non-finite");
  });
});
