/**
 * @module retention/service
 * Retention (issue 25, DESIGN §13; docs/privacy.md "Retention"): one run erases, per workspace,
 * the submitted responses its policies select — older than `delete_responses_after_days`, or
 * delivered to every webhook (`delete_after_delivery`) — with the erasure of
 * `DELETE responses/{uuid}/` (`eraseResponseRows`), then drops the recordings of the remaining
 * responses (`delete_audio_after_days`, `delete_audio_after_transcription`), keeping transcripts.
 * Batches of {@link BATCH} per transaction; times from the injected clock. A dry run
 * ({@link previewRetention}) walks the same selection without writing.
 */
import type { Kysely } from "kysely";
import type { Clock } from "../../clock.ts";
import type { Database, Executor } from "../../db/schema.ts";
import type { BlobStore } from "../../blobs/store.ts";
import type { Logger } from "../../logger.ts";
import { eraseResponseRows } from "../responses/service.ts";
import { recordAudit } from "../audit/service.ts";
import * as repo from "./repository.ts";
import { completePolicy, effectivePolicy, isInactive, NO_RETENTION, type LinkRetention, type RetentionCounts, type RetentionPolicy } from "./model.ts";

/** Responses erased (or answers whose recordings are dropped) per transaction. */
export const BATCH = 200;
/** The run lease's key in `settings` and its length: a node that died mid-run frees it after this. */
export const LEASE_KEY = "retention.lease_until";
const LEASE_S = 15 * 60;

export type RetentionDeps = { db: Kysely<Database>; blobs: BlobStore; clock: Clock; log?: Logger };
/** One policy over one scope of a workspace. */
export type ScopedPolicy = { scope: repo.Scope; policy: RetentionPolicy };

/** The stored workspace policy (no policy: everything off). */
export function parseWorkspacePolicy(json: string | null | undefined): RetentionPolicy {
  return json ? completePolicy(JSON.parse(json) as Partial<RetentionPolicy>) : { ...NO_RETENTION };
}

/** A link's override from its settings JSON (`{}` when none). */
export function linkOverrideOf(settingsJson: string): LinkRetention {
  return ((JSON.parse(settingsJson) as { retention?: LinkRetention }).retention ?? {}) as LinkRetention;
}

/**
 * The policies of a workspace: one per link that overrides a field, and the workspace's own for
 * every other link (and for responses of deleted links). Inactive ones are left out.
 * @param override replaces one link's stored override (a dry run of a link's new settings)
 */
export async function scopedPolicies(
  db: Executor,
  workspaceUuid: string,
  workspace: RetentionPolicy,
  override?: { linkUuid: string; retention: LinkRetention },
): Promise<ScopedPolicy[]> {
  const out: ScopedPolicy[] = [];
  const overridden: string[] = [];
  for (const link of await repo.linkSettingsOf(db, workspaceUuid)) {
    const own = override?.linkUuid === link.uuid ? override.retention : linkOverrideOf(link.settings);
    if (!Object.values(own).some((v) => v !== undefined)) continue;
    overridden.push(link.uuid);
    const policy = effectivePolicy(workspace, own);
    if (!isInactive(policy)) out.push({ scope: { workspaceUuid, in: [link.uuid] }, policy });
  }
  if (!isInactive(workspace)) out.push({ scope: { workspaceUuid, notIn: overridden }, policy: workspace });
  return out;
}

const cutoffOf = (clock: Clock, days: number | null) => (days === null ? null : clock.isoAfter(-days * 86_400));

/** The blobs to drop from one answer under `policy` (its own recording, its follow-ups'), or null when none. */
function plannedDrop(a: repo.RecordingCandidate, policy: RetentionPolicy, audioCutoff: string | null) {
  const old = audioCutoff !== null && a.submitted_at < audioCutoff;
  const keys: string[] = [];
  const dropOwn = !!a.audio_blob && (old || (policy.delete_audio_after_transcription && a.transcription_status === "completed"));
  if (dropOwn) keys.push(a.audio_blob!);
  const followUps = JSON.parse(a.follow_ups) as { audio_blob?: string | null; transcription?: string | null }[];
  const kept = followUps.map((f) => {
    if (f.audio_blob && (old || (policy.delete_audio_after_transcription && typeof f.transcription === "string"))) {
      keys.push(f.audio_blob);
      return { ...f, audio_blob: null };
    }
    return f;
  });
  return keys.length ? { keys, audio_blob: dropOwn ? null : a.audio_blob, follow_ups: JSON.stringify(kept) } : null;
}

/** The response selections of a policy: by age, then by delivery. */
function responseSelectors(sp: ScopedPolicy, clock: Clock): ((q: Executor, limit: number) => Promise<string[]>)[] {
  const cutoff = cutoffOf(clock, sp.policy.delete_responses_after_days);
  return [
    ...(cutoff ? [(q: Executor, n: number) => repo.responsesSubmittedBefore(q, sp.scope, cutoff, n)] : []),
    ...(sp.policy.delete_after_delivery ? [(q: Executor, n: number) => repo.responsesDelivered(q, sp.scope, n)] : []),
  ];
}

const dropsAudio = (p: RetentionPolicy) => p.delete_audio_after_days !== null || p.delete_audio_after_transcription;

/**
 * What the policies would delete now, without writing (the dry run). Walks the same selections
 * as {@link applyPolicies}: responses first, then recordings of the responses that stay.
 */
export async function countPolicies(db: Kysely<Database>, clock: Clock, policies: ScopedPolicy[]): Promise<RetentionCounts> {
  const erased = new Set<string>();
  for (const sp of policies) for (const select of responseSelectors(sp, clock)) for (const uuid of await select(db, Number.MAX_SAFE_INTEGER)) erased.add(uuid);
  let recordings = 0;
  for (const sp of policies.filter((p) => dropsAudio(p.policy))) {
    const cutoff = cutoffOf(clock, sp.policy.delete_audio_after_days);
    for (let after = ""; ; ) {
      const page = await repo.answersWithRecordings(db, sp.scope, after, BATCH, sp.policy.delete_audio_after_transcription ? undefined : cutoff!);
      if (!page.length) break;
      after = page[page.length - 1]!.uuid;
      recordings += page.filter((a) => !erased.has(a.response_uuid) && plannedDrop(a, sp.policy, cutoff)).length;
    }
  }
  return { responses: erased.size, recordings };
}

/** Runs the policies: erases the selected responses and drops the selected recordings, batch by batch. */
export async function applyPolicies(deps: RetentionDeps, policies: ScopedPolicy[]): Promise<RetentionCounts> {
  const counts = { responses: 0, recordings: 0 };
  for (const sp of policies) {
    for (const select of responseSelectors(sp, deps.clock)) {
      for (;;) {
        // Selected inside the writing transaction (one writer at a time on both engines), so a
        // response another node erased meanwhile is not selected, and nothing is erased twice.
        const { n, keys } = await deps.db.transaction().execute(async (trx) => {
          const uuids = await select(trx, BATCH);
          const keys: string[] = [];
          for (const uuid of uuids) keys.push(...(await eraseResponseRows(trx, uuid)));
          return { n: uuids.length, keys };
        });
        for (const k of keys) await deps.blobs.delete(k);
        counts.responses += n;
        if (n < BATCH) break;
      }
    }
  }
  for (const sp of policies.filter((p) => dropsAudio(p.policy))) {
    const cutoff = cutoffOf(deps.clock, sp.policy.delete_audio_after_days);
    for (let after = ""; ; ) {
      const { last, keys, n } = await deps.db.transaction().execute(async (trx) => {
        const page = await repo.answersWithRecordings(trx, sp.scope, after, BATCH, sp.policy.delete_audio_after_transcription ? undefined : cutoff!);
        const keys: string[] = [];
        let n = 0;
        const now = deps.clock.nowIso();
        for (const a of page) {
          const drop = plannedDrop(a, sp.policy, cutoff);
          if (!drop) continue;
          await repo.dropRecording(trx, a.uuid, { audio_blob: drop.audio_blob, follow_ups: drop.follow_ups, audio_deleted_at: now });
          keys.push(...drop.keys);
          n++;
        }
        return { last: page.length ? page[page.length - 1]!.uuid : null, keys, n };
      });
      for (const k of keys) await deps.blobs.delete(k);
      counts.recordings += n;
      if (last === null) break;
      after = last;
    }
  }
  return counts;
}

/**
 * One retention run over every workspace, on one node at a time (a lease in `settings`; a node
 * that finds it held skips the run). Writes one audit entry per workspace where something was
 * deleted (`retention.applied`, actor `system`, the counts and the workspace policy in the label).
 * @returns counts per workspace uuid that had something deleted, or null when another node holds the lease
 */
export async function runRetention(deps: RetentionDeps): Promise<Map<string, RetentionCounts> | null> {
  const until = deps.clock.isoAfter(LEASE_S);
  const got = await deps.db.transaction().execute(async (trx) => {
    const held = await repo.leaseUntil(trx, LEASE_KEY);
    if (held && held > deps.clock.nowIso()) return false;
    await repo.setLease(trx, LEASE_KEY, until);
    return true;
  });
  if (!got) return null;
  const done = new Map<string, RetentionCounts>();
  try {
    for (const ws of await repo.workspacesWithRetention(deps.db)) {
      const workspace = parseWorkspacePolicy(ws.retention);
      const policies = await scopedPolicies(deps.db, ws.uuid, workspace);
      if (!policies.length) continue;
      const counts = await applyPolicies(deps, policies);
      if (!counts.responses && !counts.recordings) continue;
      done.set(ws.uuid, counts);
      await recordAudit(deps.db, {
        workspaceUuid: ws.uuid,
        actor: { type: "system", uuid: null, name: "retention" },
        action: "retention.applied",
        target: {
          type: "workspace",
          uuid: ws.uuid,
          label: `erased ${counts.responses} responses, dropped recordings of ${counts.recordings} answers; workspace policy ${JSON.stringify(workspace)}; ${policies.filter((p) => p.scope.in).length} link overrides`,
        },
        clientAddress: null,
      });
      deps.log?.info("retention applied", { workspace_uuid: ws.uuid, ...counts });
    }
  } finally {
    await repo.clearLease(deps.db, LEASE_KEY, until);
  }
  return done;
}
