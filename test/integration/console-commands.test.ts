/**
 * Every `earshot …` command the console tells an operator to run (in a `<code>` element of
 * web/console) is a command the real CLI has: each word is listed under "Commands:" in the help
 * of the words before it (issue 26: Settings → Models named `models download`, which never existed).
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO_DIR, runCli } from "../helpers/process.ts";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-console-commands-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** The command words of each `<code>earshot …</code>` in the console's sources (flags and values dropped). */
function consoleCommands(): { file: string; words: string[] }[] {
  const dir = path.join(REPO_DIR, "web", "console");
  const out: { file: string; words: string[] }[] = [];
  for (const file of fs.readdirSync(dir, { recursive: true }) as string[]) {
    if (!/\.tsx?$/.test(file)) continue;
    const text = fs.readFileSync(path.join(dir, file), "utf8");
    for (const m of text.matchAll(/<code>\s*earshot\s+([^<{]*)/g)) {
      const words: string[] = [];
      for (const w of m[1]!.trim().split(/\s+/)) {
        if (!/^[a-z][a-z-]*$/.test(w)) break;
        words.push(w);
      }
      out.push({ file, words });
    }
  }
  return out;
}

/** The subcommand names listed under "Commands:" in `earshot <words> --help`. */
async function subcommands(words: string[]): Promise<string[]> {
  const help = await runCli([...words, "--help"], { dataDir });
  expect(help.code).toBe(0);
  const section = help.stdout.split(/^Commands:$/m)[1] ?? "";
  return [...section.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((m) => m[1]!);
}

test("each earshot command the console names exists in the CLI", async () => {
  const commands = consoleCommands();
  // Settings → Models names the install command; the scan must find it.
  expect(commands.some((c) => c.file.endsWith("settings.tsx") && c.words[0] === "models")).toBe(true);
  for (const { file, words } of commands) {
    expect(words.length, `${file}: <code>earshot</code> with no command`).toBeGreaterThan(0);
    for (let n = 0; n < words.length; n++) {
      const listed = await subcommands(words.slice(0, n));
      expect(listed, `${file}: earshot ${words.join(" ")}`).toContain(words[n]!);
    }
  }
}, 60_000);
