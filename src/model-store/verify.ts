/**
 * @module model-store/verify
 * `earshot models verify`: checks what is installed in the models directory against the
 * manifest's sha256 or, where the manifest has none, against the size and sha256 recorded when
 * the file was fetched. A model counts as installed when its folder exists.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { expectationOf, filePath, readLock, sha256OfFile, sizeOf } from "./files.ts";
import type { ManifestModel } from "./manifest.ts";

/**
 * One file's state. "ok": matches the manifest's pin or the recorded hash; "unverified": present
 * but nothing to compare against (copied by hand; `earshot models fetch` records it);
 * "missing": a required file of an installed model is absent; "mismatch": size or sha256 differ.
 */
export type FileStatus = "ok" | "unverified" | "missing" | "mismatch";

export type VerifiedFile = {
  model: string;
  path: string;
  status: FileStatus;
  /** What the file was compared with, when anything. */
  checkedAgainst: "manifest" | "recorded" | null;
  /** For "mismatch": what differs; for "missing": where it was looked for. */
  detail?: string;
};

export type VerifiedModel = { id: string; isInstalled: boolean; files: VerifiedFile[] };

/** Whether anything is wrong: a mismatch, or a missing required file of an installed model. */
export function hasProblems(report: VerifiedModel[]): boolean {
  return report.some((m) => m.files.some((f) => f.status === "mismatch" || f.status === "missing"));
}

/**
 * Checks the installed files of `models`. Optional files are checked only when present; models
 * whose folder is absent are reported as not installed (their files are not listed).
 * @returns one entry per model, in the order given
 */
export async function verifyModels(modelsDir: string, models: ManifestModel[]): Promise<VerifiedModel[]> {
  const root = path.resolve(modelsDir);
  const lock = await readLock(root);
  const report: VerifiedModel[] = [];
  for (const model of models) {
    const isInstalled = existsSync(path.join(root, ...model.id.split("/")));
    const files: VerifiedFile[] = [];
    if (isInstalled) {
      for (const file of model.files) {
        const where = filePath(root, model, file);
        const size = await sizeOf(where);
        const base = { model: model.id, path: file.path };
        if (size === null) {
          if (!file.optional) files.push({ ...base, status: "missing", checkedAgainst: null, detail: where });
          continue;
        }
        const expected = expectationOf(lock, model, file);
        if (expected === null) {
          files.push({ ...base, status: "unverified", checkedAgainst: null });
          continue;
        }
        if (expected.size !== null && expected.size !== size) {
          files.push({ ...base, status: "mismatch", checkedAgainst: expected.from, detail: `size is ${size} bytes, expected ${expected.size}` });
          continue;
        }
        const sha256 = await sha256OfFile(where);
        files.push(
          sha256 === expected.sha256
            ? { ...base, status: "ok", checkedAgainst: expected.from }
            : { ...base, status: "mismatch", checkedAgainst: expected.from, detail: `sha256 is ${sha256}, expected ${expected.sha256}` },
        );
      }
    }
    report.push({ id: model.id, isInstalled, files });
  }
  return report;
}
