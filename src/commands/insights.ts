/**
 * @module commands/insights
 * `earshot insights evaluate` and `earshot insights train` (docs/insights.md "Corrections and
 * local training").
 *
 *   earshot insights evaluate --labelled FILE.jsonl [--workspace UUID] [--json]
 *   earshot insights train [--workspace UUID] [--json]
 *
 * `evaluate` scores every installed engine (lexicon, the embedded trained model, the installed
 * retrained model, the transformer when its weights are installed) on the file, and with
 * `--workspace` also on that workspace's corrections. `train` retrains with the project corpus
 * plus the corrections (of one workspace, or of all) and installs the model into
 * `<models_dir>/earshot-insights/model.json` unless it scores worse on the held-out set than the
 * model in use; then it exits 1 and installs nothing.
 */
import { existsSync } from "node:fs";
import type { Command } from "commander";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { AppError } from "../errors.ts";
import type { createInsightsEngine } from "../ai/insights/index.ts";
import type { QualityReport } from "../ai/insights/trained/metrics.ts";
import type { LabelledAnswer } from "../ai/insights/trained/train.ts";
import { findWorkspaceByUuid } from "../modules/workspaces/repository.ts";
import { correctionsAsLabelled } from "../modules/insights/service.ts";

/**
 * The engines and the training code (wink-nlp, lexicons, the embedded model), loaded by these
 * commands only: imported at the top, they cost every `earshot serve` start (bench/startup.ts).
 */
async function insightsCode() {
  const [index, loader, metrics, local] = await Promise.all([
    import("../ai/insights/index.ts"),
    import("../ai/insights/trained/loader.ts"),
    import("../ai/insights/trained/metrics.ts"),
    import("../ai/insights/trained/local.ts"),
  ]);
  return { ...index, ...loader, ...metrics, ...local };
}

type WithDb = <T>(fn: (db: Db, cfg: Config) => Promise<T>) => Promise<T>;

/** One engine's scores on the labelled file and on the corrections. */
type EngineScores = { engine: string; labelled: QualityReport; corrections: QualityReport | null };

async function loadCorrections(db: Db, workspace: string | undefined): Promise<LabelledAnswer[]> {
  if (workspace && !(await findWorkspaceByUuid(db, workspace))) throw new AppError("NOT_FOUND", `No workspace ${workspace}.`);
  return correctionsAsLabelled(db, workspace ?? null);
}

/** Scores an engine built by createInsightsEngine on a set. */
async function scoreEngine(engine: ReturnType<typeof createInsightsEngine>, answers: LabelledAnswer[]): Promise<{ id: string; report: QualityReport }> {
  const { scorePredictions } = await insightsCode();
  const predicted = [];
  let id = "";
  for (const a of answers) {
    const r = await engine.analyse(a.text);
    id = r.engine.sentiment;
    predicted.push({ sentiment: r.ai_insights.sentiment, actionable: r.ai_insights.actionable });
  }
  return { id, report: scorePredictions(answers, predicted) };
}

/** Adds the `insights` command. */
export function registerInsightsCommands(program: Command, withDb: WithDb): void {
  const insights = program.command("insights").description("measure and retrain the insights engine");

  insights
    .command("evaluate")
    .description("score the installed engines on a labelled JSONL file (and on a workspace's corrections)")
    .requiredOption("--labelled <file>", 'JSONL, one {"text","sentiment","actionable"} a line')
    .option("--workspace <uuid>", "also score on this workspace's corrections")
    .option("--json", "print JSON")
    .action(async (o: { labelled: string; workspace?: string; json?: boolean }) => {
      const { createInsightsEngine, embeddedModel, formatReport, hasLocalModel, installedModelPath, readLabelledFile, readModelFile, scoreModel } =
        await insightsCode();
      let labelled: LabelledAnswer[];
      try {
        labelled = readLabelledFile(o.labelled);
      } catch (err) {
        throw new AppError("VALIDATION_ERROR", err instanceof Error ? err.message : String(err));
      }
      const results = await withDb(async (db, cfg) => {
        const corrections = o.workspace ? await loadCorrections(db, o.workspace) : [];
        const out: EngineScores[] = [];
        const both = async (engine: ReturnType<typeof createInsightsEngine>) => {
          const l = await scoreEngine(engine, labelled);
          out.push({ engine: l.id, labelled: l.report, corrections: corrections.length ? (await scoreEngine(engine, corrections)).report : null });
        };
        await both(createInsightsEngine({ modelsDir: cfg.dataDir + "/.no-models", sentimentModel: "(none)", fallback: "lexicon", onWarning: () => {} }));
        const models = [embeddedModel()];
        const installed = installedModelPath(cfg.modelsDir);
        if (existsSync(installed)) models.push(readModelFile(installed));
        for (const m of models) {
          out.push({ engine: `trained:${m.id}`, labelled: scoreModel(m, labelled), corrections: corrections.length ? scoreModel(m, corrections) : null });
        }
        if (hasLocalModel(cfg.modelsDir, cfg.sentimentModel)) {
          await both(createInsightsEngine({ modelsDir: cfg.modelsDir, sentimentModel: cfg.sentimentModel, onWarning: () => {} }));
        }
        return { corrections: corrections.length, engines: out };
      });
      if (o.json) {
        process.stdout.write(JSON.stringify({ labelled: o.labelled, answers: labelled.length, ...results }) + "\n");
        return;
      }
      const lines = [`${o.labelled}: ${labelled.length} answers${o.workspace ? `; ${results.corrections} corrections in workspace ${o.workspace}` : ""}`];
      for (const e of results.engines) {
        lines.push(formatReport(e.engine, e.labelled));
        if (e.corrections) lines.push(formatReport(`${e.engine} on the corrections`, e.corrections));
      }
      process.stdout.write(lines.join("\n") + "\n");
    });

  insights
    .command("train")
    .description("retrain the trained engine with the project corpus plus the corrections; install it unless it is worse on the held-out set")
    .option("--workspace <uuid>", "use only this workspace's corrections (default: every workspace's)")
    .option("--json", "print JSON")
    .action(async (o: { workspace?: string; json?: boolean }) => {
      const { embeddedModel, formatReport, heldoutScore, installModel, installedModelPath, readModelFile, retrain } = await insightsCode();
      const outcome = await withDb(async (db, cfg) => {
        const corrections = await loadCorrections(db, o.workspace);
        const installed = installedModelPath(cfg.modelsDir);
        const current = existsSync(installed) ? readModelFile(installed) : embeddedModel();
        const r = retrain(current, corrections);
        const file = r.isAcceptable ? installModel(cfg.modelsDir, r.model) : null;
        return { r, file };
      });
      const { r, file } = outcome;
      const summary = {
        installed: file !== null,
        file,
        model: r.model.id,
        current_model: r.current.id,
        corrections: r.corrections.count,
        heldout: {
          current: {
            accuracy: r.heldout.current.accuracy,
            macro_f1: r.heldout.current.macroF1,
            actionable_f1: r.heldout.current.actionable.f1,
            score: heldoutScore(r.heldout.current),
          },
          candidate: {
            accuracy: r.heldout.candidate.accuracy,
            macro_f1: r.heldout.candidate.macroF1,
            actionable_f1: r.heldout.candidate.actionable.f1,
            score: heldoutScore(r.heldout.candidate),
          },
        },
      };
      if (o.json) process.stdout.write(JSON.stringify(summary) + "\n");
      else {
        process.stdout.write(
          [
            `Trained ${r.model.id} on the corpus plus ${r.corrections.count} corrections.`,
            formatReport(`held-out, current ${r.current.id}`, r.heldout.current),
            formatReport(`held-out, candidate ${r.model.id}`, r.heldout.candidate),
            ...(r.corrections.current && r.corrections.candidate
              ? [formatReport(`corrections, current`, r.corrections.current), formatReport(`corrections, candidate`, r.corrections.candidate)]
              : []),
            file
              ? `Installed ${file}; the worker uses it within a minute.`
              : `Not installed: the candidate scores worse on the held-out set than ${r.current.id}.`,
          ].join("\n") + "\n",
        );
      }
      if (!file) process.exitCode = 1;
    });
}
