/**
 * @module media/routes
 * `media/images/` (issue 26): an operator's image upload for image-choice cards (scope
 * `links:write`, so the console and any key holder alike), and its public delivery.
 */
import { Elysia } from "elysia";
import { mediaOps } from "./operations.ts";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin, routeOptions } from "../../http/auth-plugin.ts";
import { AppError, notFound } from "../../errors.ts";
import { findImage, storeImage } from "./images.ts";

/** Headers of a served image: its sniffed type, never re-sniffed or run, cached for good (a uuid's bytes never change). */
function imageHeaders(contentType: string, size: number): Record<string, string> {
  return {
    "content-type": contentType,
    "content-length": String(size),
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'; sandbox",
    "content-disposition": "inline",
    "cache-control": "public, max-age=31536000, immutable",
  };
}

export function mediaRoutes(deps: AppDeps) {
  return new Elysia({ name: "media" })
    .use(authPlugin(deps))
    .post(
      mediaOps.upload.path,
      async ({ body, set, auth }) => {
        // Binary bodies arrive as an ArrayBuffer (http/body.ts); JSON, text or multipart are not an image.
        if (!(body instanceof ArrayBuffer))
          throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send the image's bytes as the body (Content-Type: image/png, image/jpeg, image/webp or image/gif).");
        const image = await storeImage(deps.db, deps.config.publicUrl, auth.workspaceUuid, new Uint8Array(body));
        set.status = 201;
        return image;
      },
      routeOptions(mediaOps.upload),
    )
    .get(mediaOps.image.path, async ({ params }) => {
      const image = await findImage(deps.db, params.image_uuid);
      if (!image) throw notFound("Image");
      return new Response(image.bytes as BodyInit, { headers: imageHeaders(image.content_type, image.bytes.byteLength) });
    });
}
