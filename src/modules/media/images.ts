/**
 * @module media/images
 * Images for image-choice cards uploaded by operators (issue 26; docs/api.md "Images"): the raw
 * bytes of one PNG, JPEG, WebP or GIF, judged by their magic bytes (never the declared type or a
 * name; SVG, which can carry script, is never accepted), at most {@link MAX_IMAGE_BYTES}. Stored
 * in `media_images` and served publicly (respondents load them) at an unguessable URL with the
 * sniffed type, `nosniff` and a sandboxing CSP.
 */
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../errors.ts";
import { nowIso } from "../../clock.ts";
import { MAX_IMAGE_BYTES } from "../../http/body.ts";
import { sniffFile } from "../../http/media.ts";

export { MAX_IMAGE_BYTES };

/** The accepted image types. */
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp", "image/gif"] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

/**
 * The image type of `bytes` by its signature (the `file-type` library, http/media.ts), or null when
 * it is anything but PNG, JPEG, WebP or GIF — SVG and other text never pass.
 */
export async function sniffImageType(bytes: Uint8Array): Promise<ImageType | null> {
  const { mime } = await sniffFile(bytes);
  return (IMAGE_TYPES as readonly string[]).includes(mime) ? (mime as ImageType) : null;
}

/** The public path of an image. */
export function imagePath(uuid: string): string {
  return `/api/v1/media/images/${uuid}/`;
}

/** What `POST media/images/` answers. */
export type UploadedImage = { uuid: string; url: string; content_type: ImageType; size: number; date_created: string };

/**
 * Stores an uploaded image for the workspace.
 * @param bytes the request body, already read within {@link MAX_IMAGE_BYTES}
 * @throws AppError VALIDATION_ERROR (empty body), UNSUPPORTED_MEDIA_TYPE (not PNG, JPEG, WebP or GIF)
 */
export async function storeImage(db: Kysely<Database>, publicUrl: string, workspaceUuid: string, bytes: Uint8Array): Promise<UploadedImage> {
  if (bytes.byteLength === 0)
    throw new AppError("VALIDATION_ERROR", "Send the image's bytes as the request body.", { errors: [{ pointer: "/", message: "Empty body." }] });
  const type = await sniffImageType(bytes);
  if (!type) throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Upload a PNG, JPEG, WebP or GIF image (judged by its bytes; SVG is not accepted).");
  const row = { uuid: crypto.randomUUID(), workspace_uuid: workspaceUuid, content_type: type, size: bytes.byteLength, bytes, date_created: nowIso() };
  await db.insertInto("media_images").values(row).execute();
  return { uuid: row.uuid, url: publicUrl + imagePath(row.uuid), content_type: type, size: row.size, date_created: row.date_created };
}

/**
 * An image's bytes and type for serving, or null when there is none with this uuid.
 */
export async function findImage(db: Kysely<Database>, uuid: string): Promise<{ content_type: string; bytes: Uint8Array } | null> {
  if (!/^[0-9a-f-]{36}$/.test(uuid)) return null;
  const row = await db.selectFrom("media_images").select(["content_type", "bytes"]).where("uuid", "=", uuid).executeTakeFirst();
  return row ? { content_type: row.content_type, bytes: new Uint8Array(row.bytes) } : null;
}
