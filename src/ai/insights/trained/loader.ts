/**
 * @module ai/insights/trained/loader
 * Which trained model answers: the operator's retrained model at
 * `<modelsDir>/earshot-insights/model.json` (written by `earshot insights train`) when it is
 * there and valid, else the model embedded in the binary (./model.json, built by
 * scripts/train-insights.ts). The installed file is re-checked at most once a minute, so a model
 * installed while the server runs is picked up without a restart.
 */
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import embeddedDocument from "./model.json" with { type: "json" };
import { fromDocument, type LinearModel, type ModelDocument } from "./model.ts";

/** Folder under the models directory that holds a locally retrained model. */
export const INSTALLED_MODEL_DIR = "earshot-insights";

/** Engine id prefix: `trained:<model id>`, e.g. "trained:linear-v2". */
export const TRAINED_ENGINE_PREFIX = "trained:";

const RECHECK_MS = 60_000;

let embedded: LinearModel | null = null;

/** The model shipped inside the binary. */
export function embeddedModel(): LinearModel {
  embedded ??= fromDocument(embeddedDocument as unknown as ModelDocument);
  return embedded;
}

/** Path of the installed (locally retrained) model file. */
export function installedModelPath(modelsDir: string): string {
  return path.join(modelsDir, INSTALLED_MODEL_DIR, "model.json");
}

/**
 * Reads a model file.
 * @throws Error when the file is missing, not JSON, or not a model of this version.
 */
export function readModelFile(file: string): LinearModel {
  return fromDocument(JSON.parse(readFileSync(file, "utf8")) as ModelDocument);
}

/**
 * Creates a function returning the model to use now (installed or embedded).
 * @param onWarning receives one line when an installed file exists but cannot be loaded.
 */
export function createModelSource(modelsDir: string, onWarning?: (line: string) => void): () => LinearModel {
  const file = installedModelPath(modelsDir);
  let current: LinearModel | null = null;
  let currentMtime = -1;
  let checkedAt = -Infinity;
  return () => {
    const now = Date.now();
    if (current && now - checkedAt < RECHECK_MS) return current;
    checkedAt = now;
    let mtime = 0;
    try {
      mtime = statSync(file).mtimeMs;
    } catch {
      mtime = 0;
    }
    if (current && mtime === currentMtime) return current;
    currentMtime = mtime;
    current = embeddedModel();
    if (mtime > 0) {
      try {
        current = readModelFile(file);
      } catch (err) {
        onWarning?.(`installed insights model ${file} cannot be used, using the embedded one: ${String(err)}`);
      }
    }
    return current;
  };
}
