/**
 * `earshot themes --jsonl` (DESIGN §2, §12), run as a real process: from source, and from the
 * compiled binary in an empty folder with no models installed (when `EARSHOT_BIN` or a built
 * dist/earshot is there; CI builds it once for every test); and with the generated fixture
 * sentence-embedding model installed (test/fixtures/models/tiny-embedder), from both.
 */
import { afterAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO_DIR, runCli } from "../helpers/process.ts";
import { loadThemeSet } from "../../src/ai/themes/labelled-set.ts";
import { loadSentenceEmbedder, themeGroups, themeGroupsWith, type GroupedThemes } from "../../src/ai/themes/index.ts";
import { EMBEDDER_FIXTURE_MODELS_DIR, FIXTURE_EMBEDDING_MODEL } from "../helpers/fixtures.ts";
import { FIXTURE_THEME_SET, installFixtureEmbedder } from "../helpers/embedder-set.ts";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-themes-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

// Two questions of the dev set, interleaved: each group is clustered on its own.
const dev = loadThemeSet("dev");
const [a, b] = [dev.find((q) => q.group === "dev-delivery")!, dev.find((q) => q.group === "dev-hotel")!];
const answers = Array.from({ length: Math.max(a.items.length, b.items.length) }, (_, i) => [a.items[i], b.items[i]])
  .flat()
  .filter((x) => x !== undefined)
  .map((x, i) => ({ id: x.id, text: x.text, group: x.id.startsWith("dev-delivery") ? "delivery" : "hotel", n: i }));
const stdin = `${answers.map(({ id, text, group }) => JSON.stringify({ id, text, group })).join("\n")}\n`;

type Line = { id: string; theme?: string | null; label?: string | null; quote?: true };

function checkOutput(stdout: string): Line[] {
  const lines = stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Line);
  const assigned = lines.slice(0, answers.length);
  // One line per input, in input order, exactly {id, theme, label}.
  expect(assigned.map((l) => l.id)).toEqual(answers.map((x) => x.id));
  assigned.forEach((l, i) => {
    expect(Object.keys(l)).toEqual(["id", "theme", "label"]);
    if (l.theme === null) expect(l.label).toBeNull();
    else {
      expect(l.theme).toStartWith(`${answers[i]!.group}/`);
      expect(typeof l.label).toBe("string");
    }
  });
  for (const group of ["delivery", "hotel"]) {
    const themes = new Set(assigned.filter((l, i) => answers[i]!.group === group && l.theme).map((l) => l.theme));
    expect(themes.size).toBeGreaterThanOrEqual(3);
  }
  const themed = assigned.filter((l) => l.theme !== null).length;
  expect(themed / answers.length).toBeGreaterThan(0.8);
  // Then the quotes: 2–3 per theme, each an assigned input, none twice.
  const quotes = lines.slice(answers.length);
  for (const q of quotes) expect(q).toEqual({ id: q.id, quote: true });
  const themeOf = new Map(assigned.map((l) => [l.id, l.theme]));
  expect(new Set(quotes.map((q) => q.id)).size).toBe(quotes.length);
  const perTheme = new Map<string, number>();
  for (const q of quotes) {
    const t = themeOf.get(q.id);
    expect(t).toBeString();
    perTheme.set(t!, (perTheme.get(t!) ?? 0) + 1);
  }
  const allThemes = new Set(assigned.map((l) => l.theme).filter((t) => t !== null));
  expect([...perTheme.keys()].sort()).toEqual([...allThemes].sort() as string[]);
  for (const n of perTheme.values()) expect([2, 3]).toContain(n);
  return lines;
}

let fromSource = "";

// The answers written for the fixture sentence model; with it they group by topic, and the
// built-in engine groups them differently (checked below), so the output shows which one ran.
const fixtureAnswers = FIXTURE_THEME_SET.map(({ id, text }) => ({ id, text, group: "q" }));
const fixtureStdin = `${fixtureAnswers.map((a) => JSON.stringify(a)).join("\n")}\n`;
const jsonl = ({ assignments, quotes }: GroupedThemes) =>
  `${[...assignments.map((a) => JSON.stringify(a)), ...quotes.map((id) => JSON.stringify({ id, quote: true }))].join("\n")}\n`;
const withSentenceModel = jsonl(await themeGroupsWith(fixtureAnswers, await loadSentenceEmbedder(EMBEDDER_FIXTURE_MODELS_DIR, FIXTURE_EMBEDDING_MODEL)));
const withBuiltIn = jsonl(themeGroups(fixtureAnswers));
const installedDir = path.join(dataDir, "models");
installFixtureEmbedder(installedDir, "Xenova/all-MiniLM-L6-v2");

describe("earshot themes --jsonl", () => {
  test("prints one {id, theme, label} per input, then {id, quote: true} per representative quote", async () => {
    const r = await runCli(["themes", "--jsonl"], { dataDir, stdin });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    checkOutput(r.stdout);
    fromSource = r.stdout;
  });

  test("a bad line stops with its line number and exit 1; empty input prints nothing", async () => {
    const notJson = await runCli(["themes", "--jsonl"], { dataDir, stdin: '{"id":"a","text":"x","group":"q"}\nnot json\n' });
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toContain("line 2: not a JSON object");
    expect(notJson.stdout).toBe("");
    const noGroup = await runCli(["themes", "--jsonl"], { dataDir, stdin: '{"id":"a","text":"x"}\n' });
    expect(noGroup.code).toBe(1);
    expect(noGroup.stderr).toContain("line 1: group");
    const tooLong = await runCli(["themes", "--jsonl"], { dataDir, stdin: `${JSON.stringify({ id: "a", text: "x".repeat(20_001), group: "q" })}\n` });
    expect(tooLong.code).toBe(1);
    expect(tooLong.stderr).toContain("line 1: text");
    const empty = await runCli(["themes", "--jsonl"], { dataDir, stdin: "\n" });
    expect(empty).toMatchObject({ code: 0, stdout: "" });
  });

  test("uses the sentence model installed in EARSHOT_MODELS_DIR; EARSHOT_EMBEDDING_MODEL=sif keeps the built-in engine", async () => {
    expect(withSentenceModel).not.toBe(withBuiltIn);
    // With the fixture model each topic is one theme and the two answers about nothing are in none.
    const themeOf = new Map(
      withSentenceModel
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Line)
        .filter((l) => !l.quote)
        .map((l) => [l.id, l.theme]),
    );
    for (const topic of ["shipping", "price", "app", null]) {
      const themes = new Set(FIXTURE_THEME_SET.filter((a) => a.gold === topic).map((a) => themeOf.get(a.id)));
      expect(themes.size).toBe(1);
      expect(themes.has(null)).toBe(topic === null);
    }
    const installed = await runCli(["themes", "--jsonl"], { dataDir, stdin: fixtureStdin, env: { EARSHOT_MODELS_DIR: installedDir } });
    expect({ code: installed.code, stderr: installed.stderr, stdout: installed.stdout }).toEqual({ code: 0, stderr: "", stdout: withSentenceModel });
    const sif = await runCli(["themes", "--jsonl"], {
      dataDir,
      stdin: fixtureStdin,
      env: { EARSHOT_MODELS_DIR: installedDir, EARSHOT_EMBEDDING_MODEL: "sif" },
    });
    expect({ code: sif.code, stderr: sif.stderr, stdout: sif.stdout }).toEqual({ code: 0, stderr: "", stdout: withBuiltIn });
    // A model named but not installed: a warning, and the built-in engine answers.
    const missing = await runCli(["themes", "--jsonl"], {
      dataDir,
      stdin: fixtureStdin,
      env: { EARSHOT_EMBEDDING_MODEL: "Xenova/paraphrase-multilingual-MiniLM-L12-v2" },
    });
    expect(missing.code).toBe(0);
    expect(missing.stderr).toContain("warning: embedding model Xenova/paraphrase-multilingual-MiniLM-L12-v2 is not installed");
    expect(missing.stdout).toBe(withBuiltIn);
  }, 60_000);

  const bin = process.env.EARSHOT_BIN ?? path.join(REPO_DIR, "dist", "earshot");
  test.skipIf(!fs.existsSync(bin))(
    "works from the binary in an empty folder with no models, with the same output as from source",
    async () => {
      const empty = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-themes-bin-"));
      try {
        const proc = Bun.spawn([bin, "themes", "--jsonl"], {
          cwd: empty,
          env: {
            PATH: process.env.PATH ?? "/usr/bin:/bin",
            HOME: empty,
            EARSHOT_MODELS_DIR: path.join(empty, "models"),
            EARSHOT_DATA_DIR: path.join(empty, "data"),
          },
          stdin: new TextEncoder().encode(stdin),
          stdout: "pipe",
          stderr: "pipe",
        });
        const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
        expect(stderr).toBe("");
        expect(code).toBe(0);
        checkOutput(stdout);
        if (fromSource) expect(stdout).toBe(fromSource);
        expect(fs.readdirSync(empty)).toEqual([]);
      } finally {
        fs.rmSync(empty, { recursive: true, force: true });
      }
    },
    60_000,
  );

  test.skipIf(!fs.existsSync(bin))(
    "the binary, run from an empty folder, loads the sentence model the models directory holds",
    async () => {
      const empty = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-themes-bin-"));
      try {
        const proc = Bun.spawn([bin, "themes", "--jsonl"], {
          cwd: empty,
          env: {
            PATH: process.env.PATH ?? "/usr/bin:/bin",
            HOME: empty,
            EARSHOT_MODELS_DIR: EMBEDDER_FIXTURE_MODELS_DIR,
            EARSHOT_EMBEDDING_MODEL: FIXTURE_EMBEDDING_MODEL,
            EARSHOT_DATA_DIR: path.join(empty, "data"),
          },
          stdin: new TextEncoder().encode(fixtureStdin),
          stdout: "pipe",
          stderr: "pipe",
        });
        const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
        expect({ code, stderr, stdout }).toEqual({ code: 0, stderr: "", stdout: withSentenceModel });
        expect(fs.readdirSync(empty)).toEqual([]);
      } finally {
        fs.rmSync(empty, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
