/**
 * @module commands/themes
 * `earshot themes --jsonl` (DESIGN §2, §12): reads `{"id", "text", "group"}` lines on standard
 * input, clusters each group as one question's answers with the installed engine (a sentence-
 * embedding model in EARSHOT_MODELS_DIR, chosen by EARSHOT_EMBEDDING_MODEL; else the default
 * engine, which ships in the binary, so no model is needed), and prints one line per input
 * `{"id", "theme", "label"}` (`theme` null when unassigned), then one `{"id", "quote": true}` per
 * representative quote. A bad line stops the command with its line number (exit 1): not JSON →
 * INVALID_JSON; wrong fields, an empty id or group, or a text over 20,000 characters →
 * VALIDATION_ERROR. Blank lines are skipped.
 */
import { createInterface } from "node:readline";
import type { Command } from "commander";
import { z } from "zod";
import { AppError } from "../errors.ts";
import type { Config } from "../config.ts";

/** Longest answer text accepted: a 10-minute spoken answer is about 9,000 characters. */
export const MAX_TEXT_CHARS = 20_000;

const Line = z.object({
  id: z.union([z.string().min(1).max(200), z.number().transform(String)]),
  text: z.string().max(MAX_TEXT_CHARS),
  group: z.string().min(1).max(200),
});

/** Parses the input lines (see the module comment). */
export function parseThemeLines(lines: Iterable<string>): { id: string; text: string; group: string }[] {
  const out: { id: string; text: string; group: string }[] = [];
  let n = 0;
  for (const line of lines) {
    n++;
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new AppError("INVALID_JSON", `line ${n}: not a JSON object.`);
    }
    const parsed = Line.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new AppError("VALIDATION_ERROR", `line ${n}: ${issue.path.join(".") || "line"}: ${issue.message} (expected {"id","text","group"}).`);
    }
    out.push(parsed.data);
  }
  return out;
}

/**
 * Adds the `themes` command.
 * @param config reads the configuration when the command runs (models directory, embedding model)
 */
export function registerThemesCommand(program: Command, config: () => Config): void {
  program
    .command("themes")
    .description('cluster answers read from standard input, one {"id","text","group"} a line, and print their themes (DESIGN §12)')
    .requiredOption("--jsonl", "read and write JSON lines (the only format)")
    .action(async () => {
      const lines: string[] = [];
      for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) lines.push(line);
      const answers = parseThemeLines(lines);
      // Loaded here, not at the top: the word vectors cost every other command's start.
      const { selectEmbedder, themeGroupsWith } = await import("../ai/themes/index.ts");
      const { modelsDir, embeddingModel } = config();
      const embedder = await selectEmbedder({ modelsDir, choice: embeddingModel, onWarning: (line) => process.stderr.write(`warning: ${line}\n`) });
      const { assignments, quotes } = await themeGroupsWith(answers, embedder);
      const out = [...assignments.map((a) => JSON.stringify(a)), ...quotes.map((id) => JSON.stringify({ id, quote: true }))];
      process.stdout.write(out.length ? `${out.join("\n")}\n` : "");
    });
}
