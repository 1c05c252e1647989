/**
 * @module commands/models
 * `earshot models fetch` and `earshot models verify` (DESIGN §2, §9; docs/models.md): the CLI
 * face of src/model-store. Fetch draws a cli-progress bar on stderr when it is a terminal and prints
 * one line per file on stdout; verify exits 1 when a file is missing or differs, or when no
 * model is installed at all.
 */
import path from "node:path";
import type { SingleBar } from "cli-progress";
import type { Command } from "commander";
import { z } from "zod";
import type { Config } from "../config.ts";
import { DEFAULT_HUB_URL, installModels, type InstalledFile, type InstallReporter, type InstallSource } from "../model-store/install.ts";
import { DownloadError } from "../model-store/download.ts";
import { loadManifest, selectModels } from "../model-store/manifest.ts";
import { hasProblems, verifyModels, type VerifiedModel } from "../model-store/verify.ts";

/** What the models commands read besides the config: `EARSHOT_MODELS_HUB_URL`. */

const hubUrlSchema = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//.test(u), "must be an http(s) URL");

/**
 * The hub base URL: `--hub-url`, else `EARSHOT_MODELS_HUB_URL`, else https://huggingface.co.
 * @throws Error when the value is not an http(s) URL
 */
export function resolveHubUrl(flag: string | undefined, configured: string | null): string {
  const value = flag ?? configured ?? DEFAULT_HUB_URL;
  const parsed = hubUrlSchema.safeParse(value);
  if (!parsed.success) throw new Error(`the models hub URL ${JSON.stringify(value)} ${parsed.error.issues[0]?.message ?? "is invalid"}`);
  return parsed.data.replace(/\/+$/, "");
}

const collect = (value: string, previous: string[]) => [...previous, value];
const mb = (bytes: number | null) => (bytes === null ? "?" : `${(bytes / 1e6).toFixed(1)} MB`);

/**
 * A bar per file on stderr (only drawn on a terminal), and one summary line per file on stdout.
 * @param bars the `cli-progress` module (loaded by `models fetch` only, not at every start of the binary)
 */
function progressReporter(json: boolean, bars: typeof import("cli-progress")): InstallReporter & { stop(): void } {
  const { Presets, SingleBar } = bars;
  let bar: SingleBar | null = null;
  const stop = () => {
    bar?.stop();
    bar = null;
  };
  return {
    fileStarted(model, file, total) {
      stop();
      bar = new SingleBar(
        { format: "  {name} [{bar}] {percentage}% {done}/{size}", stream: process.stderr, hideCursor: true, clearOnComplete: true },
        Presets.shades_classic,
      );
      bar.start(total ?? 0, 0, { name: `${model}/${file}`, done: mb(0), size: mb(total) });
    },
    fileProgress({ received, total }) {
      if (bar === null) return;
      if (total === null) bar.setTotal(received);
      bar.update(received, { done: mb(received) });
    },
    resumed(model, file, offset) {
      process.stderr.write(`  resuming ${model}/${file} from ${mb(offset)}\n`);
    },
    fileFinished(result) {
      stop();
      if (!json) process.stdout.write(describeInstalled(result) + "\n");
    },
    stop,
  };
}

function describeInstalled(r: InstalledFile): string {
  const name = `${r.model}/${r.path}`;
  if (r.action === "absent-optional") return `skipped ${name} (optional, not in the source)`;
  const check =
    r.checkedAgainst === "manifest"
      ? "sha256 matches the manifest"
      : r.checkedAgainst === "recorded"
        ? "sha256 matches the recorded hash"
        : "no published sha256: size and sha256 recorded";
  return `${r.action.padEnd(10)} ${name} (${mb(r.size)}, ${check})`;
}

function describeVerified(report: VerifiedModel[]): string {
  const lines: string[] = [];
  for (const model of report) {
    if (!model.isInstalled) {
      lines.push(`${model.id}: not installed`);
      continue;
    }
    lines.push(`${model.id}:`);
    for (const f of model.files) {
      const against = f.checkedAgainst === "manifest" ? " (manifest sha256)" : f.checkedAgainst === "recorded" ? " (sha256 recorded on first fetch)" : "";
      const detail = f.status === "unverified" ? " — nothing to compare with; `earshot models fetch` records it" : f.detail ? ` — ${f.detail}` : "";
      lines.push(`  ${f.status.padEnd(10)} ${f.path}${against}${detail}`);
    }
  }
  return lines.join("\n");
}

/** Said after a failed download: the two ways to install models without reaching the public hub. */
export const OFFLINE_HINT =
  "Without internet access, copy the models from a folder with `earshot models fetch --from DIR` " +
  "(laid out like the models directory), or point EARSHOT_MODELS_HUB_URL (or --hub-url) at a mirror on your network; see docs/models.md";

type FetchFlags = { model: string[]; from?: string; allFiles?: boolean; manifest?: string; hubUrl?: string; modelsDir?: string; json?: boolean };
type VerifyFlags = { model: string[]; manifest?: string; modelsDir?: string; json?: boolean };

/**
 * Registers `models fetch` and `models verify` on the `earshot` program.
 * @param config reads the configuration when a command runs (models directory)
 */
export function registerModelsCommands(program: Command, config: () => Config): void {
  const models = program.command("models").description("install and check the local AI models (docs/models.md)");
  models
    .command("fetch")
    .description("download the models into EARSHOT_MODELS_DIR (or copy them with --from), verifying sha256")
    .option("--model <id>", "model id from the manifest (repeatable; default: the manifest's default models)", collect, [])
    .option("--from <dir>", "copy from a local folder laid out like the models directory instead of downloading")
    .option("--all-files", "also install files the manifest marks optional (a custom --manifest; the bundled one has none)")
    .option("--manifest <file>", "use this manifest instead of the bundled models/manifest.json")
    .option("--hub-url <url>", `hub base URL (EARSHOT_MODELS_HUB_URL, default ${DEFAULT_HUB_URL})`)
    .option("--models-dir <dir>", "models directory (EARSHOT_MODELS_DIR, default ./models)")
    .option("--json", "print one JSON object per file instead of text")
    .action(async (o: FetchFlags) => {
      const manifest = await loadManifest(o.manifest);
      const selected = selectModels(manifest, o.model);
      const modelsDir = path.resolve(o.modelsDir ?? config().modelsDir);
      const source: InstallSource = o.from ? { kind: "dir", dir: o.from } : { kind: "hub", baseUrl: resolveHubUrl(o.hubUrl, config().modelsHubUrl) };
      const reporter = progressReporter(!!o.json, await import("cli-progress"));
      if (!o.json) {
        const from = source.kind === "dir" ? path.resolve(source.dir) : source.baseUrl;
        process.stdout.write(`Installing ${selected.map((m) => m.id).join(", ")} into ${modelsDir} from ${from}\n`);
      }
      try {
        const results = await installModels({ modelsDir, models: selected, source, allFiles: !!o.allFiles, reporter }).catch((err: unknown) => {
          throw source.kind === "hub" && err instanceof DownloadError ? new DownloadError(`${err.message}. ${OFFLINE_HINT}`, err.status) : err;
        });
        if (o.json) for (const r of results) process.stdout.write(JSON.stringify(r) + "\n");
        else process.stdout.write(`Done: ${results.length} files. Check them any time with \`earshot models verify\`.\n`);
      } finally {
        reporter.stop();
      }
    });
  models
    .command("verify")
    .description("check the installed model files against the manifest (exit 1 on a mismatch)")
    .option("--model <id>", "model id (repeatable; default: every model in the manifest)", collect, [])
    .option("--manifest <file>", "use this manifest instead of the bundled models/manifest.json")
    .option("--models-dir <dir>", "models directory (EARSHOT_MODELS_DIR, default ./models)")
    .option("--json", "print the report as JSON")
    .action(async (o: VerifyFlags) => {
      const manifest = await loadManifest(o.manifest);
      const selected = o.model.length > 0 ? selectModels(manifest, o.model) : manifest.models;
      const modelsDir = path.resolve(o.modelsDir ?? config().modelsDir);
      const report = await verifyModels(modelsDir, selected);
      const noneInstalled = !report.some((m) => m.isInstalled);
      const notInstalledButNamed = o.model.length > 0 && report.some((m) => !m.isInstalled);
      const isOk = !hasProblems(report) && !noneInstalled && !notInstalledButNamed;
      if (o.json) process.stdout.write(JSON.stringify({ ok: isOk, models_dir: modelsDir, models: report }) + "\n");
      else {
        process.stdout.write(describeVerified(report) + "\n");
        if (noneInstalled) process.stdout.write(`No model is installed in ${modelsDir}; run \`earshot models fetch\`.\n`);
        process.stdout.write(isOk ? "All installed model files are intact.\n" : "Problems found.\n");
      }
      if (!isOk) process.exitCode = 1;
    });
}
