/**
 * @module retention/preview
 * The dry runs of retention (issue 25; docs/api.md "Retention"): what a policy would delete now,
 * counted by the same selection a run uses (`countPolicies`), without saving or deleting anything.
 */
import type { Kysely } from "kysely";
import type { Clock } from "../../clock.ts";
import type { Database } from "../../db/schema.ts";
import { notFound } from "../../errors.ts";
import type { AuthContext } from "../../auth/authenticate.ts";
import { isUuid } from "../../shared/uuid.ts";
import * as repo from "./repository.ts";
import { completePolicy, effectivePolicy, isInactive, type LinkRetention, type RetentionPreview } from "./model.ts";
import { countPolicies, linkOverrideOf, parseWorkspacePolicy, scopedPolicies } from "./service.ts";

type PreviewDeps = { db: Kysely<Database>; clock: Clock };

/**
 * `POST links/{link_uuid}/retention/preview/`: the link's effective policy under `retention`
 * (the override to try; left out: its saved one; null: none) and what it would delete now.
 * @throws AppError NOT_FOUND when the link is not the workspace's
 */
export async function previewLinkRetention(
  deps: PreviewDeps,
  auth: AuthContext,
  linkUuid: string,
  input: { retention?: LinkRetention | null },
): Promise<RetentionPreview> {
  const link = isUuid(linkUuid) ? await repo.findLinkSettings(deps.db, auth.workspaceUuid, linkUuid) : undefined;
  if (!link) throw notFound("Link");
  const workspace = parseWorkspacePolicy(await repo.workspaceRetention(deps.db, auth.workspaceUuid));
  const own = input.retention === undefined ? linkOverrideOf(link.settings) : (input.retention ?? {});
  const policy = effectivePolicy(workspace, own);
  const policies = isInactive(policy) ? [] : [{ scope: { workspaceUuid: auth.workspaceUuid, in: [link.uuid] }, policy }];
  return { policy, counts: await countPolicies(deps.db, deps.clock, policies) };
}

/**
 * `POST workspace/retention/preview/`: what the workspace policy `retention` (left out: the saved
 * one; null: none) would delete now across the workspace, each link's override applied over it.
 */
export async function previewWorkspaceRetention(
  deps: PreviewDeps,
  auth: AuthContext,
  input: { retention?: Parameters<typeof completePolicy>[0] },
): Promise<RetentionPreview> {
  const policy =
    input.retention === undefined ? parseWorkspacePolicy(await repo.workspaceRetention(deps.db, auth.workspaceUuid)) : completePolicy(input.retention);
  const policies = await scopedPolicies(deps.db, auth.workspaceUuid, policy);
  return { policy, counts: await countPolicies(deps.db, deps.clock, policies) };
}
