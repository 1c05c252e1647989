/**
 * The embed kit (issue 29; docs/embedding.md): the origins a workspace allows to show its intake
 * pages in an iframe (`workspaces.embed_origins`, JSON array of origins such as
 * `["https://shop.example.com"]`, null when none). The intake page's CSP `frame-ancestors` and the
 * target of its `postMessage` events follow it (together with `EARSHOT_FRAME_ANCESTORS`).
 * Frozen: never edit, add a new migration instead.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("workspaces").addColumn("embed_origins", "text").execute();
}
