/**
 * @module workspaces/change-tag
 * The workspace's change tag behind the `ETag` of response lists, a response and a link's stats
 * (live updates, issue 11): one counter per workspace, raised by triggers on any change of links,
 * responses and answers (migration 2026-11-26T0100).
 */
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { AuthContext } from "../../auth/authenticate.ts";
import { sha256Hex } from "../../auth/sessions.ts";
import * as repo from "./repository.ts";

/**
 * The workspace's change version: its change counter (raised by triggers on any change of links,
 * responses and answers) and the hour, so signed `audio_url`s in a kept copy are renewed at least
 * hourly. Shape `"{counter}.{hour}"`; the same for everyone in the workspace (the stats cache key).
 */
export async function changeVersion(deps: { db: Kysely<Database> }, workspaceUuid: string): Promise<string> {
  const version = await repo.workspaceVersion(deps.db, workspaceUuid);
  return `${version}.${Math.floor(Date.now() / 3_600_000)}`;
}

/**
 * The weak `ETag` a caller sees for a {@link changeVersion}: `W/"{counter}.{hour}.{h}"`, where `h`
 * is 16 hex digits of sha256(workspace uuid, actor type, actor uuid). Counters of two workspaces
 * can be equal, and a shared cache or browser must not answer one caller with another's copy, so
 * the tag names whose copy it is (sent with `Vary: Cookie, Authorization`, http/conditional.ts).
 */
export function etagFor(auth: AuthContext, version: string): string {
  const who = sha256Hex(`${auth.workspaceUuid}\n${auth.actor.type}\n${auth.actor.uuid}`).slice(0, 16);
  return `W/"${version}.${who}"`;
}

/** {@link etagFor} of the workspace's current {@link changeVersion}: the tag of lists and a response. */
export async function changeTag(deps: { db: Kysely<Database> }, auth: AuthContext): Promise<string> {
  return etagFor(auth, await changeVersion(deps, auth.workspaceUuid));
}
