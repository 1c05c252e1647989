/**
 * @module retention/model
 * zod schemas of retention policies (issue 25, DESIGN §13; docs/privacy.md "Retention"): the
 * workspace's default (`PATCH workspace/` `retention`), a link's override (`settings.retention`),
 * the dry-run body and answer, and {@link effectivePolicy} (the link's fields over the workspace's).
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";

/** At most 100 years: a bound, not a suggestion. */
const MAX_DAYS = 36_500;
const days = () => z.number().int().min(1).max(MAX_DAYS);

/** A complete policy: what the workspace sets, and what applies to a link. Off is `null` / `false`. */
export const retentionPolicySchema = lazySchema(() =>
  z.object({
    delete_responses_after_days: days().nullable().describe("Erase submitted responses this many days after submission; null: never"),
    delete_audio_after_days: days().nullable().describe("Drop recordings (keeping transcripts) this many days after submission; null: never"),
    delete_audio_after_transcription: z.boolean().describe("Drop a recording once its transcription completed (the transcript stays)"),
    delete_after_delivery: z
      .boolean()
      .describe('Erase a response once every webhook that was sent its response.submitted event received it (docs/privacy.md "Retention")'),
  }),
);
export type RetentionPolicy = z.output<typeof retentionPolicySchema>;

/** The workspace default as sent on `PATCH workspace/`: fields left out are off; `retention: null` removes the policy. */
export const workspaceRetentionInputSchema = lazySchema(() =>
  z
    .object({
      delete_responses_after_days: days().nullable().optional(),
      delete_audio_after_days: days().nullable().optional(),
      delete_audio_after_transcription: z.boolean().optional(),
      delete_after_delivery: z.boolean().optional(),
    })
    .strict(),
);

/**
 * A link's override (`settings.retention`): a field left out follows the workspace; a field given
 * wins over it (`null` days or `false` turn that rule off for this link). Replaced as a whole.
 */
export const linkRetentionSchema = lazySchema(() =>
  z
    .object({
      delete_responses_after_days: days().nullable().optional(),
      delete_audio_after_days: days().nullable().optional(),
      delete_audio_after_transcription: z.boolean().optional(),
      delete_after_delivery: z.boolean().optional(),
    })
    .strict()
    .describe("Fields left out follow the workspace's retention (PATCH workspace/); given ones win, null days or false turn a rule off"),
);
export type LinkRetention = z.output<typeof linkRetentionSchema>;

/** No retention: nothing is deleted (the default of every workspace). */
export const NO_RETENTION: RetentionPolicy = {
  delete_responses_after_days: null,
  delete_audio_after_days: null,
  delete_audio_after_transcription: false,
  delete_after_delivery: false,
};

/** Fills a workspace input's missing fields with "off". */
export function completePolicy(input: z.output<typeof workspaceRetentionInputSchema> | null | undefined): RetentionPolicy {
  return { ...NO_RETENTION, ...(input ?? {}) };
}

/** The policy that applies to a link: every field the link sets, the workspace's for the rest. */
export function effectivePolicy(workspace: RetentionPolicy, link: LinkRetention | null | undefined): RetentionPolicy {
  const out = { ...workspace };
  for (const [k, v] of Object.entries(link ?? {})) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/** True when the policy deletes nothing. */
export function isInactive(p: RetentionPolicy): boolean {
  return p.delete_responses_after_days === null && p.delete_audio_after_days === null && !p.delete_audio_after_transcription && !p.delete_after_delivery;
}

/** `POST links/{link_uuid}/retention/preview/`: the override to try (left out: the link's saved one). */
export const linkPreviewInputSchema = lazySchema(() => z.object({ retention: linkRetentionSchema.nullable().optional() }).strict());

/** `POST workspace/retention/preview/`: the workspace default to try (left out: the saved one). */
export const workspacePreviewInputSchema = lazySchema(() => z.object({ retention: workspaceRetentionInputSchema.nullable().optional() }).strict());

/** What a policy would delete now (a dry run): the same selection a run uses. */
export const retentionCountsSchema = lazySchema(() =>
  z.object({
    responses: z.number().int().describe("Responses that would be erased (as DELETE responses/{uuid}/ does)"),
    recordings: z.number().int().describe("Answers of the remaining responses whose recordings would be dropped (transcripts kept)"),
  }),
);
export type RetentionCounts = z.output<typeof retentionCountsSchema>;

export const retentionPreviewSchema = lazySchema(() =>
  z.object({
    policy: retentionPolicySchema.describe("The policy the counts are for (for a link: its fields over the workspace's)"),
    counts: retentionCountsSchema,
  }),
);
export type RetentionPreview = z.output<typeof retentionPreviewSchema>;
