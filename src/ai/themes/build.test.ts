import { describe, expect, test } from "bun:test";
import { buildThemes, type ThemeInput } from "./build.ts";
import { createSifEmbedder } from "./embedder.ts";
import { dot } from "./linalg.ts";
import { loadThemeSet } from "./labelled-set.ts";
import { DUPLICATE_COSINE } from "./quotes.ts";

const embedder = createSifEmbedder();
// The dev (tuning) set only: the held-out set is for bench/themes.ts alone.
const hotel = loadThemeSet("dev").find((q) => q.group === "dev-hotel")!;
const inputs: ThemeInput[] = hotel.items.map((it) => ({ id: it.id, text: it.text, vector: embedder.embed(it.text) }));
const goldOf = new Map(hotel.items.map((it) => [it.id, it.gold]));

describe("buildThemes on one question's answers", () => {
  const build = buildThemes(inputs, embedder);

  test("finds several themes (not a fixed number), each at least 3 answers, and leaves the rest unassigned", () => {
    expect(build.themes.length).toBeGreaterThanOrEqual(4);
    expect(build.themes.length).toBeLessThanOrEqual(9);
    for (const t of build.themes) expect(t.members.length).toBeGreaterThanOrEqual(3);
    expect(build.assignments).toHaveLength(inputs.length);
    // Each assignment names the theme that lists the answer.
    build.themes.forEach((t) => {
      for (const m of t.members) expect(build.assignments[m]).toBe(t.key);
    });
    expect(build.themes.reduce((s, t) => s + t.members.length, 0)).toBe(build.assignments.filter((a) => a !== null).length);
  });

  test("the noise and the cleanliness complaints each form a theme named by what they are about", () => {
    for (const [gold, words] of [
      ["noise", /noise|noisy|loud/],
      ["clean", /clean|bathroom|shower|dirty/],
    ] as const) {
      const theme = build.themes.find((t) => t.members.filter((m) => goldOf.get(inputs[m]!.id) === gold).length >= 5);
      expect(theme).toBeDefined();
      expect(theme!.label).toMatch(words);
    }
  });

  test("quotes: 2–3 per theme, from the theme's answers, never two from one answer nor near-duplicates", () => {
    for (const t of build.themes) {
      expect(t.quotes.length).toBe(t.members.length >= 6 ? 3 : 2);
      const answers = t.quotes.map((q) => q.answer);
      expect(new Set(answers).size).toBe(answers.length);
      for (const q of t.quotes) {
        expect(t.members).toContain(q.answer);
        expect(inputs[q.answer]!.text).toContain(q.text);
      }
    }
  });

  test("a repeated answer is not quoted twice (near-duplicate rule)", () => {
    const repeated = [
      ...inputs,
      ...["The room was very noisy, the street outside was loud all night.", "The room was very noisy, the street outside was loud all night!"].map(
        (text, i) => ({ id: `dup-${i}`, text, vector: embedder.embed(text) }),
      ),
    ];
    const noise = buildThemes(repeated, embedder).themes.find((t) => /noise|noisy|loud/.test(t.label))!;
    const vectors = noise.quotes.map((q) => embedder.embed(q.text));
    for (let i = 0; i < vectors.length; i++) for (let j = i + 1; j < vectors.length; j++) expect(dot(vectors[i]!, vectors[j]!)).toBeLessThan(DUPLICATE_COSINE);
  });

  test("is deterministic: the same input gives the same themes, labels and quotes", () => {
    const again = buildThemes(inputs, embedder);
    expect(again.assignments).toEqual(build.assignments);
    expect(again.themes.map((t) => [t.key, t.label, t.quotes])).toEqual(build.themes.map((t) => [t.key, t.label, t.quotes]));
  });

  test("an operator's theme keeps its answers and attracts answers near its examples", () => {
    const wifi = inputs.filter((a) => goldOf.get(a.id) === "wifi");
    const slow = wifi.find((a) => a.text.includes("internet was so slow"))!;
    const examples = ["the wifi connection kept dropping", "slow internet in the room"].map((x) => embedder.embed(x));
    const seeded = buildThemes(inputs, embedder, { seeds: [{ key: "op-wifi", label: "Wi-Fi", examples, members: [wifi[0]!.id] }] });
    const theme = seeded.themes.find((t) => t.key === "op-wifi")!;
    expect(theme).toMatchObject({ seeded: true, label: "Wi-Fi" });
    const ids = theme.members.map((m) => inputs[m]!.id);
    expect(ids).toContain(wifi[0]!.id);
    expect(ids).toContain(slow.id);
    // It is not a catch-all.
    expect(ids.filter((id) => goldOf.get(id) !== "wifi").length).toBeLessThanOrEqual(1);
  });

  test("an operator's fixed choice wins over clustering (null keeps an answer unassigned)", () => {
    const noisy = inputs.find((a) => goldOf.get(a.id) === "noise")!;
    const fixed = buildThemes(inputs, embedder, { fixed: new Map([[noisy.id, null]]) });
    expect(fixed.assignments[inputs.indexOf(noisy)]).toBeNull();
  });

  test("an engine that embeds elsewhere (id and dimensions only) gives the same themes, and quotes from their answers", () => {
    const remote = buildThemes(inputs, { id: embedder.id, dimensions: embedder.dimensions });
    expect(remote.assignments).toEqual(build.assignments);
    for (const t of remote.themes) {
      expect(t.quotes.length).toBe(t.members.length >= 6 ? 3 : 2);
      for (const q of t.quotes) {
        expect(t.members).toContain(q.answer);
        expect(inputs[q.answer]!.text).toContain(q.text);
      }
    }
  });

  test("no answers, or answers with no known word, give no themes", () => {
    expect(buildThemes([], embedder)).toMatchObject({ themes: [], assignments: [] });
    const odd = ["???", "123", "!!!"].map((text, i) => ({ id: String(i), text, vector: embedder.embed(text) }));
    expect(buildThemes(odd, embedder).assignments).toEqual([null, null, null]);
  });
});
