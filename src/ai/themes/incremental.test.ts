import { describe, expect, test } from "bun:test";
import { buildThemes } from "./build.ts";
import { createSifEmbedder } from "./embedder.ts";
import { assignAnswer, jaccard, reconcileThemes, type ThemeModel } from "./incremental.ts";
import { loadThemeSet } from "./labelled-set.ts";

const embedder = createSifEmbedder();
const hotel = loadThemeSet("dev").find((q) => q.group === "dev-hotel")!;
const inputs = hotel.items.map((it) => ({ id: it.id, text: it.text, vector: embedder.embed(it.text) }));
const build = buildThemes(inputs, embedder);
const model: ThemeModel = {
  engine: embedder.id,
  components: build.components,
  threshold: 0.15,
  themes: build.themes.map((t) => ({ id: t.key, centre: t.centre })),
};
const themeOfLabel = (re: RegExp) => build.themes.find((t) => re.test(t.label))!.key;

describe("assignAnswer (a new answer between rebuilds)", () => {
  test("joins the nearest theme", () => {
    expect(assignAnswer(embedder.embed("Music from the bar kept us awake, far too loud."), embedder.id, model).theme).toBe(themeOfLabel(/noise|loud/));
    expect(assignAnswer(embedder.embed("hair in the bathroom sink and a dirty shower"), embedder.id, model).theme).toBe(themeOfLabel(/bathroom|clean/));
  });

  test("stays unassigned under the threshold, for an empty vector, and for another engine's vector", () => {
    const strict = { ...model, threshold: 0.99 };
    const r = assignAnswer(embedder.embed("Music from the bar kept us awake, far too loud."), embedder.id, strict);
    expect(r.theme).toBeNull();
    expect(r.similarity).toBeLessThan(0.99);
    expect(assignAnswer(embedder.embed("???"), embedder.id, model).theme).toBeNull();
    expect(assignAnswer(embedder.embed("far too loud"), "Xenova/all-MiniLM-L6-v2", model).theme).toBeNull();
  });

  test("an operator's example answers attract answers near them", () => {
    const text = "the parking garage was full and cost a fortune";
    const before = assignAnswer(embedder.embed(text), embedder.id, model);
    const withParking: ThemeModel = {
      ...model,
      themes: [
        ...model.themes,
        { id: "op-parking", centre: new Float32Array(100), examples: [embedder.embed("parking was expensive and the garage was full")] },
      ],
    };
    expect(before.theme).not.toBe("op-parking");
    expect(assignAnswer(embedder.embed(text), embedder.id, withParking).theme).toBe("op-parking");
  });

  test("matches the build: answers of the build land in the theme the build gave them, mostly", () => {
    const same = inputs.filter((a, i) => build.assignments[i] !== null && assignAnswer(a.vector, embedder.id, model).theme === build.assignments[i]).length;
    const assigned = build.assignments.filter((a) => a !== null).length;
    expect(same / assigned).toBeGreaterThan(0.9);
  });
});

describe("reconcileThemes (ids across a rebuild)", () => {
  test("jaccard", () => {
    expect(jaccard(new Set(["a", "b"]), new Set(["b", "c"]))).toBeCloseTo(1 / 3, 12);
    expect(jaccard(new Set(), new Set())).toBe(0);
  });

  test("a cluster whose membership mostly carries over keeps the old id; a new one gets none", () => {
    const previous = [
      { id: "T-noise", members: ["1", "2", "3", "4"], operator: false },
      { id: "T-clean", members: ["5", "6", "7"], operator: false },
    ];
    const r = reconcileThemes(previous, [
      ["5", "6", "7", "8"], // clean + one new answer: 3/4
      ["1", "2", "3", "4", "9"], // noise + one: 4/5
      ["10", "11", "12"], // new
    ]);
    expect(r.ids).toEqual(["T-clean", "T-noise", null]);
    expect(r.unmatched).toEqual([]);
  });

  test("a theme that split or dissolved is unmatched; an operator's theme is reported to be kept", () => {
    const previous = [
      { id: "T-big", members: ["1", "2", "3", "4", "5", "6"], operator: false },
      { id: "T-op", members: ["7", "8"], operator: true },
    ];
    const r = reconcileThemes(previous, [
      ["1", "2", "3"],
      ["4", "5", "6"],
    ]);
    expect(r.ids).toEqual([null, null]);
    expect(r.unmatched).toEqual([
      { id: "T-big", operator: false },
      { id: "T-op", operator: true },
    ]);
  });

  test("each old id goes to one cluster at most, the one it overlaps most", () => {
    const r = reconcileThemes(
      [{ id: "T", members: ["1", "2", "3", "4"], operator: false }],
      [
        ["1", "2", "3"],
        ["1", "2", "3", "4", "5"],
      ],
    );
    expect(r.ids).toEqual([null, "T"]);
  });

  test("an operator's merge (survivor with both memberships) survives the rebuild that re-forms it", () => {
    const merged = { id: "T-survivor", members: ["1", "2", "3", "4", "5", "6"], operator: true };
    expect(reconcileThemes([merged], [["1", "2", "3", "4", "5"]]).ids).toEqual(["T-survivor"]);
  });
});
