/**
 * @module ai/themes/labelled-set
 * Reads the labelled theme sets (corpus/themes/<set>/*.txt: `# group:`, `# question:`, then
 * `## <gold theme> | <words a fair label contains>` or `## none`, each followed by one answer a
 * line). Used by bench/themes.ts and the tests; never by the server.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** One labelled question: answers with their gold theme (null: fits none) and label words. */
export interface LabelledQuestion {
  group: string;
  question: string;
  items: { id: string; text: string; gold: string | null }[];
  keywords: Map<string, string[]>;
}

/**
 * Reads one set ("dev" or "heldout"), questions in file-name order, answers in file order with
 * ids `<group>-<n>`. Throws (ENOENT) for an unknown set.
 */
export function loadThemeSet(set: string): LabelledQuestion[] {
  const dir = path.join(import.meta.dir, "..", "..", "..", "corpus", "themes", set);
  return readdirSync(dir)
    .filter((f) => f.endsWith(".txt"))
    .sort()
    .map((f) => {
      const q: LabelledQuestion = { group: "", question: "", items: [], keywords: new Map() };
      let gold: string | null = null;
      for (const line of readFileSync(path.join(dir, f), "utf8").split("\n")) {
        if (line.startsWith("# group:")) q.group = line.slice(8).trim();
        else if (line.startsWith("# question:")) q.question = line.slice(11).trim();
        else if (line.startsWith("## ")) {
          const [key, words] = line
            .slice(3)
            .split("|")
            .map((s) => s.trim());
          gold = key === "none" ? null : key!;
          if (gold)
            q.keywords.set(
              gold,
              (words ?? "")
                .split(",")
                .map((w) => w.trim().toLowerCase())
                .filter(Boolean),
            );
        } else if (line.trim() && !line.startsWith("#")) q.items.push({ id: `${q.group}-${q.items.length + 1}`, text: line.trim(), gold });
      }
      return q;
    });
}
