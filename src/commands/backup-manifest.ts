/**
 * @module commands/backup-manifest
 * The `manifest.json` of an Earshot backup archive (DESIGN §14; docs/operations.md "Backup and
 * restore"), and the names an archive may hold. An archive is a plain tar file:
 *
 *   earshot.db           the database snapshot (SQLite, `VACUUM INTO`)
 *   blobs/<prefix>/<uuid> every recording and file the snapshot references, once each
 *   manifest.json        last, because it carries the SHA-256 of everything before it
 */
import { z } from "zod";
import packageJson from "../../package.json" with { type: "json" };
import { KEY_PATTERN } from "../blobs/bytes.ts";
import { COUNTED_TABLES } from "../db/backup.ts";

/** The version of this Earshot (package.json's, embedded by the build). */
export const EARSHOT_VERSION: string = packageJson.version;
/** Archive entry names. */
export const DATABASE_ENTRY = "earshot.db";
export const MANIFEST_ENTRY = "manifest.json";
export const BLOB_ENTRY_PREFIX = "blobs/";
/** A manifest larger than this is refused unread (about 3 million blobs). */
export const MANIFEST_MAX_BYTES = 512 * 1024 * 1024;
/** The format this code writes; a restore refuses another. */
export const ARCHIVE_FORMAT = "earshot-backup/1";

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const size = z.number().int().nonnegative();

export const manifestSchema = z.object({
  format: z.literal(ARCHIVE_FORMAT),
  earshot_version: z.string(),
  /** The newest migration applied to the snapshot: a restore needs an Earshot that knows it. */
  migration: z.string().nullable(),
  created_at: z.string(),
  database: z.object({ size, sha256 }),
  counts: z.object(Object.fromEntries(COUNTED_TABLES.map((t) => [t, size])) as Record<(typeof COUNTED_TABLES)[number], typeof size>),
  blobs: z.object({ count: size, bytes: size }),
  /** Referenced by the snapshot but erased while the backup ran and not held (see docs): not in the archive. */
  erased_during_backup: z.array(z.string().regex(KEY_PATTERN)),
  files: z.array(z.object({ key: z.string().regex(KEY_PATTERN), size, sha256 })),
});
export type Manifest = z.infer<typeof manifestSchema>;

/** The archive entry of a blob key. */
export function blobEntry(key: string): string {
  return BLOB_ENTRY_PREFIX + key;
}

/** The blob key of an entry name, or null when the name is not a blob's. */
export function keyOfEntry(name: string): string | null {
  if (!name.startsWith(BLOB_ENTRY_PREFIX)) return null;
  const key = name.slice(BLOB_ENTRY_PREFIX.length);
  return KEY_PATTERN.test(key) ? key : null;
}
