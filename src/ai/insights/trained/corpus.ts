/**
 * @module ai/insights/trained/corpus
 * The project corpus, embedded in the binary as text so `earshot insights train` and
 * `earshot insights evaluate` work on any install (docs/insights.md): the training set and the
 * held-out set (which only measures; it is never trained on).
 */
import heldoutText from "../../../../corpus/insights/heldout.jsonl" with { type: "text" };
import trainText from "../../../../corpus/insights/train.jsonl" with { type: "text" };
import { parseLabelledJsonl } from "./metrics.ts";
import type { LabelledAnswer } from "./train.ts";

/** The training corpus (corpus/insights/train.jsonl). */
export function trainingCorpus(): LabelledAnswer[] {
  return parseLabelledJsonl(trainText, "corpus/insights/train.jsonl");
}

/** The held-out set (corpus/insights/heldout.jsonl): for measuring only. */
export function heldoutSet(): LabelledAnswer[] {
  return parseLabelledJsonl(heldoutText, "corpus/insights/heldout.jsonl");
}
